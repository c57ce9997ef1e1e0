//! What AWS error codes mean, by family. Sources: the error-code pages of each service, e.g.
//! EC2 <https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html>,
//! IAM <https://docs.aws.amazon.com/IAM/latest/APIReference/CommonErrors.html>,
//! S3 <https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html>,
//! STS <https://docs.aws.amazon.com/STS/latest/APIReference/CommonErrors.html>,
//! Lambda, ELBv2, RDS, KMS, EKS API references ("Errors" section of each action).

use super::Category;

const THROTTLING: &[&str] = &[
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestLimitExceeded",
    "RequestLimitExceededException",
    "TooManyRequestsException",
    "TooManyRequests",
    "RequestThrottled",
    "RequestThrottledException",
    "SlowDown",
    "ProvisionedThroughputExceededException",
    "BandwidthLimitExceeded",
    "EC2ThrottledException",
    "PriorRequestNotCompleteThrottling",
];

const CREDENTIALS: &[&str] = &[
    "ExpiredToken",
    "ExpiredTokenException",
    "InvalidClientTokenId",
    "UnrecognizedClientException",
    "SignatureDoesNotMatch",
    "InvalidAccessKeyId",
    "AuthFailure",
    "MissingAuthenticationToken",
    "MissingAuthenticationTokenException",
    "IncompleteSignature",
    "IncompleteSignatureException",
    "InvalidSignatureException",
    "RequestExpired",
    "InvalidToken",
    "TokenRefreshRequired",
    "InvalidIdentityToken",
    "IDPCommunicationError",
    "IDPRejectedClaim",
    "InvalidSecurity",
];

const PERMISSION: &[&str] = &[
    "AccessDenied",
    "AccessDeniedException",
    "UnauthorizedOperation",
    "AuthorizationError",
    "AuthorizationErrorException",
    "AuthorizationException",
    "UnauthorizedAccess",
    "UnauthorizedException",
    "UnauthorizedAccessException",
    "Forbidden",
    "ForbiddenException",
    "NotAuthorized",
    "NotAuthorizedException",
    "InsufficientPermissions",
    "InsufficientPermissionsException",
    "InsufficientPrivilegesException",
    "AccessDeniedForDependencyException",
    "AllAccessDisabled",
    "KMSAccessDeniedException",
    "KMS.AccessDeniedException",
];

/// Codes whose name says little: the message wording decides first.
const GENERIC: &[&str] = &[
    "ValidationError",
    "ValidationException",
    "InvalidParameterValue",
    "InvalidParameterValueException",
    "InvalidParameter",
    "InvalidParameterException",
    "InvalidParameterCombination",
    "InvalidInput",
    "InvalidInputException",
    "InvalidRequest",
    "InvalidRequestException",
    "InvalidArgument",
    "InvalidArgumentException",
    "BadRequest",
    "BadRequestException",
    "ClientException",
    "ServerException",
    "ResourceInUse",
    "ResourceInUseException",
    "ResourceConflictException",
    "ConflictException",
    "Conflict",
    "OperationNotPermitted",
    "OperationNotPermittedException",
    "UnsupportedOperation",
    "UnsupportedOperationException",
    "Unsupported",
    "InvalidQueryParameter",
    "AsgInstanceLaunchFailures",
    "InvalidChangeBatch",
    "InternalFailure",
    "InternalError",
    "ServiceUnavailable",
    "ServiceUnavailableException",
];

/// Validation-family codes a service uses to reject a *passed* value (role, profile, key...).
const VALIDATION: &[&str] = &[
    "ValidationError",
    "ValidationException",
    "InvalidParameterValue",
    "InvalidParameterValueException",
    "InvalidParameter",
    "InvalidParameterException",
    "InvalidInput",
    "InvalidInputException",
    "InvalidRequest",
    "InvalidRequestException",
    "InvalidArgument",
    "InvalidArgumentException",
    "BadRequestException",
    "ClientException",
];

pub fn is_throttling(code: &str) -> bool {
    THROTTLING.contains(&code)
}

pub fn is_credentials(code: &str) -> bool {
    CREDENTIALS.contains(&code)
}

pub fn is_permission(code: &str) -> bool {
    PERMISSION.contains(&code)
}

pub fn is_generic(code: &str) -> bool {
    GENERIC.contains(&code) || is_async_status_code(code) || is_loose_invalid(code)
}

