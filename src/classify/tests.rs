//! Table tests per category. Texts are hand-written in the wording AWS documents for each error
//! (page cited above each table) wrapped the way the AWS provider prints it; ids, accounts and
//! request ids are made up.

use super::*;

struct Case {
    text: &'static str,
    category: Category,
    code: Option<&'static str>,
    action: Option<&'static str>,
}

const fn case(
    text: &'static str,
    category: Category,
    code: Option<&'static str>,
    action: Option<&'static str>,
) -> Case {
    Case {
        text,
        category,
        code,
        action,
    }
}

fn check(cases: &[Case]) {
    for c in cases {
        let got = classify(c.text, &ClassifyContext::default());
        assert_eq!(got.category, c.category, "category of: {}", c.text);
        assert_eq!(got.aws_code.as_deref(), c.code, "code of: {}", c.text);
        assert_eq!(got.iam_action.as_deref(), c.action, "action of: {}", c.text);
    }
}

use Category::*;

// https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html
// https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html (UnauthorizedOperation)
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html (AccessDenied "Access Denied")
// https://docs.aws.amazon.com/kms/latest/developerguide/troubleshooting-key-policies.html
// https://docs.aws.amazon.com/eks/latest/userguide/service-linked-roles.html (service-linked role wording)
#[test]
fn permission_missing() {
    check(&[
        case("creating EC2 Instance: operation error EC2: RunInstances, https response error StatusCode: 403, RequestID: 0e8c3a11-1a2b-4c5d-8e9f-001122334455, api error UnauthorizedOperation: You are not authorized to perform this operation. User: arn:aws:sts::111122223333:assumed-role/tfgate-apply/run-1 is not authorized to perform: ec2:RunInstances on resource: arn:aws:ec2:us-east-1:111122223333:instance/* because no identity-based policy allows the ec2:RunInstances action. Encoded authorization failure message: T-kSWIRFabc_def-ghi", PermissionMissing, Some("UnauthorizedOperation"), Some("ec2:RunInstances")),
        case("reading S3 Bucket (logs): operation error S3: HeadBucket, https response error StatusCode: 403, RequestID: 4Q2ZV7KXW2M9, HostID: abc=, api error Forbidden: Forbidden", PermissionMissing, Some("Forbidden"), Some("s3:ListBucket")),
        case("Error putting S3 policy: AccessDenied: Access Denied\n\tstatus code: 403, request id: 8F5A9C2B1D3E4F60, host id: xyz=", PermissionMissing, Some("AccessDenied"), None),
        case("creating KMS Alias: operation error KMS: CreateAlias, https response error StatusCode: 400, RequestID: 2f1e0d9c-8b7a-6543-2109-fedcba987654, api error AccessDeniedException: User: arn:aws:sts::111122223333:assumed-role/tfgate-apply/run-1 is not authorized to perform: kms:CreateAlias on resource: arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab because no resource-based policy allows the kms:CreateAlias action", PermissionMissing, Some("AccessDeniedException"), Some("kms:CreateAlias")),
        case("creating EKS Node Group (c:ng): operation error EKS: CreateNodegroup, https response error StatusCode: 400, RequestID: 9a8b7c6d-5e4f-3a2b-1c0d-9e8f7a6b5c4d, InvalidRequestException: Failed to validate if SLR: AWSServiceRoleForAmazonEKSNodegroup already exists due to missing permissions for 'iam:GetRole'", PermissionMissing, Some("InvalidRequestException"), Some("iam:GetRole")),
        case("creating Lambda Function (f): operation error Lambda: CreateFunction, https response error StatusCode: 403, RequestID: 5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d, api error AccessDeniedException: User: arn:aws:sts::111122223333:assumed-role/tfgate-apply/run-1 is not authorized to perform: iam:PassRole on resource: arn:aws:iam::111122223333:role/fn because no identity-based policy allows the iam:PassRole action", PermissionMissing, Some("AccessDeniedException"), Some("iam:PassRole")),
        case("creating SNS Topic (t): AuthorizationError: User: arn:aws:iam::111122223333:user/ci is not authorized to perform: SNS:CreateTopic on resource: arn:aws:sns:us-east-1:111122223333:t because no identity-based policy allows the SNS:CreateTopic action\n\tstatus code: 403, request id: 0a1b2c3d-4e5f-6789-abcd-ef0123456789", PermissionMissing, Some("AuthorizationError"), Some("sns:CreateTopic")),
        case("reading IAM Role (r): operation error IAM: GetRole, https response error StatusCode: 403, RequestID: 6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d, api error AccessDenied: User: arn:aws:sts::111122223333:assumed-role/tfgate-apply/run-1 is not authorized to perform: iam:GetRole on resource: role r with an explicit deny in a service control policy: arn:aws:organizations::999988887777:policy/o-abc/service_control_policy/p-123.", PermissionMissing, Some("AccessDenied"), Some("iam:GetRole")),
        // No action named: derived from the operation for permission failures.
        case("creating CloudWatch Logs Log Group (g): operation error CloudWatch Logs: CreateLogGroup, https response error StatusCode: 400, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, api error AccessDeniedException: Access denied", PermissionMissing, Some("AccessDeniedException"), Some("logs:CreateLogGroup")),
        case("An error occurred (AccessDenied) when calling the CreateBucket operation: Access Denied", PermissionMissing, Some("AccessDenied"), None),
    ]);
}

