//! The drift report's one issue per repository: created when drift is first found, updated
//! in place (and reopened) on every later check, closed when every root is in sync. The
//! metrics of the check are set here too.

use crate::drift_detection::report::{DriftReport, IssueAction, ISSUE_MARKER, ISSUE_TITLE};
use crate::github::issues;
use crate::github::InstallationClient;
use crate::jobs::JobError;
use crate::metrics::DriftLabels;
use crate::model::RepoRef;
use crate::state::AppState;

use crate::worker::github_error;

pub async fn publish(
    state: &AppState,
    gh: &InstallationClient,
    repo: &RepoRef,
    report: &DriftReport,
) -> Result<(), JobError> {
    record_metrics(state, repo, report);
    let action = report.issue_action();
    let body = state
        .renderer
        .render_drift_report(&report.issue_text())
        .map_err(|e| JobError::Permanent(anyhow::anyhow!("rendering the drift report: {e}")))?;
    let own_login = format!("{}[bot]", state.app_slug());
    let wanted = issues::MarkedIssue {
        title: ISSUE_TITLE,
        marker: ISSUE_MARKER,
        own_login: &own_login,
    };
    let existing = issues::find_marked_issue(gh, repo, wanted)
        .await
        .map_err(github_error)?;
    let (number, state_to_set) = match (existing, action) {
        (None, IssueAction::Open) => {
            let n = issues::create_marked_issue(gh, repo, wanted, &body)
                .await
                .map_err(github_error)?;
            tracing::info!(repo = %repo.full_name(), issue = n, "drift report opened");
            return Ok(());
        }
        (None, _) => return Ok(()),
        (Some(n), IssueAction::Open) => (n, Some("open")),
        (Some(n), IssueAction::Close) => (n, Some("closed")),
        (Some(n), IssueAction::UpdateOnly) => (n, None),
    };
    issues::update_issue(gh, repo, number, &body, state_to_set)
        .await
        .map_err(github_error)?;
    tracing::info!(repo = %repo.full_name(), issue = number, state = state_to_set.unwrap_or("unchanged"), "drift report updated");
    Ok(())
}

fn record_metrics(state: &AppState, repo: &RepoRef, report: &DriftReport) {
    for root in &report.roots {
        let labels = DriftLabels {
            repo: repo.full_name(),
            project: root.project.clone(),
        };
        state
            .metrics
            .drift_resources
            .get_or_create(&labels)
            .set(root.drifted_resources() as i64);
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    state.metrics.drift_last_run.set(now);
}
