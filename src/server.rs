//! Process entry points: `serve` (HTTP + embedded workers) and `worker` (workers only).

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use tokio::sync::watch;

use crate::db::jobs as queue;
use crate::db::Backend;
use crate::jobs::owner;
use crate::jobs::runner::{run_worker, WorkerOptions};
use crate::state::AppState;
use crate::worker::JobRouter;

/// Start `count` workers; they stop when `shutdown` turns true.
pub fn spawn_workers(
    state: &Arc<AppState>,
    count: usize,
    shutdown: &watch::Receiver<bool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let handler = Arc::new(JobRouter::new(state.clone()));
    let host = owner::this_host();
    let start = owner::own_start_time();
    (0..count)
        .map(|i| {
            let opts = WorkerOptions {
                name: owner::owner_name(&host, std::process::id(), start, i),
                lease: Duration::from_secs(state.config.job_lease_secs),
                poll_interval: Duration::from_millis(250),
            };
            tokio::spawn(run_worker(
                state.db.clone(),
                handler.clone(),
                opts,
                state.metrics.clone(),
                state.wake.clone(),
                shutdown.clone(),
            ))
        })
        .collect()
}

/// On SQLite (one host): hand the running jobs of tfgate processes on this host that are gone
/// (killed, crashed) back to the queue now rather than after their lease ([`owner`]).
pub async fn reclaim_jobs_of_dead_local_workers(state: &AppState) {
    if state.db.backend != Backend::Sqlite {
        return;
    }
    let host = owner::this_host();
    let owners = match queue::running_owners(&state.db).await {
        Ok(owners) => owners,
        Err(e) => {
            tracing::warn!(error = %format!("{e:#}"), "could not read running jobs' owners");
            return;
        }
    };
    for dead in owners
        .iter()
        .filter(|o| owner::is_dead_local_owner(o, &host, owner::process_alive))
    {
        match queue::expire_leases_of(&state.db, dead).await {
            Ok(n) => {
                tracing::warn!(owner = %dead, jobs = n, "worker process is gone; its jobs are re-claimed now")
            }
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), "could not release a dead worker's jobs")
            }
        }
    }
}

/// First pruning pass this long after start, then every [`PRUNE_EVERY`].
const PRUNE_FIRST: Duration = Duration::from_secs(60);
const PRUNE_EVERY: Duration = Duration::from_secs(60 * 60);

/// Prune old rows ([`crate::db::retention`]) while the process runs; nothing when retention is
/// off. Every `serve` and `worker` process does it: a second pass finds nothing left to delete.
pub fn spawn_retention(
    state: &Arc<AppState>,
    mut shutdown: watch::Receiver<bool>,
) -> Option<tokio::task::JoinHandle<()>> {
    let days = state.config.retention_days?;
    let state = state.clone();
    Some(tokio::spawn(async move {
        let mut next = PRUNE_FIRST;
        loop {
            tokio::select! {
                _ = tokio::time::sleep(next) => {}
                _ = shutdown.changed() => return,
            }
            next = PRUNE_EVERY;
            if let Err(e) = retention_pass(&state, days).await {
                tracing::warn!(error = %format!("{e:#}"), "pruning failed; retrying in an hour");
            }
        }
    }))
}

/// How often a process without App credentials looks for the ones another process stored.
const ADOPT_APP_EVERY: Duration = Duration::from_secs(10);

/// A process started before the App was registered (through another process's setup page)
/// takes the credentials from the database as soon as they are there.
pub fn spawn_app_adoption(
    state: &Arc<AppState>,
    mut shutdown: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    let state = state.clone();
    tokio::spawn(async move {
        while state.github().is_none() {
            tokio::select! {
                _ = tokio::time::sleep(ADOPT_APP_EVERY) => {}
                _ = shutdown.changed() => return,
            }
            if let Err(e) = state.adopt_stored_app().await {
                tracing::warn!(error = %format!("{e:#}"), "could not load the stored App credentials");
            }
        }
    })
}

