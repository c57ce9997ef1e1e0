//! Compiling a plan policy set: parse every `.rego` file of the set, prepare the interpreter
//! once (the result is cached per policy version by the caller and cloned per evaluation), and
//! list the conftest rules (`deny`, `violation`, `warn` and their `_suffix` forms) of the
//! packages that count (`main` and the set's `namespaces`).

use std::sync::{Arc, OnceLock};

use regex::Regex;
use sha2::{Digest, Sha256};

use crate::model::PlanPolicySet;

/// A problem in a set's Rego files, located for `tfgate policy check` (`file:line:col`).
/// `line`/`col` are 0 when the problem concerns the set as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegoProblem {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl std::fmt::Display for RegoProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.col, self.message
            )
        }
    }
}

/// One conftest rule of a counted package, e.g. `data.main.deny_public`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RuleRef {
    /// `deny`, `violation` or `warn`.
    pub kind: &'static str,
    /// The rule's name as written (`deny`, `deny_public`, ...).
    pub name: String,
    /// The package, without `data.` (`main`, `terraform.aws`).
    pub package: String,
    /// `file:line` of the rule's first head, for error reasons.
    pub location: String,
}

#[derive(Debug)]
pub(super) struct Inner {
    pub set: PlanPolicySet,
    pub engine: regorus::Engine,
    pub rules: Vec<RuleRef>,
    pub digest: String,
}

/// A compiled, prepared policy set. Cheap to clone (an `Arc`); build it once per policy
/// version with [`compile`], never per plan.
#[derive(Debug, Clone)]
pub struct CompiledSet {
    pub(super) inner: Arc<Inner>,
}

/// Two compiled sets are equal when made from the same set and the same files.
impl PartialEq for CompiledSet {
    fn eq(&self, other: &Self) -> bool {
        self.inner.set == other.inner.set && self.inner.digest == other.inner.digest
    }
}

impl CompiledSet {
    /// The set this was compiled from.
    pub fn set(&self) -> &PlanPolicySet {
        &self.inner.set
    }

    /// SHA-256 over the set's file names and contents: the policy version it was compiled
    /// from (a cache key).
    pub fn digest(&self) -> &str {
        &self.inner.digest
    }

    /// The conftest rules found, as `package.rule` (for `tfgate policy explain`/`test`).
    pub fn rule_names(&self) -> Vec<String> {
        self.inner
            .rules
            .iter()
            .map(|r| format!("{}.{}", r.package, r.name))
            .collect()
    }
}