#[test]
fn deny_kind_request_id_and_encoded_message_are_reported() {
    let c = classify(
        "operation error IAM: CreateRole, https response error StatusCode: 403, RequestID: 6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d, api error AccessDenied: User: arn:aws:sts::111122223333:assumed-role/a/b is not authorized to perform: iam:CreateRole on resource: arn:aws:iam::111122223333:role/x with an explicit deny in a permissions boundary",
        &ClassifyContext::default(),
    );
    assert_eq!(c.deny_kind, Some(DenyKind::ExplicitPermissionsBoundary));
    assert_eq!(
        c.request_id.as_deref(),
        Some("6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d")
    );
    assert_eq!(c.operation.as_deref(), Some("iam:CreateRole"));
    assert!(!c.encoded_authorization_message);
    let c = classify("UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message: abcDEF-123_x\n\tstatus code: 403, request id: 0e8c3a11-1a2b-4c5d-8e9f-001122334455", &ClassifyContext::default());
    assert_eq!(c.category, PermissionMissing);
    assert!(c.encoded_authorization_message);
    assert_eq!(c.status_code, Some(403));
    assert_eq!(c.deny_kind, None);
}

// https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_general.html#troubleshoot_general_eventual-consistency
// https://docs.aws.amazon.com/lambda/latest/dg/troubleshooting-deployment.html ("cannot be assumed by Lambda")
// https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/iam-roles-for-amazon-ec2.html (instance profile propagation)
// https://docs.aws.amazon.com/eks/latest/userguide/cluster-iam-role.html
// https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-troubleshooting.html
#[test]
fn propagation_delay_by_wording() {
    check(&[
        case("creating Lambda Function (f): operation error Lambda: CreateFunction, https response error StatusCode: 400, RequestID: 0d1c2b3a-4f5e-6d7c-8b9a-0f1e2d3c4b5a, InvalidParameterValueException: The role defined for the function cannot be assumed by Lambda.", InvalidRequest, Some("InvalidParameterValueException"), None),
        case("creating EC2 Instance: operation error EC2: RunInstances, https response error StatusCode: 400, RequestID: 7c6b5a4d-3e2f-1a0b-9c8d-7e6f5a4b3c2d, api error InvalidParameterValue: Value (web-profile) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name", PropagationDelay, Some("InvalidParameterValue"), None),
        case("creating EKS Cluster (c): operation error EKS: CreateCluster, https response error StatusCode: 400, RequestID: 3c2b1a0d-9e8f-7a6b-5c4d-3e2f1a0b9c8d, InvalidParameterException: Role with arn: arn:aws:iam::111122223333:role/eks-cluster could not be assumed because it does not exist or the trusted entity is not correct", PropagationDelay, Some("InvalidParameterException"), None),
        case("creating EventBridge Rule (r): ValidationException: Provided role 'arn:aws:iam::111122223333:role/ev' cannot be assumed by principal 'events.amazonaws.com'.", InvalidRequest, Some("ValidationException"), None),
        case("attaching IAM Policy (arn:aws:iam::111122223333:policy/p) to IAM Role (r): operation error IAM: AttachRolePolicy, https response error StatusCode: 404, RequestID: 1f2e3d4c-5b6a-7980-a1b2-c3d4e5f6a7b8, NoSuchEntity: The role with name r cannot be found.", PropagationDelay, Some("NoSuchEntity"), None),
        case("creating RDS DB Instance (db): InvalidParameterValue: IAM role ARN value is invalid or does not include the required permissions for: ENHANCED_MONITORING\n\tstatus code: 400, request id: 2b3c4d5e-6f70-8192-a3b4-c5d6e7f8a9b0", PropagationDelay, Some("InvalidParameterValue"), None),
        case("creating ECS Service (s): ClientException: ECS was unable to assume the role 'arn:aws:iam::111122223333:role/ecs-svc' that was provided for this task. Please verify that the role being passed has the proper trust relationship and permissions", PropagationDelay, Some("ClientException"), None),
        case("waiting for Auto Scaling Group (asg) capacity satisfied: scaling activity (5f4e3d2c-1b0a-9f8e-7d6c-5b4a3f2e1d0c): Failed: Authentication Failure. Launching EC2 instance failed.", PropagationDelay, None, None),
        case("creating Lambda Function (f): InvalidParameterValueException: The provided execution role does not have permissions to call CreateNetworkInterface on EC2", PermissionMissing, Some("InvalidParameterValueException"), Some("ec2:CreateNetworkInterface")),
        case("Provider produced inconsistent result after apply\nWhen applying changes to aws_iam_role_policy.p, provider \"provider[\\\"registry.terraform.io/hashicorp/aws\\\"]\" produced an unexpected new value: Root object was present, but now absent.", PropagationDelay, None, None),
        // Without a role created earlier in the apply, these three name their own fix (the
        // trust policy, the role's policy); `role_shapes_are_propagation_only_when_fresh`.
        // A role ARN passed as a profile name never becomes valid.
        case("Error launching source instance: InvalidParameterValue: Value (arn:aws:iam::111122223333:role/web) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name", InvalidRequest, Some("InvalidParameterValue"), None),
    ]);
}

