//! `/apply` of a PR's roots, in order, stopping at the first failure.

use super::*;

impl RunCtx<'_> {
    pub(super) async fn apply_roots(&self, projects: &[&ResolvedProject]) -> Result<(), JobError> {
        let setup = setup_from_config(&self.state.config).map_err(JobError::Permanent)?;
        let redactor = self.redactor()?;
        let mut ph = Placeholders::new();
        let repo = self.run.repo.full_name();
        let mut roots: Vec<RootApply> = Vec::new();
        let mut notes = Vec::new();
        let mut stopped: Option<SkipReason> = None;
        let mut pending: Vec<PendingFailure> = Vec::new();
        let mut last_run = 0;
        for p in projects {
            let name = &p.spec.id.0;
            if let Some(reason) = &stopped {
                roots.push(skipped(p, reason));
                continue;
            }
            let db = &self.state.db;
            let plan = runs::latest(db, &repo, self.run.number, name, &p.spec.workspace, "plan")
                .await
                .map_err(JobError::Transient)?;
            let applied =
                runs::latest(db, &repo, self.run.number, name, &p.spec.workspace, "apply")
                    .await
                    .map_err(JobError::Transient)?;
            let Some(plan) = plan.filter(|r| r.status == "planned" && r.head_sha == self.head)
            else {
                let body = self
                    .renderer
                    .render_notice(&Notice {
                        meta: meta(self.run, name, 0, self.head),
                        body: NoticeBody::PlanStale(PlanStale {
                            planned_sha_short: None,
                            head_sha_short: Some(short(self.head)),
                        }),
                    })
                    .map_err(render_err)?;
                post(self.gh, self.run, &body).await?;
                stopped = Some(SkipReason::NoCurrentPlan {
                    project: name.clone(),
                });
                continue;
            };
            if applied
                .as_ref()
                .is_some_and(|a| a.status == "applied" && a.id > plan.id)
            {
                notes.push(RunNote::AlreadyApplied {
                    project: name.clone(),
                });
                continue;
            }
            if !self.lock(p).await? {
                stopped = Some(SkipReason::Locked {
                    project: name.clone(),
                });
                continue;
            }
            let plan_outcome: serde_json::Value = plan
                .outcome
                .as_deref()
                .and_then(|o| serde_json::from_str(o).ok())
                .unwrap_or_default();
            let drifted: Vec<String> = plan_outcome["drifted_inputs"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            match apply_gate(
                self.policy.on_input_drift,
                &drifted,
                &self.run.accept_inputs,
            ) {
                ApplyGate::Allow => {}
                ApplyGate::AllowWithAudit { inputs } => {
                    audit::record(
                        db,
                        &AuditEvent {
                            actor: self.run.actor.clone(),
                            repo: Some(repo.clone()),
                            pr: Some(self.run.number),
                            action: "apply".into(),
                            rule: Some("inputs.drift_accepted".into()),
                            result: "allow".into(),
                            detail: Some(format!("{name}: {}", inputs.join(", "))),
                        },
                    )
                    .await
                    .map_err(JobError::Transient)?;
                }
                ApplyGate::Refuse { reply } => {
                    post(self.gh, self.run, &format!("`{name}`: {reply}")).await?;
                    stopped = Some(SkipReason::AwaitingInputDecision {
                        project: name.clone(),
                    });
                    continue;
                }
            }
            let sealed = runs::plan_blob(db, plan.id)
                .await
                .map_err(JobError::Transient)?;
            let plan_file = match sealed.map(|s| {
                open(
                    &self.state.seal_key,
                    &s,
                    &run_aad(plan.id, BlobPurpose::Plan),
                )
            }) {
                Some(Ok(f)) => f,
                unreadable => {
                    notes.push(match (unreadable, self.state.config.retention_days) {
                        (None, Some(days)) => RunNote::PlanExpired {
                            project: name.clone(),
                            retention_days: days,
                        },
                        _ => RunNote::PlanUnreadable {
                            project: name.clone(),
                        },
                    });
                    stopped = Some(SkipReason::NoReadablePlan {
                        project: name.clone(),
                    });
                    continue;
                }
            };
            let project_setup = match self.setup_for(&setup, p) {
                Ok(s) => s,
                Err(_) => {
                    notes.push(RunNote::TerraformMissing {
                        project: name.clone(),
                    });
                    stopped = Some(SkipReason::NoTerraform {
                        project: name.clone(),
                    });
                    continue;
                }
            };
            let (exec, settings) = match self.prepare(p, "apply", &BTreeMap::new()).await {
                Ok(x) => x,
                Err(e) => {
                    tracing::error!(project = %name, error = %format!("{e:#}"), "could not prepare the apply");
                    notes.push(RunNote::CouldNotStart {
                        project: name.clone(),
                        command: "apply".into(),
                        reason: public_line(&e),
                    });
                    stopped = Some(SkipReason::CouldNotStart {
                        project: name.clone(),
                    });
                    continue;
                }
            };
            last_run = exec.run_id;
            let plan_json_summary = planned_from_outcome(plan.outcome.as_deref());
            let progress = progress_recorder(self.state.clone(), exec.run_id);
            let mut on_line = progress.0;
            let out = tfrun::apply(
                &project_setup,
                &exec.workdir.path().join("repo"),
                &p.spec.dir,
                &plan_file,
                &settings,
                &mut on_line,
            )
            .await
            .map_err(JobError::Transient)?;
            drop(on_line);
            let _ = progress.1.await;
            let mut model = apply_model(
                &root_ident(p),
                out.init.ok,
                &out.init.stderr_tail,
                out.apply.as_ref().map(|s| s.stdout.as_str()),
                &plan_json_summary,
                &redactor,
                &mut ph,
            );
            let to_confirm = self.failures_to_confirm(
                p,
                exec.run_id,
                out.apply.as_ref().map(|s| s.stdout.as_str()),
                &redactor,
                &mut ph,
            );
            if !to_confirm.is_empty() {
                model.pending_enrichment = true;
                pending.extend(to_confirm);
            }
            let log = out
                .apply
                .as_ref()
                .map(|s| s.stdout.clone())
                .unwrap_or_else(|| out.init.stderr_tail.clone());
            let sealed_log = seal(
                &self.state.seal_key,
                log.as_bytes(),
                &run_aad(exec.run_id, BlobPurpose::RawLog),
            );
            let ok = model.status == ApplyStatus::Succeeded;
            let status = if ok { "applied" } else { "apply_failed" };
            let outcome =
                serde_json::json!({"status": status, "counts": &model.counts}).to_string();
            runs::finish(
                db,
                exec.run_id,
                status,
                None,
                Some(&sealed_log),
                Some(&outcome),
            )
            .await
            .map_err(JobError::Transient)?;
            if ok {
                let fps: BTreeMap<String, String> = plan_outcome["input_fingerprints"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                            .collect()
                    })
                    .unwrap_or_default();
                db_inputs::record_applied(db, &repo, name, &p.spec.workspace, exec.run_id, &fps)
                    .await
                    .map_err(JobError::Transient)?;
            } else {
                stopped = Some(SkipReason::Failed {
                    project: name.clone(),
                });
            }
            roots.push(model);
        }
        if roots.is_empty() && notes.is_empty() {
            return Ok(());
        }
        let comment = ApplyComment {
            meta: meta(self.run, "all", last_run, self.head),
            roots,
            notes,
        };
        let body = self.renderer.render_apply(&comment).map_err(render_err)?;
        let posted = api::create_comment(self.gh, &self.run.repo, self.run.number, &body)
            .await
            .map_err(github_error)?;
        publish::apply_check_runs(self.gh, self.renderer, &self.run.repo, self.head, &comment)
            .await;
        if !pending.is_empty() {
            let job = EnrichJob {
                repo: self.run.repo.clone(),
                number: self.run.number,
                comment_id: posted.id,
                comment,
                pending,
                attempt: 0,
            };
            let delay = self
                .state
                .config
                .enrich_schedule
                .first()
                .copied()
                .unwrap_or_default();
            crate::worker::cloudtrail_poll::enqueue(self.state, &job, delay).await?;
        }
        Ok(())
    }

    /// Permission failures whose denied action the text leaves unclear, when the policy gives
    /// a CloudTrail read role for the apply role's account.
    fn failures_to_confirm(
        &self,
        p: &ResolvedProject,
        run_id: i64,
        stream: Option<&str>,
        redactor: &Redactor,
        ph: &mut Placeholders,
    ) -> Vec<PendingFailure> {
        let (Some(ct), Some(stream)) = (&self.policy.cloudtrail, stream) else {
            return Vec::new();
        };
        let role = p.apply_role.as_deref().unwrap_or(&p.plan_role);
        let Some(account) = cloudtrail_poll::account_of(role) else {
            return Vec::new();
        };
        let Some(read_role) = ct.read_roles.get(&account) else {
            return Vec::new();
        };
        let Ok(parsed) = parse_ui_stream(stream) else {
            return Vec::new();
        };
        failures_from_apply(&apply_outcome(&parsed, &[]))
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

/// The planned changes a plan run recorded (so an apply can list what it never reached).
fn planned_from_outcome(outcome: Option<&str>) -> Vec<PlannedChangeRef> {
    let Some(v) = outcome.and_then(|o| serde_json::from_str::<serde_json::Value>(o).ok()) else {
        return Vec::new();
    };
    v["planned"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|r| {
                    let address = r["address"].as_str()?.to_string();
                    let action = match r["action"].as_str()? {
                        "no_op" => Action::NoOp,
                        "create_then_forget" => Action::CreateThenForget,
                        other => Action::from_ui(other)?,
                    };
                    Some(PlannedChangeRef { address, action })
                })
                .collect()
        })
        .unwrap_or_default()
}

