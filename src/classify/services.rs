//! SDK service names → IAM action prefixes, and API operations whose IAM action differs.
//!
//! Service names are the aws-sdk-go-v2 service ids that appear in `operation error <SVC>: <Op>`;
//! prefixes are from the Service Authorization Reference
//! (<https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html>).

/// (service name as printed by SDKs / error texts, lowercase; IAM prefix)
const SERVICE_PREFIXES: &[(&str, &str)] = &[
    ("iam", "iam"),
    ("ec2", "ec2"),
    ("s3", "s3"),
    ("s3 control", "s3"),
    ("sts", "sts"),
    ("eks", "eks"),
    ("lambda", "lambda"),
    ("cloudwatch logs", "logs"),
    ("logs", "logs"),
    ("cloudwatch", "cloudwatch"),
    ("cloudwatch events", "events"),
    ("eventbridge", "events"),
    ("scheduler", "scheduler"),
    ("pipes", "pipes"),
    ("rds", "rds"),
    ("docdb", "rds"),
    ("neptune", "rds"),
    ("rds data", "rds-data"),
    ("elastic load balancing v2", "elasticloadbalancing"),
    ("elastic load balancing", "elasticloadbalancing"),
    ("elbv2", "elasticloadbalancing"),
    ("kms", "kms"),
    ("secrets manager", "secretsmanager"),
    ("ssm", "ssm"),
    ("dynamodb", "dynamodb"),
    ("dynamodb streams", "dynamodb"),
    ("sqs", "sqs"),
    ("sns", "sns"),
    ("ecr", "ecr"),
    ("ecr public", "ecr-public"),
    ("ecs", "ecs"),
    ("route 53", "route53"),
    ("route53", "route53"),
    ("route 53 domains", "route53domains"),
    ("route53resolver", "route53resolver"),
    ("route 53 resolver", "route53resolver"),
    ("acm", "acm"),
    ("acm pca", "acm-pca"),
    ("cloudformation", "cloudformation"),
    ("auto scaling", "autoscaling"),
    ("autoscaling", "autoscaling"),
    ("application auto scaling", "application-autoscaling"),
    ("elasticache", "elasticache"),
    ("cloudfront", "cloudfront"),
    ("organizations", "organizations"),
    ("sfn", "states"),
    ("step functions", "states"),
    ("api gateway", "apigateway"),
    ("apigatewayv2", "apigateway"),
    ("kinesis", "kinesis"),
    ("firehose", "firehose"),
    ("kinesis firehose", "firehose"),
    ("glue", "glue"),
    ("athena", "athena"),
    ("batch", "batch"),
    ("codebuild", "codebuild"),
    ("codepipeline", "codepipeline"),
    ("codecommit", "codecommit"),
    ("codedeploy", "codedeploy"),
    ("codestar connections", "codestar-connections"),
    ("cognito identity provider", "cognito-idp"),
    ("cognito identity", "cognito-identity"),
    ("efs", "elasticfilesystem"),
    ("elastic beanstalk", "elasticbeanstalk"),
    ("emr", "elasticmapreduce"),
    ("opensearch", "es"),
    ("elasticsearch service", "es"),
    ("opensearchserverless", "aoss"),
    ("kafka", "kafka"),
    ("msk", "kafka"),
    ("mq", "mq"),
    ("redshift", "redshift"),
    ("redshift serverless", "redshift-serverless"),
    ("ses", "ses"),
    ("sesv2", "ses"),
    ("wafv2", "wafv2"),
    ("waf", "waf"),
    ("waf regional", "waf-regional"),
    ("shield", "shield"),
    ("guardduty", "guardduty"),
    ("securityhub", "securityhub"),
    ("config service", "config"),
    ("cloudtrail", "cloudtrail"),
    ("backup", "backup"),
    ("datasync", "datasync"),
    ("transfer", "transfer"),
    ("service quotas", "servicequotas"),
    ("resource groups tagging api", "tag"),
    ("resource groups", "resource-groups"),
    ("sso admin", "sso"),
    ("identitystore", "identitystore"),
    ("appsync", "appsync"),
    ("amplify", "amplify"),
    ("apprunner", "apprunner"),
    ("budgets", "budgets"),
    ("cost explorer", "ce"),
    ("directory service", "ds"),
    ("sagemaker", "sagemaker"),
    ("bedrock", "bedrock"),
    ("bedrock agent", "bedrock"),
    ("mwaa", "airflow"),
    ("global accelerator", "globalaccelerator"),
    ("network firewall", "network-firewall"),
    ("ram", "ram"),
    ("lightsail", "lightsail"),
    ("xray", "xray"),
    ("servicediscovery", "servicediscovery"),
    ("app mesh", "appmesh"),
    ("storage gateway", "storagegateway"),
    ("fsx", "fsx"),
    ("lakeformation", "lakeformation"),
    ("memorydb", "memorydb"),
    ("dax", "dax"),
    ("dlm", "dlm"),
    ("ssm incidents", "ssm-incidents"),
    ("access analyzer", "access-analyzer"),
    ("account", "account"),
    ("inspector2", "inspector2"),
    ("macie2", "macie2"),
    ("signer", "signer"),
    ("synthetics", "synthetics"),
    ("vpc lattice", "vpc-lattice"),
    ("grafana", "grafana"),
    ("amp", "aps"),
    ("quicksight", "quicksight"),
    ("iot", "iot"),
    ("timestream write", "timestream"),
    ("kinesis analytics v2", "kinesisanalytics"),
    ("cloud map", "servicediscovery"),
    ("cloud control", "cloudformation"),
];

