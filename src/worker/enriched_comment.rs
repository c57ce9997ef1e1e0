//! What an `enrich` job changes in the result comment it updates, an apply's or a plan's:
//! a confirmed denial goes into the failing row and the root's list of denials; the
//! "confirming with CloudTrail…" line goes once no poll is left. Pure.

use crate::jobs::EnrichedComment;
use crate::model::view::EnrichmentView;
use crate::model::view::{RootApply, RootPlan, RunNote};

impl EnrichedComment {
    /// Shows "confirming with CloudTrail…" on the roots with a failure still being looked up.
    pub fn set_pending(&mut self, pending_in: &dyn Fn(&str) -> bool) {
        match self {
            EnrichedComment::Apply(c) => {
                for root in c.roots.iter_mut() {
                    root.pending_enrichment = pending_in(&root.project);
                }
            }
            EnrichedComment::Plan(c) => {
                for root in c.repo_root_summaries.iter_mut() {
                    root.pending_enrichment = pending_in(&root.project);
                }
            }
        }
    }

    /// Puts a CloudTrail-confirmed denial into root `project`'s rows and its denials.
    pub fn confirm(&mut self, project: &str, view: &EnrichmentView) {
        if view.iam_action.is_none() {
            return;
        }
        match self {
            EnrichedComment::Apply(c) => c
                .roots
                .iter_mut()
                .filter(|r| r.project == project)
                .for_each(|r| confirm_apply(r, view)),
            EnrichedComment::Plan(c) => c
                .repo_root_summaries
                .iter_mut()
                .filter(|r| r.project == project)
                .for_each(|r| confirm_plan(r, view)),
        }
    }

    pub fn push_note(&mut self, note: RunNote) {
        match self {
            EnrichedComment::Apply(c) => c.notes.push(note),
            EnrichedComment::Plan(c) => c.notes.push(note),
        }
    }
}

fn confirm_apply(root: &mut RootApply, view: &EnrichmentView) {
    for row in root.rows.iter_mut().filter(|r| r.address == view.address) {
        row.iam_action.clone_from(&view.iam_action);
        row.deny_kind_label.clone_from(&view.deny_kind_label);
    }
    upsert(&mut root.denials, view);
}

fn confirm_plan(root: &mut RootPlan, view: &EnrichmentView) {
    let same = |a: &Option<String>| a.as_deref().unwrap_or_default() == view.address;
    for row in root.errors.iter_mut().filter(|r| same(&r.address)) {
        row.iam_action.clone_from(&view.iam_action);
    }
    upsert(&mut root.denials, &view.clone().for_plan_role());
}

fn upsert(denials: &mut Vec<EnrichmentView>, view: &EnrichmentView) {
    match denials.iter_mut().find(|d| d.address == view.address) {
        Some(known) => *known = view.clone(),
        None => denials.push(view.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::samples;

    fn view(address: &str) -> EnrichmentView {
        EnrichmentView {
            address: address.into(),
            iam_action: Some("ec2:DescribeVpcs".into()),
            deny_kind: None,
            deny_kind_label: None,
            resource: None,
            statement: Some("{}".into()),
            hint: None,
            status: crate::enrich::CONFIRMED.into(),
        }
    }

    #[test]
    fn a_plan_comment_gets_the_confirmed_action_in_its_row_and_denials() {
        let mut comment = samples::plan_with_changes();
        let root = &mut comment.repo_root_summaries[0];
        root.errors.push(crate::model::view::FailureRow {
            address: Some("data.aws_vpc.main".into()),
            aws_code: Some("UnauthorizedOperation".into()),
            category_id: "permission_missing".into(),
            category_label: "permission missing".into(),
            iam_action: None,
            location: None,
        });
        let project = root.project.clone();
        let mut e = EnrichedComment::Plan(comment);
        e.set_pending(&|p| p == project);
        e.confirm(&project, &view("data.aws_vpc.main"));
        e.confirm(&project, &view("data.aws_vpc.main"));
        e.confirm("other", &view("data.aws_vpc.main"));
        let EnrichedComment::Plan(c) = e else {
            panic!("a plan")
        };
        let root = &c.repo_root_summaries[0];
        assert!(root.pending_enrichment);
        assert_eq!(
            root.errors[0].iam_action.as_deref(),
            Some("ec2:DescribeVpcs")
        );
        assert_eq!(root.denials.len(), 1);
    }

    #[test]
    fn an_apply_job_queued_before_plans_were_enriched_still_reads() {
        let apply = samples::apply_partial_failure();
        let json = serde_json::to_string(&apply).unwrap();
        let read: EnrichedComment = serde_json::from_str(&json).unwrap();
        assert!(matches!(read, EnrichedComment::Apply(_)));
        let plan = serde_json::to_string(&samples::plan_with_changes()).unwrap();
        let read: EnrichedComment = serde_json::from_str(&plan).unwrap();
        assert!(matches!(read, EnrichedComment::Plan(_)));
    }
}
