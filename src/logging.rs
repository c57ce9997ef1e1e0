//! tracing setup: human text by default, JSON with `TFGATE_LOG_FORMAT=json`. Levels from
//! `RUST_LOG` (default `info`). Payload bodies, tokens and secrets are never logged.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

pub fn init(format: LogFormat) {
    let filter = EnvFilter::new(filter_directives(std::env::var("RUST_LOG").ok().as_deref()));
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

/// `RUST_LOG` (default `info` with quiet database and HTTP crates), with the OpenPGP crate
/// held at `warn` unless named: at `debug` it logs every packet of the release keys parsed
/// at start (hundreds of KiB).
fn filter_directives(rust_log: Option<&str>) -> String {
    match rust_log.map(str::trim).filter(|s| !s.is_empty()) {
        None => "info,sqlx=warn,hyper=warn,octocrab=warn,pgp=warn".into(),
        Some(own) if own.contains("pgp") => own.into(),
        Some(own) => format!("{own},pgp=warn"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_openpgp_crate_stays_quiet_unless_named() {
        use super::filter_directives as f;
        assert_eq!(f(None), "info,sqlx=warn,hyper=warn,octocrab=warn,pgp=warn");
        assert_eq!(
            f(Some(" ")),
            "info,sqlx=warn,hyper=warn,octocrab=warn,pgp=warn"
        );
        assert_eq!(f(Some("debug")), "debug,pgp=warn");
        assert_eq!(f(Some("debug,pgp=trace")), "debug,pgp=trace");
    }
}
