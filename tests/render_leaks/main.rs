//! Leak properties: secrets planted in every position of generated Terraform outputs never
//! survive the real public pipeline into a PR comment or check run.
//!
//! Apply: `parse_ui_stream` → `apply_outcome` → `results::apply_root` → `Renderer::render_apply`.
//! Plan: `parse_plan_json` → `plan_summary` → `results::plan_root` → `Renderer::render_plan`.
//! Runs: `results::runs::plan_model` / `apply_model` (init failures, failed plan streams).
//!
//! Planted: ARNs of every partition (paths, wildcards), bare account ids, IPv4, IPv4 CIDRs,
//! IPv6 (full and `::`-compressed with at least two groups: single-group forms like `fe80::` are
//! the redactor's documented gap), access key ids, GitHub tokens, e-mail addresses, request ids,
//! encoded authorization messages, known secret values (given to `RedactionConfig::secret_values`
//! as shared inputs are) and sensitive-only values (known to no one: only sensitivity marks or
//! "values are never parsed" keep them out). Each sits next to quotes, brackets, newlines, JSON
//! and HCL escapes, in error texts, instance keys, ids, outputs, variables, attribute values,
//! map keys, file names and non-JSON lines.
//!
//! Each property runs `PROPTEST_CASES` cases (default 64). Failures are not persisted (no
//! regression files are written); proptest prints the shrunk input.
//!
//! The properties near the end each isolate one position or shape that leaked once (account ids
//! in names, HCL-escaped keys, `\u003c` boundaries, codes and actions built from planted text);
//! they guard those fixes. `gaps` does the same for host names carrying an address,
//! percent-encoded ARNs, account ids glued to letters, transformed shared-input values and
//! `for_each` keys in the drift warning line.

mod addresses;
mod apply_case;
mod checks;
mod config;
mod errors;
mod gaps;
mod plan_case;
mod secrets;
mod targeted;

use std::collections::BTreeSet;

use proptest::prelude::*;
use tfgate::model::view::{ApplyComment, PlanComment, RootPlan};
use tfgate::redact::Placeholders;
use tfgate::render::from_outcome::{apply_model, plan_model};
use tfgate::terraform::plan_references::config_address;
use tfgate::terraform::{PlanReferences, PlannedChangeRef};

fn everything_refers_to_everything(planned: &[PlannedChangeRef]) -> PlanReferences {
    let all: Vec<String> = planned
        .iter()
        .filter_map(|p| config_address(&p.address))
        .collect();
    let mut refs = PlanReferences::default();
    for p in planned {
        refs.refers_to.insert(p.address.clone(), all.clone());
    }
    refs
}

use crate::addresses::{address_spec, address_spec_with, key_spec_of, KeySpec};
use crate::apply_case::{
    apply_markdown, apply_spec, apply_spec_with, build_apply, fate, resource_spec_with, Fate,
};
use crate::checks::{
    apply_published, check, has_placeholder, hcl_quote, leaks, plan_published, redactor_for,
};
use crate::config::{cfg, meta, renderer, root_ident};
use crate::errors::{error_spec, error_spec_with, ErrorSpec, NO_FILE};
use crate::plan_case::{
    attr_spec, build_plan, failed_plan_stream, plan_markdown, plan_spec, AttrSpec, PLAN_ACTIONS,
};
use crate::secrets::{plant, plant_of, plants, Secret};
use crate::targeted::{
    address_with_account_in_name, always_file, colon_plant, html_wrapped_plant,
    legacy_wording_error, numeric_known, one_resource_apply, one_resource_plan, plain_address,
    plan_md_of, template_known, wildcard_region_arn,
};

// ------------------------------------------------------------------ properties: comments