/// Maps a service name (SDK v2 service id such as `Elastic Load Balancing v2`, or a short name
/// such as `EC2`) to its IAM action prefix.
pub fn iam_prefix(service: &str) -> Option<&'static str> {
    let s = service.trim().to_ascii_lowercase();
    SERVICE_PREFIXES
        .iter()
        .find(|(name, _)| *name == s)
        .map(|(_, prefix)| *prefix)
}

/// Every IAM prefix the service table maps to.
#[cfg(test)]
pub fn all_prefixes() -> impl Iterator<Item = &'static str> {
    SERVICE_PREFIXES.iter().map(|(_, prefix)| *prefix)
}

/// API operations whose IAM action has another name (Service Authorization Reference, S3 and
/// Lambda pages). Everything not listed maps to the same name.
const ACTION_RENAMES: &[(&str, &str, &str)] = &[
    ("s3", "HeadBucket", "ListBucket"),
    ("s3", "HeadObject", "GetObject"),
    ("s3", "ListObjects", "ListBucket"),
    ("s3", "ListObjectsV2", "ListBucket"),
    ("s3", "ListObjectVersions", "ListBucketVersions"),
    ("s3", "DeleteObjects", "DeleteObject"),
    ("s3", "GetBucketEncryption", "GetEncryptionConfiguration"),
    ("s3", "PutBucketEncryption", "PutEncryptionConfiguration"),
    ("s3", "DeleteBucketEncryption", "PutEncryptionConfiguration"),
    (
        "s3",
        "GetBucketLifecycleConfiguration",
        "GetLifecycleConfiguration",
    ),
    (
        "s3",
        "PutBucketLifecycleConfiguration",
        "PutLifecycleConfiguration",
    ),
    ("s3", "DeleteBucketLifecycle", "PutLifecycleConfiguration"),
    ("s3", "GetPublicAccessBlock", "GetBucketPublicAccessBlock"),
    ("s3", "PutPublicAccessBlock", "PutBucketPublicAccessBlock"),
    (
        "s3",
        "DeletePublicAccessBlock",
        "PutBucketPublicAccessBlock",
    ),
    ("s3", "GetBucketReplication", "GetReplicationConfiguration"),
    ("s3", "PutBucketReplication", "PutReplicationConfiguration"),
    (
        "s3",
        "DeleteBucketReplication",
        "PutReplicationConfiguration",
    ),
    (
        "s3",
        "GetBucketAccelerateConfiguration",
        "GetAccelerateConfiguration",
    ),
    (
        "s3",
        "PutBucketAccelerateConfiguration",
        "PutAccelerateConfiguration",
    ),
    (
        "s3",
        "GetObjectLockConfiguration",
        "GetBucketObjectLockConfiguration",
    ),
    (
        "s3",
        "PutObjectLockConfiguration",
        "PutBucketObjectLockConfiguration",
    ),
    (
        "s3",
        "GetBucketNotificationConfiguration",
        "GetBucketNotification",
    ),
    (
        "s3",
        "PutBucketNotificationConfiguration",
        "PutBucketNotification",
    ),
    (
        "s3",
        "GetBucketAnalyticsConfiguration",
        "GetAnalyticsConfiguration",
    ),
    (
        "s3",
        "GetBucketInventoryConfiguration",
        "GetInventoryConfiguration",
    ),
    (
        "s3",
        "GetBucketMetricsConfiguration",
        "GetMetricsConfiguration",
    ),
    (
        "s3",
        "GetBucketIntelligentTieringConfiguration",
        "GetIntelligentTieringConfiguration",
    ),
    ("s3", "DeleteBucketCors", "PutBucketCORS"),
    ("s3", "GetBucketCors", "GetBucketCORS"),
    ("s3", "PutBucketCors", "PutBucketCORS"),
    ("s3", "DeleteBucketTagging", "PutBucketTagging"),
    ("lambda", "Invoke", "InvokeFunction"),
    ("lambda", "InvokeWithResponseStream", "InvokeFunction"),
];