#[test]
fn propagation_delay_from_context() {
    let sg = "creating EC2 Instance: InvalidGroup.NotFound: The security group 'sg-0abc1234def567890' does not exist in VPC 'vpc-1'\n\tstatus code: 400, request id: 0e8c3a11-1a2b-4c5d-8e9f-001122334455";
    let fresh = ClassifyContext {
        fresh_identifiers: vec!["sg-0abc1234def567890".into()],
        ..Default::default()
    };
    assert_eq!(classify(sg, &ClassifyContext::default()).category, NotFound);
    assert_eq!(classify(sg, &fresh).category, PropagationDelay);
    // A fresh id must be a whole token, not part of a longer one.
    let prefix_only = ClassifyContext {
        fresh_identifiers: vec!["sg-0abc".into()],
        ..Default::default()
    };
    assert_eq!(classify(sg, &prefix_only).category, NotFound);

    // https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html
    // ("Invalid principal in policy" when the role in a trust policy is not visible yet).
    let principal = "creating IAM Role (r): MalformedPolicyDocument: Invalid principal in policy: \"AWS\":\"arn:aws:iam::111122223333:role/ci\"\n\tstatus code: 400, request id: 2b3c4d5e-6f70-8192-a3b4-c5d6e7f8a9b0";
    let flagged = ClassifyContext {
        refers_to_fresh_resource: true,
        ..Default::default()
    };
    assert_eq!(
        classify(principal, &ClassifyContext::default()).category,
        InvalidRequest
    );
    assert_eq!(classify(principal, &flagged).category, PropagationDelay);

    // Context never turns an unrelated failure into propagation.
    let quota = "Error creating EIP: AddressLimitExceeded: The maximum number of addresses has been reached.";
    assert_eq!(classify(quota, &flagged).category, QuotaExceeded);
    // A denied principal created in this apply: its policy is not effective yet.
    let denied = "AccessDeniedException: User: arn:aws:sts::111122223333:assumed-role/batch-svc-7/aws-batch is not authorized to perform: ecs:CreateCluster on resource: *";
    let svc = ClassifyContext {
        fresh_identifiers: vec!["batch-svc-7".into()],
        ..Default::default()
    };
    assert_eq!(
        classify(denied, &ClassifyContext::default()).category,
        PermissionMissing
    );
    assert_eq!(classify(denied, &svc).category, PropagationDelay);
}

