//! `tfgate gitops diff BASE_DIR HEAD_DIR --kind argocd|flux [--path GLOB]…`: the deploy
//! preview of two checkouts, for admins and CI (exit 0: nothing to acknowledge; 3: changes
//! need acknowledgement; 1: YAML that does not parse).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Result};

use crate::checkout::{read_tree, WalkLimits};
use crate::gitops::{check_conclusion, collect, deploy_check_text, diff, Tool};
use crate::redact::{Placeholders, Redactor};

#[derive(clap::Subcommand)]
pub enum GitopsCmd {
    /// Compare the ArgoCD or Flux objects of two checkouts and print the deploy preview.
    Diff {
        base: std::path::PathBuf,
        head: std::path::PathBuf,
        /// `argocd` or `flux`.
        #[arg(long)]
        kind: String,
        /// Watched paths (globs relative to the checkouts; repeatable). Default: everything.
        #[arg(long = "path")]
        paths: Vec<String>,
    },
}

fn yaml_tree(dir: &Path) -> BTreeMap<String, String> {
    let wanted = crate::gitops::is_manifest_file;
    read_tree(dir, wanted, &[".git"], WalkLimits::default())
        .into_iter()
        .collect()
}

pub fn run(cmd: GitopsCmd) -> Result<i32> {
    let GitopsCmd::Diff {
        base,
        head,
        kind,
        paths,
    } = cmd;
    let Some(tool) = Tool::parse(&kind) else {
        bail!("--kind must be argocd or flux, not {kind:?}");
    };
    let paths = if paths.is_empty() {
        vec!["**".to_string()]
    } else {
        paths
    };
    let parsed = collect(&yaml_tree(&base), &paths, tool)
        .and_then(|b| collect(&yaml_tree(&head), &paths, tool).map(|h| diff(&b, &h)));
    let conclusion = check_conclusion(&parsed);
    let redactor = Redactor::new(&Default::default())?;
    let mut ph = Placeholders::new();
    let mut redact = |s: &str| match &parsed {
        Ok(_) => redactor.redact(s, &mut ph),
        Err(_) => s.to_string(),
    };
    let text = crate::render::Renderer::new()?
        .render_deploy_check(&deploy_check_text(&parsed, &mut redact))?;
    println!("tfgate/deploy: {conclusion}: {}\n", text.title);
    match &parsed {
        Err(problems) => {
            for p in problems {
                println!("{p}");
            }
            Ok(1)
        }
        Ok(_) => {
            print!("{}", text.summary);
            Ok(if conclusion == "action_required" {
                3
            } else {
                0
            })
        }
    }
}
