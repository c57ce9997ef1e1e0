//! Every text tfgate sends a PR, an issue or a check run comes from a template.
//!
//! (a) Every template name the code renders exists in `templates/`, is embedded (and so
//! overridable), and the renderer renders it with its sample models at load.
//! (b) A syn scan of the modules that post (`worker/`, `policy_repo/`, `drift_detection/`,
//! `gitops/`, `run_planner/`): the text handed to a GitHub sink (a comment's or an issue's
//! body, a check run's `title`/`summary`/`text`) must be a value the same function got from
//! the renderer: a variable bound by `let`/`for`/`if let`/`match` to an expression that calls a
//! `render*` or `check_run_*` function or method. A `format!`, a string literal, a parameter
//! or a value from anywhere else fails, unless listed in [`NOT_YET_TEMPLATED`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use syn::visit::{self, Visit};
use tfgate::model::marker::CommentKind;
use tfgate::render::{template_names, Renderer, DEFAULT_TEMPLATES};

/// The calls that send text, and the index of the argument that is the text.
const SINK_CALLS: &[(&str, usize)] = &[
    ("create_comment", 3),
    ("create_comment_with_post_id", 3),
    ("update_comment", 3),
    ("update_issue", 3),
    ("create_marked_issue", 3),
];
/// The fields of `CheckRunRequest` that GitHub shows.
const CHECK_RUN_FIELDS: &[&str] = &["title", "summary", "text"];
const SCANNED: &[&str] = &[
    "worker",
    "policy_repo",
    "drift_detection",
    "gitops",
    "run_planner",
];

/// `(file under src/, fn)` whose sent text is still built in Rust, not by a template. Each is
/// work left for issue 40 (item 4); an entry that no longer offends fails the test, so the
/// list only shrinks.
const NOT_YET_TEMPLATED: &[(&str, &str)] = &[];

#[test]
fn every_template_the_code_names_exists_and_renders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let embedded: BTreeSet<&str> = DEFAULT_TEMPLATES.iter().map(|(n, _)| *n).collect();
    let notices = CommentKind::ALL
        .iter()
        .filter(|k| !matches!(k, CommentKind::Plan | CommentKind::Apply))
        .map(|k| format!("{}.md.j2", k.as_str()));
    let named: Vec<String> = template_names::NAMED
        .iter()
        .map(|n| n.to_string())
        .chain(notices)
        .collect();
    for name in &named {
        assert!(
            root.join("templates").join(name).is_file(),
            "templates/{name}"
        );
        assert!(embedded.contains(name.as_str()), "{name} is not embedded");
    }
    // Names written out in the code are the shared constants', not literals of their own.
    let mut literals = Vec::new();
    for file in rust_files(&root.join("src")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let rel = file.strip_prefix(root).unwrap().display().to_string();
        let skipped = [
            "render/templates.rs",
            "render/template_names.rs",
            "tests.rs",
        ];
        if skipped.iter().any(|s| rel.ends_with(s)) {
            continue;
        }
        for lit in md_j2_literals(&text) {
            if !named.contains(&lit) && !lit.starts_with('_') {
                literals.push(format!("{rel}: {lit}"));
            }
        }
    }
    assert!(
        literals.is_empty(),
        "template names outside render::template_names: {literals:?}"
    );
    // Loading renders every template with its sample models.
    Renderer::new().expect("every template renders its samples");
}

/// `"name.md.j2"` string literals of a file.
fn md_j2_literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in text.split('"').skip(1).step_by(2) {
        let plain = part
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '_' || c == '.' || c.is_ascii_digit());
        if plain && part.ends_with(".md.j2") {
            out.push(part.to_string());
        }
    }
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// One text handed to a sink that does not come from the renderer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Offence {
    file: String,
    function: String,
    sink: String,
}

/// Walks one function: its bindings (name → whether the bound expression calls the renderer)
/// and the sinks it calls.
#[derive(Default)]
struct FnScan {
    rendered: BTreeSet<String>,
    bound: BTreeSet<String>,
    sinks: Vec<(String, syn::Expr)>,
}

fn calls_renderer(expr: &syn::Expr) -> bool {
    struct Finder(bool);
    impl<'a> Visit<'a> for Finder {
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            self.0 |= is_render_name(&m.method.to_string());
            visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                let last = p.path.segments.last().map(|s| s.ident.to_string());
                self.0 |= last.is_some_and(|n| is_render_name(&n));
            }
            visit::visit_expr_call(self, c);
        }
    }
    let mut f = Finder(false);
    f.visit_expr(expr);
    f.0
}

fn is_render_name(name: &str) -> bool {
    name.starts_with("render") || name.starts_with("check_run_")
}

fn pattern_names(pat: &syn::Pat, out: &mut Vec<String>) {
    struct Names<'o>(&'o mut Vec<String>);
    impl<'a> Visit<'a> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.to_string());
            visit::visit_pat_ident(self, p);
        }
    }
    Names(out).visit_pat(pat);
}

impl FnScan {
    fn bind(&mut self, pat: &syn::Pat, init: &syn::Expr) {
        let mut names = Vec::new();
        pattern_names(pat, &mut names);
        let rendered = calls_renderer(init);
        for n in names {
            self.bound.insert(n.clone());
            if rendered {
                self.rendered.insert(n);
            }
        }
    }
}

