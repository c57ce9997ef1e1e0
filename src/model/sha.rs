//! Commit ids, and the short form GitHub shows.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How many characters of a commit id GitHub shows.
const SHORT_LEN: usize = 7;

/// The first 7 characters of a commit id, as GitHub shows it (the whole text when shorter).
pub fn short_sha(sha: &str) -> &str {
    sha.get(..SHORT_LEN).unwrap_or(sha)
}

/// A commit id as GitHub sends it (40 hex digits for SHA-1 repositories). Not validated: it
/// only names what GitHub gave us.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CommitSha(pub String);

impl CommitSha {
    pub fn new(sha: impl Into<String>) -> Self {
        CommitSha(sha.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The 7-character form GitHub shows.
    pub fn short(&self) -> &str {
        short_sha(&self.0)
    }
}

impl fmt::Display for CommitSha {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for CommitSha {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_form_is_seven_characters_or_the_whole_text() {
        assert_eq!(short_sha("0123456789abcdef"), "0123456");
        assert_eq!(short_sha("abc"), "abc");
        assert_eq!(short_sha(""), "");
        assert_eq!(CommitSha::new("0123456789abcdef").short(), "0123456");
    }

    #[test]
    fn it_serialises_as_the_plain_string() {
        let sha = CommitSha::new("abc");
        assert_eq!(serde_json::to_string(&sha).unwrap(), "\"abc\"");
        assert_eq!(sha.to_string(), "abc");
    }
}
