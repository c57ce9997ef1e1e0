//! Creating a completed check run, with every annotation.
//!
//! GitHub takes at most 50 annotations per request. With more, the check run is created
//! `in_progress` with the first 50, each further 50 are added with `PATCH …/check-runs/{id}`,
//! and the last request completes it with its conclusion. A check run left `in_progress` by
//! a publish that failed half-way is finished by [`finish_check_run`] on the next attempt.

use anyhow::{Context, Result};
use serde_json::{json, Value};

use super::http::{Call, Delivered, InstallationClient};
use crate::model::view::{AnnotationLevel, AnnotationView};
use crate::model::RepoRef;

/// The Checks API's limit of annotations per request.
pub const ANNOTATIONS_PER_REQUEST: usize = 50;

/// A completed check run with its output.
pub struct CheckRunRequest<'a> {
    pub name: &'a str,
    pub head_sha: &'a str,
    /// tfgate's own id of the check run, to find it again.
    pub external_id: Option<&'a str>,
    /// `success`, `failure`, `neutral` …
    pub conclusion: &'a str,
    pub title: &'a str,
    pub summary: &'a str,
    pub text: &'a str,
    pub annotations: &'a [AnnotationView],
}

/// One annotation as the API takes it.
fn annotation_json(a: &AnnotationView) -> Value {
    json!({
        "path": a.path,
        "start_line": a.start_line.max(1),
        "end_line": a.end_line.max(a.start_line).max(1),
        "annotation_level": match a.level {
            AnnotationLevel::Notice => "notice",
            AnnotationLevel::Warning => "warning",
            AnnotationLevel::Failure => "failure",
        },
        "title": a.title,
        "message": a.message,
    })
}

/// The annotations in batches of at most [`ANNOTATIONS_PER_REQUEST`]; one (empty) batch
/// when there are none.
pub fn annotation_batches(annotations: &[AnnotationView]) -> Vec<Vec<Value>> {
    if annotations.is_empty() {
        return vec![Vec::new()];
    }
    annotations
        .chunks(ANNOTATIONS_PER_REQUEST)
        .map(|chunk| chunk.iter().map(annotation_json).collect())
        .collect()
}

/// The `output` object with one batch of annotations (`text` only on the last request).
fn output(r: &CheckRunRequest<'_>, batch: &[Value], last: bool) -> Value {
    let mut output = json!({ "title": r.title, "summary": r.summary, "annotations": batch });
    if last && !r.text.is_empty() {
        output["text"] = json!(r.text);
    }
    output
}

pub async fn create_check_run(
    gh: &InstallationClient,
    repo: &RepoRef,
    r: &CheckRunRequest<'_>,
) -> Result<()> {
    let batches = annotation_batches(r.annotations);
    let single = batches.len() == 1;
    let route = format!("/repos/{}/{}/check-runs", repo.owner, repo.name);
    let mut body = json!({
        "name": r.name,
        "head_sha": r.head_sha,
        "output": output(r, &batches[0], single),
    });
    if single {
        body["status"] = json!("completed");
        body["conclusion"] = json!(r.conclusion);
    } else {
        body["status"] = json!("in_progress");
    }
    let id = match r.external_id {
        None => {
            let created: Value = gh
                .post(&route, &body)
                .await
                .context("creating a check run")?;
            created["id"].as_i64().unwrap_or_default()
        }
        Some(external_id) => {
            body["external_id"] = json!(external_id);
            create_once(gh, repo, r, &route, &body, external_id).await?
        }
    };
    if single {
        return Ok(());
    }
    add_batches(gh, repo, id, r, &batches[1..]).await
}

/// Finishes a check run that a failed publish left `in_progress`: the annotations after the
/// first batch (which the create carried) are sent again and the run is completed. Some may
/// then show twice; none is lost.
pub async fn finish_check_run(
    gh: &InstallationClient,
    repo: &RepoRef,
    id: i64,
    r: &CheckRunRequest<'_>,
) -> Result<()> {
    let batches = annotation_batches(r.annotations);
    let rest = if batches.len() > 1 {
        &batches[1..]
    } else {
        &batches[..]
    };
    add_batches(gh, repo, id, r, rest).await
}