proptest! {
    #![proptest_config(cfg())]

    /// The apply comment (and check run, annotations) shows addresses (keys redacted), actions,
    /// results, codes, categories, IAM actions and file names: nothing planted in keys, ids,
    /// error texts, file names, outputs or crash output survives.
    #[test]
    fn apply_comment_never_shows_planted_secrets(spec in apply_spec()) {
        let case = build_apply(&spec);
        let (root, md) = apply_markdown(&case)?;
        check(&apply_published(vec![root])?, &case.secrets)?;
        let planted_key = spec.resources.iter().any(|r| matches!(r.address.key, KeySpec::Planted(_)));
        prop_assert!(!planted_key || has_placeholder(&md), "planted keys show placeholders");
    }

    /// The plan comment (and check run) shows attribute diffs: values are redacted, sensitive
    /// values hidden, shared-input values replaced, outputs and variables never shown.
    #[test]
    fn plan_comment_never_shows_planted_secrets(spec in plan_spec()) {
        let case = build_plan(&spec);
        let (root, md) = plan_markdown(&case)?;
        check(&plan_published(vec![root])?, &case.secrets)?;
        let planted_text = spec.resources.iter().filter(|r| PLAN_ACTIONS[r.actions] != ["delete"]).flat_map(|r| &r.attrs).any(|a| matches!(a, AttrSpec::List(_) | AttrSpec::Tags(_)));
        prop_assert!(!planted_text || has_placeholder(&md), "planted values show placeholders");
    }

    /// Init failures and failed plan / apply streams, through `results::runs`.
    #[test]
    fn run_models_never_show_planted_secrets(
        init in error_spec(),
        errors in prop::collection::vec((prop::option::of(address_spec()), error_spec()), 1..4),
        apply in apply_spec(),
    ) {
        let mut secrets: BTreeSet<Secret> = init.secrets().into_iter().collect();
        let stream = failed_plan_stream(&errors, &mut secrets);
        let applied = build_apply(&apply);
        secrets.extend(applied.secrets.iter().cloned());
        let redactor = redactor_for(&secrets);
        let mut ph = Placeholders::new();
        let root = root_ident();
        let init_text = init.text();
        let plans = vec![
            plan_model(&root, false, &init_text, None, None, &redactor, &mut ph),
            plan_model(&root, true, "", Some(&stream), None, &redactor, &mut ph),
            plan_model(&root, true, "", Some(&init_text), None, &redactor, &mut ph),
        ];
        for p in &plans {
            prop_assert_eq!(p.status, tfgate::model::view::PlanStatus::Failed);
            prop_assert!(!p.errors.is_empty());
        }
        prop_assert_eq!(plans[1].errors.len(), errors.len());
        // Every resource refers to every other: failures right after a create name it.
        let refs = everything_refers_to_everything(&applied.planned);
        let applies = vec![
            apply_model(&root, false, &init_text, None, &applied.planned, &refs, &redactor, &mut ph),
            apply_model(&root, true, "", Some(&applied.text), &applied.planned, &refs, &redactor, &mut ph),
        ];
        prop_assert_eq!(applies[1].rows.len(), applied.addresses.len());
        let mut texts = plan_published(plans)?;
        texts.extend(apply_published(applies)?);
        check(&texts, &secrets)?;
    }
}

// ------------------------------------------------------------------ the checker can fail

#[test]
fn checker_sees_every_kind_through_markdown_escaping() {
    let samples = [
        Secret::new("arn", "arn:aws-us-gov:iam::123456789012:role/a_b*c".into()),
        Secret::new("account", "000000000042".into()),
        Secret::new("ipv4", "203.0.113.7".into()),
        Secret::new("cidr", "10.0.0.0/8".into()),
        Secret::new("ipv6", "2001:db8::1:2/64".into()),
        Secret::new("access-key", "AKIAABCDEFGHIJKLMNOP".into()),
        Secret::new("github-token", format!("ghs_{}", "aB3".repeat(12))),
        Secret::new("email", "a.b+c@example.co.uk".into()),
        Secret::new("request-id", "8e4e6bf7-f2c9-45ea-82f3-d6609702de85".into()),
        Secret::new("known", "p|a_s*s`w<o>r&d\"x\\y".into()),
        Secret::new("sensitive-only", "svabcdefghijklmn".into()),
    ];
    for s in &samples {
        // Unredacted values pushed through the real renderer, in every escaping context.
        let root = RootPlan {
            project: s.text.clone(),
            dir: "d".into(),
            workspace: "w".into(),
            status: tfgate::model::view::PlanStatus::Changes,
            counts: Default::default(),
            warnings: vec![s.text.clone()],
            resources: vec![tfgate::model::view::PlannedResourceView {
                address: format!("aws_x.y[{}]", hcl_quote(&s.text)),
                action: "update".into(),
                action_reason: None,
                omitted_attributes: 0,
                attributes: vec![tfgate::model::view::AttrView {
                    path: "p".into(),
                    before: Some(s.text.clone()),
                    after: None,
                    sensitive: false,
                    unknown: false,
                }],
            }],
            errors: vec![],
            advice: vec![],
            denials: vec![],
            pending_enrichment: false,
            policy_checks: Vec::new(),
        };
        let md = renderer()
            .render_plan(&PlanComment {
                meta: meta(),
                repo_root_summaries: vec![root],
                drift_warnings: vec![],
                denials: vec![],
                notes: vec![],
                still_planning: Vec::new(),
            })
            .unwrap();
        let found = leaks(std::slice::from_ref(&md), &BTreeSet::from([s.clone()]));
        assert!(
            found.iter().any(|f| f.starts_with(s.kind)),
            "{s:?} not seen in:\n{md}"
        );
    }
    // A clean comment has no finding at all (no false positives from the templates).
    let md = renderer()
        .render_apply(&ApplyComment {
            meta: meta(),
            roots: vec![],
            notes: vec![],
        })
        .unwrap();
    assert_eq!(leaks(&[md], &BTreeSet::new()), Vec::<String>::new());
}

