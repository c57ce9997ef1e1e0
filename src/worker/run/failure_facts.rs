//! What a failed run's comment needs beyond Terraform's output: the facts that tell tfgate's
//! own refusals apart (was the run sandboxed, which loopback ports the relay serves, what the
//! proxy refused, which providers the policy lists), and the permission failures CloudTrail is
//! asked about, under the read role of the account of the role that was denied (the plan role
//! for a plan, the apply role for an apply).

use crate::classify::{sandbox_refusal, Refusal, RoleKind, SandboxFacts};
use crate::egress::relay::proxy_port;
use crate::egress::RunNetwork;
use crate::enrich::{failures_from_plan, FailureToEnrich};
use crate::jobs::PendingFailure;
use crate::model::view::{RootApply, RootPlan};
use crate::policy::ResolvedProject;
use crate::redact::{Placeholders, Redactor};
use crate::render::from_outcome::{mark_refusal, name_denied_role, refusal_plan};
use crate::sandbox::SandboxMode;
use crate::terraform::{parse_ui_stream, UiStream};
use crate::tfrun::{ApplyOutput, PlanOutput, RunSettings, StepOutput, TerraformSetup};
use crate::worker::cloudtrail_poll;

use super::prepare::Prepared;
use super::{root_ident, RunCtx};

/// The facts of one run's sandbox and policy (pure). `proxy_refused` are the endpoints the
/// egress proxy refused.
pub(super) fn sandbox_facts(
    mode: SandboxMode,
    settings: &RunSettings,
    proxy_refused: &[String],
) -> SandboxFacts {
    let (egress_filtered, relayed_ports) = match (&settings.network, mode) {
        (RunNetwork::Egress(allowlist), SandboxMode::Bwrap) => {
            let forwards = allowlist.loopback_endpoints();
            let mut ports: Vec<u16> = forwards.iter().map(|(_, port)| *port).collect();
            ports.push(proxy_port(&forwards));
            (true, ports)
        }
        _ => (false, Vec::new()),
    };
    SandboxFacts {
        egress_filtered,
        relayed_ports,
        proxy_refused: proxy_refused.to_vec(),
        allowed_providers: settings.providers.clone(),
    }
}

/// The output of the step that failed: `init`'s error output when it failed, else the
/// plan's or apply's stream.
fn failed_output<'a>(init: &'a StepOutput, stream: Option<&'a str>) -> &'a str {
    match init.ok {
        false => &init.stderr_tail,
        true => stream.unwrap_or_default(),
    }
}

/// tfgate's own refusal in the output of a failed step, if it is one.
pub(super) fn refusal_of(
    setup: &TerraformSetup,
    settings: &RunSettings,
    failed_output: &str,
    proxy_refused: &[String],
) -> Option<Refusal> {
    let facts = sandbox_facts(setup.mode, settings, proxy_refused);
    sandbox_refusal(failed_output, &facts)
}

/// A failed apply's model, explained: tfgate's own refusal takes the place of the
/// configuration error it looked like; the permission advice names the apply role.
pub(super) fn explain_failed_apply(
    p: &ResolvedProject,
    (setup, settings, out): (&TerraformSetup, &RunSettings, &ApplyOutput),
    redactor: &Redactor,
    ph: &mut Placeholders,
    model: &mut RootApply,
) {
    let stream = out.apply.as_ref().map(|s| s.stdout.as_str());
    let failed = failed_output(&out.init, stream);
    match refusal_of(setup, settings, failed, &out.blocked_endpoints) {
        Some(refusal) => mark_refusal(model, &refusal, redactor, ph),
        None => {
            let role = p.apply_role.as_deref().unwrap_or(&p.plan_role);
            name_denied_role(&mut model.advice, RoleKind::Apply, role, redactor);
        }
    }
}

