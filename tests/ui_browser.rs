//! The web UI (issue 27) in real headless Chromium, against the real router: the database is
//! seeded by real runs (real Terraform, moto S3): PR 1 applies a root with a shared input,
//! PR 2's apply fails on `iam:CreateRole` with an ARN, an account id and an IP in the error,
//! bob is denied an apply, and the shared input then changes on the server. Then alice (an
//! admin by policy) signs in through GitHub's OAuth flow (the fake GitHub speaks its wire
//! format) and answers the four questions; bob (can read the repository) sees but cannot act;
//! carol (cannot read it) sees nothing. Screenshots go to `target/ui-screenshots/`.

mod support;
mod ui_support;

use support::*;
use ui_support::*;

const SECRET_CIDR: &str = "203.0.113.77/32";
const DENIED: &str = "creating IAM Role (node): AccessDenied: User: arn:aws:sts::123456789012:assumed-role/tfgate-apply/tfgate-9 is not authorized to perform: iam:CreateRole on resource: arn:aws:iam::123456789012:role/node because no identity-based policy allows the iam:CreateRole action (from 198.51.100.23)";
/// Never on a page but the admin's explicit raw view.
const NEVER: [&str; 6] = [
    "arn:aws",
    "123456789012",
    "111111111111",
    "198.51.100.23",
    SECRET_CIDR,
    "203.0.113.78",
];

fn policy(var: &str) -> String {
    with_test_network(&format!(
        "repos: [\"Codertocat/Hello-World\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/tfgate-plan\n  apply_role: arn:aws:iam::111111111111:role/tfgate-apply\nallow_repo_layout: true\napply_requirements: []\npermissions:\n  apply:\n    users: [alice]\nadmins:\n  users: [alice]\n  teams: [Codertocat/platform]\ninputs:\n  - name: ADMIN_CIDRS\n    variable: admin_cidrs\n    source: env:{var}\nprojects:\n  - name: eks\n    dir: infra/eks\n    inputs: [ADMIN_CIDRS]\n"
    ))
}

fn root(id: &str, failing: bool) -> String {
    let mut tf = format!("variable \"admin_cidrs\" {{\n  type = string\n}}\nresource \"fake_thing\" \"cluster\" {{\n  name = \"cluster-{id}\"\n  depends_value = var.admin_cidrs\n}}\n");
    if failing {
        tf.push_str(&format!("resource \"fake_thing\" \"node_role\" {{\n  name = \"node-{id}\"\n  fail_with = {DENIED:?}\n}}\n"));
    }
    tf
}

fn assert_clean(page: &str, html: &str) {
    for s in NEVER {
        assert!(!html.contains(s), "{page} shows {s}:\n{html}");
    }
}

async fn apply_run_id(h: &Harness, status: &str) -> i64 {
    sqlx::query_scalar(
        "SELECT id FROM runs WHERE command = 'apply' AND status = $1 ORDER BY id DESC",
    )
    .bind(status)
    .fetch_one(&h.state.db.pool)
    .await
    .unwrap()
}

