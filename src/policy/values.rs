//! Checks of single values found in policy and layout files. Each returns `Err(message)`
//! with a short, exact message for the admin.

use super::model::{SessionPolicy, TerraformSpec};
use crate::tool_release::Tool;
use once_cell::sync::Lazy;
use regex::Regex;

static ROLE_ARN: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^arn:aws(?:-[a-z]+)*:iam::(\d{12}):role/(?:[\w+=,.@-]+/)*[\w+=,.@-]{1,64}$")
        .expect("valid regex")
});
static VERSION: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?$").expect("valid regex"));
static NAME: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]*$").expect("valid regex"));
static WORKSPACE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$").expect("valid regex"));
static TF_IDENT: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^[A-Za-z_][A-Za-z0-9_-]*$").expect("valid regex"));
static LOGIN: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^@?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\[bot\])?$").expect("valid regex")
});
static TEAM: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^@?(?:[A-Za-z0-9-]+/)?[A-Za-z0-9][A-Za-z0-9_.-]*$").expect("valid regex")
});

static REGION: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^[a-z]{2}(-[a-z]+)+-\d{1,2}$").expect("valid regex"));
static PROVIDER_PART: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^(\*|[a-z0-9][a-z0-9_-]*)$").expect("valid regex"));

/// A file named relative to a root (`env/prod.tfvars`, `../shared/common.tfvars`).
pub fn root_relative_file(text: &str) -> Result<String, String> {
    if text.is_empty() || text.starts_with('/') || text.contains(['\0', '\n', '\\']) {
        return Err(format!(
            "`{text}` must be a path relative to the root, like `env/prod.tfvars`"
        ));
    }
    Ok(text.to_string())
}

/// Whether `file`, relative to the root `dir`, stays inside the repository.
pub fn inside_repo(dir: &str, file: &str) -> bool {
    crate::project::join_relative(dir, file).is_some_and(|path| path != ".")
}

/// A `backend_config` setting name (`bucket`, `dynamodb_table`).
pub fn backend_config_key(key: &str) -> Result<String, String> {
    if TF_IDENT.is_match(key) {
        Ok(key.to_string())
    } else {
        Err(format!("`{key}` is not a backend setting name"))
    }
}

/// An AWS region name (`eu-west-1`, `us-gov-west-1`).
pub fn region(text: &str) -> Result<String, String> {
    if REGION.is_match(text) {
        Ok(text.to_string())
    } else {
        Err(format!(
            "`{text}` is not an AWS region name (like `eu-west-1`)"
        ))
    }
}

/// A provider source pattern as Terraform's `provider_installation` takes it:
/// `NAMESPACE/TYPE` (on registry.terraform.io) or `HOST/NAMESPACE/TYPE`; `*` for a whole part.
pub fn provider_source(text: &str) -> Result<String, String> {
    let lower = text.trim().to_ascii_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    let (host, rest) = match parts.as_slice() {
        [ns, ty] => ("registry.terraform.io", [*ns, *ty]),
        [host, ns, ty] if host.contains('.') && !host.contains('*') => (*host, [*ns, *ty]),
        _ => {
            return Err(format!(
                "`{text}` is not a provider source like `hashicorp/aws` or `registry.terraform.io/hashicorp/*`"
            ))
        }
    };
    if !rest.iter().all(|p| PROVIDER_PART.is_match(p)) || (rest[0] == "*" && rest[1] != "*") {
        return Err(format!(
            "`{text}`: namespace and type are names or `*` (`hashicorp/*`, not `*/aws`)"
        ));
    }
    Ok(format!("{host}/{}/{}", rest[0], rest[1]))
}

/// Session durations AWS accepts for AssumeRole (seconds).
pub const SESSION_DURATION_RANGE: std::ops::RangeInclusive<u64> = 900..=43200;
/// Accepted `-parallelism`.
pub const PARALLELISM_RANGE: std::ops::RangeInclusive<u32> = 1..=256;
/// Accepted run timeouts (seconds): one minute to one day.
pub const TIMEOUT_RANGE: std::ops::RangeInclusive<u64> = 60..=86400;
/// AWS's limit on a packed session policy.
pub const SESSION_POLICY_MAX: usize = 2048;