impl RunCtx<'_> {
    /// A failed plan's model, explained: tfgate's own refusal replaces it (one row of its
    /// category); otherwise the permission advice names the plan role, and the plan-time
    /// denials CloudTrail is asked about are returned.
    pub(super) fn explain_failed_plan(
        &self,
        p: &ResolvedProject,
        (setup, prepared, out): (&TerraformSetup, &Prepared, &PlanOutput),
        redactor: &Redactor,
        ph: &mut Placeholders,
        model: &mut RootPlan,
    ) -> Vec<PendingFailure> {
        let stdout = out.plan.as_ref().map(|s| s.stdout.as_str());
        let failed = failed_output(&out.init, stdout);
        let refused = &out.blocked_endpoints;
        if let Some(refusal) = refusal_of(setup, &prepared.settings, failed, refused) {
            *model = refusal_plan(&root_ident(p), &refusal, redactor, ph);
            return Vec::new();
        }
        name_denied_role(&mut model.advice, RoleKind::Plan, &p.plan_role, redactor);
        let failures = || failures_in(stdout, failures_from_plan);
        let to_confirm =
            self.pending_failures(p, &p.plan_role, prepared.run_id, failures, redactor, ph);
        model.pending_enrichment = !to_confirm.is_empty();
        to_confirm
    }

    /// `failures` as CloudTrail polls under the read role of `role`'s account (none without
    /// one in the policy, and then the failures are not even collected).
    pub(super) fn pending_failures(
        &self,
        p: &ResolvedProject,
        role: &str,
        run_id: i64,
        failures: impl FnOnce() -> Vec<FailureToEnrich>,
        redactor: &Redactor,
        ph: &mut Placeholders,
    ) -> Vec<PendingFailure> {
        let Some(ct) = &self.policy.cloudtrail else {
            return Vec::new();
        };
        let Some(account) = cloudtrail_poll::account_of(role) else {
            return Vec::new();
        };
        let Some(read_role) = ct.read_roles.get(&account) else {
            return Vec::new();
        };
        failures()
            .into_iter()
            .map(|failure| PendingFailure {
                root: p.spec.id.0.clone(),
                // The placeholders the comment used, so the enrich job finds the row.
                shown_address: redactor.redact_address(&failure.address, ph),
                failure,
                session_name: cloudtrail_poll::session_name(run_id),
                account_id: account.clone(),
                read_role: read_role.clone(),
            })
            .collect()
    }
}

/// The failures `extract` finds in a step's `-json` stream (none without a stream or when it
/// does not parse).
pub(super) fn failures_in(
    stream: Option<&str>,
    extract: impl FnOnce(&UiStream) -> Vec<FailureToEnrich>,
) -> Vec<FailureToEnrich> {
    stream
        .and_then(|s| parse_ui_stream(s).ok())
        .map(|s| extract(&s))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egress::parse_rule;

    fn settings(network: RunNetwork) -> RunSettings {
        RunSettings {
            network,
            providers: vec!["registry.terraform.io/tfgate/*".into()],
            ..RunSettings::default()
        }
    }

    #[test]
    fn only_a_filtered_sandbox_has_relayed_ports() {
        let allowlist = crate::egress::Allowlist {
            rules: vec![parse_rule("127.0.0.1:9000").unwrap()],
        };
        let facts = sandbox_facts(
            SandboxMode::Bwrap,
            &settings(RunNetwork::Egress(allowlist.clone())),
            &["x:1".to_string()],
        );
        assert!(facts.egress_filtered);
        assert_eq!(facts.relayed_ports, vec![9000, 3128]);
        assert_eq!(facts.proxy_refused, vec!["x:1".to_string()]);
        assert_eq!(facts.allowed_providers.len(), 1);
        for (mode, network) in [
            (SandboxMode::None, RunNetwork::Egress(allowlist)),
            (SandboxMode::Bwrap, RunNetwork::Shared),
        ] {
            let facts = sandbox_facts(mode, &settings(network), &[]);
            assert!(!facts.egress_filtered && facts.relayed_ports.is_empty());
        }
    }
}