/// The `.rego` files of `set` among `files` (names relative to the policies directory, `/`
/// separated): the files under `set.path` (recursively, like conftest), without conftest's
/// unit tests (`*_test.rego`), sorted by name.
pub fn rego_files_of_set<'a>(
    set: &PlanPolicySet,
    files: &'a [(String, String)],
) -> Vec<&'a (String, String)> {
    let dir = set.path.trim_start_matches("./").trim_end_matches('/');
    let mut out: Vec<&(String, String)> = files
        .iter()
        .filter(|(name, _)| {
            let name = name.trim_start_matches("./");
            let inside = dir.is_empty()
                || dir == "."
                || name
                    .strip_prefix(dir)
                    .is_some_and(|rest| rest.starts_with('/'));
            inside && name.ends_with(".rego") && !name.ends_with("_test.rego")
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Compile the set from its Rego files (see [`rego_files_of_set`]; `files` may hold every
/// file of the policies directory). Every file is tried with Rego v1 syntax, then v0 (the
/// `deny[msg] { ... }` form of older conftest policies); a file neither accepts is a problem
/// located by its v1 parse error.
pub fn compile(
    set: &PlanPolicySet,
    files: &[(String, String)],
) -> Result<CompiledSet, Vec<RegoProblem>> {
    let files = rego_files_of_set(set, files);
    if files.is_empty() {
        return Err(vec![RegoProblem {
            file: set.path.clone(),
            line: 0,
            col: 0,
            message: format!(
                "plan policy set `{}`: no .rego file in `{}` (names ending in _test.rego are \
                 conftest unit tests and are not loaded)",
                set.name, set.path
            ),
        }]);
    }
    let mut engine = regorus::Engine::new();
    let mut problems = Vec::new();
    let mut rules = Vec::new();
    for (name, content) in &files {
        match add_file(&mut engine, name, content) {
            Ok(package) => rules.extend(rules_of(set, name, &package, content)),
            Err(problem) => problems.push(problem),
        }
    }
    if problems.is_empty() {
        // Prepares the interpreter once (rule analysis, imports); evaluations clone it prepared.
        // Analysis errors show here; an unknown function only when its rule runs (fails closed).
        if let Err(e) = engine.eval_query("true".to_string(), false) {
            problems.push(problem_of(&e.to_string(), &set.path));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    rules.sort_by(|a: &RuleRef, b| (&a.package, &a.name).cmp(&(&b.package, &b.name)));
    rules.dedup_by(|a, b| a.package == b.package && a.name == b.name);
    Ok(CompiledSet {
        inner: Arc::new(Inner {
            set: set.clone(),
            engine,
            rules,
            digest: digest_of(&files),
        }),
    })
}

fn add_file(
    engine: &mut regorus::Engine,
    name: &str,
    content: &str,
) -> Result<String, RegoProblem> {
    let mut v1 = engine.clone();
    v1.set_rego_v0(false);
    match v1.add_policy(name.to_string(), content.to_string()) {
        Ok(package) => {
            *engine = v1;
            Ok(package)
        }
        Err(v1_error) => {
            let mut v0 = engine.clone();
            v0.set_rego_v0(true);
            match v0.add_policy(name.to_string(), content.to_string()) {
                Ok(package) => {
                    v0.set_rego_v0(false);
                    *engine = v0;
                    Ok(package)
                }
                Err(_) => Err(problem_of(&v1_error.to_string(), name)),
            }
        }
    }
}

/// A located problem from a regorus error text (`--> file:line:col` ... `error: message`).
pub(super) fn problem_of(text: &str, fallback_file: &str) -> RegoProblem {
    static AT: OnceLock<Regex> = OnceLock::new();
    let at = AT.get_or_init(|| Regex::new(r"--> ([^\n]+):(\d+):(\d+)").expect("static regex"));
    let message = text
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .unwrap_or_else(|| text.lines().find(|l| !l.trim().is_empty()).unwrap_or(text))
        .trim()
        .to_string();
    match at.captures(text) {
        Some(c) => RegoProblem {
            file: c[1].to_string(),
            line: c[2].parse().unwrap_or(0),
            col: c[3].parse().unwrap_or(0),
            message,
        },
        None => RegoProblem {
            file: fallback_file.to_string(),
            line: 0,
            col: 0,
            message,
        },
    }
}

/// The conftest rules a file defines in a counted package: heads at the start of a line named
/// `deny`, `violation`, `warn` or one of them followed by `_suffix`.
fn rules_of(set: &PlanPolicySet, file: &str, package: &str, content: &str) -> Vec<RuleRef> {
    static HEAD: OnceLock<Regex> = OnceLock::new();
    let head = HEAD.get_or_init(|| {
        Regex::new(r"^((deny|violation|warn)(_[A-Za-z0-9_]+)?)\s*(\[|\{|contains\b|if\b|:=|=)")
            .expect("static regex")
    });
    let package = package.strip_prefix("data.").unwrap_or(package).to_string();
    let counted = package == "main" || set.namespaces.iter().any(|n| n == &package);
    if !counted {
        return Vec::new();
    }
    content
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let c = head.captures(line)?;
            let kind = match &c[2] {
                "deny" => "deny",
                "violation" => "violation",
                _ => "warn",
            };
            Some(RuleRef {
                kind,
                name: c[1].to_string(),
                package: package.clone(),
                location: format!("{file}:{}", i + 1),
            })
        })
        .collect()
}

fn digest_of(files: &[&(String, String)]) -> String {
    let mut h = Sha256::new();
    for (name, content) in files {
        h.update(name.as_bytes());
        h.update([0]);
        h.update(content.as_bytes());
        h.update([0]);
    }
    hex::encode(h.finalize())
}