// https://docs.aws.amazon.com/AWSEC2/latest/APIReference/throttling.html
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html (SlowDown)
// https://docs.aws.amazon.com/kms/latest/developerguide/throttling.html
#[test]
fn throttled() {
    check(&[
        case("Error: Throttling: Rate exceeded\n\tstatus code: 400, request id: 0a1b2c3d-4e5f-6789-abcd-ef0123456789", Throttled, Some("Throttling"), None),
        case("creating EC2 Instance: operation error EC2: RunInstances, https response error StatusCode: 503, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, api error RequestLimitExceeded: Request limit exceeded.", Throttled, Some("RequestLimitExceeded"), None),
        case("putting S3 Object: SlowDown: Please reduce your request rate.", Throttled, Some("SlowDown"), None),
        case("creating KMS Key: operation error KMS: CreateKey, https response error StatusCode: 400, RequestID: 2b3c4d5e-6f70-8192-a3b4-c5d6e7f8a9b0, api error ThrottlingException: You have exceeded the rate at which you may call KMS. Reduce the frequency of your calls.", Throttled, Some("ThrottlingException"), None),
        case("updating Lambda Function (f): TooManyRequestsException: Rate exceeded", Throttled, Some("TooManyRequestsException"), None),
    ]);
}

// https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html (…LimitExceeded)
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_CreateTargetGroup.html
#[test]
fn quota_exceeded() {
    check(&[
        case("creating IAM Role (r): LimitExceeded: Cannot exceed quota for RolesPerAccount: 1000\n\tstatus code: 409, request id: 0a1b2c3d-4e5f-6789-abcd-ef0123456789", QuotaExceeded, Some("LimitExceeded"), None),
        case("creating EC2 VPC: operation error EC2: CreateVpc, https response error StatusCode: 400, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, api error VpcLimitExceeded: The maximum number of VPCs has been reached.", QuotaExceeded, Some("VpcLimitExceeded"), None),
        case("creating ELBv2 Target Group (tg): TooManyTargetGroups: You've reached the limit on the number of target groups for your AWS account", QuotaExceeded, Some("TooManyTargetGroups"), None),
        case("creating EC2 Instance: InstanceLimitExceeded: Your quota allows for 0 more running instance(s). You requested at least 1.", QuotaExceeded, Some("InstanceLimitExceeded"), None),
        case("authorizing Security Group (sg-1) Rule: RulesPerSecurityGroupLimitExceeded: The maximum number of rules per security group has been reached.", QuotaExceeded, Some("RulesPerSecurityGroupLimitExceeded"), None),
        case("creating S3 Bucket (b): TooManyBuckets: You have attempted to create more buckets than allowed", QuotaExceeded, Some("TooManyBuckets"), None),
    ]);
}