/// `InvalidSNSDestination`, `InvalidRoleException`, `InvalidBucketName`: a service-specific
/// "invalid" code whose message says more (`… not found`, `… already exists`). EC2's dotted codes
/// (`InvalidGroup.NotFound`) and the `Invalid…State` family are specific and stay so.
fn is_loose_invalid(code: &str) -> bool {
    code.starts_with("Invalid")
        && !code.contains('.')
        && !code.ends_with("State")
        && !code.ends_with("StateFault")
        && !code.ends_with("StateException")
}

pub fn is_validation(code: &str) -> bool {
    VALIDATION.contains(&code)
}

/// `CLIENT_ERROR`, `CREATE_PRIVATE_LINK_FAILED`: status codes of asynchronous operations.
pub fn is_async_status_code(code: &str) -> bool {
    code.contains('_')
}

pub fn is_no_such_entity(code: &str) -> bool {
    code == "NoSuchEntity" || code == "NoSuchEntityException"
}

/// The category of a generic code whose message wording named nothing more specific.
pub fn generic_fallback(code: &str) -> Category {
    if is_validation(code)
        || code.starts_with("Invalid")
        || code.starts_with("Unsupported")
        || code.starts_with("OperationNotPermitted")
        || code.starts_with("BadRequest")
    {
        Category::InvalidRequest
    } else if code.starts_with("ResourceInUse") || code.contains("Conflict") {
        Category::Conflict
    } else {
        Category::Unknown
    }
}

/// The category a specific (non-generic) code stands for, from its documented meaning.
pub fn category_of_code(code: &str) -> Option<Category> {
    if is_throttling(code) {
        return Some(Category::Throttled);
    }
    if is_credentials(code) {
        return Some(Category::CredentialsInvalid);
    }
    if is_permission(code) {
        return Some(Category::PermissionMissing);
    }
    if is_generic(code) {
        return None;
    }
    SPECIFIC_CODES
        .iter()
        .find(|(names, _)| names(code))
        .map(|(_, category)| *category)
}

/// Families of specific codes, in the order they are tried: the first that names a code
/// gives its category.
/// Whether a code belongs to one family.
type NamesFamily = fn(&str) -> bool;

const SPECIFIC_CODES: [(NamesFamily, Category); 8] = [
    (names_already_exists, Category::AlreadyExists),
    (names_quota, Category::QuotaExceeded),
    (names_capacity, Category::CapacityUnavailable),
    (names_dependency, Category::DependencyViolation),
    (names_conflict, Category::Conflict),
    (names_not_found, Category::NotFound),
    (names_timeout, Category::Timeout),
    (names_invalid_request, Category::InvalidRequest),
];

fn names_already_exists(code: &str) -> bool {
    code.contains("AlreadyExists")
        || code.contains("AlreadyOwnedByYou")
        || code.ends_with(".Duplicate")
        || code.starts_with("Duplicate")
        || matches!(
            code,
            "ResourceExistsException" | "InvalidSubnet.Conflict" | "EntityAlreadyExistsException"
        )
}

fn names_quota(code: &str) -> bool {
    code.contains("LimitExceeded")
        || code.contains("QuotaExceeded")
        || code.contains("QuotaForCustomerExceeded")
        || code.starts_with("TooMany")
        || code == "MaxSpotInstanceCountExceeded"
}

fn names_capacity(code: &str) -> bool {
    (code.starts_with("Insufficient") && code.contains("Capacity"))
        || matches!(
            code,
            "InsufficientFreeAddressesInSubnet"
                | "UnsupportedAvailabilityZoneException"
                | "UnfulfillableCapacity"
        )
}

fn names_dependency(code: &str) -> bool {
    code.ends_with("InUse")
        || code.contains("HasDependencies")
        || matches!(
            code,
            "DependencyViolation" | "DeleteConflict" | "DeleteConflictException" | "BucketNotEmpty"
        )
}

fn names_conflict(code: &str) -> bool {
    matches!(
        code,
        "OperationAborted"
            | "ConcurrentModification"
            | "ConcurrentModificationException"
            | "ConcurrentUpdateException"
            | "OperationInProgressException"
            | "OperationInProgress"
            | "PriorRequestNotComplete"
            | "IncorrectState"
            | "IncorrectInstanceState"
            | "PreconditionFailed"
            | "PreconditionFailedException"
            | "ConditionalCheckFailedException"
            | "ConditionalRequestConflict"
            | "ResourcePendingException"
            | "TransactionConflictException"
            | "ResourceNotReadyException"
            | "InvalidStateException"
            | "InvalidState"
            | "OptimisticLockException"
            | "InvalidChangeBatch.Conflict"
    ) || (code.starts_with("Invalid") && (code.ends_with("StateFault") || code.ends_with("State")))
        || code.ends_with("InProgress")
        || code.ends_with("InProgressException")
}