async fn seed(h: &Harness, var: &str) {
    let id = uuid::Uuid::new_v4().simple().to_string();
    std::env::set_var(var, SECRET_CIDR);
    create_state_bucket().await;
    let repo = tempfile::tempdir().unwrap();
    let write = |failing| {
        std::fs::create_dir_all(repo.path().join("infra/eks")).unwrap();
        let tf = moto_root_tf(&format!("{id}.tfstate"), &root(&id, failing));
        std::fs::write(repo.path().join("infra/eks/main.tf"), tf).unwrap();
        h.github.serve_repo(repo.path());
    };
    write(false);
    h.github.with(|g| {
        let layout = "projects:\n  - name: dns\n    dir: infra/dns\n".to_string();
        g.contents
            .insert((g.pr.default_branch.clone(), "tfgate.yaml".into()), layout);
        g.files = vec!["infra/eks/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
        g.permissions.insert("bob".into(), "write".into());
    });
    h.comment(1, "/plan", "alice").await;
    let applied = h.comment(1, "/apply", "alice").await.join("\n");
    assert!(applied.contains("✅ done"), "{applied}");
    h.comment(1, "/unlock", "alice").await;
    write(true);
    h.github.with(|g| g.pr.head_sha = "b".repeat(40));
    h.comment(2, "/plan", "alice").await;
    let failed = h.comment(2, "/apply", "alice").await.join("\n");
    assert!(failed.contains("permission missing"), "{failed}");
    let denied = h.comment(2, "/apply", "bob").await.join("\n");
    assert!(denied.contains("bob"), "{denied}");
    std::env::set_var(var, "203.0.113.78/32");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admins_answer_the_four_questions_and_others_see_only_what_they_may() {
    if !terraform_tools_available() {
        return;
    }
    let Some(browser) = Browser::start().await else {
        return;
    };
    let var = format!(
        "TEST_UI_CIDRS_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    );
    let (listener, base) = listener().await;
    let public = base.clone();
    let h = Harness::start_with(Backend::Sqlite, Some(&policy(&var)), move |a| {
        a.public_url = Some(public);
        a.github_url = a.github_api_url.clone();
        a.oauth_client_id = Some(CLIENT_ID.into());
        a.oauth_client_secret = Some(CLIENT_SECRET.into());
    })
    .await
    .unwrap();
    let people = People::default();
    mount_people(&h.github.server, &people).await;
    let router = tfgate::http::router(h.state.clone());
    tokio::spawn(async move { axum::serve(listener, router).await });
    seed(&h, &var).await;
    let failed_run = apply_run_id(&h, "apply_failed").await;

    // alice signs in through GitHub and lands on the overview.
    people.sign_in_at_github("alice");
    let overview = browser.open(&format!("{base}/ui")).await;
    assert!(overview.contains("alice · admin"), "{overview}");
    assert!(
        overview.contains("Recent runs") && overview.contains("<svg"),
        "{overview}"
    );
    assert!(
        overview.contains("permission missing"),
        "failures by category:\n{overview}"
    );
    assert_clean("overview", &overview);
    browser.record_weight("overview", &overview);
    browser.screenshot("overview").await;

    // "What did run N do?"
    let run = browser.open(&format!("{base}/ui/runs/{failed_run}")).await;
    for want in [
        "fake_thing.node_role",
        "AccessDenied",
        "permission missing",
        "iam:CreateRole",
    ] {
        assert!(run.contains(want), "run page lacks {want}:\n{run}");
    }
    assert_clean("run page (redacted log)", &run);
    browser.record_weight("run", &run);
    browser.screenshot("run").await;
    let raw = browser
        .submit(
            "form[action$='/raw'] button",
            &format!("/ui/runs/{failed_run}/raw"),
        )
        .await;
    assert!(
        raw.contains("arn:aws:sts::123456789012"),
        "the raw view shows the raw log"
    );
    let audited: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM audit_events WHERE action = 'ui.raw_log' AND actor = 'ui:alice'",
    )
    .fetch_one(&h.state.db.pool)
    .await
    .unwrap();
    assert_eq!(audited, 1);

    // "Which shared input drifted?"
    let inputs = browser.open(&format!("{base}/ui/inputs")).await;
    assert!(
        inputs.contains("ADMIN_CIDRS") && inputs.contains("changed since the last apply"),
        "{inputs}"
    );
    assert_clean("inputs", &inputs);
    browser.record_weight("inputs", &inputs);

    // "Who applied, and who was denied?"
    let audit = browser
        .open(&format!("{base}/ui/audit?command=apply&decision=deny"))
        .await;
    browser.record_weight("audit", &audit);
    assert_clean("audit", &audit);
    assert!(
        audit.contains("bob") && !audit.contains(">alice<"),
        "{audit}"
    );
    let csv = reqwest::Client::new()
        .get(format!("{base}/ui/audit.csv?command=apply"))
        .header("cookie", browser.session_cookie().await)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        csv.starts_with("time_utc,actor,") && csv.contains(",bob,") && csv.contains(",alice,"),
        "{csv}"
    );

    // A POST without the CSRF token is refused, even with alice's session.
    let no_csrf = reqwest::Client::new()
        .post(format!("{base}/ui/locks/release"))
        .header("cookie", browser.session_cookie().await)
        .form(&[("id", "Codertocat/Hello-World/eks/default")])
        .send()
        .await
        .unwrap();
    assert_eq!(no_csrf.status(), 403);

    // "Who holds the lock on eks?" PR 2; alice releases it, and that is audited.
    let locks = browser.open(&format!("{base}/ui/locks")).await;
    browser.record_weight("locks", &locks);
    assert_clean("locks", &locks);
    assert!(locks.contains("#2") && locks.contains(">eks<"), "{locks}");
    let released = browser
        .submit(
            "form[action='/ui/locks/release'] button",
            "/ui/locks/release",
        )
        .await;
    assert!(
        released.contains("is released (it was held by PR #2)"),
        "{released}"
    );
    assert!(
        tfgate::db::locks::holder(&h.state.db, "Codertocat/Hello-World", "eks", "default")
            .await
            .unwrap()
            .is_none()
    );
    let audited: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM audit_events WHERE action = 'lock.release' AND actor = 'ui:alice'",
    )
    .fetch_one(&h.state.db.pool)
    .await
    .unwrap();
    assert_eq!(audited, 1);
    browser.screenshot("locks").await;
    for page in ["queue", "policies", "runs"] {
        let html = browser.open(&format!("{base}/ui/{page}")).await;
        assert_clean(page, &html);
        browser.record_weight(page, &html);
    }

    // "May bob apply eks?" The policies page answers with the rule.
    let explain = browser
        .open(&format!("{base}/ui/policies?user=bob&command=apply&repo=Codertocat/Hello-World&project=eks&permission=write"))
        .await;
    let answer = explain
        .split("<pre class=\"explain\">")
        .nth(1)
        .unwrap_or("");
    assert!(
        answer.contains("decision: deny") && answer.contains("permission.not_listed"),
        "{explain}"
    );

    // The projects a PR of the repository gets: the policy's and its tfgate.yaml's.
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path(
            "/repos/Codertocat/Hello-World/installation",
        ))
        .respond_with(
            wiremock::ResponseTemplate::new(200).set_body_json(serde_json::json!({"id": 1})),
        )
        .mount(&h.github.server)
        .await;
    let effective = browser
        .open(&format!("{base}/ui/policies?of=Codertocat/Hello-World"))
        .await;
    let table = effective.split("class=\"effective\"").nth(1).unwrap_or("");
    assert!(
        table.contains("<td>dns</td>") && table.contains("<td>eks</td>"),
        "{effective}"
    );

    // bob can read the repository on GitHub: he sees its runs, may not act.
    browser
        .submit("form[action='/ui/logout'] button", "/ui/logout")
        .await;
    people.sign_in_at_github("bob");
    people.can_read("bob", "Codertocat/Hello-World");
    let bobs = browser.open(&format!("{base}/ui/runs/{failed_run}")).await;
    assert!(
        bobs.contains("fake_thing.node_role") && !bobs.contains("Show raw log"),
        "{bobs}"
    );
    assert!(!bobs.contains("· admin"));
    h.comment(3, "/plan", "alice").await;
    let locks = browser.open(&format!("{base}/ui/locks")).await;
    assert!(
        locks.contains("#3") && !locks.contains(">Release<"),
        "{locks}"
    );
    let csrf = locks
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let refused = reqwest::Client::new()
        .post(format!("{base}/ui/locks/release"))
        .header("cookie", browser.session_cookie().await)
        .form(&[
            ("csrf", csrf.as_str()),
            ("id", "Codertocat/Hello-World/eks/default"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    assert!(browser
        .open(&format!("{base}/ui/policies"))
        .await
        .contains("policy admins only"));

    // carol cannot read it: nothing of it is shown.
    browser.open(&format!("{base}/ui")).await;
    browser
        .submit("form[action='/ui/logout'] button", "/ui/logout")
        .await;
    people.sign_in_at_github("carol");
    let carols = browser.open(&format!("{base}/ui")).await;
    assert!(
        carols.contains("carol") && !carols.contains("Hello-World"),
        "{carols}"
    );
    let hidden = browser.open(&format!("{base}/ui/runs/{failed_run}")).await;
    assert!(hidden.contains("no such run"), "{hidden}");
    browser.screenshot("non-reader").await;

    // dave is an admin through a team of the policy's `admins`: he may act.
    browser.open(&format!("{base}/ui")).await;
    browser
        .submit("form[action='/ui/logout'] button", "/ui/logout")
        .await;
    people.sign_in_at_github("dave");
    people.in_team("dave", "Codertocat/platform");
    let daves = browser.open(&format!("{base}/ui/locks")).await;
    assert!(
        daves.contains("dave · admin") && daves.contains(">Release<"),
        "{daves}"
    );
}
