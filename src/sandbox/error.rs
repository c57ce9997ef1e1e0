//! Errors of a sandboxed run (internal: log them, never post them to a PR verbatim).

use std::path::PathBuf;

/// Why a sandboxed run could not be carried out. A program that ran and failed is not an
/// error: it is a [`super::RunOutput`] with a non-zero [`super::ExitKind`].
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The spec would be rejected by bwrap or the kernel.
    #[error("invalid sandbox spec: {0}")]
    InvalidSpec(String),
    /// bubblewrap is not installed (Debian: `apt-get install -y bubblewrap`).
    #[error("bubblewrap (bwrap) not found in PATH")]
    BwrapMissing,
    /// The process could not be started.
    #[error("could not start {program}")]
    Spawn {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Reading its output or waiting for it failed.
    #[error("i/o error while supervising the sandboxed process")]
    Io(#[from] std::io::Error),
}
