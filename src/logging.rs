//! tracing setup: human text by default, JSON with `TFGATE_LOG_FORMAT=json`. Levels from
//! `RUST_LOG` (default `info`). Payload bodies, tokens and secrets are never logged.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,hyper=warn,octocrab=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    let result = match format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
    // A second init (tests) is harmless.
    let _ = result;
}
