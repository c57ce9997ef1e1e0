//! A `dir` or `workspace` never leaves the checkout (issue 38, the advisory class "paths"):
//! `-d ../x`, `-d /etc` and `-w ../..` are refused before anything runs, and a project whose
//! directory is committed as a link out of the repository (relative or absolute) is refused
//! at checkout, before Terraform or any host-side read touches it. Each runs on SQLite and on
//! PostgreSQL.

mod support;

use std::path::Path;

use support::*;

const POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
projects:
  - name: app
    dir: infra/app
"#;

/// The repository's tarball, with `infra/app` a link to `target` (links kept as links).
fn tarball_with_linked_root(target: &str) -> Vec<u8> {
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    let top = "Codertocat-Hello-World-0000000";
    let text = b"resource \"null_resource\" \"x\" {}\n";
    let mut header = tar::Header::new_gnu();
    header.set_size(text.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, format!("{top}/modules/x/main.tf"), &text[..])
        .unwrap();
    let mut link = tar::Header::new_gnu();
    link.set_entry_type(tar::EntryType::Symlink);
    link.set_size(0);
    link.set_mode(0o777);
    tar.append_link(&mut link, format!("{top}/infra/app"), Path::new(target))
        .unwrap();
    tar.into_inner().unwrap().finish().unwrap()
}

fn writer(h: &Harness) {
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
}

scenario!(
    dirs_and_workspaces_outside_the_checkout_are_refused,
    policy = POLICY,
    |h| {
        writer(&h);
        for (command, shown) in [
            ("/plan -d ../x", "`../x` is not a valid directory"),
            ("/plan -d infra/../../x", "`..` is not allowed"),
            (
                "/plan -d /etc",
                "use a path relative to the repository root",
            ),
            ("/plan -w ../..", "`../..` is not a valid workspace name"),
            (
                "/plan -p app -w /etc",
                "`/etc` is not a valid workspace name",
            ),
        ] {
            let reply = h.comment(1, command, "alice").await.join("\n");
            assert!(reply.contains(shown), "{command}: {reply}");
        }
        let requests = h
            .github
            .server
            .received_requests()
            .await
            .unwrap_or_default();
        assert!(
            !requests.iter().any(|r| r.url.path().contains("/tarball/")),
            "nothing was checked out"
        );
    }
);

scenario!(
    a_root_linked_out_of_the_checkout_is_refused_at_checkout,
    policy = POLICY,
    |h| {
        writer(&h);
        for target in ["../../..", "/etc", "../../../../../../etc"] {
            let tarball = tarball_with_linked_root(target);
            h.github.with(|g| g.tarball = tarball);
            let reply = h.comment(1, "/plan", "alice").await.join("\n");
            assert!(
                reply.contains("paths or links tfgate refuses to check out"),
                "{target}: {reply}"
            );
            assert!(!reply.contains("null_resource"), "{reply}");
        }
    }
);