fn names_not_found(code: &str) -> bool {
    is_no_such_entity(code)
        || code.starts_with("NoSuch")
        || code.ends_with("NotFound")
        || code.ends_with("NotFoundException")
        || code.ends_with("NotFoundFault")
        || code.ends_with(".Unavailable")
}

fn names_timeout(code: &str) -> bool {
    matches!(
        code,
        "RequestTimeout" | "RequestTimeoutException" | "ResourceNotReady" | "TimeoutError"
    )
}

fn names_invalid_request(code: &str) -> bool {
    code.starts_with("Invalid")
        || code.starts_with("Missing")
        || code.contains("Malformed")
        || code.starts_with("Unsupported")
        || code.starts_with("Illegal")
        || code.contains("NotSupported")
        || code.starts_with("NotUpdatable")
        || code.contains("TooLarge")
        || matches!(
            code,
            "SerializationException"
                | "IdempotentParameterMismatch"
                | "OptInRequired"
                | "InvalidPolicyDocument"
                | "EntityTemporarilyUnmodifiable"
                | "UnknownParameter"
                | "TagException"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Code meanings from the services' documented error-code tables (module doc).
    #[test]
    fn specific_codes_map_to_their_documented_meaning() {
        let cases = [
            ("RequestLimitExceeded", Some(Category::Throttled)),
            ("ExpiredToken", Some(Category::CredentialsInvalid)),
            ("UnauthorizedOperation", Some(Category::PermissionMissing)),
            ("EntityAlreadyExists", Some(Category::AlreadyExists)),
            ("BucketAlreadyOwnedByYou", Some(Category::AlreadyExists)),
            ("InvalidPermission.Duplicate", Some(Category::AlreadyExists)),
            ("VcpuLimitExceeded", Some(Category::QuotaExceeded)),
            ("TooManyTargetGroups", Some(Category::QuotaExceeded)),
            (
                "ServiceQuotaExceededException",
                Some(Category::QuotaExceeded),
            ),
            ("DBInstanceQuotaExceeded", Some(Category::QuotaExceeded)),
            (
                "InsufficientInstanceCapacity",
                Some(Category::CapacityUnavailable),
            ),
            (
                "InsufficientCacheClusterCapacity",
                Some(Category::CapacityUnavailable),
            ),
            ("DependencyViolation", Some(Category::DependencyViolation)),
            ("InvalidGroup.InUse", Some(Category::DependencyViolation)),
            ("BucketNotEmpty", Some(Category::DependencyViolation)),
            ("OperationAborted", Some(Category::Conflict)),
            ("InvalidDBInstanceStateFault", Some(Category::Conflict)),
            ("InvalidDBInstanceState", Some(Category::Conflict)),
            ("InvalidKeyPair.NotFound", Some(Category::NotFound)),
            ("NoSuchBucket", Some(Category::NotFound)),
            ("ResourceNotFoundException", Some(Category::NotFound)),
            ("DBSubnetGroupNotFoundFault", Some(Category::NotFound)),
            ("MalformedPolicyDocument", Some(Category::InvalidRequest)),
            ("InvalidAMIID.Malformed", Some(Category::InvalidRequest)),
            ("InvalidBucketName", None),
            (
                "IllegalLocationConstraintException",
                Some(Category::InvalidRequest),
            ),
            (
                "StateMachineTypeNotSupported",
                Some(Category::InvalidRequest),
            ),
            (
                "AuthorizationHeaderMalformed",
                Some(Category::InvalidRequest),
            ),
            ("ConditionalCheckFailedException", Some(Category::Conflict)),
            ("ValidationError", None),
            ("ResourceInUseException", None),
            ("CLIENT_ERROR", None),
            ("SomethingNew", None),
        ];
        for (code, want) in cases {
            assert_eq!(category_of_code(code), want, "{code}");
        }
        let fallbacks = [
            ("InvalidParameterCombination", Category::InvalidRequest),
            ("InvalidBucketName", Category::InvalidRequest),
            ("ValidationError", Category::InvalidRequest),
            ("UnsupportedOperation", Category::InvalidRequest),
            ("ResourceInUseException", Category::Conflict),
            ("ConflictException", Category::Conflict),
            ("InternalError", Category::Unknown),
            ("CLIENT_ERROR", Category::Unknown),
        ];
        for (code, want) in fallbacks {
            assert_eq!(generic_fallback(code), want, "{code}");
        }
    }
}
