//! `/plan` of a PR's roots.

use super::*;

impl RunCtx<'_> {
    pub(super) async fn plan_roots(&self, projects: &[&ResolvedProject]) -> Result<(), JobError> {
        let setup = setup_from_config(&self.state.config).map_err(JobError::Permanent)?;
        let redactor = self.redactor()?;
        let mut ph = Placeholders::new();
        let mut roots = Vec::new();
        let mut notes = Vec::new();
        let mut drift_warnings = Vec::new();
        let mut pr_files: Option<Vec<String>> = None;
        let mut last_run = 0;
        let key = inputs::fingerprint_key(self.state);
        for p in projects {
            if !self.lock(p).await? {
                continue;
            }
            let live = inputs::live_inputs(&key, self.policy, p);
            let project_setup = match self.setup_for(&setup, p) {
                Ok(s) => s,
                Err(_) => {
                    notes.push(RunNote::TerraformMissing {
                        project: p.spec.id.0.clone(),
                    });
                    continue;
                }
            };
            let (exec, settings) = match self.prepare(p, "plan", &live.env).await {
                Ok(x) => x,
                Err(e) => {
                    tracing::error!(project = %p.spec.id.0, error = %format!("{e:#}"), "could not prepare the plan");
                    notes.push(RunNote::CouldNotStart {
                        project: p.spec.id.0.clone(),
                        command: "plan".into(),
                        reason: public_line(&e),
                    });
                    continue;
                }
            };
            last_run = exec.run_id;
            let out = tfrun::plan(
                &project_setup,
                &exec.workdir.path().join("repo"),
                &p.spec.dir,
                &settings,
                &mut |_| {},
            )
            .await
            .map_err(JobError::Transient)?;
            let model = plan_model(
                &root_ident(p),
                out.init.ok,
                &out.init.stderr_tail,
                out.plan.as_ref().map(|s| s.stdout.as_str()),
                out.plan_json.as_deref(),
                &redactor,
                &mut ph,
            );
            let key = &self.state.seal_key;
            let sealed_plan = out
                .plan_file
                .as_ref()
                .map(|f| seal(key, f, &run_aad(exec.run_id, BlobPurpose::Plan)));
            let log = out
                .plan
                .as_ref()
                .map(|s| s.stdout.clone())
                .unwrap_or_else(|| out.init.stderr_tail.clone());
            let sealed_log = seal(
                key,
                log.as_bytes(),
                &run_aad(exec.run_id, BlobPurpose::RawLog),
            );
            let mut drifted: Vec<String> = Vec::new();
            if let (Some(plan_json), false) = (out.plan_json.as_deref(), live.refs.is_empty()) {
                if pr_files.is_none() {
                    pr_files = Some(
                        facts::pr_files(self.gh, &self.run.repo, self.run.number)
                            .await
                            .map_err(github_error)?,
                    );
                }
                let checkout = exec.workdir.path().join("repo");
                match drift_check::analyse(
                    &self.state.db,
                    &self.run.repo.full_name(),
                    p,
                    &live,
                    plan_json,
                    &checkout,
                    pr_files.as_deref().unwrap_or_default(),
                )
                .await
                {
                    Ok(d) => {
                        drift_warnings.extend(d.warnings);
                        notes.extend(d.notes);
                        drifted = d.drifted_inputs;
                    }
                    Err(e) => {
                        tracing::error!(error = %format!("{e:#}"), "drift analysis failed");
                        notes.push(RunNote::DriftUnchecked {
                            project: p.spec.id.0.clone(),
                        });
                    }
                }
            }
            let fingerprints: BTreeMap<String, String> = live
                .fingerprints
                .iter()
                .map(|(k, v)| (k.clone(), v.as_hex().to_string()))
                .collect();
            let status = if model.status == PlanStatus::Failed {
                "plan_failed"
            } else {
                "planned"
            };
            let planned: Vec<serde_json::Value> = plan_refs(out.plan_json.as_deref())
                .iter()
                .map(|r| serde_json::json!({"address": r.address, "action": r.action.as_str()}))
                .collect();
            let outcome = serde_json::json!({
                "status": status,
                "counts": &model.counts,
                "planned": planned,
                "drifted_inputs": drifted,
                "input_fingerprints": fingerprints,
            })
            .to_string();
            runs::finish(
                &self.state.db,
                exec.run_id,
                status,
                sealed_plan.as_deref(),
                Some(&sealed_log),
                Some(&outcome),
            )
            .await
            .map_err(JobError::Transient)?;
            roots.push(model);
        }
        if roots.is_empty() && notes.is_empty() {
            return Ok(());
        }
        let comment = PlanComment {
            meta: meta(self.run, "all", last_run, self.head),
            repo_root_summaries: roots,
            drift_warnings,
            denials: vec![],
            notes,
        };
        let body = self.renderer.render_plan(&comment).map_err(render_err)?;
        let posted = api::create_comment(self.gh, &self.run.repo, self.run.number, &body)
            .await
            .map_err(github_error)?;
        publish::supersede_old_plans(self.gh, &self.run.repo, self.run.number, posted.id).await;
        publish::plan_check_runs(self.gh, self.renderer, &self.run.repo, self.head, &comment).await;
        Ok(())
    }
}
