//! The policies scenarios start with: one root, the test network (the test provider, moto on
//! the egress allowlist).

/// A policy for the fixture repository with one project `name` in `dir`, plan and apply
/// roles in account 111111111111, and `extra` top-level keys (YAML) appended.
pub fn one_root_policy(name: &str, dir: &str, extra: &str) -> String {
    let egress = test_network();
    format!(
        "repos: [\"Codertocat/Hello-World\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/tfgate-plan\n  apply_role: arn:aws:iam::111111111111:role/tfgate-apply\n{egress}projects:\n  - name: {name}\n    dir: {dir}\n{extra}"
    )
}

/// `policy` with [`test_network`] added to its `defaults:`.
pub fn with_test_network(policy: &str) -> String {
    policy.replacen("defaults:\n", &format!("defaults:\n{}", test_network()), 1)
}

/// The `defaults` lines every test policy whose runs use Terraform needs: the test provider
/// (`tfgate/*`; the default is `hashicorp/*`) and moto's port on the egress allowlist.
pub fn test_network() -> String {
    format!("  providers: [\"tfgate/*\"]\n{}", moto_egress())
}

/// The `defaults` line that lets runs reach moto (the S3 state backend) through the egress
/// proxy: `  egress: ["127.0.0.1:PORT"]`. Without it, the sandbox reaches nothing on the host.
pub fn moto_egress() -> String {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap_or_default();
    match moto.strip_prefix("http://") {
        Some(host_port) => format!("  egress: [\"{}\"]\n", host_port.trim_end_matches('/')),
        None => String::new(),
    }
}
