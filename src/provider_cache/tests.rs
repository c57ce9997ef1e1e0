use super::*;

/// A lock file as `terraform init` writes it (Terraform 1.0.3; hashes shortened).
const LOCK: &str = r#"# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.31.0"
  constraints = "~> 5.0"
  hashes = [
    "h1:aaaa=",
    "zh:0123",
    "h1:bbbb=",
  ]
}

provider "registry.terraform.io/tfgate/fake" {
  version = "0.1.0"
  hashes = [
    "h1:cccc=",
  ]
}
"#;

#[test]
fn lock_file_hashes_per_provider_and_version() {
    let locked = locked_hashes(LOCK);
    assert_eq!(locked.len(), 2);
    assert_eq!(
        locked[&(
            "registry.terraform.io/hashicorp/aws".into(),
            "5.31.0".into()
        )],
        vec!["h1:aaaa=".to_string(), "h1:bbbb=".to_string()]
    );
    assert_eq!(
        locked[&("registry.terraform.io/tfgate/fake".into(), "0.1.0".into())],
        vec!["h1:cccc=".to_string()]
    );
    assert!(locked_hashes("").is_empty());
    assert!(locked_hashes("provider \"x/y/z\" {\n  hashes = [\"h1:q\"]\n}\n").is_empty());
}

#[test]
fn package_paths() {
    type Row<'a> = (&'a str, Option<(&'a str, &'a str, &'a str)>);
    let table: &[Row] = &[
        (
            "registry.terraform.io/hashicorp/aws/5.31.0/linux_amd64",
            Some((
                "registry.terraform.io/hashicorp/aws",
                "5.31.0",
                "linux_amd64",
            )),
        ),
        (
            "Registry.Terraform.io/HashiCorp/AWS/1.0.0-beta+x/linux_arm64",
            Some((
                "registry.terraform.io/hashicorp/aws",
                "1.0.0-beta+x",
                "linux_arm64",
            )),
        ),
        ("registry.terraform.io/hashicorp/aws/5.31.0", None),
        (
            "registry.terraform.io/hashicorp/../5.31.0/linux_amd64",
            None,
        ),
        (
            "registry.terraform.io/hashicorp/aws/5.31.0/linux_amd64/extra",
            None,
        ),
        (
            "registry.terraform.io/hashicorp/a ws/5.31.0/linux_amd64",
            None,
        ),
    ];
    for (path, expected) in table {
        let got = Package::from_relative_path(path);
        let expected = expected.map(|(s, v, t)| Package {
            source: s.into(),
            version: v.into(),
            target: t.into(),
        });
        assert_eq!(got, expected, "{path}");
    }
    let p =
        Package::from_relative_path("registry.terraform.io/tfgate/fake/0.1.0/linux_amd64").unwrap();
    assert_eq!(
        p.relative_path(),
        "registry.terraform.io/tfgate/fake/0.1.0/linux_amd64"
    );
}

#[test]
fn h1_is_terraforms_dirhash() {
    // golang.org/x/mod/sumdb/dirhash Hash1 of one file `hello` holding "hi\n" (computed
    // independently with Python's hashlib); the scenario test checks real Terraform's hash.
    let digest: [u8; 32] = Sha256::digest(b"hi\n").into();
    assert_eq!(
        h1_hash(&[("hello".into(), digest)]),
        "h1:YqIx87xEYBwYBuXSTyiTfn3t4xDN2c/bIk82qG2/3k4="
    );
    // Order of the input does not matter; paths are sorted.
    let a: [u8; 32] = Sha256::digest(b"a").into();
    let b: [u8; 32] = Sha256::digest(b"b").into();
    assert_eq!(
        h1_hash(&[("b".into(), b), ("a".into(), a)]),
        h1_hash(&[("a".into(), a), ("b".into(), b)])
    );
}

#[test]
fn provider_patterns() {
    let patterns = vec![
        "registry.terraform.io/hashicorp/*".to_string(),
        "registry.terraform.io/tfgate/fake".to_string(),
    ];
    let table = [
        ("registry.terraform.io/hashicorp/aws", true),
        ("registry.terraform.io/tfgate/fake", true),
        ("registry.terraform.io/tfgate/other", false),
        ("example.com/hashicorp/aws", false),
        ("registry.terraform.io/hashicorp", false),
    ];
    for (source, expected) in table {
        assert_eq!(allowed(source, &patterns), expected, "{source}");
    }
    assert!(allowed("x.io/a/b", &["x.io/*/*".to_string()]));
}

#[test]
fn verdicts() {
    let locked = locked_hashes(LOCK);
    let allowed_sources = vec!["registry.terraform.io/hashicorp/*".to_string()];
    let aws = |version: &str| Package {
        source: "registry.terraform.io/hashicorp/aws".into(),
        version: version.into(),
        target: "linux_amd64".into(),
    };
    assert_eq!(
        judge(&aws("5.31.0"), "h1:bbbb=", &locked, &allowed_sources),
        Verdict::Keep
    );
    assert_eq!(
        judge(&aws("5.31.0"), "h1:evil=", &locked, &allowed_sources),
        Verdict::Skip("the package's hash is not in the lock file")
    );
    assert_eq!(
        judge(&aws("5.30.0"), "h1:aaaa=", &locked, &allowed_sources),
        Verdict::Skip("the lock file does not record this provider version")
    );
    let fake = Package {
        source: "registry.terraform.io/tfgate/fake".into(),
        version: "0.1.0".into(),
        target: "linux_amd64".into(),
    };
    assert_eq!(
        judge(&fake, "h1:cccc=", &locked, &allowed_sources),
        Verdict::Skip("provider not allowed by the policy")
    );
}