/// `arn:<partition>:iam::<12 digits>:role/<path/>name`; returns the account id.
pub fn role_arn(text: &str) -> Result<String, String> {
    ROLE_ARN
        .captures(text)
        .map(|c| c[1].to_string())
        .ok_or_else(|| {
            "malformed role ARN: expected arn:<partition>:iam::<12-digit account>:role/<path/name>"
                .to_string()
        })
}

/// A repo glob: `owner/repo` with glob syntax.
pub fn repo_glob(text: &str) -> Result<(), String> {
    glob::Pattern::new(text).map_err(|e| format!("bad glob `{text}`: {}", e.msg))?;
    if text.matches('/').count() != 1 || text.starts_with('/') || text.ends_with('/') {
        return Err(format!(
            "bad repo pattern `{text}`: expected owner/repo (globs allowed)"
        ));
    }
    Ok(())
}

/// A path glob (repo- or dir-relative).
pub fn path_glob(text: &str) -> Result<(), String> {
    if text.is_empty() || text.starts_with('/') {
        return Err(format!(
            "bad glob `{text}`: must be a relative path pattern"
        ));
    }
    glob::Pattern::new(text)
        .map(|_| ())
        .map_err(|e| format!("bad glob `{text}`: {}", e.msg))
}

/// A base branch glob (`main`, `release/*`).
pub fn branch_glob(text: &str) -> Result<(), String> {
    if text.trim().is_empty() || text.starts_with('/') || text.starts_with("refs/") {
        return Err(format!(
            "bad branch pattern `{text}`: expected a branch name such as main or release/*"
        ));
    }
    glob::Pattern::new(text)
        .map(|_| ())
        .map_err(|e| format!("bad glob `{text}`: {}", e.msg))
}

/// A project name.
pub fn project_name(text: &str) -> Result<(), String> {
    if NAME.is_match(text) {
        Ok(())
    } else {
        Err(format!(
            "bad project name `{text}`: use letters, digits, `_ . : / -`"
        ))
    }
}

/// A Terraform workspace name.
pub fn workspace(text: &str) -> Result<(), String> {
    if WORKSPACE.is_match(text) {
        Ok(())
    } else {
        Err(format!(
            "bad workspace `{text}`: use letters, digits, `_ . -`"
        ))
    }
}

/// A repo-relative directory; returns it normalised.
pub fn project_dir(text: &str) -> Result<String, String> {
    crate::project::normalize_dir(text)
        .ok_or_else(|| format!("bad dir `{text}`: must be a relative path inside the repository"))
}

/// `1.9.8` (a Terraform release) or an absolute path.
pub fn terraform(text: &str) -> Result<TerraformSpec, String> {
    if text.starts_with('/') && !text.ends_with('/') {
        Ok(TerraformSpec::Binary(text.to_string()))
    } else if VERSION.is_match(text) {
        tool_version(Tool::Terraform, text)
    } else {
        Err(format!(
            "bad terraform `{text}`: expected a version like 1.9.8 or an absolute binary path"
        ))
    }
}

/// `terraform_version: 1.9.8` or `opentofu_version: 1.8.1`: a release installed on demand.
pub fn tool_version(tool: Tool, text: &str) -> Result<TerraformSpec, String> {
    crate::tool_release::release(tool, text).map(TerraformSpec::Release)
}

/// Inline JSON object (at most 2048 characters without whitespace) or `file:PATH`.
pub fn session_policy(text: &str) -> Result<SessionPolicy, String> {
    if let Some(path) = text.strip_prefix("file:") {
        return if path.trim().is_empty() {
            Err("bad session_policy: `file:` needs a path".to_string())
        } else {
            Ok(SessionPolicy::File(path.to_string()))
        };
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(_)) => {
            let packed = text.chars().filter(|c| !c.is_whitespace()).count();
            if packed > SESSION_POLICY_MAX {
                Err(format!("session_policy is {packed} characters; AWS accepts at most {SESSION_POLICY_MAX}"))
            } else {
                Ok(SessionPolicy::Inline(text.to_string()))
            }
        }
        Ok(_) => Err("bad session_policy: expected a JSON object or file:PATH".to_string()),
        Err(e) => Err(format!("bad session_policy: invalid JSON ({e})")),
    }
}

