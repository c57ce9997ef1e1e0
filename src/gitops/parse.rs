//! Collecting the deploying objects of a tree (pure): every YAML document of the files under
//! the watched paths, and the files kustomize `resources:` lists reach within the repository.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_yaml::Value;

use super::{DeployObject, Kind, Tool};

/// YAML that does not parse, named by file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseProblem {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ParseProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// The objects `tool` deploys with, from the files of `tree` (path → text) matching `paths`
/// (globs) and those their kustomizations reach; sorted by kind, namespace and name.
pub fn collect(
    tree: &BTreeMap<String, String>,
    paths: &[String],
    tool: Tool,
) -> Result<Vec<DeployObject>, Vec<ParseProblem>> {
    let globs: Vec<glob::Pattern> = paths
        .iter()
        .filter_map(|p| glob::Pattern::new(p).ok())
        .collect();
    let mut queue: Vec<String> = tree
        .keys()
        .filter(|p| is_yaml(p) && globs.iter().any(|g| g.matches(p)))
        .cloned()
        .collect();
    let mut seen = BTreeSet::new();
    let mut docs: Vec<(String, usize, Value)> = Vec::new();
    let mut patch_files = BTreeSet::new();
    let mut problems = Vec::new();
    while let Some(file) = queue.pop() {
        if !seen.insert(file.clone()) {
            continue;
        }
        let Some(text) = tree.get(&file) else {
            continue;
        };
        match documents(&file, text) {
            Err(problem) => problems.push(problem),
            Ok(found) => {
                for (line, doc) in found {
                    let (resources, patches) = kustomize_references(tree, &file, &doc);
                    queue.extend(resources);
                    queue.extend(patches.iter().cloned());
                    patch_files.extend(patches);
                    docs.push((file.clone(), line, doc));
                }
            }
        }
    }
    if !problems.is_empty() {
        problems.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        return Err(problems);
    }
    let (patches, mut objects): (Vec<_>, Vec<_>) = docs
        .into_iter()
        .partition(|(file, _, _)| patch_files.contains(file));
    for (_, _, patch) in &patches {
        for (_, _, doc) in objects.iter_mut().filter(|(_, _, d)| same_object(d, patch)) {
            merge(doc, patch);
        }
    }
    let mut out: Vec<DeployObject> = objects
        .iter()
        .filter_map(|(file, line, doc)| deploy_object(file, *line, doc))
        .filter(|o| tool.kinds().contains(&o.kind))
        .collect();
    out.sort_by_key(DeployObject::key);
    Ok(out)
}

/// A kustomize patch applies to the object of the same kind and name.
fn same_object(doc: &Value, patch: &Value) -> bool {
    let id = |v: &Value| {
        (
            str_at(v, &["kind"]).map(str::to_string),
            str_at(v, &["metadata", "name"]).map(str::to_string),
        )
    };
    let (kind, name) = id(patch);
    kind.is_some() && name.is_some() && id(doc) == (kind, name)
}

/// A strategic-merge patch, simplified: mappings merge key by key, anything else replaces.
fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Mapping(t), Value::Mapping(p)) => {
            for (k, v) in p {
                match t.get_mut(k) {
                    Some(existing) => merge(existing, v),
                    None => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (t, p) => *t = p.clone(),
    }
}

fn is_yaml(path: &str) -> bool {
    path.ends_with(".yaml") || path.ends_with(".yml")
}

/// Every document of a multi-document file, with the line it starts on.
fn documents(file: &str, text: &str) -> Result<Vec<(usize, Value)>, ParseProblem> {
    let starts = document_lines(text);
    let mut out = Vec::new();
    for (i, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let value = Value::deserialize(doc).map_err(|e| ParseProblem {
            file: file.to_string(),
            line: e.location().map_or(1, |l| l.line()),
            message: e
                .to_string()
                .split(" at line")
                .next()
                .unwrap_or("")
                .to_string(),
        })?;
        if !value.is_null() {
            out.push((starts.get(i).copied().unwrap_or(1), value));
        }
    }
    Ok(out)
}

/// The first content line of each document (`---` separates them).
fn document_lines(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut pending = true;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed == "---" || trimmed.starts_with("--- ") {
            pending = true;
            continue;
        }
        if pending && !trimmed.is_empty() && !trimmed.starts_with('#') {
            starts.push(i + 1);
            pending = false;
        }
    }
    starts
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(*k))?.as_str()
}

fn bool_at(v: &Value, path: &[&str]) -> Option<bool> {
    path.iter().try_fold(v, |v, k| v.get(*k))?.as_bool()
}