/// PATCHes each batch; the last also completes the check run.
async fn add_batches(
    gh: &InstallationClient,
    repo: &RepoRef,
    id: i64,
    r: &CheckRunRequest<'_>,
    batches: &[Vec<Value>],
) -> Result<()> {
    let route = format!("/repos/{}/{}/check-runs/{id}", repo.owner, repo.name);
    for (i, batch) in batches.iter().enumerate() {
        let last = i + 1 == batches.len();
        let mut body = json!({ "output": output(r, batch, last) });
        if last {
            body["status"] = json!("completed");
            body["conclusion"] = json!(r.conclusion);
        }
        let _: Value = gh.patch(&route, &body).await.with_context(|| {
            format!(
                "adding annotations to a check run ({} of {})",
                i + 2,
                batches.len() + 1
            )
        })?;
    }
    Ok(())
}

/// POST once: a create whose answer was lost is looked up by `external_id`, not repeated.
async fn create_once(
    gh: &InstallationClient,
    repo: &RepoRef,
    r: &CheckRunRequest<'_>,
    route: &str,
    body: &Value,
    external_id: &str,
) -> Result<i64> {
    let call = Call {
        method: &http::Method::POST,
        route,
        body: Some(body),
        idempotent: false,
    };
    let delivered = gh
        .deliver(call, || {
            check_run_with_external_id(gh, repo, r.head_sha, r.name, external_id)
        })
        .await
        .context("creating a check run")?;
    match delivered {
        Delivered::Answer(text) => {
            let created: Value = serde_json::from_str(&text)
                .context("GitHub's answer to a new check run is not JSON")?;
            Ok(created["id"].as_i64().unwrap_or_default())
        }
        Delivered::AlreadyDone(id) => {
            tracing::info!(
                check_run = id,
                "a check run whose answer was lost had been created"
            );
            Ok(id)
        }
    }
}

/// The id of the check run `name` with `external_id` on commit `head_sha`, if GitHub has it.
async fn check_run_with_external_id(
    gh: &InstallationClient,
    repo: &RepoRef,
    head_sha: &str,
    name: &str,
    external_id: &str,
) -> Result<Option<i64>> {
    let listed = super::lists::check_runs(gh, repo, head_sha).await?;
    Ok(listed
        .iter()
        .find(|c| c.name == name && c.external_id.as_deref() == Some(external_id))
        .map(|c| c.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotation(line: u32) -> AnnotationView {
        AnnotationView {
            path: "infra/eks/main.tf".into(),
            start_line: line,
            end_line: 0,
            level: AnnotationLevel::Failure,
            title: "aws_iam_role.node".into(),
            message: "AccessDenied (permission missing)".into(),
        }
    }

    #[test]
    fn batches_hold_at_most_fifty_in_order() {
        let cases = [
            (0, vec![0]),
            (1, vec![1]),
            (50, vec![50]),
            (51, vec![50, 1]),
            (120, vec![50, 50, 20]),
        ];
        for (count, sizes) in cases {
            let all: Vec<AnnotationView> = (1..=count).map(annotation).collect();
            let batches = annotation_batches(&all);
            let got: Vec<usize> = batches.iter().map(Vec::len).collect();
            assert_eq!(got, sizes, "{count} annotations");
            let lines: Vec<i64> = batches
                .iter()
                .flatten()
                .map(|a| a["start_line"].as_i64().unwrap())
                .collect();
            assert_eq!(lines, (1..=count as i64).collect::<Vec<_>>());
        }
    }

    #[test]
    fn annotation_lines_are_at_least_one_and_ordered() {
        let a = annotation_json(&annotation(0));
        assert_eq!(
            (a["start_line"].as_i64(), a["end_line"].as_i64()),
            (Some(1), Some(1))
        );
        let b = annotation_json(&AnnotationView {
            end_line: 2,
            ..annotation(7)
        });
        assert_eq!(
            (b["start_line"].as_i64(), b["end_line"].as_i64()),
            (Some(7), Some(7))
        );
        assert_eq!(b["annotation_level"], "failure");
    }
}