/// A duration in seconds within `range`.
pub fn duration_in(
    spec: &super::schema::DurationSpec,
    what: &str,
    range: std::ops::RangeInclusive<u64>,
) -> Result<u64, String> {
    let secs = spec
        .seconds()
        .ok_or_else(|| format!("bad {what}: expected seconds or a number with s, m or h"))?;
    if range.contains(&secs) {
        Ok(secs)
    } else {
        Err(format!(
            "{what} must be between {} and {} seconds (got {secs})",
            range.start(),
            range.end()
        ))
    }
}

/// A Terraform variable name.
pub fn variable(text: &str) -> Result<(), String> {
    if TF_IDENT.is_match(text) {
        Ok(())
    } else {
        Err(format!("bad variable `{text}`: not a Terraform identifier"))
    }
}

/// A shared input name.
pub fn input_name(text: &str) -> Result<(), String> {
    if TF_IDENT.is_match(text) {
        Ok(())
    } else {
        Err(format!(
            "bad input name `{text}`: use letters, digits and `_`"
        ))
    }
}

/// A GitHub login.
pub fn login(text: &str) -> Result<(), String> {
    if LOGIN.is_match(text) {
        Ok(())
    } else {
        Err(format!("bad user `{text}`: not a GitHub login"))
    }
}

/// A team slug, optionally `org/slug`.
pub fn team(text: &str) -> Result<(), String> {
    if TEAM.is_match(text) {
        Ok(())
    } else {
        Err(format!(
            "bad team `{text}`: expected a team slug or org/slug"
        ))
    }
}

