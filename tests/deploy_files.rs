//! The shipped deployment files agree with the binary: fly.toml's process commands parse as
//! tfgate commands and its `[env]` names are settings tfgate knows, and the Dockerfile's build
//! stage copies every file the binary embeds (`include_str!` outside tests).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fly() -> toml::Value {
    toml::from_str(&std::fs::read_to_string(root().join("fly.toml")).unwrap()).unwrap()
}

fn tfgate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tfgate"))
        .args(args)
        .env_clear()
        .output()
        .unwrap()
}

#[test]
fn fly_processes_are_tfgate_commands() {
    let processes = fly()["processes"].as_table().unwrap().clone();
    assert!(processes.contains_key("app") && processes.contains_key("worker"));
    for (group, command) in processes {
        let mut args: Vec<&str> = command.as_str().unwrap().split_whitespace().collect();
        args.push("--help");
        let out = tfgate(&args);
        assert!(
            out.status.success(),
            "fly.toml process `{group}` = {command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn fly_env_names_are_tfgate_settings() {
    let help = String::from_utf8(tfgate(&["serve", "--help"]).stdout).unwrap();
    let env = fly()["env"].as_table().unwrap().clone();
    assert!(
        env.contains_key("TFGATE_TERRAFORM_VERSION"),
        "Terraform comes on demand"
    );
    for (key, _) in env {
        assert!(
            help.contains(&format!("[env: {key}=")),
            "fly.toml sets unknown {key}"
        );
    }
}

/// `include_str!`/`include_bytes!` paths of non-test code under `dir`, repository-relative.
fn embedded(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            embedded(&path, out);
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".rs") || name.contains("tests") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        for piece in code.split("include_").skip(1) {
            let Some(rest) = piece
                .strip_prefix("str!(")
                .or(piece.strip_prefix("bytes!("))
            else {
                continue;
            };
            let Some(literal) = rest.trim_start().strip_prefix('"') else {
                continue;
            };
            let rel = &literal[..literal.find('"').unwrap()];
            let full = path.parent().unwrap().join(rel);
            let mut clean = PathBuf::new();
            for c in full.components() {
                match c {
                    std::path::Component::ParentDir => {
                        clean.pop();
                    }
                    other => clean.push(other),
                }
            }
            out.push(clean.strip_prefix(root()).unwrap().display().to_string());
        }
    }
}

#[test]
fn the_image_build_copies_every_embedded_file() {
    let dockerfile = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let build_stage = dockerfile.split("\nFROM ").nth(1).unwrap();
    let copied: Vec<&str> = build_stage
        .lines()
        .filter_map(|l| l.strip_prefix("COPY "))
        .flat_map(|l| {
            let parts: Vec<&str> = l.split_whitespace().collect();
            parts[..parts.len() - 1].to_vec()
        })
        .collect();
    let mut files = Vec::new();
    embedded(&root().join("src"), &mut files);
    assert!(files.iter().any(|f| f == "keys/hashicorp.asc"), "{files:?}");
    for file in files {
        assert!(
            copied
                .iter()
                .any(|c| file == *c || file.starts_with(&format!("{c}/"))),
            "the Dockerfile's build stage does not copy {file} (COPY lines: {copied:?})"
        );
    }
}
