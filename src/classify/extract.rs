//! Pulls the machine-readable parts out of an AWS provider error text: error code(s), HTTP
//! status, request id and the API operation.
//!
//! Shapes handled (see `design/formats.md` §1 and §4):
//! - SDK v1: `Code: message\n\tstatus code: 403, request id: …`
//! - SDK v2: `operation error SVC: Op, https response error StatusCode: 403, RequestID: …, api error Code: msg`
//!   (some services omit `api error `)
//! - older provider wordings `Error creating X: Code: msg`
//! - AWS CLI: `An error occurred (Code) when calling the Op operation: msg`
//! - EC2 `Client.UnauthorizedOperation` (reported without the `Client.` prefix)
//! - Java SDK relays `(Service: …; Status Code: 400; Error Code: Code; Request ID: …)` and Lambda's
//!   `EC2 Error Code: Code.` (kept as *embedded* codes: the cause inside the outer code)
//! - asynchronous status reasons `last error: CODE: msg` / `last error: CODE - msg`

use super::{codes, services};
use once_cell::sync::Lazy;
use regex::Regex;

/// What the text says about the failed API call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    /// The outermost AWS error code.
    pub code: Option<String>,
    /// Codes relayed inside the message (`Error Code: X`), outermost first.
    pub embedded_codes: Vec<String>,
    pub status_code: Option<u16>,
    pub request_id: Option<String>,
    /// `prefix:Operation`, e.g. `iam:GetRole`, when the service is known.
    pub operation: Option<String>,
    /// The operation name alone (SDK v2 or CLI wording).
    pub operation_name: Option<String>,
    pub encoded_authorization_message: bool,
}

impl Extracted {
    /// Whether the text has the shape of an AWS API error at all.
    pub fn has_aws_shape(&self) -> bool {
        self.code.is_some()
            || self.status_code.is_some()
            || self.request_id.is_some()
            || self.operation_name.is_some()
    }

    /// The outer code followed by the embedded ones.
    pub fn all_codes(&self) -> impl Iterator<Item = &str> {
        self.code
            .iter()
            .chain(self.embedded_codes.iter())
            .map(String::as_str)
    }
}

static V2_OPERATION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"operation error ([A-Za-z0-9][A-Za-z0-9 .-]*?): ([A-Za-z0-9]+)").unwrap()
});
static V2_API_ERROR: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"api error ([A-Za-z][A-Za-z0-9.]*): ").unwrap());
/// Some services omit `api error `: the code then follows the `RequestID: …, [HostID: …, ]` list.
static V2_AFTER_IDS: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"(?:RequestID|HostID): [^,\s]*, ([A-Za-z][A-Za-z0-9.]*): ").unwrap());
static CLI: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"An error occurred \(([A-Za-z][A-Za-z0-9.]*)\) when calling the ([A-Za-z0-9]+) operation",
    )
    .unwrap()
});
static ASYNC_CODE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"last error: ([A-Z][A-Za-z0-9]*(?:_[A-Z0-9]+)*)(?::| -) ").unwrap());
static GENERIC_CODE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?:Client\.|Server\.)?[A-Z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9]*)?:|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+:").unwrap()
});