fn skipped(p: &ResolvedProject, reason: &SkipReason) -> RootApply {
    RootApply {
        project: p.spec.id.0.clone(),
        dir: p.spec.dir.clone(),
        workspace: p.spec.workspace.clone(),
        status: ApplyStatus::Skipped {
            reason: reason.clone(),
        },
        counts: ApplyCounts::default(),
        rows: Vec::new(),
        advice: Vec::new(),
        config_errors: Vec::new(),
        pending_enrichment: false,
        denials: Vec::new(),
    }
}

/// Records completed resources while an apply streams, so a crash can be reported.
fn progress_recorder(
    state: Arc<AppState>,
    run_id: i64,
) -> (impl FnMut(&str) + Send, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let task = tokio::spawn(async move {
        let mut done: Vec<String> = Vec::new();
        while let Some(addr) = rx.recv().await {
            done.push(addr);
            let json = serde_json::to_string(&done).unwrap_or_default();
            if let Err(e) = runs::set_progress(&state.db, run_id, &json).await {
                tracing::warn!(error = %format!("{e:#}"), "could not record apply progress");
            }
        }
    });
    let on_line = move |line: &str| {
        if let Ok(Some(UiMessage::ApplyComplete { hook, .. })) = parse_ui_line(line) {
            let _ = tx.send(hook.resource.addr.clone());
        }
    };
    (on_line, task)
}
