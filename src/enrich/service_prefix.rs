//! CloudTrail `eventSource` host → IAM action prefix.
//!
//! Most services use their endpoint host as the IAM prefix (`ec2.amazonaws.com` → `ec2`); the
//! table lists the ones that differ (Service Authorization Reference,
//! <https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html>).

/// (eventSource host without `.amazonaws.com`, IAM prefix)
const DIFFERING_PREFIXES: &[(&str, &str)] = &[
    ("monitoring", "cloudwatch"),
    ("email", "ses"),
    ("tagging", "tag"),
    ("streams.dynamodb", "dynamodb"),
    ("execute-api", "execute-api"),
    ("elasticloadbalancing", "elasticloadbalancing"),
    ("sso-directory", "sso-directory"),
    ("metering-marketplace", "aws-marketplace"),
    (
        "marketplacecommerceanalytics",
        "marketplacecommerceanalytics",
    ),
    ("api.ecr", "ecr"),
    ("api.ecr-public", "ecr-public"),
    ("api.sagemaker", "sagemaker"),
    ("runtime.sagemaker", "sagemaker"),
    ("data.iot", "iot"),
    ("iotdata", "iot"),
    ("route53resolver", "route53resolver"),
];

/// `ec2.amazonaws.com` → `ec2`; `monitoring.amazonaws.com` → `cloudwatch`. `None` when the text
/// is not an AWS service host.
pub fn iam_prefix_for_event_source(event_source: &str) -> Option<String> {
    let host = event_source.trim().to_ascii_lowercase();
    let service = host
        .strip_suffix(".amazonaws.com")
        .or_else(|| host.strip_suffix(".amazonaws.com.cn"))?;
    if service.is_empty()
        || !service
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
    {
        return None;
    }
    if let Some((_, prefix)) = DIFFERING_PREFIXES.iter().find(|(s, _)| *s == service) {
        return Some((*prefix).to_string());
    }
    // Unknown dotted hosts: the last label is the service (`runtime.lex` → `lex`).
    Some(service.rsplit('.').next()?.to_string())
}

/// `("ec2.amazonaws.com", "RunInstances")` → `ec2:RunInstances`.
pub fn iam_action(event_source: &str, event_name: &str) -> Option<String> {
    let prefix = iam_prefix_for_event_source(event_source)?;
    let name = event_name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some(format!("{prefix}:{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_sources_map_to_iam_prefixes() {
        let cases = [
            ("ec2.amazonaws.com", Some("ec2")),
            ("iam.amazonaws.com", Some("iam")),
            ("monitoring.amazonaws.com", Some("cloudwatch")),
            (
                "elasticloadbalancing.amazonaws.com",
                Some("elasticloadbalancing"),
            ),
            ("email.amazonaws.com", Some("ses")),
            ("tagging.amazonaws.com", Some("tag")),
            ("streams.dynamodb.amazonaws.com", Some("dynamodb")),
            ("api.ecr.amazonaws.com", Some("ecr")),
            ("logs.amazonaws.com", Some("logs")),
            ("EKS.amazonaws.com", Some("eks")),
            ("ec2.amazonaws.com.cn", Some("ec2")),
            ("example.com", None),
            (".amazonaws.com", None),
            ("", None),
        ];
        for (source, want) in cases {
            assert_eq!(
                iam_prefix_for_event_source(source).as_deref(),
                want,
                "{source}"
            );
        }
    }

    #[test]
    fn actions_join_prefix_and_event_name() {
        assert_eq!(
            iam_action("ec2.amazonaws.com", "RunInstances").as_deref(),
            Some("ec2:RunInstances")
        );
        assert_eq!(
            iam_action("monitoring.amazonaws.com", "PutMetricAlarm").as_deref(),
            Some("cloudwatch:PutMetricAlarm")
        );
        assert_eq!(iam_action("ec2.amazonaws.com", "Run Instances"), None);
        assert_eq!(iam_action("ec2.amazonaws.com", ""), None);
    }
}
