//! Tests of the checkout module that need built tarballs or an HTTP server.

mod extract_accepts;
mod extract_rejects;
mod fetch_http;
mod tarball;
