//! Possible propagation delay from the apply's own context, end to end with real Terraform
//! 1.0.3 and the test provider: a resource that refers to one created earlier in the same apply
//! and fails with a not-found shape naming its id is told as "possibly propagation delay",
//! naming the fresh resource (also when only its configuration, not the text, refers to it);
//! the same texts when the referenced resource existed before the apply keep their base
//! category (`not found`).

mod support;

use std::path::Path;

use support::fake_github::FakeReview;
use support::*;

const POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: [approved]
projects:
  - name: app
    dir: infra/app
"#;

/// EC2's answer for a security group it cannot see (yet), as the AWS provider prints it
/// (<https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html>,
/// `InvalidGroup.NotFound`), naming `fake_thing.a`'s id.
const NOT_FOUND: &str = "creating EC2 Instance: InvalidGroup.NotFound: The security group '${fake_thing.a.id}' does not exist";

/// The same shape naming a group that is no resource of this root.
const NOT_FOUND_OTHER: &str =
    "creating EC2 Instance: InvalidGroup.NotFound: The security group 'sg-0123456789abcdef0' does not exist";

/// `a` always; when `with_b`, `b` failing with [`NOT_FOUND`] (its text refers to `a`) and `c`
/// referring to `a` only through its configuration, failing with [`NOT_FOUND_OTHER`].
fn write_repo(dir: &Path, run: &str, with_b: bool) {
    let mut body = format!("resource \"fake_thing\" \"a\" {{\n  name = \"a-{run}\"\n}}\n");
    if with_b {
        body.push_str(&format!(
            "resource \"fake_thing\" \"b\" {{\n  name = \"b-{run}\"\n  fail_with = {NOT_FOUND:?}\n}}\n"
        ));
        body.push_str(&format!(
            "resource \"fake_thing\" \"c\" {{\n  name = \"c-{run}\"\n  depends_value = fake_thing.a.id\n  fail_with = {NOT_FOUND_OTHER:?}\n}}\n"
        ));
    }
    let d = dir.join("infra/app");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("main.tf"),
        moto_root_tf(&format!("{run}-app.tfstate"), &body),
    )
    .unwrap();
}

async fn setup(h: &Harness, run: &str, with_b: bool) -> tempfile::TempDir {
    create_state_bucket().await;
    let repo = tempfile::tempdir().unwrap();
    write_repo(repo.path(), run, with_b);
    serve(h, repo.path());
    repo
}

fn serve(h: &Harness, repo: &Path) {
    h.github.serve_repo(repo);
    h.github.with(|g| {
        g.pr.author = "author".into();
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
        g.permissions.insert("bob".into(), "write".into());
        g.reviews = vec![FakeReview {
            user: "bob".into(),
            state: "APPROVED".into(),
            commit_id: g.pr.head_sha.clone(),
            is_bot: false,
        }];
    });
}

async fn comment(h: &Harness, body: &str) -> String {
    h.comment(1, body, "alice").await.join("\n----\n")
}

fn unique(tag: &str) -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("{tag}{}", &id[..8])
}

/// The apply comment's table row of `address`.
fn row<'t>(text: &'t str, address: &str) -> &'t str {
    let start = format!("| `{address}` |");
    text.lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no row for {address}:\n{text}"))
}

scenario!(
    a_failure_referring_to_a_resource_created_in_the_same_apply_is_possibly_propagation,
    policy = &with_test_network(POLICY),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let run = unique("p");
        let _repo = setup(&h, &run, true).await;
        let plan = comment(&h, "/plan").await;
        assert!(plan.contains("fake_thing.b"), "{plan}");
        let apply = comment(&h, "/apply").await;
        assert!(row(&apply, "fake_thing.a").contains("✅ done"), "{apply}");
        let failed = row(&apply, "fake_thing.b");
        assert!(
            failed.contains("`InvalidGroup.NotFound`")
                && failed
                    .contains("possibly propagation delay: refers to `fake_thing.a`, created ")
                && failed.contains(" earlier in this apply"),
            "{apply}"
        );
        // `c`'s text names nothing fresh: the configuration reference, stored with the plan
        // for its apply, is what tells.
        assert!(
            row(&apply, "fake_thing.c")
                .contains("possibly propagation delay: refers to `fake_thing.a`, created "),
            "{apply}"
        );
        assert!(
            apply.contains("⏳ `fake_thing.b`, `fake_thing.c` failed right after resources they refer to were created in this apply")
                && apply.contains("the PR author can plan `app` again and `/apply`"),
            "{apply}"
        );
        // The id the error names is provider text: never posted.
        assert!(!apply.contains(&format!("fake-a-{run}")), "{apply}");
    }
);

scenario!(
    the_same_failure_when_the_referenced_resource_existed_before_keeps_its_category,
    policy = &with_test_network(POLICY),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let run = unique("n");
        let repo = setup(&h, &run, false).await;
        comment(&h, "/plan").await;
        let first = comment(&h, "/apply").await;
        assert!(row(&first, "fake_thing.a").contains("✅ done"), "{first}");

        // `a` exists now; the PR adds `b`, which refers to it and fails with the same text.
        write_repo(repo.path(), &run, true);
        serve(&h, repo.path());
        let plan = comment(&h, "/plan").await;
        assert!(plan.contains("fake_thing.b"), "{plan}");
        let apply = comment(&h, "/apply").await;
        for address in ["fake_thing.b", "fake_thing.c"] {
            let failed = row(&apply, address);
            assert!(
                failed.contains("`InvalidGroup.NotFound`") && failed.contains("| not found |"),
                "{apply}"
            );
        }
        assert!(
            !apply.contains("propagation") && !apply.contains("refers to `"),
            "{apply}"
        );
    }
);