/// Candidate codes: `Token:` followed by whitespace or the end, not glued to a preceding word.
fn generic_code_tokens(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    GENERIC_CODE.find_iter(text).filter_map(move |m| {
        let before_ok = m.start() == 0 || {
            let b = bytes[m.start() - 1];
            !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'/' | b':'))
        };
        let after_ok = bytes.get(m.end()).map_or(true, |b| b.is_ascii_whitespace());
        (before_ok && after_ok).then(|| &text[m.start()..m.end() - 1])
    })
}
static EMBEDDED_CODE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"(?i:error code):? ([A-Za-z][A-Za-z0-9.]*)").unwrap());
static STATUS: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i)status ?code:? ?(\d{3})\b").unwrap());
static REQUEST_ID: Lazy<Regex> =
    Lazy::new(|| Regex::new(r#"(?i)request ?id:? "?([A-Za-z0-9][A-Za-z0-9-]{7,})"#).unwrap());

/// Words that precede a colon in provider texts but are not error codes.
const NOT_CODES: &[&str] = &[
    "RespMetadata",
    "StatusCode",
    "RequestID",
    "RequestId",
    "HostId",
    "HostID",
    "ErrorCode",
    "ErrorMessage",
    "ClusterName",
    "NodegroupName",
    "NodeGroupName",
    "FunctionName",
    "RoleName",
    "BucketName",
    "ResourceName",
    "ResourceId",
    "ResourceType",
    "ResourceArn",
    "StatusReason",
    "TerraformVersion",
    "OpenTofu",
    "GitHub",
    "CloudTrail",
    "CloudWatch",
    "CloudFormation",
    "AutoScaling",
    "ElastiCache",
    "DynamoDB",
    "JavaScript",
];

/// Single-word codes (one capital) that AWS documents.
const ONE_WORD_CODES: &[&str] = &["Throttling", "Unsupported", "Forbidden", "Blocked"];

fn looks_like_code(token: &str) -> bool {
    if NOT_CODES.contains(&token) {
        return false;
    }
    if ONE_WORD_CODES.contains(&token) {
        return true;
    }
    if token.contains('_') {
        return token
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    }
    let body = token
        .strip_prefix("Client.")
        .or_else(|| token.strip_prefix("Server."))
        .unwrap_or(token);
    let uppers = body.chars().filter(char::is_ascii_uppercase).count();
    let lowers = body.chars().filter(char::is_ascii_lowercase).count();
    (uppers >= 2 && lowers >= 2) || (body.contains('.') && lowers > 0)
}

/// A token that is a documented code or ends like one.
fn has_code_shape(token: &str) -> bool {
    let code = normalize_code(token);
    codes::category_of_code(&code).is_some()
        || codes::is_generic(&code)
        || [
            "Exception",
            "Fault",
            "Error",
            "Failure",
            "Failures",
            "Exceeded",
            "Denied",
        ]
        .iter()
        .any(|suffix| code.ends_with(suffix))
}

fn normalize_code(code: &str) -> String {
    code.strip_prefix("Client.")
        .or_else(|| code.strip_prefix("Server."))
        .unwrap_or(code)
        .to_string()
}

/// Extracts code, status, request id and operation from an error text.
pub fn extract(text: &str) -> Extracted {
    let mut x = Extracted::default();

    if let Some(c) = V2_OPERATION.captures(text) {
        let service = c[1].trim();
        let op = c[2].to_string();
        x.operation = services::iam_prefix(service).map(|p| format!("{p}:{op}"));
        x.operation_name = Some(op);
    }
    let cli = CLI.captures(text);
    if x.operation_name.is_none() {
        x.operation_name = cli.as_ref().map(|c| c[2].to_string());
    }

    x.code = V2_API_ERROR
        .captures(text)
        .map(|c| c[1].to_string())
        .or_else(|| {
            V2_AFTER_IDS
                .captures_iter(text)
                .map(|c| c.get(1).unwrap().as_str())
                .find(|t| !NOT_CODES.contains(t))
                .map(str::to_string)
        })
        .or_else(|| cli.as_ref().map(|c| c[1].to_string()))
        .or_else(|| {
            // Prefer a token shaped like a documented code over any CamelCase word before a colon
            // (resource names such as `AmazonElasticMapReduceRole:` precede codes in old wordings).
            let candidates: Vec<&str> = generic_code_tokens(text)
                .filter(|t| looks_like_code(t))
                .collect();
            candidates
                .iter()
                .find(|t| has_code_shape(t))
                .or_else(|| candidates.first())
                .map(|t| t.to_string())
        })
        .or_else(|| ASYNC_CODE.captures(text).map(|c| c[1].to_string()))
        .map(|c| normalize_code(&c));

    for c in EMBEDDED_CODE.captures_iter(text) {
        let code = normalize_code(c[1].trim_end_matches('.'));
        if looks_like_code(&code)
            && x.code.as_deref() != Some(code.as_str())
            && !x.embedded_codes.contains(&code)
        {
            x.embedded_codes.push(code);
        }
    }

    x.status_code = STATUS
        .captures(text)
        .and_then(|c| c[1].parse::<u16>().ok())
        .filter(|s| (100..600).contains(s));
    x.request_id = REQUEST_ID
        .captures(text)
        .map(|c| c[1].to_string())
        .filter(|id| id.chars().any(|c| c.is_ascii_digit()));
    x.encoded_authorization_message = text.contains("Encoded authorization failure message");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(text: &str) -> Option<String> {
        extract(text).code
    }

    #[test]
    fn sdk_v2_shape() {
        // design/formats.md §1 (elastic/apm-aws-lambda#526), account shortened
        let t = "creating IAM Policy (x): operation error IAM: CreatePolicy, https response error StatusCode: 403, RequestID: a4f30910-1111-2222-3333-444455556666, api error AccessDenied: User: arn:aws:sts::123456789012:assumed-role/gha-role/GitHubActions is not authorized to perform: iam:CreatePolicy on resource: policy x because no identity-based policy allows the iam:CreatePolicy action";
        let x = extract(t);
        assert_eq!(x.code.as_deref(), Some("AccessDenied"));
        assert_eq!(x.status_code, Some(403));
        assert_eq!(
            x.request_id.as_deref(),
            Some("a4f30910-1111-2222-3333-444455556666")
        );
        assert_eq!(x.operation.as_deref(), Some("iam:CreatePolicy"));
        assert!(x.has_aws_shape());
    }

    #[test]
    fn sdk_v2_without_api_error_prefix_and_multiword_service() {
        let t = "operation error Elastic Load Balancing v2: CreateLoadBalancer, https response error StatusCode: 400, RequestID: 0f1e2d3c-aaaa-bbbb-cccc-ddddeeeeffff, DuplicateLoadBalancerName: A load balancer with the same name 'x' exists, but with different settings";
        let x = extract(t);
        assert_eq!(x.code.as_deref(), Some("DuplicateLoadBalancerName"));
        assert_eq!(
            x.operation.as_deref(),
            Some("elasticloadbalancing:CreateLoadBalancer")
        );
    }

    #[test]
    fn sdk_v1_and_legacy_shapes() {
        let t = "Error creating EIP: AddressLimitExceeded: The maximum number of addresses has been reached.\n\tstatus code: 400, request id: 8e4e6bf7-f2c9-45ea-82f3-d6609702de85";
        let x = extract(t);
        assert_eq!(x.code.as_deref(), Some("AddressLimitExceeded"));
        assert_eq!(x.status_code, Some(400));
        assert_eq!(
            x.request_id.as_deref(),
            Some("8e4e6bf7-f2c9-45ea-82f3-d6609702de85")
        );
        assert_eq!(x.operation, None);
        assert_eq!(code("* aws_instance.web: Error launching source instance: InvalidKeyPair.NotFound: The key pair 'k' does not exist").as_deref(), Some("InvalidKeyPair.NotFound"));
        assert_eq!(code("Error: creating IAM Role (r): EntityAlreadyExists: Role with name r already exists.").as_deref(), Some("EntityAlreadyExists"));
        assert_eq!(
            code("Error: Throttling: Rate exceeded").as_deref(),
            Some("Throttling")
        );
    }

    #[test]
    fn cli_and_ec2_client_prefix() {
        // https://docs.aws.amazon.com/cli/latest/userguide/cli-usage-returncodes.html style wording
        let x = extract("An error occurred (AccessDenied) when calling the GetRole operation: User: arn:aws:iam::123456789012:user/u is not authorized to perform: iam:GetRole");
        assert_eq!(x.code.as_deref(), Some("AccessDenied"));
        assert_eq!(x.operation_name.as_deref(), Some("GetRole"));
        assert_eq!(code("errorCode Client.UnauthorizedOperation: You are not authorized to perform this operation.").as_deref(), Some("UnauthorizedOperation"));
    }

    #[test]
    fn async_status_and_embedded_codes() {
        assert_eq!(code("waiting for X create: unexpected state 'INVALID', wanted target 'VALID'. last error: CLIENT_ERROR - User: arn:aws:sts::1:assumed-role/r/s is not authorized").as_deref(), Some("CLIENT_ERROR"));
        let x = extract("InvalidInputException: Insufficient Lake Formation permission(s) on t (Service: AmazonDataCatalog; Status Code: 400; Error Code: AccessDeniedException; Request ID: df2a67ec-5d0d-4700-99f6-54485b619ec7; Proxy: null)");
        assert_eq!(x.code.as_deref(), Some("InvalidInputException"));
        assert_eq!(x.embedded_codes, vec!["AccessDeniedException".to_string()]);
        assert_eq!(x.status_code, Some(400));
        let x = extract("InvalidParameterValueException: Your request has been throttled by EC2. EC2 Error Code: RequestLimitExceeded. EC2 Error Message: Request limit exceeded.");
        assert_eq!(x.embedded_codes, vec!["RequestLimitExceeded".to_string()]);
    }

    #[test]
    fn non_codes_are_not_taken_for_codes() {
        assert_eq!(
            code("Error: timeout while waiting for state to become 'available'"),
            None
        );
        assert_eq!(
            code("Error: Unsupported argument\n\nAn argument named \"foo\" is not expected here."),
            None
        );
        assert_eq!(code("RespMetadata: {\n StatusCode: 409,"), None);
        let x = extract("request id: <redacted>");
        assert_eq!(x.request_id, None);
        assert!(!x.has_aws_shape());
    }
}