// https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/troubleshooting-launch.html#troubleshooting-launch-capacity
// https://docs.aws.amazon.com/eks/latest/userguide/troubleshooting.html#ICE
#[test]
fn capacity_unavailable() {
    check(&[
        case("creating EC2 Instance: operation error EC2: RunInstances, https response error StatusCode: 500, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, api error InsufficientInstanceCapacity: We currently do not have sufficient p4d.24xlarge capacity in the Availability Zone you requested (us-east-1a).", CapacityUnavailable, Some("InsufficientInstanceCapacity"), None),
        case("creating EKS Cluster (c): UnsupportedAvailabilityZoneException: Cannot create cluster 'c' because us-east-1e, the targeted availability zone, does not currently have sufficient capacity to support the cluster.", CapacityUnavailable, Some("UnsupportedAvailabilityZoneException"), None),
        case("creating RDS DB Instance (db): InsufficientDBInstanceCapacity: Cannot create a database instance because there is not enough capacity", CapacityUnavailable, Some("InsufficientDBInstanceCapacity"), None),
        case("creating EC2 Instance: Unsupported: Your requested instance type (t4g.micro) is not supported in your requested Availability Zone (us-east-1e).", CapacityUnavailable, Some("Unsupported"), None),
    ]);
}

// IAM https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateRole.html (EntityAlreadyExists)
// S3 https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html (BucketAlreadyExists/OwnedByYou)
// Route 53 https://docs.aws.amazon.com/Route53/latest/APIReference/API_ChangeResourceRecordSets.html
#[test]
fn already_exists() {
    check(&[
        case("creating S3 Bucket (b): operation error S3: CreateBucket, https response error StatusCode: 409, RequestID: 4Q2ZV7KXW2M9, HostID: x=, BucketAlreadyExists: ", AlreadyExists, Some("BucketAlreadyExists"), None),
        case("creating S3 Bucket (b): BucketAlreadyOwnedByYou: Your previous request to create the named bucket succeeded and you already own it.", AlreadyExists, Some("BucketAlreadyOwnedByYou"), None),
        case("creating CloudWatch Logs Log Group (g): operation error CloudWatch Logs: CreateLogGroup, https response error StatusCode: 400, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, ResourceAlreadyExistsException: The specified log group already exists", AlreadyExists, Some("ResourceAlreadyExistsException"), None),
        case("creating Route 53 Record (Z1_x.example.com_A): InvalidChangeBatch: [Tried to create resource record set [name='x.example.com.', type='A'] but it already exists]", AlreadyExists, Some("InvalidChangeBatch"), None),
        case("creating Secrets Manager Secret (s): ResourceExistsException: The operation failed because the secret s already exists.", AlreadyExists, Some("ResourceExistsException"), None),
        case("creating Lambda Function (f): ResourceConflictException: Function already exist: f", AlreadyExists, Some("ResourceConflictException"), None),
    ]);
}

// EC2 https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html (…NotFound)
// IAM https://docs.aws.amazon.com/IAM/latest/APIReference/API_AttachRolePolicy.html (NoSuchEntity)
#[test]
fn not_found() {
    check(&[
        case("creating EC2 Instance: InvalidAMIID.NotFound: The image id '[ami-0123456789abcdef0]' does not exist\n\tstatus code: 400, request id: 0a1b2c3d-4e5f-6789-abcd-ef0123456789", NotFound, Some("InvalidAMIID.NotFound"), None),
        case("reading S3 Bucket Policy (b): NoSuchBucket: The specified bucket does not exist", NotFound, Some("NoSuchBucket"), None),
        case("reading IAM Role (r): operation error IAM: GetRole, https response error StatusCode: 404, RequestID: 1f2e3d4c-5b6a-7980-a1b2-c3d4e5f6a7b8, NoSuchEntity: The role with name r cannot be found.", NotFound, Some("NoSuchEntity"), None),
        case("attaching IAM Policy (arn:aws:iam::aws:policy/AWSLambdaRole) to IAM Role (r): NoSuchEntity: Policy arn:aws:iam::aws:policy/AWSLambdaRole does not exist or is not attachable.", NotFound, Some("NoSuchEntity"), None),
        case("creating RDS DB Instance (db): DBSubnetGroupNotFoundFault: DBSubnetGroup 'x' not found.", NotFound, Some("DBSubnetGroupNotFoundFault"), None),
        case("reading DynamoDB Table (t): ResourceNotFoundException: Requested resource not found", NotFound, Some("ResourceNotFoundException"), None),
    ]);
}

