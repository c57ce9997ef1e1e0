//! Texts besides comments that tfgate sends and that a template words: the "outdated" fold of
//! an earlier plan comment, the `tfgate/policy` check run. Template names are in
//! [`super::template_names`].

use minijinja::context;

use super::template_names::{APPLY_CHECK, DEPLOY_CHECK, DRIFT_REPORT, PLAN_OUTDATED, POLICY_CHECK};
use super::{RenderError, Renderer};
use crate::model::{ApplyCheckText, DeployCheckText, DriftReportText, PolicyCheckText};

/// Where the comment goes in the fold template (to find the text before it).
const BODY_SLOT: &str = "\u{1}tfgate-folded-body\u{1}";

/// A check run's title and summary, rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckTitleSummary {
    pub title: String,
    pub summary: String,
}

impl Renderer {
    /// An earlier plan comment folded under an "outdated" summary (`plan_outdated.md.j2`).
    pub fn render_plan_outdated(&self, body: &str) -> Result<String, RenderError> {
        let text = self.render(PLAN_OUTDATED, context! { body => body })?;
        Ok(text.trim_end_matches('\n').to_string())
    }

    /// The fold template's text before the folded comment: a comment starting with it is
    /// folded already.
    pub fn plan_outdated_prefix(&self) -> Result<String, RenderError> {
        let text = self.render(PLAN_OUTDATED, context! { body => BODY_SLOT })?;
        let prefix = text.split(BODY_SLOT).next().unwrap_or_default();
        Ok(prefix.trim_end().to_string())
    }

    /// The `tfgate/policy` check run's title and summary (`policy_check.md.j2`, whose
    /// `title` and `summary` blocks are rendered apart).
    pub fn render_policy_check(
        &self,
        check: &PolicyCheckText,
    ) -> Result<CheckTitleSummary, RenderError> {
        self.title_and_summary(POLICY_CHECK, context! { check => check })
    }

    /// The `tfgate/apply` check run's title and summary (`apply_check.md.j2`). A summary ends
    /// with a newline, as it did when built in Rust.
    pub fn render_apply_check(
        &self,
        check: &ApplyCheckText,
    ) -> Result<CheckTitleSummary, RenderError> {
        self.title_and_newline_ended_summary(APPLY_CHECK, context! { check => check })
    }

    /// The `tfgate/deploy` check run's title and summary (`deploy_check.md.j2`). A summary
    /// ends with a newline, as it did when built in Rust.
    pub fn render_deploy_check(
        &self,
        check: &DeployCheckText,
    ) -> Result<CheckTitleSummary, RenderError> {
        self.title_and_newline_ended_summary(DEPLOY_CHECK, context! { check => check })
    }

    /// The scheduled drift report issue's body (`drift_report.md.j2`); it ends with one
    /// newline and starts with the marker the issue is found by.
    pub fn render_drift_report(&self, report: &DriftReportText) -> Result<String, RenderError> {
        let text = self.render(DRIFT_REPORT, context! { report => report })?;
        Ok(format!("{}\n", text.trim_end_matches('\n')))
    }

    /// [`Self::title_and_summary`], with a non-empty summary ending in one newline (as the texts
    /// built in Rust did).
    fn title_and_newline_ended_summary(
        &self,
        name: &str,
        ctx: minijinja::Value,
    ) -> Result<CheckTitleSummary, RenderError> {
        let mut text = self.title_and_summary(name, ctx)?;
        if !text.summary.is_empty() {
            text.summary.push('\n');
        }
        Ok(text)
    }

    pub(super) fn title_and_summary(
        &self,
        name: &str,
        ctx: minijinja::Value,
    ) -> Result<CheckTitleSummary, RenderError> {
        let error = |e: minijinja::Error| RenderError::Render {
            name: name.to_string(),
            message: e.to_string(),
        };
        let template = self.env.get_template(name).map_err(error)?;
        let mut captured = template.render_captured(ctx).map_err(error)?;
        let (title, summary) = captured.with_state_mut(|state| {
            let title = state.render_block("title");
            (title, state.render_block("summary"))
        });
        let (title, summary) = (title.map_err(error)?, summary.map_err(error)?);
        Ok(CheckTitleSummary {
            title: title.trim().to_string(),
            summary: summary.trim().to_string(),
        })
    }
}

impl Renderer {
    /// Renders the texts of this file with sample models (load-time validation).
    pub(super) fn render_text_samples(&self) -> Result<(), RenderError> {
        self.render_plan_outdated("## tfgate plan")?;
        self.plan_outdated_prefix()?;
        for check in samples::policy_checks() {
            self.render_policy_check(&check)?;
        }
        for check in samples::deploy_checks() {
            self.render_deploy_check(&check)?;
        }
        for check in samples::apply_checks() {
            self.render_apply_check(&check)?;
        }
        self.render_drift_report(&samples::drift_report())?;
        self.render_stale_banner(&super::stale_banner::sample_banner())?;
        Ok(())
    }
}

/// Sample models of these texts (load-time validation and tests).
pub mod samples {
    use crate::model::{
        DeployAcknowledged, DeployChange, DeployCheckBody, DeployCheckText, DeployRow,
        PolicyCheckText,
    };

