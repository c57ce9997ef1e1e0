//! What the checked-out `.tf` / `.tfvars` files say that plan JSON does not: where each
//! block is declared (for matching the PR diff), local values, `dynamic` blocks, and which
//! tfvars file sets which variable. Built from file texts; the caller reads the files.

use std::collections::{BTreeMap, BTreeSet};

use super::hcl_scan::scan_hcl;
use super::paths::{normalize_dir, parent_dir};

/// Everything known about the configuration files, by repo-relative directory.
/// `HclIndex::default()` knows nothing (attribution then falls back as documented).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HclIndex {
    /// Directory (`""` = repo root, no trailing `/`) → what its `.tf` files declare.
    pub modules: BTreeMap<String, ModuleSource>,
    /// `.tfvars` / `.auto.tfvars` file path → variables it sets.
    pub tfvars: BTreeMap<String, BTreeSet<String>>,
}

/// Declarations in one module directory. Values are repo-relative file paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleSource {
    pub resources: BTreeMap<String, ResourceSource>,
    pub variables: BTreeMap<String, String>,
    pub outputs: BTreeMap<String, String>,
    pub module_calls: BTreeMap<String, String>,
    pub providers: BTreeMap<String, String>,
    pub locals: BTreeMap<String, LocalSource>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceSource {
    pub file: String,
    /// Top-level nested block name → references inside `dynamic` blocks under it.
    pub dynamic_blocks: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocalSource {
    pub file: String,
    pub references: Vec<String>,
}

impl HclIndex {
    /// Scans `(repo-relative path, text)` pairs: `*.tf` as configuration, `*.tfvars` as
    /// variable assignments; other files are ignored (`*.tf.json` is not read).
    pub fn from_files<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> HclIndex {
        let mut index = HclIndex::default();
        for (path, text) in files {
            let path = normalize_dir(path);
            if path.ends_with(".tfvars") {
                let scan = scan_hcl(text);
                index
                    .tfvars
                    .insert(path.clone(), scan.assignments.into_iter().collect());
            } else if path.ends_with(".tf") {
                index.add_tf_file(&path, text);
            }
        }
        index
    }

    fn add_tf_file(&mut self, path: &str, text: &str) {
        let scan = scan_hcl(text);
        let module = self.modules.entry(parent_dir(path)).or_default();
        let file = || path.to_string();
        for (address, dynamic_blocks) in scan.resources {
            module.resources.insert(
                address,
                ResourceSource {
                    file: file(),
                    dynamic_blocks,
                },
            );
        }
        module
            .variables
            .extend(scan.variables.into_iter().map(|v| (v, file())));
        module
            .outputs
            .extend(scan.outputs.into_iter().map(|v| (v, file())));
        module
            .module_calls
            .extend(scan.module_calls.into_keys().map(|v| (v, file())));
        module
            .providers
            .extend(scan.providers.into_iter().map(|v| (v, file())));
        for (name, references) in scan.locals {
            module.locals.insert(
                name,
                LocalSource {
                    file: file(),
                    references,
                },
            );
        }
    }

    pub fn module(&self, dir: &str) -> Option<&ModuleSource> {
        self.modules.get(&normalize_dir(dir))
    }

    /// Whether any tfvars file of `dir` was scanned (then assignments are known exactly).
    pub fn knows_tfvars_in(&self, dir: &str) -> bool {
        let dir = normalize_dir(dir);
        self.tfvars.keys().any(|f| parent_dir(f) == dir)
    }

    /// tfvars files in `dir` that set `variable`.
    pub fn tfvars_setting<'s>(&'s self, dir: &str, variable: &'s str) -> Vec<&'s str> {
        let dir = normalize_dir(dir);
        self.tfvars
            .iter()
            .filter(|(f, vars)| parent_dir(f) == dir && vars.contains(variable))
            .map(|(f, _)| f.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_files_by_directory() {
        let index = HclIndex::from_files([
            (
                "infra/eks/main.tf",
                "resource \"aws_eks_cluster\" \"this\" {\n  name = local.name\n}\nmodule \"vpc\" {\n  source = \"../modules/vpc\"\n}\n",
            ),
            (
                "infra/eks/variables.tf",
                "variable \"admin_cidrs\" {\n  type = list(string)\n}\n",
            ),
            (
                "./infra/eks/locals.tf",
                "locals {\n  name = \"${var.env}-eks\"\n}\n",
            ),
            ("infra/eks/prod.auto.tfvars", "admin_cidrs = [\"x\"]\nenv = \"prod\"\n"),
            ("infra/eks/README.md", "resource \"x_y\" \"z\" {}"),
            ("infra/modules/vpc/main.tf", "output \"id\" {\n value = aws_vpc.v.id\n}\nresource \"aws_vpc\" \"v\" {}\n"),
        ]);
        let eks = index.module("infra/eks/").unwrap();
        assert_eq!(
            eks.resources["aws_eks_cluster.this"].file,
            "infra/eks/main.tf"
        );
        assert_eq!(eks.variables["admin_cidrs"], "infra/eks/variables.tf");
        assert_eq!(eks.module_calls["vpc"], "infra/eks/main.tf");
        assert_eq!(eks.locals["name"].file, "infra/eks/locals.tf");
        assert_eq!(eks.locals["name"].references, vec!["var.env"]);
        assert!(!eks.resources.contains_key("x_y.z"));
        let vpc = index.module("infra/modules/vpc").unwrap();
        assert_eq!(vpc.outputs["id"], "infra/modules/vpc/main.tf");
        assert!(vpc.resources.contains_key("aws_vpc.v"));
        assert!(index.knows_tfvars_in("infra/eks"));
        assert!(!index.knows_tfvars_in("infra/modules/vpc"));
        assert_eq!(
            index.tfvars_setting("infra/eks", "admin_cidrs"),
            vec!["infra/eks/prod.auto.tfvars"]
        );
        assert!(index.tfvars_setting("infra/eks", "other").is_empty());
    }
}