// ------------------------------------------------------------------ targeted properties
//
// Each isolates one position or shape; each failed before `src/` was fixed and now guards the
// fix.

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn arns_with_wildcard_region_are_redacted(
        arns in prop::collection::vec(wildcard_region_arn(), 1..3),
        plants in prop::collection::vec(plant_of(wildcard_region_arn()), 1..3),
    ) {
        let (case, md) = plan_md_of(&one_resource_plan(vec![
            AttrSpec::Policy(arns),
            AttrSpec::Text(Vec::new(), plants),
        ]))?;
        check(&[md], &case.secrets)?;
    }

    #[test]
    fn instance_keys_with_template_sequences_are_redacted(
        spec in apply_spec_with(resource_spec_with(address_spec_with(
            key_spec_of(plant_of(template_known())).boxed(),
        ))),
    ) {
        let case = build_apply(&spec);
        let (_, md) = apply_markdown(&case)?;
        check(&[md], &case.secrets)?;
    }

    #[test]
    fn numeric_shared_input_values_are_redacted(digits in numeric_known()) {
        let (case, md) = plan_md_of(&one_resource_plan(vec![AttrSpec::KnownNumber(digits)]))?;
        check(&[md], &case.secrets)?;
    }

    #[test]
    fn jsonencoded_values_with_html_escapes_are_redacted(
        plants in prop::collection::vec(html_wrapped_plant(), 1..3),
    ) {
        let (case, md) = plan_md_of(&one_resource_plan(vec![AttrSpec::GoJson(plants)]))?;
        check(&[md], &case.secrets)?;
    }

    #[test]
    fn account_ids_in_module_and_resource_names_are_redacted(
        address in address_with_account_in_name(),
        fate in fate(),
        attrs in prop::collection::vec(attr_spec(), 1..3),
    ) {
        let applied = build_apply(&one_resource_apply(address.clone(), fate));
        let (_, apply_md) = apply_markdown(&applied)?;
        let mut plan = one_resource_plan(attrs);
        plan.resources[0].address = address;
        let (planned, plan_md) = plan_md_of(&plan)?;
        let mut secrets = applied.secrets.clone();
        secrets.extend(planned.secrets);
        check(&[apply_md, plan_md], &secrets)?;
    }

    #[test]
    fn legacy_wording_does_not_turn_a_shared_input_into_the_aws_code(
        error in legacy_wording_error(),
    ) {
        let case = build_apply(&one_resource_apply(plain_address("aws_iam_role"), Fate::Failed(error)));
        let (_, md) = apply_markdown(&case)?;
        check(&[md], &case.secrets)?;
    }

    #[test]
    fn secrets_inside_words_of_error_texts_do_not_reach_codes_or_actions(
        error in error_spec_with(Just(NO_FILE), plants(3)).prop_map(|e| ErrorSpec { mid_word: true, ..e }),
    ) {
        let case = build_apply(&one_resource_apply(plain_address("aws_iam_role"), Fate::Failed(error.clone())));
        let (_, apply_md) = apply_markdown(&case)?;
        let redactor = redactor_for(&case.secrets);
        let mut ph = Placeholders::new();
        let init = plan_model(&root_ident(), false, &error.text(), None, None, &redactor, &mut ph);
        let mut texts = plan_published(vec![init])?;
        texts.push(apply_md);
        check(&texts, &case.secrets)?;
    }

    #[test]
    fn plan_failure_locations_and_annotations_are_redacted(
        errors in prop::collection::vec(
            (prop::option::of(address_spec()), error_spec_with(always_file(), plants(1))),
            1..3,
        ),
    ) {
        let mut secrets = BTreeSet::new();
        let stream = failed_plan_stream(&errors, &mut secrets);
        let redactor = redactor_for(&secrets);
        let mut ph = Placeholders::new();
        let model = plan_model(&root_ident(), true, "", Some(&stream), None, &redactor, &mut ph);
        prop_assert_eq!(model.errors.len(), errors.len());
        let texts = plan_published(vec![model])?;
        // Comment, check-run title/summary/text, then path, title, message per failure.
        prop_assert_eq!(texts.len(), 4 + 3 * errors.len());
        check(&texts, &secrets)?;
    }

}

proptest! {
    #![proptest_config(cfg())]

    /// Secrets planted between the words of an error text never become the AWS code or the IAM
    /// action the comment shows: with the plants, each is the clean text's value or absent.
    #[test]
    fn planted_secrets_never_become_the_code_or_iam_action(
        error in error_spec_with(Just(NO_FILE), prop::collection::vec(prop_oneof![plant(), colon_plant()], 1..=3))
            .prop_map(|e| ErrorSpec { after_perform: true, ..e }),
    ) {
        let row_of = |e: &ErrorSpec| -> Result<tfgate::model::view::ApplyRow, TestCaseError> {
            let case = build_apply(&one_resource_apply(plain_address("aws_iam_role"), Fate::Failed(e.clone())));
            let (root, _) = apply_markdown(&case)?;
            Ok(root.rows[0].clone())
        };
        let planted = row_of(&error)?;
        let clean = row_of(&ErrorSpec { plants: Vec::new(), ..error.clone() })?;
        prop_assert!(
            planted.aws_code.is_none() || planted.aws_code == clean.aws_code,
            "aws_code {:?} (clean text: {:?})", planted.aws_code, clean.aws_code
        );
        prop_assert!(
            planted.iam_action.is_none() || planted.iam_action == clean.iam_action,
            "iam_action {:?} (clean text: {:?})", planted.iam_action, clean.iam_action
        );
    }
}
