use anyhow::Result;
use clap::{Parser, Subcommand};

use tfgate::cli;
use tfgate::config::{Config, ConfigArgs};
use tfgate::db::jobs as queue;
use tfgate::db::Db;
use tfgate::state::AppState;

/// mimalloc: the webhook intake path allocates per request (body, parsed fields, job
/// payloads); glibc malloc was ~10% of its CPU in `perf` (bench/README.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// tfgate: run Terraform from pull-request comments, safely.
#[derive(Parser)]
#[command(name = "tfgate", version, about)]
struct Cli {
    #[command(flatten)]
    config: ConfigArgs,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant)]
enum Cmd {
    /// Run the HTTP server with embedded workers (default: `--workers 2`).
    Serve,
    /// Run workers only (no HTTP server); use beside `serve --workers 0` on PostgreSQL.
    Worker,
    /// Apply database migrations and exit.
    Migrate,
    /// Validate, explain and import admin policies.
    Policy {
        #[command(subcommand)]
        command: cli::policy_cmd::PolicyCmd,
    },
    /// Print the markdown tfgate would post for a plan JSON or an apply -json stream.
    Render {
        #[command(subcommand)]
        what: RenderCmd,
    },
    /// Run the bot's pipeline on a local directory (no GitHub) and print what it would post.
    Run {
        #[command(subcommand)]
        what: RunCmd,
    },
    /// Classify error messages: JSON lines with `message` (optional `id`, `address`) on stdin,
    /// JSON lines with id, category, aws_code, status_code, iam_action, deny_kind on stdout.
    Classify,
    /// Redact standard input with tfgate's rules (ARNs, account ids, IPs, keys, tokens…).
    Redact {
        /// Extra regex to redact (repeatable), like a policy's `redact_patterns`.
        #[arg(long = "pattern")]
        patterns: Vec<String>,
    },
    /// Shared inputs: print their live fingerprints (never values) and the lock-file lines.
    Inputs {
        #[command(subcommand)]
        what: InputsCmd,
    },
    /// Print a run's raw Terraform output (admins only: it is never posted).
    Logs { run_id: i64 },
    /// Delete what retention no longer keeps (as `serve` and `worker` do every hour) and print
    /// what was removed; `--retention-days N` overrides the configured days.
    Prune,
    /// Check this machine's setup, one line per check (exit 1 if any fails): database,
    /// sealing key, policies, GitHub App, webhook secret, Terraform, bubblewrap, cgroups, disk.
    Doctor,
    /// Drift detection of a repository's default branch (`drift_detection` in its policy).
    Drift {
        #[command(subcommand)]
        what: cli::drift::DriftCmd,
    },
    /// Deploy previews of ArgoCD and Flux folders.
    Gitops {
        #[command(subcommand)]
        what: cli::gitops::GitopsCmd,
    },
    /// Roots' locks (id, PR, holder, since); `--release ID` releases one (audited).
    Locks {
        /// The lock to release: OWNER/REPO/PROJECT/WORKSPACE, as listed.
        #[arg(long)]
        release: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Recent runs, newest first (repo, PR, project, command, status, when, duration, who).
    Runs {
        #[arg(long)]
        repo: Option<String>,
        #[arg(long)]
        pr: Option<i64>,
        #[arg(long, default_value_t = 50)]
        limit: i64,
        #[arg(long)]
        json: bool,
    },
    /// One run: what it was, its record, and the comment it published.
    RunShow { id: i64 },
    /// The audit log, newest first; `--since 2026-12-01` or `--since 7d`.
    Audit {
        #[arg(long)]
        repo: Option<String>,
        #[arg(long)]
        user: Option<String>,
        #[arg(long)]
        since: Option<String>,
        #[arg(long, default_value_t = 100)]
        limit: i64,
        #[arg(long)]
        json: bool,
    },
    /// List recent jobs (id, kind, delivery id, status, attempts).
    Jobs {
        /// Print JSON lines instead of a table.
        #[arg(long)]
        json: bool,
        /// How many jobs to list.
        #[arg(long, default_value_t = 50)]
        limit: i64,
    },
}

#[derive(clap::Args)]
struct RunArgs {
    /// The Terraform root directory.
    dir: std::path::PathBuf,
    /// `egress` (default: out only through tfgate's proxy, to the allowlist), `none`, or
    /// `shared` (the host's network).
    #[arg(long, default_value = "egress")]
    network: String,
    /// More `host:port` entries for the egress allowlist (repeatable).
    #[arg(long = "egress", value_name = "HOST:PORT")]
    egress: Vec<String>,
    /// Copy the resulting `terraform.tfstate` back into DIR (local state only).
    #[arg(long)]
    keep_state: bool,
}

#[derive(Subcommand)]
enum RunCmd {
    /// init + plan in the sandbox; prints the plan comment.
    Plan(RunArgs),
    /// init + plan + apply of that plan in the sandbox; prints the apply comment.
    Apply(RunArgs),
}

#[derive(Subcommand)]
enum InputsCmd {
    /// Fingerprints of the shared inputs of a repository's policy.
    Fingerprint {
        #[arg(long)]
        repo: String,
    },
}

#[derive(Subcommand)]
enum RenderCmd {
    /// A `terraform show -json PLANFILE` document.
    Plan { file: std::path::PathBuf },
    /// A `terraform apply -json` stream; `--plan` adds never-reached resources.
    Apply {
        file: std::path::PathBuf,
        #[arg(long)]
        plan: Option<std::path::PathBuf>,
    },
}

fn main() {
    // Inside an egress sandbox: relay loopback connections to tfgate's proxy and run the
    // program. Before any runtime, configuration or logging: it decides nothing.
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some(tfgate::egress::relay::SUBCOMMAND) {
        std::process::exit(tfgate::egress::relay::main(&argv[2..]));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("starting the tokio runtime");
    std::process::exit(runtime.block_on(serve_cli()));
}

async fn serve_cli() -> i32 {
    let cli = Cli::parse();
    let code = match run(cli).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tfgate: {e:#}");
            1
        }
    };
    code
}

async fn run(cli: Cli) -> Result<i32> {
    let config = Config::resolve(&cli.config)?;
    match cli.command {
        Cmd::Render { what } => render(&config, what),
        Cmd::Classify => {
            print!("{}", cli::results::classify_stdin()?);
            Ok(0)
        }
        Cmd::Redact { patterns } => {
            cli::results::redact_stdin(patterns)?;
            Ok(0)
        }
        Cmd::Run { what } => run_local(&config, what).await,
        Cmd::Policy { command } => cli::policy_cmd::run(&config, command),
        Cmd::Gitops { what } => cli::gitops::run(what),
        Cmd::Locks { release, json } => {
            cli::operator_cmd::locks(&config, release.as_deref(), json).await
        }
        Cmd::Runs {
            repo,
            pr,
            limit,
            json,
        } => {
            let filter = tfgate::db::runs::RunFilter { repo, pr, limit };
            cli::operator_cmd::runs(&config, filter, json)
                .await
                .map(|_| 0)
        }
        Cmd::RunShow { id } => cli::operator_cmd::run_show(&config, id).await,
        Cmd::Audit {
            repo,
            user,
            since,
            limit,
            json,
        } => {
            let filter = tfgate::db::audit::AuditFilter {
                repo,
                user,
                since_ms: None,
                limit,
            };
            cli::operator_cmd::audit(&config, filter, since.as_deref(), json)
                .await
                .map(|_| 0)
        }
        Cmd::Doctor => {
            let report = tfgate::doctor::doctor_for_config(&config).await;
            print!("{report}");
            Ok(report.exit_code())
        }
        command => {
            tfgate::logging::init(config.log_format);
            run_logged(config, command).await?;
            Ok(0)
        }
    }
}

/// The commands that log (servers, database and admin commands).
async fn run_logged(config: Config, command: Cmd) -> Result<()> {
    match command {
        Cmd::Serve => {
            let workers = config.workers;
            let state = AppState::build(config).await?;
            tfgate::http::log_setup_link(&state);
            tfgate::server::serve(state, workers).await
        }
        Cmd::Worker => worker(config).await,
        Cmd::Migrate => {
            std::fs::create_dir_all(&config.data_dir)?;
            Db::open(&config.database_url).await?;
            println!("migrations applied");
            Ok(())
        }
        Cmd::Logs { run_id } => {
            print!("{}", cli::logs::logs(&config, run_id).await?);
            Ok(())
        }
        Cmd::Inputs {
            what: InputsCmd::Fingerprint { repo },
        } => inputs_fingerprint(&config, &repo),
        Cmd::Prune => prune(&config).await,
        Cmd::Drift { what } => cli::drift::run(config, what).await,
        Cmd::Jobs { json, limit } => list_jobs(&config, json, limit).await,
        Cmd::Policy { .. }
        | Cmd::Render { .. }
        | Cmd::Classify
        | Cmd::Doctor
        | Cmd::Locks { .. }
        | Cmd::Gitops { .. }
        | Cmd::Runs { .. }
        | Cmd::RunShow { .. }
        | Cmd::Audit { .. }
        | Cmd::Redact { .. }
        | Cmd::Run { .. } => unreachable!("handled in run"),
    }
}

/// `tfgate render plan|apply`: the markdown the bot would post, with the configured templates.
fn render(config: &Config, what: RenderCmd) -> Result<i32> {
    let renderer = tfgate::state::renderer_for(config)?;
    let md = match what {
        RenderCmd::Plan { file } => cli::results::render_plan(&renderer, &file)?,
        RenderCmd::Apply { file, plan } => {
            cli::results::render_apply(&renderer, &file, plan.as_deref())?
        }
    };
    print!("{md}");
    Ok(0)
}

async fn run_local(config: &Config, what: RunCmd) -> Result<i32> {
    let (args, apply) = match what {
        RunCmd::Plan(a) => (a, false),
        RunCmd::Apply(a) => (a, true),
    };
    let network = cli::run::local_network(config, &args.network, &args.egress)?;
    let (code, md) = cli::run::run_local(
        config,
        cli::run::LocalRun {
            dir: &args.dir,
            apply,
            network,
            keep_state: args.keep_state,
        },
    )
    .await?;
    print!("{md}");
    Ok(code)
}

async fn worker(config: Config) -> Result<()> {
    // A worker on its own SQLite file would create an empty database that no server
    // writes to, and wait on it forever (e.g. a fly `worker` machine without the volume).
    if let Some(path) = tfgate::db::sqlite_file_path(&config.database_url) {
        anyhow::ensure!(
            path.exists(),
            "no database at {}: `tfgate worker` works the queue that `tfgate serve` \
             writes, so it needs the same database (the same SQLite file, or \
             DATABASE_URL set to PostgreSQL for workers on other machines)",
            path.display()
        );
    }
    let workers = config.workers;
    let state = AppState::build(config).await?;
    tfgate::server::worker_only(state, workers).await
}

fn inputs_fingerprint(config: &Config, repo: &str) -> Result<()> {
    let protected = tfgate::policy_repo::store::protected_paths(config);
    let set = match tfgate::policy_repo::store::load_dir_guarded(&config.policy_dir, &protected)? {
        Ok(set) => set,
        Err(problems) => {
            for p in problems {
                eprintln!("{p}");
            }
            anyhow::bail!("the policy directory has problems");
        }
    };
    let policy = set
        .for_repo(repo)
        .ok_or_else(|| anyhow::anyhow!("no policy covers {repo}"))?;
    let key = tfgate::crypto::load_or_create_key(&config.data_dir, config.encryption_key.as_ref())?;
    let report = tfgate::worker::input_drift::values::inputs_report(
        &tfgate::worker::input_drift::values::key_from_seal(&key),
        policy,
    );
    let body = tfgate::model::view::NoticeBody::InputsReport(report);
    let text = tfgate::state::renderer_for(config)?.render_reply(&cli_meta(), &[body])?;
    print!("{text}");
    Ok(())
}

/// Where a reply printed by the CLI would go: no PR, no run.
fn cli_meta() -> tfgate::model::view::CommentMeta {
    tfgate::model::view::CommentMeta {
        pr: 0,
        marker_root: "cli".into(),
        run_id: "-".into(),
        head_sha_short: None,
        command_by: None,
        check_run_url: None,
    }
}

async fn prune(config: &Config) -> Result<()> {
    let Some(days) = config.retention_days else {
        println!("retention is off (TFGATE_RETENTION_DAYS=0): nothing pruned");
        return Ok(());
    };
    let db = Db::open(&config.database_url).await?;
    let p = tfgate::db::retention::prune_older_than(&db, days).await?;
    println!(
        "pruned what is older than {days} days: {} jobs, {} deliveries, \
         plan files and logs of {} runs, {} handled-comment records, {} publications",
        p.jobs, p.deliveries, p.run_blobs, p.handled_comments, p.publications
    );
    Ok(())
}

async fn list_jobs(config: &Config, json: bool, limit: i64) -> Result<()> {
    let db = Db::open(&config.database_url).await?;
    let rows = queue::recent(&db, limit).await?;
    if json {
        for r in rows {
            println!("{}", serde_json::to_string(&r)?);
        }
        return Ok(());
    }
    println!(
        "{:>6}  {:<13} {:<38} {:<10} {:>8}",
        "ID", "KIND", "DELIVERY", "STATUS", "ATTEMPTS"
    );
    for r in rows {
        println!(
            "{:>6}  {:<13} {:<38} {:<10} {:>8}",
            r.id,
            r.kind,
            r.delivery_id.as_deref().unwrap_or("-"),
            r.status,
            r.attempts
        );
    }
    Ok(())
}
