//! Lower-case phrases that identify a failure family when the error code alone does not.
//! Each list names where the wording comes from.

/// Terraform state locking (`internal/command/clistate`, backend lock errors).
/// Terraform refusing a saved plan whose state moved on (`Error: Saved plan is stale`).
pub const PLAN_STALE: &[&str] = &[
    "saved plan is stale",
    "plan file can no longer be applied because the state was changed",
];

pub const STATE_LOCK: &[&str] = &[
    "error acquiring the state lock",
    "error releasing the state lock",
    "error locking state",
    "state blob is already locked",
    "lock info:",
];

/// Throttling as worded by AWS services and relays (EC2 request throttling guide, KMS quotas,
/// Lambda relaying EC2's `RequestLimitExceeded`).
pub const THROTTLED: &[&str] = &[
    "rate exceeded",
    "request limit exceeded",
    "has been throttled",
    "throttled by",
    "throttling",
    "too many requests",
    "exceeded the rate",
    "please reduce your request rate",
    "slow down",
    "exceeded your maximum allowed request rate",
];

/// Credential failures of the caller (STS common errors, provider `configure` errors).
pub const CREDENTIALS: &[&str] = &[
    "security token included in the request is invalid",
    "security token included in the request is expired",
    "the provided token has expired",
    "request has expired",
    "no valid credential sources",
    "nocredentialproviders",
    "failed to refresh cached credentials",
    "failed to retrieve credentials",
    "error validating provider credentials",
    "unable to locate credentials",
    "aws access key id you provided does not exist",
    "request signature we calculated does not match",
    "sso session associated with this profile has expired",
    "the sso session has expired",
    "was not able to validate the provided access credentials",
    "invalidclienttokenid",
    "expiredtoken",
];

/// The provider failing to assume its own role: a session problem, not a resource's.
pub const PROVIDER_ASSUME_ROLE: &[&str] = &[
    "cannot assume iam role",
    "operation error sts: assumerole",
    "operation error sts: assumerolewithwebidentity",
    "error configuring terraform aws provider",
    "failed to get shared config profile",
    "the credentials used in order to assume the role are invalid",
];

/// Wordings AWS and the AWS provider document as IAM eventual consistency: a role, instance
/// profile or policy created moments ago is not usable yet by the service it was passed to.
/// Sources: IAM troubleshooting "changes that I make are not always immediately visible"
/// (<https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_general.html#troubleshoot_general_eventual-consistency>),
/// EC2 "Invalid IAM Instance Profile name" guidance, and the propagation retries of
/// hashicorp/terraform-provider-aws (Lambda, ECS, EventBridge, RDS/Neptune, Firehose, Glue,
/// CodeBuild, Bedrock, Redshift Serverless, Batch).
pub const PROPAGATION: &[&str] = &[
    "invalid iam instance profile",
    "could not be assumed",
    "can not be assumed",
    "unable to assume",
    "could not assume",
    "not able to assume",
    "has no associated iam roles",
    "cannot assume role",
    "can't assume role",
    "not authorized to assume",
    "is not authorized to perform: sts:assumerole on arn",
    "iam role arn value is invalid or does not include the required permissions",
    "the iam role must delegate access",
    "lambda was unable to configure access to your environment variables because the kms key is invalid for creategrant",
    "please verify the role being passed has the proper permissions",
    "verify that the iam role has access",
    "verify role's trustpolicy",
    "authentication failure. launching ec2 instance failed",
    "root object was present, but now absent",
];

/// A service rejecting a role it was handed because the role's *trust policy* does not name the
/// service (Lambda `The role defined for the function cannot be assumed by Lambda`, EventBridge
/// `Provided role … cannot be assumed by principal 'events.amazonaws.com'`): a value to fix, unless
/// the role was created moments earlier in the same apply (then `apply_freshness` says
/// propagation).
pub const TRUST_REJECTED: &[&str] = &["cannot be assumed by"];

/// A service saying the role it runs as lacks a permission (Lambda `The provided execution role
/// does not have permissions to call CreateNetworkInterface on EC2`, EMR `Service role … has
/// insufficient EC2 permissions`, Lambda event sources `Please ensure the role can perform …`,
/// Lake Formation grants; `has insufficient … permissions` is matched in `rules`). The role's policy is what to fix; only a role or grant created earlier
/// in the same apply makes it possibly propagation (`apply_freshness`).
pub const SERVICE_ROLE_LACKS: &[&str] = &[
    "execution role does not have permission",
    "execution role have permission",
    "ensure the role can perform",
    "ensure that the role specified",
    "insufficient lake formation permission",
];

