//! While and after an apply streams: completed resources are recorded as they finish (so a
//! crash can be reported), and permission failures whose denied action the error text leaves
//! unclear are handed to CloudTrail polls.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use super::super::failure_facts::failures_in;
use super::super::prepare::Prepared;
use super::super::RunCtx;
use crate::db::runs;
use crate::enrich::failures_from_apply;
use crate::jobs::JobError;
use crate::jobs::PendingFailure;
use crate::policy::ResolvedProject;
use crate::redact::{Placeholders, Redactor};
use crate::run_planner::record::ApplyRecord;
use crate::state::AppState;
use crate::terraform::{apply_outcome, parse_ui_line, UiMessage};
use crate::tfrun::{self, ApplyOutput, TerraformSetup};

/// Records completed resources of a running apply; `.0` is fed each stream line.
pub(super) struct ProgressRecorder(pub Box<dyn Fn(&str) + Send + Sync>, JoinHandle<()>);

impl ProgressRecorder {
    /// Wait until every recorded line is written.
    pub async fn finish(self) {
        drop(self.0);
        let _ = self.1.await;
    }
}

pub(super) fn progress_recorder(state: Arc<AppState>, run_id: i64) -> ProgressRecorder {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let task = tokio::spawn(async move {
        let mut record = ApplyRecord::default();
        while let Some(addr) = rx.recv().await {
            record.completed.push(addr);
            if let Err(e) = runs::set_progress(&state.db, run_id, &record.encode()).await {
                tracing::warn!(error = %format!("{e:#}"), "could not record apply progress");
            }
        }
    });
    ProgressRecorder(Box::new(move |line| send_completed(&tx, line)), task)
}

fn send_completed(tx: &UnboundedSender<String>, line: &str) {
    if let Ok(Some(UiMessage::ApplyComplete { hook, .. })) = parse_ui_line(line) {
        let _ = tx.send(hook.resource.addr.clone());
    }
}

impl RunCtx<'_> {
    /// Terraform applies `plan_file` to `p`'s root while completed resources are recorded.
    pub(super) async fn apply_recording_progress(
        &self,
        p: &ResolvedProject,
        setup: &TerraformSetup,
        plan_file: &[u8],
        prepared: &Prepared,
    ) -> Result<ApplyOutput, JobError> {
        let progress = progress_recorder(self.state.clone(), prepared.run_id);
        let mut on_line = |l: &str| (progress.0)(l);
        let out = tfrun::apply(
            setup,
            &prepared.checkout(),
            &p.spec.dir,
            plan_file,
            &prepared.settings,
            &mut on_line,
        )
        .await
        .map_err(JobError::Transient)?;
        progress.finish().await;
        Ok(out)
    }

    /// Permission failures to confirm in CloudTrail, when the policy gives a read role for the
    /// apply role's account.
    pub(super) fn failures_to_confirm(
        &self,
        p: &ResolvedProject,
        run_id: i64,
        stream: Option<&str>,
        redactor: &Redactor,
        ph: &mut Placeholders,
    ) -> Vec<PendingFailure> {
        let role = p.apply_role.as_deref().unwrap_or(&p.plan_role);
        let failures = || failures_in(stream, |s| failures_from_apply(&apply_outcome(s, &[])));
        self.pending_failures(p, role, run_id, failures, redactor, ph)
    }
}
