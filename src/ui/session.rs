//! The web UI's session: who signed in, their GitHub token (to check what they may read),
//! a CSRF token and an expiry, sealed (AES-256-GCM) into one cookie with a key derived from
//! the server's sealing key. Pure apart from the random CSRF token.

use base64::Engine;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::crypto::{open, seal, SealKey};

pub const COOKIE_NAME: &str = "tfgate_session";
/// Sessions last eight hours from sign-in.
pub const SESSION_SECONDS: i64 = 8 * 3600;
const AAD: &[u8] = b"tfgate-ui-session-v1";
/// Cookies longer than this are not even opened.
const MAX_COOKIE_LEN: usize = 4096;

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UiSession {
    pub login: String,
    /// The user's OAuth token: GitHub answers "may this user read that repository" with it.
    pub token: String,
    /// Sent back by every form; compared in constant time.
    pub csrf: String,
    /// Unix seconds.
    pub expires_at: i64,
}

impl std::fmt::Debug for UiSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UiSession")
            .field("login", &self.login)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

impl UiSession {
    /// A session for `login` from `now`, with a fresh CSRF token.
    pub fn start(login: &str, token: &str, now: i64) -> UiSession {
        UiSession {
            login: login.to_string(),
            token: token.to_string(),
            csrf: random_token(),
            expires_at: now + SESSION_SECONDS,
        }
    }

    /// Whether `sent` (a form's `csrf` field) is this session's token.
    pub fn csrf_matches(&self, sent: &str) -> bool {
        !sent.is_empty() && bool::from(self.csrf.as_bytes().ct_eq(sent.as_bytes()))
    }
}

/// 32 random bytes, URL-safe base64.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The cookie key: derived from the sealing key, so rotating that key signs everyone out.
pub fn cookie_key(seal_key: &SealKey) -> SealKey {
    SealKey::from_bytes(seal_key.derive(b"tfgate ui session cookie"))
}

/// The cookie value of `session`.
pub fn seal_session(key: &SealKey, session: &UiSession) -> String {
    let json = serde_json::to_vec(session).expect("a session serialises");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(seal(key, &json, AAD))
}

/// The session in a cookie value, if it was sealed by `key` and has not expired at `now`.
pub fn open_session(key: &SealKey, value: &str, now: i64) -> Option<UiSession> {
    if value.len() > MAX_COOKIE_LEN {
        return None;
    }
    let sealed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(value)
        .ok()?;
    let json = open(key, &sealed, AAD).ok()?;
    let session: UiSession = serde_json::from_slice(&json).ok()?;
    (now < session.expires_at).then_some(session)
}

/// A `Set-Cookie` value for the UI: `path` (`/ui`, or `/` for a `__Host-` cookie), HttpOnly,
/// SameSite=Lax, `Secure` unless the server is reached over loopback HTTP; `max_age` 0
/// deletes the cookie.
pub fn cookie(name: &str, value: &str, path: &str, max_age: i64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{name}={value}; Path={path}; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}")
}

/// The session cookie carrying `value`, for [`SESSION_SECONDS`].
pub fn set_cookie(value: &str, secure: bool) -> String {
    cookie(COOKIE_NAME, value, "/ui", SESSION_SECONDS, secure)
}

/// The `Set-Cookie` value that signs out.
pub fn clear_cookie(secure: bool) -> String {
    cookie(COOKIE_NAME, "", "/ui", 0, secure)
}

/// Our cookie's value in a `Cookie` request header.
pub fn cookie_value(header: &str) -> Option<&str> {
    header
        .split(';')
        .map(str::trim)
        .find_map(|pair| pair.strip_prefix(COOKIE_NAME)?.strip_prefix('='))
}

/// Whether cookies must be `Secure`: every public URL but plain-HTTP loopback.
pub fn secure_cookies(public_url: Option<&str>) -> bool {
    let Some(url) = public_url.and_then(|u| url::Url::parse(u).ok()) else {
        return true;
    };
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    !(url.scheme() == "http" && loopback)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SealKey {
        cookie_key(&SealKey::from_bytes([7; 32]))
    }

    #[test]
    fn a_sealed_session_opens_until_it_expires() {
        let s = UiSession::start("alice", "gho_x", 1_000);
        let value = seal_session(&key(), &s);
        assert_eq!(open_session(&key(), &value, 1_001), Some(s.clone()));
        assert_eq!(
            open_session(&key(), &value, 1_000 + SESSION_SECONDS - 1),
            Some(s)
        );
        assert_eq!(open_session(&key(), &value, 1_000 + SESSION_SECONDS), None);
    }

    #[test]
    fn the_cookie_hides_the_token_and_refuses_tampering_and_other_keys() {
        let s = UiSession::start("alice", "gho_secret_token", 0);
        let value = seal_session(&key(), &s);
        assert!(!value.contains("alice") && !value.contains("gho_"));
        let other = cookie_key(&SealKey::from_bytes([8; 32]));
        assert_eq!(open_session(&other, &value, 1), None);
        // The raw sealing key is not the cookie key.
        assert_eq!(open_session(&SealKey::from_bytes([7; 32]), &value, 1), None);
        let mut bytes = value.into_bytes();
        let mid = bytes.len() / 2;
        bytes[mid] = if bytes[mid] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).unwrap();
        assert_eq!(open_session(&key(), &tampered, 1), None);
        for junk in ["", "!!!", &"A".repeat(5000)] {
            assert_eq!(open_session(&key(), junk, 1), None);
        }
    }

    #[test]
    fn csrf_tokens_are_random_and_compared_exactly() {
        let a = UiSession::start("alice", "t", 0);
        let b = UiSession::start("alice", "t", 0);
        assert_ne!(a.csrf, b.csrf);
        assert!(a.csrf.len() >= 43);
        assert!(a.csrf_matches(&a.csrf.clone()));
        assert!(!a.csrf_matches(&b.csrf));
        assert!(!a.csrf_matches(""));
        assert!(!a.csrf_matches(&a.csrf[..10]));
    }

    #[test]
    fn cookie_attributes() {
        assert_eq!(
            set_cookie("v", true),
            "tfgate_session=v; Path=/ui; Max-Age=28800; HttpOnly; SameSite=Lax; Secure"
        );
        assert!(!set_cookie("v", false).contains("Secure"));
        assert!(clear_cookie(true).contains("Max-Age=0"));
        for (url, secure) in [
            (Some("https://tfgate.example"), true),
            (Some("http://127.0.0.1:8080"), false),
            (Some("http://localhost:8080"), false),
            (Some("http://[::1]:8080"), false),
            (Some("http://tfgate.example"), true),
            (None, true),
        ] {
            assert_eq!(secure_cookies(url), secure, "{url:?}");
        }
    }

    #[test]
    fn reads_our_cookie_among_others() {
        assert_eq!(cookie_value("a=1; tfgate_session=xyz; b=2"), Some("xyz"));
        assert_eq!(cookie_value("tfgate_session_old=1"), None);
        assert_eq!(cookie_value("a=1"), None);
    }

    #[test]
    fn debug_hides_the_token() {
        let s = UiSession::start("alice", "gho_secret", 0);
        let shown = format!("{s:?}");
        assert!(
            shown.contains("alice") && !shown.contains("gho_secret") && !shown.contains(&s.csrf)
        );
    }
}