    /// An apply check of each kind, with a root left and one done.
    pub fn apply_checks() -> Vec<crate::model::ApplyCheckText> {
        use crate::model::{ApplyCheckKind, ApplyCheckRoot, ApplyCheckText};
        let roots = vec![
            ApplyCheckRoot {
                project: "network".into(),
                left: None,
            },
            ApplyCheckRoot {
                project: "eks".into(),
                left: Some("planned, not applied".into()),
            },
        ];
        let check = |kind, roots: &Vec<ApplyCheckRoot>, left| ApplyCheckText {
            kind,
            roots: roots.clone(),
            left,
        };
        let done = vec![roots[0].clone()];
        vec![
            check(ApplyCheckKind::Left, &roots, 1),
            check(ApplyCheckKind::Done, &done, 0),
            check(ApplyCheckKind::Incomplete, &done, 0),
            check(ApplyCheckKind::NoRoot, &Vec::new(), 0),
        ]
    }

    fn deploy_row(change: DeployChange, prune: bool) -> DeployRow {
        DeployRow {
            change,
            kind: "Application".into(),
            name: "guestbook".into(),
            source: "https://git.example.com/apps".into(),
            destination: "<ip-1> / guestbook".into(),
            automated: true,
            prune,
            file: "deploy/app.yaml".into(),
            line: 3,
        }
    }

    /// A drift report with every kind of root, findings and moved inputs.
    pub fn drift_report() -> crate::model::DriftReportText {
        use crate::model::{DriftFindingText, DriftRootRow, DriftRootSection, DriftRootStatus};
        let row = |project: &str, status| DriftRootRow {
            project: project.into(),
            dir: format!("infra/{project}"),
            status,
        };
        let finding = DriftFindingText {
            address: "aws_security_group.web".into(),
            action: "update".into(),
            attributes: vec![crate::model::DriftAttributeChange {
                path: "ingress".into(),
                before: crate::model::DriftValue::Sensitive,
                after: crate::model::DriftValue::Unknown,
            }],
            who: Some(crate::model::WhoChangedText::NotFound),
        };
        crate::model::DriftReportText {
            marker: "<!-- tfgate:drift-report -->".into(),
            title: "tfgate drift report".into(),
            branch: "main".into(),
            commit_short: "9c1b2d4".into(),
            checked_at: "2026-12-05T06:00:12Z".into(),
            rows: vec![
                row(
                    "network",
                    DriftRootStatus::Checked {
                        outside: 1,
                        next: 1,
                        inputs: 1,
                        drift: true,
                    },
                ),
                row("vpc", DriftRootStatus::LockedBy { pr: 12 }),
                row("dns", DriftRootStatus::Busy),
                row(
                    "iam",
                    DriftRootStatus::Failed {
                        reason: "the plan failed".into(),
                    },
                ),
            ],
            sections: vec![DriftRootSection {
                project: "network".into(),
                outside_terraform: vec![finding.clone()],
                next_apply: vec![finding],
                inputs_moved: vec!["ADMIN_CIDRS".into()],
            }],
            closed: false,
        }
    }

    /// Unparsed, unchanged, changes with and without acknowledgements, acknowledged.
    pub fn deploy_checks() -> Vec<DeployCheckText> {
        let text = |body| DeployCheckText {
            body,
            acknowledged: None,
        };
        let rows = vec![
            deploy_row(DeployChange::Added, false),
            deploy_row(DeployChange::ChangedBefore, false),
            deploy_row(DeployChange::ChangedAfter, true),
            deploy_row(DeployChange::Removed, true),
        ];
        let acks = vec!["Application `guestbook` turns prune on".to_string()];
        vec![
            text(DeployCheckBody::Unparsed {
                problems: vec!["broken.yaml:2: did not find expected node content".into()],
            }),
            text(DeployCheckBody::Unparsed { problems: vec![] }),
            text(DeployCheckBody::Unchanged),
            text(DeployCheckBody::Changes {
                rows: rows.clone(),
                acknowledgements: vec![],
            }),
            text(DeployCheckBody::Changes {
                rows: rows.clone(),
                acknowledgements: acks.clone(),
            }),
            DeployCheckText {
                body: DeployCheckBody::Changes {
                    rows,
                    acknowledgements: acks,
                },
                acknowledged: Some(DeployAcknowledged {
                    user: "maya".into(),
                    commit_short: "abc1234".into(),
                }),
            },
        ]
    }

    pub fn policy_checks() -> Vec<PolicyCheckText> {
        vec![
            PolicyCheckText::NoFiles {
                folder: "policies".into(),
            },
            PolicyCheckText::Valid {
                files: 2,
                applies: true,
            },
            PolicyCheckText::Valid {
                files: 2,
                applies: false,
            },
            PolicyCheckText::Problems {
                lines: vec!["policies/prod.yaml:4:3: unknown key `aply_role`".into()],
                applies: true,
            },
            PolicyCheckText::Problems {
                lines: vec!["a".into(), "b".into()],
                applies: false,
            },
        ]
    }
}

#[cfg(test)]
#[path = "texts_tests.rs"]
mod tests;
