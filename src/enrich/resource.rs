//! The denied resource as `type` + `name`, with partition, region, account id and IAM path
//! removed, so that it can be shown on a PR.
//!
//! `arn:aws:iam::123456789012:role/aws-service-role/eks-nodegroup.amazonaws.com/AWSServiceRoleForAmazonEKSNodegroup`
//! → `role` / `AWSServiceRoleForAmazonEKSNodegroup`; `arn:aws:ec2:eu-west-1:123456789012:instance/*`
//! → `instance` / `*`. IAM also words the resource without an ARN (`on resource: role NAME`).

use once_cell::sync::Lazy;
use regex::Regex;
use serde::{Deserialize, Serialize};

/// A resource type and a name that carry no ARN, account id or IP address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedactedResource {
    /// `role`, `instance`, `bucket`, `log-group` …
    pub resource_type: String,
    /// The name without IAM path; `*` for a wildcard or when nothing safe remains.
    pub name: String,
}

/// IAM resource types whose ARNs carry a path before the name.
const IAM_PATH_TYPES: &[&str] = &[
    "role",
    "user",
    "group",
    "policy",
    "instance-profile",
    "server-certificate",
];

impl RedactedResource {
    /// IAM types whose real ARN may carry a path that the name here does not show.
    pub fn has_iam_path(&self) -> bool {
        IAM_PATH_TYPES.contains(&self.resource_type.as_str())
    }
}

static TWELVE_DIGITS: Lazy<Regex> = Lazy::new(|| Regex::new(r"\d{12}").unwrap());
static IPV4: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b").unwrap());
static IPV6: Lazy<Regex> = Lazy::new(|| {
    // Full form (8 groups) or a compressed form with `::` (at least one group beside it).
    Regex::new(
        r"(?i)\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b|(?:\b[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}\b)(?::[0-9a-f]{1,4}\b)*|\b[0-9a-f]{1,4}::",
    )
    .unwrap()
});

/// True when `text` shows no ARN, no 12-digit number (account id) and no IP address.
pub fn is_pr_safe(text: &str) -> bool {
    !text.to_ascii_lowercase().contains("arn:")
        && !TWELVE_DIGITS.is_match(text)
        && !IPV4.is_match(text)
        && !IPV6.is_match(text)
}

/// Replaces account ids and IP addresses inside a name with `*`; a name that still is not
/// PR-safe becomes `*`.
fn redact_name(name: &str) -> String {
    let name = TWELVE_DIGITS.replace_all(name, "*");
    let name = IPV4.replace_all(&name, "*");
    let name = IPV6.replace_all(&name, "*").into_owned();
    if name.is_empty() || !is_pr_safe(&name) {
        "*".to_string()
    } else {
        name
    }
}

fn clean_type(resource_type: &str) -> Option<String> {
    let t = resource_type.trim();
    let ok = !t.is_empty()
        && t.len() <= 64
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then(|| t.to_ascii_lowercase())
}

/// The resource of an ARN. `None` when the text is not an ARN.
pub fn from_arn(arn: &str) -> Option<RedactedResource> {
    let arn = arn.trim().trim_end_matches(['.', ',']);
    let mut parts = arn.splitn(6, ':');
    if parts.next()? != "arn" {
        return None;
    }
    let _partition = parts.next()?;
    let service = parts.next()?.to_ascii_lowercase();
    let _region = parts.next()?;
    let _account = parts.next()?;
    let resource = parts.next()?;
    if resource.is_empty() {
        return None;
    }
    Some(split_resource(&service, resource))
}

fn split_resource(service: &str, resource: &str) -> RedactedResource {
    if service == "s3" {
        return match resource.split_once('/') {
            None => typed("bucket", resource),
            Some((bucket, _key)) => typed("object", &format!("{bucket}/*")),
        };
    }
    let slash = resource.find('/');
    let colon = resource.find(':');
    let (resource_type, rest) = match (slash, colon) {
        (Some(s), Some(c)) if c < s => (&resource[..c], &resource[c + 1..]),
        (Some(s), _) => (&resource[..s], &resource[s + 1..]),
        (None, Some(c)) => (&resource[..c], &resource[c + 1..]),
        (None, None) => return typed(untyped_kind(service), resource),
    };
    let Some(resource_type) = clean_type(resource_type) else {
        return typed("resource", "*");
    };
    let name = if IAM_PATH_TYPES.contains(&resource_type.as_str()) {
        // role/path/to/NAME: the last segment is the name, the path is dropped.
        rest.rsplit('/').next().unwrap_or(rest)
    } else if resource_type == "assumed-role" {
        // assumed-role/ROLE/SESSION: the role, not the session.
        rest.split('/').next().unwrap_or(rest)
    } else {
        rest
    };
    RedactedResource {
        resource_type,
        name: redact_name(name),
    }
}

