//! Seed 000 §2.3 as a scenario, with real Terraform: the admin CIDR secret changes ahead of the
//! PR meant to use it; an unrelated PR's plan is flagged and its apply blocked; the intended PR,
//! carrying the `tfgate.inputs.lock` bump, applies cleanly. Values never reach a comment.

mod support;

use std::path::Path;

use support::*;
use tfgate::policy::InputSource;

fn policy() -> String {
    let var = format!(
        "TEST_ADMIN_CIDRS_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    );
    with_test_network(&format!(
        r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: []
on_input_drift: block
inputs:
  - name: ADMIN_CIDRS
    variable: admin_cidrs
    source: env:{var}
projects:
  - name: eks
    dir: infra/eks
    inputs: [ADMIN_CIDRS]
"#
    ))
}

fn write_root(dir: &Path, state_key: &str, bucket: &str) {
    let d = dir.join("infra/eks");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("main.tf"),
        moto_root_tf(
            state_key,
            &format!(
                r#"variable "admin_cidrs" {{
  type = string
}}
resource "fake_thing" "cluster" {{
  name          = "cluster"
  depends_value = var.admin_cidrs
}}
resource "fake_thing" "bucket" {{
  name = "{bucket}"
}}
"#
            ),
        ),
    )
    .unwrap();
}

/// `alice` comments on PR `pr`; tfgate's answers, joined.
async fn on_pr(h: &Harness, pr: i64, body: &str) -> String {
    h.comment(pr, body, "alice").await.join(
        "
----
",
    )
}

fn new_head(h: &Harness, sha_char: char, files: &[&str]) {
    h.github.with(|g| {
        g.pr.head_sha = sha_char.to_string().repeat(40);
        g.files = files.iter().map(|f| f.to_string()).collect();
    });
}

/// The repository of the story: one root whose state lives in moto, its admin CIDRs a shared
/// input read from an environment variable of the server.
struct Story {
    var: String,
    state_key: String,
    repo: tempfile::TempDir,
}

impl Story {
    async fn start(h: &Harness) -> Story {
        let set = h.state.policies.current();
        let InputSource::Env(var) =
            &set.for_repo("Codertocat/Hello-World").unwrap().inputs[0].source
        else {
            panic!("env input expected")
        };
        create_state_bucket().await;
        h.github.with(|g| {
            g.permissions.insert("alice".into(), "write".into());
        });
        Story {
            state_key: format!("{}.tfstate", var.to_lowercase()),
            var: var.clone(),
            repo: tempfile::tempdir().unwrap(),
        }
    }

    /// The secret's value on the server, changed outside any PR.
    fn set_secret(&self, value: &str) {
        std::env::set_var(&self.var, value);
    }

    /// A new head whose root logs to `bucket`.
    fn push(&self, h: &Harness, bucket: &str, head: char, files: &[&str]) {
        write_root(self.repo.path(), &self.state_key, bucket);
        h.github.serve_repo(self.repo.path());
        new_head(h, head, files);
    }

    /// Commit the `tfgate.inputs.lock` that `/inputs` printed.
    fn commit_lock_file(&self, h: &Harness, inputs_reply: &str) {
        let lock = inputs_reply.split("```").nth(1).expect("lock file block");
        std::fs::write(
            self.repo.path().join("tfgate.inputs.lock"),
            lock.trim_start_matches('\n'),
        )
        .unwrap();
        h.github.serve_repo(self.repo.path());
    }
}

fn applied(apply: &str) -> bool {
    apply.contains("✅") && !apply.contains("❌")
}