// EC2 https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html (DependencyViolation, …InUse)
// IAM https://docs.aws.amazon.com/IAM/latest/APIReference/API_DeleteRole.html (DeleteConflict)
// ELBv2 https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DeleteTargetGroup.html (ResourceInUse)
#[test]
fn dependency_violation() {
    check(&[
        case("deleting EC2 VPC (vpc-1): operation error EC2: DeleteVpc, https response error StatusCode: 400, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, api error DependencyViolation: The vpc 'vpc-1' has dependencies and cannot be deleted.", DependencyViolation, Some("DependencyViolation"), None),
        case("deleting IAM Policy (arn:aws:iam::111122223333:policy/p): DeleteConflict: Cannot delete a policy attached to entities.", DependencyViolation, Some("DeleteConflict"), None),
        case("deleting S3 Bucket (b): BucketNotEmpty: The bucket you tried to delete is not empty", DependencyViolation, Some("BucketNotEmpty"), None),
        case("deleting ELBv2 Target Group (arn): ResourceInUse: Target group 'arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/tg/0123456789abcdef' is currently in use by a listener or a rule", DependencyViolation, Some("ResourceInUse"), None),
        case("deleting EC2 Security Group (sg-1): InvalidGroup.InUse: There are active instances using security group 'sg-1'", DependencyViolation, Some("InvalidGroup.InUse"), None),
    ]);
}

// S3 OperationAborted, Route 53 PriorRequestNotComplete, Lambda ResourceConflictException
// (https://docs.aws.amazon.com/lambda/latest/api/API_UpdateFunctionConfiguration.html)
#[test]
fn conflict() {
    check(&[
        case("creating S3 Bucket (b): OperationAborted: A conflicting conditional operation is currently in progress against this resource. Please try again.", Conflict, Some("OperationAborted"), None),
        case("updating Lambda Function (f) configuration: operation error Lambda: UpdateFunctionConfiguration, https response error StatusCode: 409, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, ResourceConflictException: The operation cannot be performed at this time. An update is in progress for resource: arn:aws:lambda:us-east-1:111122223333:function:f", Conflict, Some("ResourceConflictException"), None),
        case("updating Route 53 Record: PriorRequestNotComplete: The request was rejected because Route 53 was still processing a prior request.", Conflict, Some("PriorRequestNotComplete"), None),
        case("modifying RDS DB Instance (db): InvalidDBInstanceState: Instance db is not in available state.", Conflict, Some("InvalidDBInstanceState"), None),
        case("ConcurrentModificationException: Rules are being updated concurrently", Conflict, Some("ConcurrentModificationException"), None),
    ]);
}

// EC2 InvalidParameterValue/InvalidParameterCombination, IAM MalformedPolicyDocument
// (https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreatePolicy.html), AWS JSON ValidationException
#[test]
fn invalid_request() {
    check(&[
        case("creating IAM Policy (p): MalformedPolicyDocument: Policy document should not specify a principal.\n\tstatus code: 400, request id: 0a1b2c3d-4e5f-6789-abcd-ef0123456789", InvalidRequest, Some("MalformedPolicyDocument"), None),
        case("creating EC2 Subnet: operation error EC2: CreateSubnet, https response error StatusCode: 400, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, api error InvalidParameterValue: Value (10.0.0.0/8) for parameter cidrBlock is invalid. This value must be a subset of the VPC CIDR.", InvalidRequest, Some("InvalidParameterValue"), None),
        case("creating EC2 Instance: InvalidParameterCombination: Network interfaces and an instance-level security groups may not be specified on the same request", InvalidRequest, Some("InvalidParameterCombination"), None),
        case("creating SSM Parameter (p): ValidationException: 1 validation error detected: Value 'x' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [SecureString, StringList, String]", InvalidRequest, Some("ValidationException"), None),
        case("creating S3 Bucket (B): InvalidBucketName: The specified bucket is not valid.", InvalidRequest, Some("InvalidBucketName"), None),
    ]);
}