/// Services whose ARNs have no resource type before the name.
fn untyped_kind(service: &str) -> &'static str {
    match service {
        "sqs" => "queue",
        "sns" => "topic",
        _ => "resource",
    }
}

fn typed(resource_type: &str, name: &str) -> RedactedResource {
    RedactedResource {
        resource_type: resource_type.to_string(),
        name: redact_name(name),
    }
}

/// IAM wording without an ARN: `role AWSServiceRoleForAmazonEKSNodegroup`.
static TYPE_SPACE_NAME: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^([a-z][a-z-]{1,40}) ([A-Za-z0-9+=,.@_/*-]{1,512})$").unwrap());

/// The resource from the text after `on resource:` (an ARN, `TYPE NAME`, or `*`).
pub fn from_denial_resource_text(text: &str) -> Option<RedactedResource> {
    let text = text.trim().trim_end_matches(['.', ',']);
    if text.is_empty() {
        return None;
    }
    if text == "*" {
        return Some(typed("resource", "*"));
    }
    if text.starts_with("arn:") {
        return from_arn(text);
    }
    let c = TYPE_SPACE_NAME.captures(text)?;
    let resource_type = clean_type(&c[1])?;
    let name = c[2].rsplit('/').next().unwrap_or(&c[2]);
    Some(RedactedResource {
        resource_type,
        name: redact_name(name),
    })
}

static ON_RESOURCE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)\bon resource:?\s+(.+?)(?:\s+because\b|\s+with an explicit\b|\.\s|\.?\s*Encoded authorization|\s*$)",
    )
    .unwrap()
});

/// The resource named in IAM denial wording (`… on resource: X because …`).
pub fn from_denial_message(message: &str) -> Option<RedactedResource> {
    let c = ON_RESOURCE.captures(message)?;
    from_denial_resource_text(&c[1])
}

/// CloudTrail `requestParameters` keys that name the target resource.
const REQUEST_PARAMETER_KEYS: &[(&str, &str)] = &[
    ("roleName", "role"),
    ("userName", "user"),
    ("groupName", "group"),
    ("instanceProfileName", "instance-profile"),
    ("policyArn", "policy"),
    ("bucketName", "bucket"),
    ("functionName", "function"),
    ("clusterName", "cluster"),
    ("nodegroupName", "nodegroup"),
    ("logGroupName", "log-group"),
    ("topicArn", "topic"),
    ("queueUrl", "queue"),
];

/// The resource named by a CloudTrail record's `requestParameters` (best effort).
pub fn from_request_parameters(params: &serde_json::Value) -> Option<RedactedResource> {
    let object = params.as_object()?;
    REQUEST_PARAMETER_KEYS.iter().find_map(|(key, kind)| {
        let value = object.get(*key)?.as_str()?;
        if value.starts_with("arn:") {
            return from_arn(value).map(|r| RedactedResource {
                resource_type: (*kind).to_string(),
                name: r.name,
            });
        }
        // queue URLs: https://sqs.REGION.amazonaws.com/ACCOUNT/NAME
        let name = value.rsplit('/').next().unwrap_or(value);
        Some(typed(kind, name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(t: &str, n: &str) -> Option<RedactedResource> {
        Some(RedactedResource {
            resource_type: t.into(),
            name: n.into(),
        })
    }

    #[test]
    fn arns_lose_partition_account_region_and_iam_path() {
        let cases = [
            ("arn:aws:iam::123456789012:role/aws-service-role/eks-nodegroup.amazonaws.com/AWSServiceRoleForAmazonEKSNodegroup", r("role", "AWSServiceRoleForAmazonEKSNodegroup")),
            ("arn:aws:iam::123456789012:role/service-role/x/AWSServiceRoleForAmazonEKSNodegroup", r("role", "AWSServiceRoleForAmazonEKSNodegroup")),
            ("arn:aws:iam::123456789012:role/eks-node", r("role", "eks-node")),
            ("arn:aws-cn:iam::123456789012:policy/teams/deploy", r("policy", "deploy")),
            ("arn:aws:ec2:eu-west-1:123456789012:instance/*", r("instance", "*")),
            ("arn:aws:ec2:eu-west-1:123456789012:subnet/subnet-0abc", r("subnet", "subnet-0abc")),
            ("arn:aws:sts::123456789012:assumed-role/deploy/tfgate-run-42", r("assumed-role", "deploy")),
            ("arn:aws:s3:::my-bucket", r("bucket", "my-bucket")),
            ("arn:aws:s3:::my-bucket/secret/key.txt", r("object", "my-bucket/*")),
            ("arn:aws:logs:eu-west-1:123456789012:log-group:/aws/eks/prod/cluster:*", r("log-group", "/aws/eks/prod/cluster:*")),
            ("arn:aws:lambda:eu-west-1:123456789012:function:resize", r("function", "resize")),
            ("arn:aws:sqs:eu-west-1:123456789012:jobs", r("queue", "jobs")),
            ("arn:aws:s3:::logs-123456789012", r("bucket", "logs-*")),
            ("arn:aws:ec2:eu-west-1:123456789012:security-group-rule/10.0.0.1", r("security-group-rule", "*")),
            ("arn:aws:iam::123456789012", None),
            ("role/x", None),
        ];
        for (arn, want) in cases {
            assert_eq!(from_arn(arn), want, "{arn}");
        }
    }

    #[test]
    fn denial_messages_name_the_resource() {
        let cases = [
            ("User: arn:aws:sts::123456789012:assumed-role/deploy/run is not authorized to perform: iam:GetRole on resource: role AWSServiceRoleForAmazonEKSNodegroup because no identity-based policy allows the iam:GetRole action", r("role", "AWSServiceRoleForAmazonEKSNodegroup")),
            ("You are not authorized to perform this operation. User: arn:aws:sts::123456789012:assumed-role/r/s is not authorized to perform: ec2:RunInstances on resource: arn:aws:ec2:eu-west-1:123456789012:instance/* because no identity-based policy allows the ec2:RunInstances action. Encoded authorization failure message: T-kSWIRF", r("instance", "*")),
            ("is not authorized to perform: s3:GetObject on resource: \"arn:aws:s3:::b/k\" with an explicit deny in a service control policy", None),
            ("is not authorized to perform: kms:Decrypt on resource: arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab with an explicit deny in a resource control policy", r("key", "1234abcd-12ab")),
            ("is not authorized to perform: iam:PassRole on resource: arn:aws:iam::123456789012:role/x/y/node", r("role", "node")),
            ("is not authorized to perform: logs:CreateLogGroup because no identity-based policy allows the logs:CreateLogGroup action", None),
        ];
        for (text, want) in cases {
            assert_eq!(from_denial_message(text), want, "{text}");
        }
    }

    #[test]
    fn request_parameters_name_the_resource() {
        let p = serde_json::json!({"roleName": "AWSServiceRoleForAmazonEKSNodegroup"});
        assert_eq!(
            from_request_parameters(&p),
            r("role", "AWSServiceRoleForAmazonEKSNodegroup")
        );
        let p = serde_json::json!({"queueUrl": "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs"});
        assert_eq!(from_request_parameters(&p), r("queue", "jobs"));
        let p = serde_json::json!({"policyArn": "arn:aws:iam::123456789012:policy/a/b"});
        assert_eq!(from_request_parameters(&p), r("policy", "b"));
        assert_eq!(
            from_request_parameters(&serde_json::json!({"instanceType": "t3"})),
            None
        );
    }

    #[test]
    fn pr_safety_check() {
        assert!(is_pr_safe("role/AWSServiceRoleForAmazonEKSNodegroup"));
        assert!(!is_pr_safe("ARN:aws:iam::x"));
        assert!(!is_pr_safe("acct 123456789012"));
        assert!(!is_pr_safe("from 10.1.2.3"));
        assert!(!is_pr_safe("fe80::1:2"));
        assert!(is_pr_safe("ec2:RunInstances"));
    }
}