scenario!(
    secret_changed_outside_any_pr_is_flagged_blocked_then_applied_via_lockfile,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let story = Story::start(&h).await;
        // PR 1 sets up the cluster with the first admin's CIDR.
        story.set_secret("203.0.113.7/32");
        story.push(&h, "logs-v1", '1', &["infra/eks/main.tf"]);
        let plan = on_pr(&h, 1, "/plan").await;
        assert!(
            !plan.contains('⚠'),
            "no baseline to drift from yet:\n{plan}"
        );
        assert!(applied(&on_pr(&h, 1, "/apply").await));
        on_pr(&h, 1, "/unlock").await;

        // Someone adds a second admin's IP to the secret, ahead of the PR meant to use it.
        story.set_secret("203.0.113.7/32,198.51.100.9/32");
        // An unrelated bucket PR: its plan carries the cluster change, flagged; apply is blocked.
        story.push(&h, "logs-v2", '2', &["infra/eks/main.tf"]);
        let plan = on_pr(&h, 2, "/plan").await;
        assert!(
            plan.contains("⚠")
                && plan.contains("fake_thing.cluster")
                && plan.contains("ADMIN_CIDRS"),
            "{plan}"
        );
        assert!(
            !plan.contains("203.0.113.7") && !plan.contains("198.51.100.9"),
            "a value leaked:\n{plan}"
        );
        let refused = on_pr(&h, 2, "/apply").await;
        assert!(
            refused.contains("tfgate.inputs.lock") && !refused.contains("✅"),
            "{refused}"
        );
        on_pr(&h, 2, "/unlock").await;

        // The intended PR commits the new fingerprint (as `/inputs` prints it) and applies.
        new_head(&h, '3', &["tfgate.inputs.lock", "infra/eks/main.tf"]);
        let inputs = on_pr(&h, 3, "/inputs").await;
        assert!(!inputs.contains("198.51.100.9"), "{inputs}");
        story.commit_lock_file(&h, &inputs);
        let plan = on_pr(&h, 3, "/plan").await;
        assert!(
            !plan.contains("⚠ `fake_thing.cluster`"),
            "the lock file explains it:\n{plan}"
        );
        let apply = on_pr(&h, 3, "/apply").await;
        assert!(
            applied(&apply) && !apply.contains("198.51.100.9"),
            "{apply}"
        );
    }
);

/// A root whose admin CIDRs feed only a (sensitive) output.
fn write_output_only_root(dir: &Path, state_key: &str, bucket: &str) {
    let d = dir.join("infra/eks");
    std::fs::create_dir_all(&d).unwrap();
    let body = format!(
        "variable \"admin_cidrs\" {{\n  type = string\n}}\noutput \"admins\" {{\n  value     = var.admin_cidrs\n  sensitive = true\n}}\nresource \"fake_thing\" \"bucket\" {{\n  name = \"{bucket}\"\n}}\n"
    );
    std::fs::write(d.join("main.tf"), moto_root_tf(state_key, &body)).unwrap();
}

scenario!(
    a_secret_that_feeds_only_an_output_is_named_in_the_plan,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let story = Story::start(&h).await;
        story.set_secret("203.0.113.7/32");
        write_output_only_root(story.repo.path(), &story.state_key, "logs-v1");
        h.github.serve_repo(story.repo.path());
        new_head(&h, '1', &["infra/eks/main.tf"]);
        on_pr(&h, 1, "/plan").await;
        assert!(applied(&on_pr(&h, 1, "/apply").await));
        on_pr(&h, 1, "/unlock").await;

        // The secret changes outside any PR; the next PR's plan changes no resource with it.
        story.set_secret("198.51.100.9/32");
        write_output_only_root(story.repo.path(), &story.state_key, "logs-v2");
        h.github.serve_repo(story.repo.path());
        new_head(&h, '2', &["infra/eks/main.tf"]);
        let plan = on_pr(&h, 2, "/plan").await;
        let note = "- `eks`: shared input `ADMIN_CIDRS` changed since the last apply; it changes no resource (only output `admins`). The next apply takes the new value.";
        assert!(plan.contains(note), "{plan}");
        assert!(
            !plan.contains("198.51.100.9") && !plan.contains("203.0.113.7"),
            "{plan}"
        );
    }
);