/// The IAM action an API call needs, e.g. (`S3`, `HeadBucket`) → `s3:ListBucket`.
pub fn iam_action_for(prefix: &str, operation: &str) -> String {
    let name = ACTION_RENAMES
        .iter()
        .find(|(p, op, _)| *p == prefix && *op == operation)
        .map(|(_, _, action)| *action)
        .unwrap_or(operation);
    format!("{prefix}:{name}")
}

/// Bare EC2 operation names that services relay without a prefix
/// ("Not authorized to perform DescribeSecurityGroups"); only unambiguous EC2 names.
const BARE_EC2_OPERATIONS: &[&str] = &[
    "DescribeSecurityGroups",
    "DescribeSubnets",
    "DescribeVpcs",
    "DescribeNetworkInterfaces",
    "CreateNetworkInterface",
    "DeleteNetworkInterface",
    "CreateNetworkInterfacePermission",
    "DescribeDhcpOptions",
    "DescribeInstances",
    "RunInstances",
    "CreateLaunchTemplate",
    "DescribeImages",
];

/// `ec2:<Op>` for a bare operation name that can only be EC2's.
pub fn bare_ec2_action(operation: &str) -> Option<String> {
    BARE_EC2_OPERATIONS
        .contains(&operation)
        .then(|| format!("ec2:{operation}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_names_map_to_iam_prefixes() {
        let cases = [
            ("IAM", Some("iam")),
            ("CloudWatch Logs", Some("logs")),
            ("Elastic Load Balancing v2", Some("elasticloadbalancing")),
            ("Secrets Manager", Some("secretsmanager")),
            ("Route 53", Some("route53")),
            ("EventBridge", Some("events")),
            ("CloudWatch Events", Some("events")),
            ("SFN", Some("states")),
            ("Auto Scaling", Some("autoscaling")),
            ("Nonexistent Service", None),
        ];
        for (svc, want) in cases {
            assert_eq!(iam_prefix(svc), want, "{svc}");
        }
    }

    #[test]
    fn operations_map_to_iam_actions() {
        assert_eq!(iam_action_for("iam", "GetRole"), "iam:GetRole");
        assert_eq!(iam_action_for("s3", "HeadBucket"), "s3:ListBucket");
        assert_eq!(iam_action_for("lambda", "Invoke"), "lambda:InvokeFunction");
        assert_eq!(
            bare_ec2_action("DescribeSecurityGroups").as_deref(),
            Some("ec2:DescribeSecurityGroups")
        );
        assert_eq!(bare_ec2_action("GetRole"), None);
    }
}
