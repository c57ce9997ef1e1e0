//! STS calls: AssumeRole (run and read roles) and DecodeAuthorizationMessage.

use super::source_identity::sanitize_sts_name;
use aws_config::SdkConfig;
use aws_sdk_sts::config::Credentials;
use aws_sdk_sts::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_sts::types::Tag;
use std::fmt;
use std::time::{Duration, SystemTime};

/// Temporary credentials. `Debug` shows only the access key id's first four characters.
#[derive(Clone, PartialEq, Eq)]
pub struct TempCredentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: String,
    pub expiration: SystemTime,
}

impl fmt::Debug for TempCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key_prefix: String = self.access_key_id.chars().take(4).collect();
        f.debug_struct("TempCredentials")
            .field("access_key_id", &format_args!("{key_prefix}…"))
            .field("secret_access_key", &"<redacted>")
            .field("session_token", &"<redacted>")
            .field("expiration", &self.expiration)
            .finish()
    }
}

impl TempCredentials {
    pub fn to_sdk_credentials(&self) -> Credentials {
        Credentials::new(
            &self.access_key_id,
            &self.secret_access_key,
            Some(self.session_token.clone()),
            Some(self.expiration),
            "tfgate-assume-role",
        )
    }
}

/// An STS failure. `Display` is short and never carries provider text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StsError {
    #[error("STS denied the call ({code})")]
    Denied { code: String },
    #[error("STS throttled the call")]
    Throttled,
    #[error("STS returned no credentials")]
    NoCredentials,
    #[error("the request to STS could not be built")]
    InvalidRequest,
    #[error("STS call failed ({})", code.as_deref().unwrap_or("no error code"))]
    Other { code: Option<String> },
}

fn sts_error<E: ProvideErrorMetadata, R>(err: &SdkError<E, R>) -> StsError {
    let code = err.code().map(str::to_string);
    match code.as_deref() {
        Some(c @ ("AccessDenied" | "AccessDeniedException")) => StsError::Denied { code: c.into() },
        Some("Throttling" | "ThrottlingException" | "RequestLimitExceeded") => StsError::Throttled,
        _ if matches!(err, SdkError::ConstructionFailure(_)) => StsError::InvalidRequest,
        _ => StsError::Other { code },
    }
}

/// What to assume and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssumeRoleRequest<'a> {
    pub role_arn: &'a str,
    /// Sanitised to STS's alphabet; also the CloudTrail `Username` of the session.
    pub session_name: &'a str,
    /// Sanitised to STS's alphabet (the PR author or approver, for audit).
    pub source_identity: &'a str,
    pub tags: &'a [(&'a str, &'a str)],
    pub duration_secs: i32,
    /// A session policy narrowing the role further.
    pub session_policy: Option<&'a str>,
}

/// `sts:AssumeRole` with source identity, session tags and an optional session policy.
pub async fn assume_role(
    base: &SdkConfig,
    request: &AssumeRoleRequest<'_>,
) -> Result<TempCredentials, StsError> {
    let client = aws_sdk_sts::Client::new(base);
    let tags = request
        .tags
        .iter()
        .map(|(k, v)| Tag::builder().key(*k).value(*v).build())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| StsError::InvalidRequest)?;
    let output = client
        .assume_role()
        .role_arn(request.role_arn)
        .role_session_name(sanitize_sts_name(request.session_name))
        .source_identity(sanitize_sts_name(request.source_identity))
        .set_tags((!tags.is_empty()).then_some(tags))
        .duration_seconds(request.duration_secs)
        .set_policy(request.session_policy.map(str::to_string))
        .send()
        .await
        .map_err(|e| sts_error(&e))?;
    let creds = output.credentials().ok_or(StsError::NoCredentials)?;
    let expiration = creds.expiration();
    let expiration =
        SystemTime::UNIX_EPOCH + Duration::from_secs(u64::try_from(expiration.secs()).unwrap_or(0));
    Ok(TempCredentials {
        access_key_id: creds.access_key_id().to_string(),
        secret_access_key: creds.secret_access_key().to_string(),
        session_token: creds.session_token().to_string(),
        expiration,
    })
}

/// `sts:DecodeAuthorizationMessage`: the `DecodedMessage` JSON string (parse it with
/// `enrich::parse_decoded_authorization_message`; never show it, it holds ARNs).
pub async fn decode_authorization_message(
    config: &SdkConfig,
    encoded_message: &str,
) -> Result<String, StsError> {
    let output = aws_sdk_sts::Client::new(config)
        .decode_authorization_message()
        .encoded_message(encoded_message.trim())
        .send()
        .await
        .map_err(|e| sts_error(&e))?;
    output
        .decoded_message()
        .map(str::to_string)
        .ok_or(StsError::Other { code: None })
}