/// One pruning pass of what is older than `days`, counted in `tfgate_pruned_rows_total`.
pub async fn retention_pass(state: &AppState, days: u32) -> Result<crate::db::retention::Pruned> {
    let pruned = crate::db::retention::prune_older_than(&state.db, days).await?;
    state.metrics.pruned(&pruned);
    if !pruned.is_empty() {
        tracing::info!(
            jobs = pruned.jobs,
            deliveries = pruned.deliveries,
            run_blobs = pruned.run_blobs,
            publications = pruned.publications,
            days,
            "pruned old rows"
        );
    }
    Ok(pruned)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

pub async fn serve(state: Arc<AppState>, workers: usize) -> Result<()> {
    state.policies.reload_on_sighup();
    let (tx, rx) = watch::channel(false);
    if workers > 0 {
        crate::sandbox::log_limits_in_force();
        reclaim_jobs_of_dead_local_workers(&state).await;
    }
    let mut handles = spawn_workers(&state, workers, &rx);
    handles.extend(spawn_retention(&state, rx.clone()));
    handles.push(crate::doctor::spawn_readiness(&state, rx.clone()));
    handles.push(spawn_app_adoption(&state, rx.clone()));
    handles.extend(crate::worker::policy_repo::spawn_policy_repo_watch(
        &state,
        rx.clone(),
    ));
    handles
        .push(crate::worker::drift_detection::schedule::spawn_drift_schedule(&state, rx.clone()));
    handles.extend(spawn_metrics_listener(&state, rx.clone()).await);
    let listener = tokio::net::TcpListener::bind(state.config.addr)
        .await
        .with_context(|| format!("binding {}", state.config.addr))?;
    tracing::info!(
        addr = %listener.local_addr()?,
        workers,
        app_configured = state.github().is_some(),
        backend = ?state.db.backend,
        "tfgate serving"
    );
    if state.github().is_none() {
        tracing::warn!("no GitHub App configured: open / in a browser to register one");
    }
    if state.webhook_secrets().is_empty() {
        tracing::warn!("no webhook secret configured: deliveries are refused until one is set");
    }
    // Replies are small and answer one request each: send them without Nagle's delay.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
    });
    axum::serve(listener, crate::http::router(state.clone()))
        .with_graceful_shutdown(shutdown_signal())
        .await?;
    let _ = tx.send(true);
    for h in handles {
        let _ = h.await;
    }
    Ok(())
}

/// Serves `/metrics` on `--metrics-addr` until shutdown. An address that cannot be bound
/// (another tfgate on this host holds it) is logged and leaves the server running without it.
async fn spawn_metrics_listener(
    state: &Arc<AppState>,
    mut stop: watch::Receiver<bool>,
) -> Option<tokio::task::JoinHandle<()>> {
    let addr = state.config.metrics_addr;
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            tracing::error!(%addr, error = %e, "metrics: cannot listen; /metrics is not served (set TFGATE_METRICS_ADDR to a free address)");
            return None;
        }
    };
    tracing::info!(addr = %listener.local_addr().ok()?, "metrics served");
    let router = crate::http::metrics_router(state.clone());
    Some(tokio::spawn(async move {
        let stopped = async move {
            let _ = stop.wait_for(|s| *s).await;
        };
        if let Err(e) = axum::serve(listener, router)
            .with_graceful_shutdown(stopped)
            .await
        {
            tracing::error!(error = %e, "metrics: the listener failed");
        }
    }))
}

pub async fn worker_only(state: Arc<AppState>, workers: usize) -> Result<()> {
    state.policies.reload_on_sighup();
    let (tx, rx) = watch::channel(false);
    crate::sandbox::log_limits_in_force();
    reclaim_jobs_of_dead_local_workers(&state).await;
    let mut handles = spawn_workers(&state, workers.max(1), &rx);
    handles.extend(spawn_retention(&state, rx.clone()));
    handles.push(crate::doctor::spawn_readiness(&state, rx.clone()));
    handles.push(spawn_app_adoption(&state, rx.clone()));
    handles.extend(crate::worker::policy_repo::spawn_policy_repo_watch(
        &state,
        rx.clone(),
    ));
    tracing::info!(workers = workers.max(1), "tfgate worker running");
    shutdown_signal().await;
    let _ = tx.send(true);
    for h in handles {
        let _ = h.await;
    }
    Ok(())
}
