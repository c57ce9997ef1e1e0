//! The `fake_fetch` data source: a plan-time HTTP GET, proxied the way Go's
//! `http.ProxyFromEnvironment` does it (so tests see what real providers do): `HTTP_PROXY` /
//! `http_proxy` for `http://` URLs, except for `localhost` and loopback IP literals, which are
//! always reached directly.

use std::borrow::Cow;
use std::io::{Read, Write};
use std::net::{IpAddr, TcpStream};
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tf_provider::schema::{
    Attribute, AttributeConstraint, AttributeType, Block, Description, Schema,
};
use tf_provider::value::{Value, ValueEmpty, ValueString};
use tf_provider::{map, AttributePath, DataSource, Diagnostic, Diagnostics};

const BODY_CAP: usize = 4096;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct FetchState<'a> {
    pub url: ValueString<'a>,
    pub status: ValueString<'a>,
    pub body: ValueString<'a>,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct FetchDataSource;

fn attr(description: &str, constraint: AttributeConstraint) -> Attribute {
    Attribute {
        attr_type: AttributeType::String,
        description: Description::plain(description),
        constraint,
        ..Default::default()
    }
}

#[async_trait]
impl DataSource for FetchDataSource {
    type State<'a> = FetchState<'a>;
    type ProviderMetaState<'a> = ValueEmpty;

    fn schema(&self, _diags: &mut Diagnostics) -> Option<Schema> {
        use AttributeConstraint::{Computed, Required};
        Some(Schema {
            version: 1,
            block: Block {
                version: 1,
                description: Description::plain("GET an http:// URL at plan time"),
                attributes: map! {
                    "url" => attr("http://host:port/path", Required),
                    "status" => attr("The HTTP status code", Computed),
                    "body" => attr("The first 4 KiB of the body", Computed),
                },
                ..Default::default()
            },
        })
    }

    async fn read<'a>(
        &self,
        diags: &mut Diagnostics,
        config: Self::State<'a>,
        _meta: Self::ProviderMetaState<'a>,
    ) -> Option<Self::State<'a>> {
        let Value::Value(url) = &config.url else {
            return Some(config);
        };
        match get(url) {
            Ok((status, body)) if status.starts_with('2') => {
                let mut state = config.clone();
                state.status = Value::Value(Cow::Owned(status));
                state.body = Value::Value(Cow::Owned(body));
                Some(state)
            }
            Ok((status, _)) => fail(diags, format!("fetch failed: HTTP {status}")),
            Err(e) => fail(diags, format!("fetch failed: {e}")),
        }
    }
}

fn fail<T>(diags: &mut Diagnostics, summary: String) -> Option<T> {
    diags.add_error(Diagnostic {
        summary: Cow::Owned(summary),
        detail: Cow::Borrowed(""),
        attribute: AttributePath::new("url"),
    });
    None
}

/// `(status code, body)` of `GET url`.
fn get(url: &str) -> Result<(String, String), String> {
    let rest = url.strip_prefix("http://").ok_or("only http:// URLs")?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
    let proxy = std::env::var("HTTP_PROXY")
        .or_else(|_| std::env::var("http_proxy"))
        .ok()
        .filter(|_| !bypasses_proxy(host));
    let (connect_to, request_target) = match &proxy {
        Some(p) => (
            p.trim_start_matches("http://")
                .trim_end_matches('/')
                .to_string(),
            url.to_string(),
        ),
        None if authority.contains(':') => (authority.to_string(), path.to_string()),
        None => (format!("{authority}:80"), path.to_string()),
    };
    let mut stream = TcpStream::connect(&connect_to).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(30))).ok();
    write!(
        stream,
        "GET {request_target} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut reply = Vec::new();
    stream
        .take(64 * 1024)
        .read_to_end(&mut reply)
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&reply);
    let status = text.split(' ').nth(1).unwrap_or("000").to_string();
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Ok((status, body.chars().take(BODY_CAP).collect()))
}

/// Go's rule: `localhost` and loopback IP literals never go through a proxy.
fn bypasses_proxy(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}