#[test]
fn timeout() {
    check(&[
        case("waiting for EKS Cluster (c) create: timeout while waiting for state to become 'ACTIVE' (last state: 'CREATING', timeout: 30m0s)", Timeout, None, None),
        case("waiting for RDS DB Instance (db) delete: context deadline exceeded", Timeout, None, None),
    ]);
}

// STS https://docs.aws.amazon.com/STS/latest/APIReference/CommonErrors.html
#[test]
fn credentials_invalid() {
    check(&[
        case("configuring Terraform AWS Provider: validating provider credentials: retrieving caller identity from STS: operation error STS: GetCallerIdentity, https response error StatusCode: 403, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, api error ExpiredToken: The security token included in the request is expired", CredentialsInvalid, Some("ExpiredToken"), None),
        case("creating S3 Bucket (b): InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in our records.", CredentialsInvalid, Some("InvalidAccessKeyId"), None),
        case("No valid credential sources found\nPlease see https://registry.terraform.io/providers/hashicorp/aws for more information about providing credentials.", CredentialsInvalid, None, None),
        case("Cannot assume IAM Role\nIAM Role (arn:aws:iam::111122223333:role/tfgate-apply) cannot be assumed.\n\nThere are a number of possible causes of this - the most common are:\n  * The credentials used in order to assume the role are invalid\n\nError: operation error STS: AssumeRole, https response error StatusCode: 403, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, api error AccessDenied: User: arn:aws:iam::111122223333:user/bot is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::111122223333:role/tfgate-apply", CredentialsInvalid, Some("AccessDenied"), Some("sts:AssumeRole")),
        case("creating EC2 Instance: AuthFailure: AWS was not able to validate the provided access credentials", CredentialsInvalid, Some("AuthFailure"), None),
    ]);
}

#[test]
fn configuration_error_state_lock_and_unknown() {
    let no_address = ClassifyContext {
        has_address: false,
        ..Default::default()
    };
    let c = classify(
        "Unsupported argument\nAn argument named \"instance_typo\" is not expected here.",
        &no_address,
    );
    assert_eq!(c.category, ConfigurationError);
    let c = classify("Reference to undeclared resource\nA managed resource \"aws_vpc\" \"main\" has not been declared in the root module.", &ClassifyContext::default());
    assert_eq!(c.category, ConfigurationError);
    let c = classify("Something odd happened", &no_address);
    assert_eq!(c.category, ConfigurationError);
    let lock = "Error acquiring the state lock\nError message: ConditionalCheckFailedException: The conditional request failed\nLock Info:\n  ID: 0a1b2c3d-4e5f-6789-abcd-ef0123456789";
    assert_eq!(
        classify(lock, &ClassifyContext::default()).category,
        StateLock
    );
    // Terraform's own wording (internal/backend/local/backend_apply.go), no AWS shape at all.
    let stale = "Saved plan is stale\n\nThe given plan file can no longer be applied because the state was changed by another operation after the plan was created.";
    assert_eq!(classify(stale, &no_address).category, PlanStale);
    let c = classify("creating EC2 Instance: InternalError: An internal error has occurred\n\tstatus code: 500, request id: 0a1b2c3d-4e5f-6789-abcd-ef0123456789", &ClassifyContext::default());
    assert_eq!(c.category, Unknown);
    assert_eq!(c.aws_code.as_deref(), Some("InternalError"));
    assert_eq!(
        classify("Something odd happened", &ClassifyContext::default()).category,
        Unknown
    );
}

