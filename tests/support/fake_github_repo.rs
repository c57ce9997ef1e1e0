//! The fake's repository files: single files by the contents API, whole commits as tarballs.

use serde_json::json;
use wiremock::{Request, ResponseTemplate};

use super::{seg, GitHubState};

pub fn contents(st: &mut GitHubState, req: &Request) -> ResponseTemplate {
    let path = req
        .url
        .path()
        .splitn(6, '/')
        .nth(5)
        .unwrap_or("")
        .to_string();
    let git_ref = req
        .url
        .query_pairs()
        .find(|(k, _)| k == "ref")
        .map(|(_, v)| v.to_string())
        .unwrap_or_default();
    st.contents_requests.push((git_ref.clone(), path.clone()));
    match st.contents.get(&(git_ref, path.clone())) {
        Some(text) => {
            use base64::Engine;
            let b64 = base64::engine::general_purpose::STANDARD.encode(text);
            // GitHub wraps the base64 every 60 characters.
            let wrapped: Vec<String> = b64
                .as_bytes()
                .chunks(60)
                .map(|c| String::from_utf8_lossy(c).into_owned() + "\n")
                .collect();
            ResponseTemplate::new(200).set_body_json(json!({
                "type": "file", "encoding": "base64", "size": text.len(),
                "name": path.rsplit('/').next().unwrap_or(""), "path": path,
                "content": wrapped.concat(), "sha": "c".repeat(40)
            }))
        }
        None => ResponseTemplate::new(404).set_body_json(json!({
            "message": "Not Found",
            "documentation_url": "https://docs.github.com/rest/repos/contents#get-repository-content",
            "status": "404"
        })),
    }
}

pub fn tarball(st: &GitHubState, req: &Request) -> ResponseTemplate {
    let sha = seg(req, 4);
    let bytes = st.tarballs.get(&sha).unwrap_or(&st.tarball).clone();
    ResponseTemplate::new(200)
        .insert_header("content-type", "application/x-gzip")
        .set_body_bytes(bytes)
}
