//! A `/plan` of independent roots is split into parts that several workers plan at once; the
//! PR still gets one plan comment, updated in place as each root finishes. Real Terraform
//! 1.0.3 in bubblewrap with the test provider, state in moto's S3, SQLite and PostgreSQL.

mod support;

use std::path::Path;

use support::*;

const ROOTS: [&str; 4] = ["alpha", "bravo", "charlie", "delta"];

/// Four independent roots, `charlie` optionally broken, `after` (depending on `alpha`) optional.
fn policy(extra: &str) -> String {
    let mut projects: String = ROOTS
        .iter()
        .map(|r| format!("  - name: {r}\n    dir: infra/{r}\n"))
        .collect();
    projects.push_str(extra);
    with_test_network(&format!(
        "repos: [\"Codertocat/Hello-World\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/tfgate-plan\n  apply_role: arn:aws:iam::111111111111:role/tfgate-apply\napply_requirements: []\nparallel_plans: 4\nprojects:\n{projects}"
    ))
}

/// `broken` does not parse; `failing` plans but fails to apply (a provider error).
fn write_roots(dir: &Path, run: &str, names: &[&str], broken: Option<&str>, failing: Option<&str>) {
    for name in names {
        let fail = match Some(*name) == failing {
            true => "\n  fail_with = \"AccessDenied: not authorized\"",
            false => "",
        };
        let body = match Some(*name) == broken {
            true => "resource \"fake_thing\" \"x\" {\n  name = \n}\n".to_string(),
            false => format!(
                "resource \"fake_thing\" \"{name}\" {{\n  name = \"{name}-{run}\"{fail}\n}}\n"
            ),
        };
        let d = dir.join("infra").join(name);
        std::fs::create_dir_all(&d).unwrap();
        let tf = moto_root_tf(&format!("{run}-{name}.tfstate"), &body);
        std::fs::write(d.join("main.tf"), tf).unwrap();
    }
}

async fn start(
    backend: Backend,
    policy: &str,
    names: &[&str],
    broken: Option<&str>,
    failing: Option<&str>,
) -> Option<(Harness, tempfile::TempDir)> {
    let h = Harness::start_with(backend, Some(policy), |a| a.max_parallel_roots = Some(4)).await?;
    create_state_bucket().await;
    let repo = tempfile::tempdir().unwrap();
    let run = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
    write_roots(repo.path(), &run, names, broken, failing);
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = names.iter().map(|n| format!("infra/{n}/main.tf")).collect();
        g.permissions.insert("alice".into(), "write".into());
    });
    Some((h, repo))
}

/// `alice` comments; four workers run every job it leads to; tfgate's comments since.
async fn comment_with_workers(h: &Harness, body: &str) -> Vec<support::fake_github::Posted> {
    let before = h.github.comments().len();
    let mut delivery = pr_comment(body, "alice");
    delivery["issue"]["number"] = 1.into();
    h.deliver("issue_comment", &delivery).await;
    h.run_jobs_concurrently(4).await;
    h.github.comments()[before..].to_vec()
}

/// (project, created_at, finished_at) of the PR's plan runs.
async fn plan_runs(h: &Harness) -> Vec<(String, i64, i64)> {
    sqlx::query_as(
        "SELECT project, created_at, finished_at FROM runs WHERE command = 'plan' ORDER BY id",
    )
    .fetch_all(&h.state.db.pool)
    .await
    .unwrap()
}

async fn four_independent_roots_plan_at_once_into_one_comment(backend: Backend) {
    let Some((h, _repo)) = start(backend, &policy(""), &ROOTS, None, None).await else {
        return;
    };
    if !terraform_tools_available() {
        return;
    }
    let posted = comment_with_workers(&h, "/plan").await;
    let plans: Vec<_> = posted
        .iter()
        .filter(|c| c.body.contains("## tfgate plan"))
        .collect();
    assert_eq!(
        plans.len(),
        1,
        "one plan comment for the command: {posted:#?}"
    );
    let plan = plans[0];
    for r in ROOTS {
        assert!(
            plan.body.contains(&format!("| `{r}` | `infra/{r}` |")),
            "{r} shown:\n{}",
            plan.body
        );
    }
    assert!(
        !plan.body.contains("planning…"),
        "every root finished:\n{}",
        plan.body
    );
    assert!(
        plan.edits >= 3,
        "created at the first root, updated in place: {} edits",
        plan.edits
    );
    let runs = plan_runs(&h).await;
    assert_eq!(runs.len(), 4, "every root planned exactly once: {runs:?}");
    let overlapping = runs
        .iter()
        .filter(|(p, start, end)| runs.iter().any(|(q, s, e)| q != p && s < end && start < e));
    assert_eq!(
        overlapping.count(),
        4,
        "each root's plan ran beside another's: {runs:?}"
    );
    let checks = h.github.with(|g| g.check_runs_created.clone());
    for r in ROOTS {
        assert!(
            checks.iter().any(|c| c.0 == format!("tfgate plan: {r}")),
            "check run of {r}: {checks:?}"
        );
    }
}