/// A regular expression for redaction.
pub fn redact_pattern(text: &str) -> Result<(), String> {
    Regex::new(text).map(|_| ()).map_err(|e| {
        let detail = e.to_string();
        let last = detail.lines().last().unwrap_or("").trim().to_string();
        format!("bad regular expression: {last}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirs_and_workspaces_stay_inside_the_checkout() {
        for dir in ["../x", "a/../../x", "/etc", "/", "..", "a\\..\\..\\x"] {
            assert!(project_dir(dir).is_err(), "{dir}");
        }
        assert_eq!(project_dir("infra/../net").as_deref(), Ok("net"));
        for name in ["..", "../..", "a/../../b", "/etc", ".hidden", "a/b", "-x"] {
            assert!(workspace(name).is_err(), "{name}");
        }
        assert!(workspace("prod-eu.1").is_ok());
    }

    #[test]
    fn role_arns() {
        let ok = [
            "arn:aws:iam::111111111111:role/tfgate-apply",
            "arn:aws:iam::111111111111:role/service/ci/tfgate-plan",
            "arn:aws-us-gov:iam::111111111111:role/x",
            "arn:aws-cn:iam::222222222222:role/a+b=c,d.e@f-g_h",
        ];
        for arn in ok {
            assert!(role_arn(arn).is_ok(), "{arn}");
        }
        assert_eq!(role_arn(ok[0]).unwrap(), "111111111111");
        let bad = [
            "arn:aws:iam::11111111111:role/x",
            "arn:aws:iam::111111111111:user/x",
            "arn:aws:iam:us-east-1:111111111111:role/x",
            "arn:aws:sts::111111111111:role/x",
            "arn:aws:iam::111111111111:role/",
            "arn:gcp:iam::111111111111:role/x",
            "tfgate-apply",
            "arn:aws:iam::111111111111:role/has space",
        ];
        for arn in bad {
            assert!(role_arn(arn).is_err(), "{arn}");
        }
    }

    #[test]
    fn repo_globs() {
        for ok in ["acme/*", "acme/infra-*", "*/*", "Acme/Kukie", "acme/[ab]*"] {
            assert!(repo_glob(ok).is_ok(), "{ok}");
        }
        for bad in ["acme", "acme/*/x", "acme/[", "/acme", "acme/"] {
            assert!(repo_glob(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn terraform_specs() {
        let release =
            |tool, v: &str| TerraformSpec::Release(crate::tool_release::release(tool, v).unwrap());
        assert_eq!(terraform("1.9.8"), Ok(release(Tool::Terraform, "1.9.8")));
        assert_eq!(
            terraform("1.10.0-beta1"),
            Ok(release(Tool::Terraform, "1.10.0-beta1"))
        );
        assert_eq!(
            tool_version(Tool::OpenTofu, "1.8.1"),
            Ok(release(Tool::OpenTofu, "1.8.1"))
        );
        assert!(tool_version(Tool::OpenTofu, "/opt/tofu").is_err());
        assert_eq!(
            terraform("/opt/tf/1.5.7/terraform"),
            Ok(TerraformSpec::Binary("/opt/tf/1.5.7/terraform".into()))
        );
        for bad in ["latest", "1.9", "~> 1.9", "bin/terraform"] {
            assert!(terraform(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn session_policies() {
        assert!(matches!(
            session_policy(r#"{"Version":"2012-10-17","Statement":[]}"#),
            Ok(SessionPolicy::Inline(_))
        ));
        assert_eq!(
            session_policy("file:/etc/tfgate/eks.json"),
            Ok(SessionPolicy::File("/etc/tfgate/eks.json".into()))
        );
        assert!(session_policy("[1]").is_err());
        assert!(session_policy("{not json").is_err());
        assert!(session_policy("file:").is_err());
        let long = format!(r#"{{"a":"{}"}}"#, "x".repeat(3000));
        assert!(session_policy(&long).unwrap_err().contains("at most 2048"));
    }

    #[test]
    fn logins_and_teams() {
        for ok in ["alice", "@alice", "a-b", "renovate[bot]"] {
            assert!(login(ok).is_ok(), "{ok}");
        }
        for bad in ["-alice", "a b", "a/b", ""] {
            assert!(login(bad).is_err(), "{bad}");
        }
        for ok in ["platform", "acme/platform", "@acme/sre-team"] {
            assert!(team(ok).is_ok(), "{ok}");
        }
        assert!(team("a b").is_err());
    }

    #[test]
    fn redact_patterns() {
        assert!(redact_pattern(r"kukie-[0-9a-f]{8}").is_ok());
        assert!(redact_pattern("(unclosed")
            .unwrap_err()
            .starts_with("bad regular expression"));
    }
}

#[cfg(test)]
mod egress_value_tests {
    use super::*;

    #[test]
    fn provider_sources_table() {
        let table: &[(&str, Result<&str, &str>)] = &[
            ("hashicorp/aws", Ok("registry.terraform.io/hashicorp/aws")),
            ("hashicorp/*", Ok("registry.terraform.io/hashicorp/*")),
            ("HashiCorp/AWS", Ok("registry.terraform.io/hashicorp/aws")),
            (
                "registry.opentofu.org/hashicorp/aws",
                Ok("registry.opentofu.org/hashicorp/aws"),
            ),
            ("*/*", Ok("registry.terraform.io/*/*")),
            ("*/aws", Err("not `*/aws`")),
            ("aws", Err("is not a provider source")),
            ("a/b/c/d", Err("is not a provider source")),
            ("*.example.com/a/b", Err("is not a provider source")),
            ("hashicorp/a ws", Err("namespace and type")),
        ];
        for (text, expected) in table {
            match (provider_source(text), expected) {
                (Ok(got), Ok(want)) => assert_eq!(got, *want, "{text}"),
                (Err(e), Err(part)) => assert!(e.contains(part), "{text}: {e}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn root_relative_files_table() {
        // (dir, file, accepted as a value, inside the repository)
        let table = [
            ("infra/app", "env/prod.tfvars", true, true),
            ("infra/app", "../../common.tfvars", true, true),
            ("infra/app", "../../../etc/passwd", true, false),
            ("infra/app", "/etc/passwd", false, false),
            ("", "prod.tfvars", true, true),
            ("", "../x.tfvars", true, false),
            ("infra/app", "", false, false),
            ("infra/app", "a\\b", false, true),
        ];
        for (dir, file, value_ok, inside) in table {
            assert_eq!(root_relative_file(file).is_ok(), value_ok, "{file}");
            if value_ok {
                assert_eq!(inside_repo(dir, file), inside, "{dir} + {file}");
            }
        }
        assert!(backend_config_key("dynamodb_table").is_ok());
        assert!(backend_config_key("a=b").is_err());
    }

    #[test]
    fn regions_table() {
        for ok in ["us-east-1", "eu-west-1", "us-gov-west-1", "ap-southeast-3"] {
            assert!(region(ok).is_ok(), "{ok}");
        }
        for bad in ["us-east", "US-EAST-1", "useast1", "", "us-east-1.evil.com"] {
            assert!(region(bad).is_err(), "{bad}");
        }
    }
}