// A role handed to a service that the service cannot use: the base category says what to fix;
// only a role created earlier in the same apply makes it possibly propagation. Wordings from the
// Lambda, EventBridge, ECS and EMR error references and the AWS provider's IAM retries.
#[test]
fn role_shapes_are_propagation_only_when_fresh() {
    let fresh = |ids: &[&str]| ClassifyContext {
        fresh_identifiers: ids.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let flagged = ClassifyContext {
        refers_to_fresh_resource: true,
        ..Default::default()
    };
    let passrole = "creating ECS Task Definition (t): operation error ECS: RegisterTaskDefinition, https response error StatusCode: 400, RequestID: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d, api error AccessDeniedException: User: arn:aws:sts::111122223333:assumed-role/tfgate-apply/run-1 is not authorized to perform: iam:PassRole on resource: arn:aws:iam::111122223333:role/task-exec";
    let cases: [(&str, Category, ClassifyContext); 5] = [
        ("creating Lambda Function (f): InvalidParameterValueException: The role defined for the function cannot be assumed by Lambda.", InvalidRequest, flagged.clone()),
        ("creating Lambda Function (f): InvalidParameterValueException: The provided execution role does not have permissions to call CreateNetworkInterface on EC2", PermissionMissing, flagged.clone()),
        ("creating ECS Service (s): InvalidParameterException: Unable to assume the service linked role. Please verify that the ECS service linked role exists.", NotFound, flagged),
        ("creating EMR Cluster (c): ValidationException: Service role arn:aws:iam::111122223333:role/emr-svc has insufficient EC2 permissions: DescribeImages.", PermissionMissing, fresh(&["emr-svc"])),
        (passrole, PermissionMissing, fresh(&["task-exec"])),
    ];
    for (text, base, ctx) in &cases {
        assert_eq!(
            classify(text, &ClassifyContext::default()).category,
            *base,
            "{text}"
        );
        assert_eq!(
            classify(text, ctx).category,
            PropagationDelay,
            "fresh: {text}"
        );
    }
    // Passing a role that was *not* created in this apply stays the apply role's permission.
    assert_eq!(
        classify(passrole, &fresh(&["other-role"])).category,
        PermissionMissing
    );
    // EC2's image-permission wording is about the AMI reference, not the session.
    let ami = "creating EC2 Instance: AuthFailure: Not authorized for images: [ami-0abc1234]\n\tstatus code: 400, request id: 0e8c3a11-1a2b-4c5d-8e9f-001122334455";
    assert_eq!(
        classify(ami, &ClassifyContext::default()).category,
        NotFound
    );
}

// Codes and wordings whose family the code name alone does not say (S3, Lambda, Secrets Manager,
// CloudFormation, EC2 error references).
#[test]
fn codes_and_wordings_of_the_public_corpus_families() {
    check(&[
        case("creating Secrets Manager Secret: InvalidRequestException: You can't create this secret because a secret with this name is already scheduled for deletion.", AlreadyExists, Some("InvalidRequestException"), None),
        case("putting SNS destination: InvalidSNSDestination: SNS topic arn:aws:sns:us-east-1:111122223333:t not found.\n\tstatus code: 400, request id: 0e8c3a11-1a2b-4c5d-8e9f-001122334455", NotFound, Some("InvalidSNSDestination"), None),
        case("updating Lambda Function (f): PreconditionFailedException: The Revision Id provided does not match the latest Revision Id.\n\tstatus code: 412, request id: 0e8c3a11-1a2b-4c5d-8e9f-001122334455", Conflict, Some("PreconditionFailedException"), None),
        case("creating S3 Bucket (b): IllegalLocationConstraintException: The eu-west-1 location constraint is incompatible for the region specific endpoint this request was sent to.\n\tstatus code: 400, request id: 8F5A9C2B1D3E4F60", InvalidRequest, Some("IllegalLocationConstraintException"), None),
        case("creating EC2 Instance: operation error EC2: RunInstances, https response error StatusCode: 400, RequestID: f5620d69-168d-41c0-ac2b-070fa64e0707, api error Unsupported: Your requested instance type (t3.micro) is not supported in your requested Availability Zone (us-east-1e).", CapacityUnavailable, Some("Unsupported"), None),
        case("creating Auto Scaling Launch Configuration (lc): ValidationError: You are not authorized to perform this operation.\n\tstatus code: 400, request id: e5c6e3d5-8693-11e6-a015-4fa4bc8b14f6", PermissionMissing, Some("ValidationError"), None),
        case("waiting for RDS DB Instance (db) create: unexpected state 'configuring-enhanced-monitoring', wanted target 'available'", Unknown, None, None),
        case("Error: Cannot import non-existent remote object", NotFound, None, None),
    ]);
}