async fn a_failing_root_leaves_the_others_results(backend: Backend) {
    let Some((h, _repo)) = start(backend, &policy(""), &ROOTS, Some("charlie"), None).await else {
        return;
    };
    if !terraform_tools_available() {
        return;
    }
    let posted = comment_with_workers(&h, "/plan").await;
    let plan = posted
        .iter()
        .find(|c| c.body.contains("## tfgate plan"))
        .unwrap();
    assert!(
        plan.body
            .contains("| `charlie` | `infra/charlie` | `default` | 0 | 0 | 0 | 0 | ❌ failed |"),
        "{}",
        plan.body
    );
    for r in ["alpha", "bravo", "delta"] {
        assert!(
            plan.body.contains(&format!(
                "| `{r}` | `infra/{r}` | `default` | 1 | 0 | 0 | 0 | 📝 changes |"
            )),
            "{r}:\n{}",
            plan.body
        );
    }
}

async fn a_dependency_chain_plans_in_order_in_one_part(backend: Backend) {
    let chain = "  - name: after\n    dir: infra/after\n    depends_on: [alpha]\n";
    let names = ["alpha", "bravo", "charlie", "delta", "after"];
    let Some((h, _repo)) = start(backend, &policy(chain), &names, None, None).await else {
        return;
    };
    if !terraform_tools_available() {
        return;
    }
    comment_with_workers(&h, "/plan").await;
    let runs = plan_runs(&h).await;
    let at = |p: &str| runs.iter().find(|r| r.0 == p).unwrap().clone();
    assert!(
        at("alpha").2 <= at("after").1,
        "after is planned once alpha finished: {runs:?}"
    );
    assert_eq!(runs.len(), 5, "every root planned exactly once: {runs:?}");
}

/// (project, created_at, finished_at) of the PR's apply runs.
async fn apply_runs(h: &Harness) -> Vec<(String, i64, i64)> {
    sqlx::query_as(
        "SELECT project, created_at, finished_at FROM runs WHERE command = 'apply' ORDER BY id",
    )
    .fetch_all(&h.state.db.pool)
    .await
    .unwrap()
}

/// `alpha` and `bravo` on the first level, `after` (needing both) on the second.
fn levels_policy() -> String {
    let after = "  - name: after\n    dir: infra/after\n    depends_on: [alpha, bravo]\n";
    policy(after).replace(
        "  - name: charlie\n    dir: infra/charlie\n  - name: delta\n    dir: infra/delta\n",
        "",
    )
}

async fn apply_runs_a_level_at_once_and_the_next_level_after_it(backend: Backend) {
    let names = ["alpha", "bravo", "after"];
    let Some((h, _repo)) = start(backend, &levels_policy(), &names, None, None).await else {
        return;
    };
    if !terraform_tools_available() {
        return;
    }
    comment_with_workers(&h, "/plan").await;
    let apply = comment_with_workers(&h, "/apply").await;
    let text = apply
        .iter()
        .map(|c| c.body.as_str())
        .collect::<Vec<_>>()
        .join("\n----\n");
    for r in names {
        assert!(
            text.contains(&format!("`fake_thing.{r}`")),
            "{r} applied:\n{text}"
        );
    }
    let runs = apply_runs(&h).await;
    let at = |p: &str| runs.iter().find(|r| r.0 == p).unwrap().clone();
    let (alpha, bravo, after) = (at("alpha"), at("bravo"), at("after"));
    assert!(
        alpha.1 < bravo.2 && bravo.1 < alpha.2,
        "alpha and bravo applied at once: {runs:?}"
    );
    assert!(
        after.1 >= alpha.2.max(bravo.2),
        "after waits for its level: {runs:?}"
    );
}

async fn a_failure_stops_the_next_level_and_says_why(backend: Backend) {
    let names = ["alpha", "bravo", "after"];
    let Some((h, _repo)) = start(backend, &levels_policy(), &names, None, Some("bravo")).await
    else {
        return;
    };
    if !terraform_tools_available() {
        return;
    }
    comment_with_workers(&h, "/plan").await;
    let apply = comment_with_workers(&h, "/apply").await;
    let text = apply
        .iter()
        .map(|c| c.body.as_str())
        .collect::<Vec<_>>()
        .join("\n----\n");
    assert!(
        text.contains("`fake_thing.alpha`"),
        "alpha, on bravo's level, still applied:\n{text}"
    );
    assert!(text.contains("❌"), "{text}");
    assert!(
        text.contains("Skipped: not run: `bravo` failed"),
        "after is not reached, and why:\n{text}"
    );
    let applied: Vec<String> = apply_runs(&h).await.into_iter().map(|r| r.0).collect();
    assert!(!applied.contains(&"after".to_string()), "{applied:?}");
}

macro_rules! on_both_backends {
    ($($name:ident),*) => {$(
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() { super::$name(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn postgres() { super::$name(Backend::Postgres).await }
        }
    )*};
}

on_both_backends!(
    four_independent_roots_plan_at_once_into_one_comment,
    a_failing_root_leaves_the_others_results,
    a_dependency_chain_plans_in_order_in_one_part,
    apply_runs_a_level_at_once_and_the_next_level_after_it,
    a_failure_stops_the_next_level_and_says_why
);
