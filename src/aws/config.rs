//! Building SDK configurations: region, endpoint override (local fakes), credentials, and an
//! HTTPS client on rustls + ring (the same TLS stack as the rest of tfgate).

use super::sts::TempCredentials;
use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_sdk_sts::config::{Credentials, SharedCredentialsProvider};
use aws_smithy_http_client::tls::{self, rustls_provider::CryptoMode};

/// Environment variable that points every AWS client at a local endpoint (tests, fakes).
pub const ENDPOINT_URL_ENV: &str = "TFGATE_AWS_ENDPOINT_URL";

/// Where and how to reach AWS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsSettings {
    pub region: String,
    /// Overrides every service endpoint (moto, wiremock); `None` for real AWS.
    pub endpoint_url: Option<String>,
}

impl AwsSettings {
    /// `region`, with the endpoint override from `TFGATE_AWS_ENDPOINT_URL` when set.
    pub fn from_env(region: &str) -> AwsSettings {
        AwsSettings {
            region: region.to_string(),
            endpoint_url: std::env::var(ENDPOINT_URL_ENV)
                .ok()
                .filter(|u| !u.trim().is_empty()),
        }
    }
}

fn https_client() -> aws_sdk_sts::config::SharedHttpClient {
    aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(CryptoMode::Ring))
        .build_https()
}

fn builder(settings: &AwsSettings) -> aws_config::ConfigLoader {
    let mut loader = aws_config::defaults(BehaviorVersion::latest())
        .region(Region::new(settings.region.clone()))
        .http_client(https_client());
    if let Some(url) = &settings.endpoint_url {
        loader = loader.endpoint_url(url.clone());
    }
    loader
}

/// The base configuration with the default credential chain (environment, web identity,
/// container, instance metadata): the identity that assumes the run and read roles.
pub async fn load_base_config(settings: &AwsSettings) -> SdkConfig {
    builder(settings).load().await
}

/// A configuration with fixed keys (local fakes, tests).
pub async fn static_config(settings: &AwsSettings, access_key_id: &str, secret: &str) -> SdkConfig {
    builder(settings)
        .credentials_provider(Credentials::new(
            access_key_id,
            secret,
            None,
            None,
            "tfgate-static",
        ))
        .load()
        .await
}

/// `base` with the temporary credentials of an assumed role.
pub fn config_with_credentials(base: &SdkConfig, creds: &TempCredentials) -> SdkConfig {
    base.to_builder()
        .credentials_provider(SharedCredentialsProvider::new(creds.to_sdk_credentials()))
        .build()
}
