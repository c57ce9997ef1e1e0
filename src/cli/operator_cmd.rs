//! `tfgate locks`, `runs`, `run-show` and `audit` (effects): read the database, print what
//! `cli::operator` formats. A lock released here is audited.

use anyhow::{Context, Result};

use super::operator::{
    audit_table, locks_table, parse_lock_id, parse_since, run_header, runs_table,
};
use crate::config::Config;
use crate::db::audit::{self, AuditEvent, AuditFilter};
use crate::db::locks;
use crate::db::runs::{self, RunFilter};
use crate::db::{publications, Db};

fn print_json_lines<T: serde::Serialize>(rows: &[T]) -> Result<()> {
    for row in rows {
        println!("{}", serde_json::to_string(row)?);
    }
    Ok(())
}

/// `tfgate locks [--release ID] [--json]`; exit 1 when the lock to release is not there.
pub async fn locks(config: &Config, release: Option<&str>, json: bool) -> Result<i32> {
    let db = Db::open(&config.database_url).await?;
    let Some(id) = release else {
        let rows = locks::list(&db).await?;
        if json {
            print_json_lines(&rows)?;
        } else {
            print!("{}", locks_table(&rows));
        }
        return Ok(0);
    };
    let (repo, project, workspace) = parse_lock_id(id).map_err(anyhow::Error::msg)?;
    let Some((pr, released)) = locks::release_lock(&db, &repo, &project, &workspace).await? else {
        eprintln!("no lock {id}");
        return Ok(1);
    };
    let who = std::env::var("USER").unwrap_or_else(|_| "operator".into());
    audit::record(
        &db,
        &AuditEvent {
            actor: format!("cli:{who}"),
            repo: Some(repo),
            pr: Some(pr),
            action: "lock.release".into(),
            rule: None,
            result: "released".into(),
            detail: Some(format!(
                "{project} ({workspace}) via tfgate locks --release"
            )),
        },
    )
    .await?;
    if released.kept_until_run_ends > 0 {
        println!("{id}: a run is still going on it; the lock goes when that run ends");
    } else {
        println!("{id}: released (was held by PR #{pr})");
    }
    Ok(0)
}

pub async fn runs(config: &Config, filter: RunFilter, json: bool) -> Result<()> {
    let db = Db::open(&config.database_url).await?;
    let rows = runs::list(&db, &filter).await?;
    if json {
        print_json_lines(&rows)
    } else {
        print!("{}", runs_table(&rows));
        Ok(())
    }
}

/// `tfgate run-show ID`: the run, its stored record, and the comment it published (the same
/// redacted per-resource table the PR got). Exit 1 when there is no such run.
pub async fn run_show(config: &Config, id: i64) -> Result<i32> {
    let db = Db::open(&config.database_url).await?;
    let Some((run, record)) = runs::show(&db, id).await? else {
        eprintln!("no run {id}");
        return Ok(1);
    };
    print!("{}", run_header(&run));
    if let Some(record) = record {
        println!("record: {record}");
    }
    match published_comment(config, &db, run.job_id).await? {
        Some(comment) => println!("\n--- the comment posted for this run's job ---\n{comment}"),
        None => println!("\n(no published result for this run's job)"),
    }
    Ok(0)
}

/// The result comment of `job_id`, rendered from the outbox as it was posted.
async fn published_comment(
    config: &Config,
    db: &Db,
    job_id: Option<i64>,
) -> Result<Option<String>> {
    use crate::run_planner::outbox::RunResult;
    let Some(row) = (match job_id {
        Some(job_id) => publications::row_of_job(db, job_id).await?,
        None => None,
    }) else {
        return Ok(None);
    };
    let key = crate::crypto::load_or_create_key(&config.data_dir, config.encryption_key.as_ref())
        .context("loading the encryption key")?;
    let result = RunResult::open_sealed(&key, &row.result)?;
    let renderer = crate::state::renderer_for(config)?;
    let text = match &result {
        RunResult::Plan { comment, .. } => renderer.render_plan(comment),
        RunResult::Apply { comment, .. } => renderer.render_apply(comment),
    }
    .map_err(|e| anyhow::anyhow!("rendering the stored result: {e}"))?;
    Ok(Some(text))
}

pub async fn audit(
    config: &Config,
    mut filter: AuditFilter,
    since: Option<&str>,
    json: bool,
) -> Result<()> {
    if let Some(since) = since {
        filter.since_ms =
            Some(parse_since(since, crate::db::now_ms()).map_err(anyhow::Error::msg)?);
    }
    let db = Db::open(&config.database_url).await?;
    let rows = audit::list(&db, &filter).await?;
    if json {
        print_json_lines(&rows)
    } else {
        print!("{}", audit_table(&rows));
        Ok(())
    }
}