/// The repository files a kustomize `Kustomization` reaches: its `resources:` (a file, or a
/// directory's kustomization file) and its patch files (`patches[].path`,
/// `patchesStrategicMerge`); remote and out-of-repository entries are skipped.
fn kustomize_references(
    tree: &BTreeMap<String, String>,
    file: &str,
    doc: &Value,
) -> (Vec<String>, Vec<String>) {
    let is_kustomize = str_at(doc, &["kind"]) == Some("Kustomization")
        && !str_at(doc, &["apiVersion"])
            .is_some_and(|a| a.starts_with("kustomize.toolkit.fluxcd.io"));
    if !is_kustomize {
        return (Vec::new(), Vec::new());
    }
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    let in_repo = |entry: &str| {
        if entry.contains("://") || entry.starts_with("git@") {
            return None;
        }
        crate::project::join_relative(dir, entry)
    };
    let list = |key: &str| -> Vec<&Value> {
        doc.get(key)
            .and_then(Value::as_sequence)
            .map(|s| s.iter().collect())
            .unwrap_or_default()
    };
    let mut resources = Vec::new();
    for path in list("resources")
        .into_iter()
        .filter_map(Value::as_str)
        .filter_map(in_repo)
    {
        if tree.contains_key(&path) {
            resources.push(path);
        } else if let Some(k) = ["kustomization.yaml", "kustomization.yml", "Kustomization"]
            .iter()
            .map(|name| format!("{path}/{name}"))
            .find(|p| tree.contains_key(p))
        {
            resources.push(k);
        }
    }
    let patches = list("patches")
        .into_iter()
        .filter_map(|p| str_at(p, &["path"]))
        .chain(
            list("patchesStrategicMerge")
                .into_iter()
                .filter_map(Value::as_str),
        )
        .filter_map(in_repo)
        .filter(|p| tree.contains_key(p))
        .collect();
    (resources, patches)
}

/// The deploying object a document declares, if it is one.
fn deploy_object(file: &str, line: usize, doc: &Value) -> Option<DeployObject> {
    let api = str_at(doc, &["apiVersion"])?;
    let kind = match (api.split('/').next()?, str_at(doc, &["kind"])?) {
        ("argoproj.io", "Application") => Kind::Application,
        ("argoproj.io", "ApplicationSet") => Kind::ApplicationSet,
        ("kustomize.toolkit.fluxcd.io", "Kustomization") => Kind::FluxKustomization,
        ("helm.toolkit.fluxcd.io", "HelmRelease") => Kind::HelmRelease,
        _ => return None,
    };
    let name = str_at(doc, &["metadata", "name"])
        .unwrap_or("(unnamed)")
        .to_string();
    let namespace = str_at(doc, &["metadata", "namespace"])
        .unwrap_or("")
        .to_string();
    let (source, destination, automated, prune) = match kind {
        Kind::Application => argo_fields(doc.get("spec")?),
        Kind::ApplicationSet => argo_fields(doc.get("spec")?.get("template")?.get("spec")?),
        Kind::FluxKustomization => flux_kustomization_fields(doc.get("spec")?),
        Kind::HelmRelease => helm_release_fields(doc.get("spec")?, &namespace),
    };
    Some(DeployObject {
        kind,
        name,
        namespace,
        file: file.to_string(),
        line,
        source,
        destination,
        automated,
        prune,
    })
}

type Fields = (String, String, bool, bool);

fn argo_fields(spec: &Value) -> Fields {
    let src = spec.get("source").or_else(|| {
        spec.get("sources")
            .and_then(Value::as_sequence)
            .and_then(|s| s.first())
    });
    let part = |k: &str| src.and_then(|s| str_at(s, &[k])).unwrap_or("");
    let what = if part("chart").is_empty() {
        part("path")
    } else {
        part("chart")
    };
    let source = format!("{} {} @ {}", part("repoURL"), what, part("targetRevision"));
    let server = str_at(spec, &["destination", "server"])
        .or_else(|| str_at(spec, &["destination", "name"]))
        .unwrap_or("");
    let destination = format!(
        "{server} / {}",
        str_at(spec, &["destination", "namespace"]).unwrap_or("")
    );
    let automated = spec
        .get("syncPolicy")
        .and_then(|p| p.get("automated"))
        .is_some_and(|a| !a.is_null());
    let prune = bool_at(spec, &["syncPolicy", "automated", "prune"]).unwrap_or(false);
    (source.trim().to_string(), destination, automated, prune)
}

fn flux_kustomization_fields(spec: &Value) -> Fields {
    let source = format!(
        "{}/{} {}",
        str_at(spec, &["sourceRef", "kind"]).unwrap_or(""),
        str_at(spec, &["sourceRef", "name"]).unwrap_or(""),
        str_at(spec, &["path"]).unwrap_or("./")
    );
    let cluster = str_at(spec, &["kubeConfig", "secretRef", "name"]).unwrap_or("this cluster");
    let destination = format!(
        "{cluster} / {}",
        str_at(spec, &["targetNamespace"]).unwrap_or("(as declared)")
    );
    let automated = !bool_at(spec, &["suspend"]).unwrap_or(false);
    (
        source,
        destination,
        automated,
        bool_at(spec, &["prune"]).unwrap_or(false),
    )
}

fn helm_release_fields(spec: &Value, namespace: &str) -> Fields {
    let chart = spec.get("chart").and_then(|c| c.get("spec"));
    let part = |k: &[&str]| chart.and_then(|c| str_at(c, k)).unwrap_or("");
    let source = format!(
        "chart {}@{} from {}/{}",
        part(&["chart"]),
        if part(&["version"]).is_empty() {
            "*"
        } else {
            part(&["version"])
        },
        part(&["sourceRef", "kind"]),
        part(&["sourceRef", "name"])
    );
    let target = str_at(spec, &["targetNamespace"]).unwrap_or(namespace);
    let cluster = str_at(spec, &["kubeConfig", "secretRef", "name"]).unwrap_or("this cluster");
    let automated = !bool_at(spec, &["suspend"]).unwrap_or(false);
    (source, format!("{cluster} / {target}"), automated, false)
}