impl<'a> Visit<'a> for FnScan {
    fn visit_local(&mut self, l: &'a syn::Local) {
        if let Some(init) = &l.init {
            self.bind(&l.pat, &init.expr);
        }
        visit::visit_local(self, l);
    }
    fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
        self.bind(&f.pat, &f.expr);
        visit::visit_expr_for_loop(self, f);
    }
    fn visit_expr_let(&mut self, l: &'a syn::ExprLet) {
        self.bind(&l.pat, &l.expr);
        visit::visit_expr_let(self, l);
    }
    fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
        for arm in &m.arms {
            self.bind(&arm.pat, &m.expr);
        }
        visit::visit_expr_match(self, m);
    }
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            let name = p.path.segments.last().unwrap().ident.to_string();
            if let Some((_, i)) = SINK_CALLS.iter().find(|(n, _)| *n == name) {
                if let Some(arg) = c.args.iter().nth(*i) {
                    self.sinks.push((name, arg.clone()));
                }
            }
        }
        visit::visit_expr_call(self, c);
    }
    fn visit_expr_struct(&mut self, s: &'a syn::ExprStruct) {
        let name = s.path.segments.last().unwrap().ident.to_string();
        if name == "CheckRunRequest" {
            for field in &s.fields {
                if let syn::Member::Named(f) = &field.member {
                    if CHECK_RUN_FIELDS.contains(&f.to_string().as_str()) {
                        self.sinks
                            .push((format!("CheckRunRequest.{f}"), field.expr.clone()));
                    }
                }
            }
        }
        visit::visit_expr_struct(self, s);
    }
}

/// The variable a sink's argument reads (`&body`, `&check.text.title`, `body.as_str()`), or
/// `None` for anything else (a macro, a literal, a call).
fn root_variable(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Reference(r) => root_variable(&r.expr),
        syn::Expr::Paren(p) => root_variable(&p.expr),
        syn::Expr::Field(f) => root_variable(&f.base),
        syn::Expr::MethodCall(m) if m.args.is_empty() => root_variable(&m.receiver),
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

fn is_empty_literal(expr: &syn::Expr) -> bool {
    matches!(expr, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) if s.value().is_empty())
}

fn offences_of_file(rel: &str, file: &syn::File) -> Vec<Offence> {
    struct Fns<'r> {
        rel: &'r str,
        out: Vec<Offence>,
    }
    impl Fns<'_> {
        fn check(&mut self, name: String, block: &syn::Block) {
            let mut scan = FnScan::default();
            scan.visit_block(block);
            for (sink, expr) in &scan.sinks {
                let ok = is_empty_literal(expr)
                    || root_variable(expr).is_some_and(|v| scan.rendered.contains(&v));
                if !ok {
                    self.out.push(Offence {
                        file: self.rel.to_string(),
                        function: name.clone(),
                        sink: sink.clone(),
                    });
                }
            }
        }
    }
    impl<'a> Visit<'a> for Fns<'_> {
        fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
            self.check(f.sig.ident.to_string(), &f.block);
        }
        fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
            self.check(f.sig.ident.to_string(), &f.block);
        }
        fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
            let is_test = m.attrs.iter().any(|a| a.path().is_ident("cfg"));
            if !is_test {
                visit::visit_item_mod(self, m);
            }
        }
    }
    let mut fns = Fns {
        rel,
        out: Vec::new(),
    };
    fns.visit_file(file);
    fns.out
}

/// Offences of the scanned folders of `src`.
fn offences(src: &Path) -> Vec<Offence> {
    let mut out = Vec::new();
    for folder in SCANNED {
        for file in rust_files(&src.join(folder)) {
            let rel = file.strip_prefix(src).unwrap().display().to_string();
            if rel.ends_with("_tests.rs") || rel.ends_with("/tests.rs") {
                continue;
            }
            let parsed = syn::parse_file(&std::fs::read_to_string(&file).unwrap())
                .unwrap_or_else(|e| panic!("{rel}: {e}"));
            out.extend(offences_of_file(&rel, &parsed));
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn texts_sent_to_github_come_from_the_renderer() {
    // `TFGATE_SCAN_SRC` scans another checkout's `src/` (to see the scan fail on old code).
    let src = std::env::var_os("TFGATE_SCAN_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let found = offences(&src);
    let listed = |o: &Offence| {
        NOT_YET_TEMPLATED
            .iter()
            .any(|(f, n)| o.file == *f && o.function == *n)
    };
    let new: Vec<&Offence> = found.iter().filter(|o| !listed(o)).collect();
    assert!(
        new.is_empty(),
        "text sent to GitHub not from the renderer (render it from a template): {new:#?}"
    );
    let fixed: Vec<&(&str, &str)> = NOT_YET_TEMPLATED
        .iter()
        .filter(|(f, n)| !found.iter().any(|o| o.file == *f && o.function == *n))
        .collect();
    assert!(
        fixed.is_empty(),
        "templated now, drop from NOT_YET_TEMPLATED: {fixed:?}"
    );
}

#[test]
fn the_scan_catches_a_formatted_body() {
    let code = r###"
        async fn fold(gh: &G, comments: &[C]) {
            for (id, folded) in plans_to_fold(comments) {
                api::update_comment(gh, repo, id, &folded).await;
            }
            let body = format!("<details>{x}</details>");
            api::create_comment(gh, repo, 1, &body).await;
            api::create_comment(gh, repo, 1, &format!("## {x}")).await;
            let ok = renderer.render_notice(&n)?;
            api::create_comment(gh, repo, 1, &ok).await;
            let check = policy_check(1, &[], true);
            let text = state.renderer.render_policy_check(&check.text)?;
            let r = CheckRunRequest { title: &text.title, summary: &check.summary, text: "" };
        }
    "###;
    let found = offences_of_file("x.rs", &syn::parse_file(code).unwrap());
    let sinks: Vec<&str> = found.iter().map(|o| o.sink.as_str()).collect();
    assert_eq!(
        sinks,
        vec![
            "update_comment",
            "create_comment",
            "create_comment",
            "CheckRunRequest.summary"
        ]
    );
}
