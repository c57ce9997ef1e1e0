use anyhow::Result;
use clap::{Parser, Subcommand};

use tfgate::config::{Config, ConfigArgs};
use tfgate::db::Db;
use tfgate::jobs::queue;
use tfgate::state::AppState;

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
enum Cmd {
    /// Run the HTTP server with embedded workers (default: `--workers 2`).
    Serve,
    /// Run workers only (no HTTP server); use beside `serve --workers 0` on PostgreSQL.
    Worker,
    /// Apply database migrations and exit.
    Migrate,
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

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    let code = match run(cli).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tfgate: {e:#}");
            1
        }
    };
    std::process::exit(code);
}

async fn run(cli: Cli) -> Result<i32> {
    let config = Config::resolve(&cli.config)?;
    tfgate::logging::init(config.log_format);
    match cli.command {
        Cmd::Serve => {
            let workers = config.workers;
            let state = AppState::build(config).await?;
            tfgate::server::serve(state, workers).await?;
        }
        Cmd::Worker => {
            let workers = config.workers;
            let state = AppState::build(config).await?;
            tfgate::server::worker_only(state, workers).await?;
        }
        Cmd::Migrate => {
            std::fs::create_dir_all(&config.data_dir)?;
            Db::open(&config.database_url).await?;
            println!("migrations applied");
        }
        Cmd::Jobs { json, limit } => {
            let db = Db::open(&config.database_url).await?;
            let rows = queue::recent(&db, limit).await?;
            if json {
                for r in rows {
                    println!("{}", serde_json::to_string(&r)?);
                }
            } else {
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
            }
        }
    }
    Ok(0)
}