/// Phrases that, inside a validation-coded error, show the service could not *use* a role or
/// credentials it was handed (the role is new, or its policy is not attached yet).
pub const RELAYED_ROLE_PROBLEM: &[&str] = &[
    "not authorized to perform",
    "security token included in the request is invalid",
    "does not have permission",
    "does not have the required permission",
    "do not have permission",
    "insufficient permissions",
    "has access to",
    "have access to",
    "verify the role",
    "role's trust",
    "trust relationship",
];

/// Permission wording from IAM (`is not authorized to perform`), EC2
/// (`You are not authorized to perform this operation`), EKS (`missing permissions for`),
/// S3 (`Access Denied`) and KMS key policies.
pub const PERMISSION: &[&str] = &[
    "is not authorized to perform",
    "not authorized to perform",
    "you are not authorized to perform this operation",
    "missing permissions for",
    "access denied",
    "accessdenied",
    "with an explicit deny",
    "encoded authorization failure message",
    "does not have permission to",
    "do not have permission to",
    "insufficient permissions",
    "lake formation permission",
    "user is not authorized",
    "not authorized to access",
    "not have iam permission",
];

/// Concurrent operations on the same resource.
pub const CONFLICT: &[&str] = &[
    "is in progress",
    "already in progress",
    "currently in progress",
    "still processing a prior request",
    "conflicting conditional operation",
    "concurrent modification",
    "concurrently modified",
    "another operation",
    "separate request to update",
    "update is in progress",
    "is currently being modified",
    "is currently being updated",
    "operation is pending",
    "pending operation",
];

pub const ALREADY_EXISTS: &[&str] = &[
    "already exists",
    "already exist",
    "already been taken",
    "duplicate security group rule",
    "a duplicate",
    "is already in use by another",
    "with this name is already",
];

pub const DEPENDENCY: &[&str] = &[
    "has dependencies",
    "dependent object",
    "has a dependent",
    "dependencies and cannot be deleted",
    "still in use",
    "is in use",
    "currently in use",
    "is being used by",
    "must detach",
    "must be detached",
    "still attached",
    "still referenced",
    "is not empty",
    "please unmap those public address",
    "cannot be deleted while",
];

pub const QUOTA: &[&str] = &[
    "limit exceeded",
    "limitexceeded",
    "exceed quota",
    "exceeded quota",
    "reached your quota",
    "reached the quota",
    "quota exceeded",
    "maximum number of",
    "reached the maximum",
    "current vcpu limit",
    "request an adjustment to this limit",
    "service quota",
];

pub const CAPACITY: &[&str] = &[
    "insufficient capacity",
    "do not have sufficient",
    "does not have sufficient capacity",
    "not supported in your requested availability zone",
    "is not supported in the requested availability zone",
    "capacity-not-available",
    "insufficient instance capacity",
    "no spot capacity",
    "sufficient capacity",
    "not supported in your requested availability zone",
    "availability zone is currently constrained",
    "requested configuration is currently not supported",
];

pub const NOT_FOUND: &[&str] = &[
    "does not exist",
    "do not exist",
    "not found",
    "cannot be found",
    "could not be found",
    "couldn't find resource",
    "no such",
    "unable to find",
    "non-existent",
];

/// Terraform and provider waiters timing out.
pub const TIMEOUT: &[&str] = &[
    "timeout while waiting",
    "timed out",
    "context deadline exceeded",
    "deadline exceeded",
    "exceeded wait attempts",
    "i/o timeout",
];

/// Terraform's own configuration diagnostics (no API call was made).
pub const TERRAFORM_CONFIG: &[&str] = &[
    "unsupported argument",
    "missing required argument",
    "unsupported block type",
    "unsupported attribute",
    "reference to undeclared",
    "invalid reference",
    "invalid for_each argument",
    "invalid count argument",
    "incorrect attribute value type",
    "invalid function argument",
    "call to unknown function",
    "duplicate resource",
    "module not installed",
    "missing required provider",
    "inconsistent dependency lock file",
    "invalid value for variable",
    "no value for required variable",
    "argument or block definition required",
    "invalid expression",
    "unclosed configuration block",
    "invalid block definition",
    "value for unconfigurable attribute",
];

/// Client-side request validation of an SDK or CLI (no code, no status).
pub const REQUEST_VALIDATION: &[&str] = &[
    "parameter validation failed",
    "validation error(s) found",
    "failed to satisfy constraint",
];

/// Provider-side schema validation (plan time, before any API call).
pub const PROVIDER_VALIDATION: &[&str] = &[
    "expected ",
    "must be a valid",
    "invalid value for",
    "conflicts with",
    "\"only one of",
    "one of `",
    "is not a valid",
];

pub fn any(haystack: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| haystack.contains(n))
}
