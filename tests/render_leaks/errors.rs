use proptest::prelude::*;
use serde_json::{json, Value};

use crate::secrets::{
    access_key, account, arn, cidr4, email, github_token, ipv4, ipv6, known_value, plant_into,
    plant_mid_word, plants, uuid, Plant, Secret,
};

// ------------------------------------------------------------------ error texts

/// Secrets an AWS error text carries in their natural places.
#[derive(Debug, Clone)]
pub(crate) struct Natural {
    pub(crate) principal: String,
    pub(crate) resource: String,
    pub(crate) request_id: String,
    pub(crate) cidr: String,
    pub(crate) ipv6: String,
    pub(crate) access_key: String,
    pub(crate) account: String,
    pub(crate) email: String,
    pub(crate) token: String,
    pub(crate) known: String,
    pub(crate) blob: String,
}

impl Natural {
    pub(crate) fn secrets(&self) -> Vec<Secret> {
        vec![
            Secret::new("arn", self.principal.clone()),
            Secret::new("arn", self.resource.clone()),
            Secret::new("request-id", self.request_id.clone()),
            Secret::new("cidr", self.cidr.clone()),
            Secret::new("ipv6", self.ipv6.clone()),
            Secret::new("access-key", self.access_key.clone()),
            Secret::new("account", self.account.clone()),
            Secret::new("email", self.email.clone()),
            Secret::new("github-token", self.token.clone()),
            Secret::new("known", self.known.clone()),
            Secret::new("encoded-message", self.blob.clone()),
        ]
    }
}

prop_compose! {
    pub(crate) fn natural()(
        principal in arn(),
        resource in arn(),
        request_id in uuid(),
        cidr in cidr4(),
        ipv6 in ipv6(),
        access_key in access_key(),
        account in account(),
        email in email(),
        token in github_token(),
        known in known_value(),
        blob in "[A-Za-z0-9_-]{60,120}",
    ) -> Natural {
        Natural { principal, resource, request_id, cidr, ipv6, access_key, account, email, token, known, blob }
    }
}

pub(crate) const OLD_CODES: [&str; 6] = [
    "MalformedPolicyDocument",
    "EntityAlreadyExists",
    "LimitExceeded",
    "InvalidInput",
    "DeleteConflict",
    "ConcurrentModification",
];

/// AWS provider error wordings (SDK v2, SDK v1, legacy, credentials, encoded message).
pub(crate) fn error_text(shape: usize, n: &Natural) -> String {
    let Natural {
        principal: p,
        resource: r,
        request_id: id,
        ..
    } = n;
    match shape % 8 {
        0 => format!(
            "creating IAM Role ({}): operation error IAM: GetRole, https response error StatusCode: 403, RequestID: {id}, api error AccessDenied: User: {p} is not authorized to perform: iam:GetRole on resource: {r} because no identity-based policy allows the iam:GetRole action",
            n.known
        ),
        1 => format!(
            "Error creating Security Group Rule: InvalidPermission.Duplicate: the specified rule \"peer: {}, TCP, from port: 22, to port: 22, ALLOW\" already exists\n\tstatus code: 400, request id: {id}",
            n.cidr
        ),
        2 => format!(
            "AccessDenied: User: {p} is not authorized to perform: s3:PutObject on resource: \"{r}\" with an explicit deny in a service control policy\n\tstatus code: 403, request id: {id}"
        ),
        3 => format!(
            "error configuring Terraform AWS Provider: validating provider credentials: retrieving caller identity from STS: operation error STS: GetCallerIdentity, https response error StatusCode: 403, RequestID: {id}, api error InvalidClientTokenId: The security token included in the request is invalid. (access key {}, account {})",
            n.access_key, n.account
        ),
        4 => format!(
            "UnauthorizedOperation: You are not authorized to perform this operation. User: {p} is not authorized to perform: ec2:RunInstances on resource: {r} because no identity-based policy allows the ec2:RunInstances action. Encoded authorization failure message: {}\n\tstatus code: 403, request id: {id}",
            n.blob
        ),
        5 => format!(
            "creating EC2 Network Interface: operation error EC2: CreateNetworkInterface, https response error StatusCode: 400, RequestID: {id}, api error InvalidParameterValue: Address {} is in subnet's reserved address range (owner {}, token {})",
            n.ipv6, n.email, n.token
        ),
        6 => format!(
            "Error creating IAM Role ({}): {}: Invalid principal in policy: \"AWS\":\"{p}\"\n\tstatus code: 400, request id: {id}",
            n.known,
            OLD_CODES[shape / 8 % OLD_CODES.len()]
        ),
        _ => format!(
            "reading S3 Bucket ({r}): operation error S3: HeadBucket, https response error StatusCode: 301, RequestID: {id}, HostID: {}, api error MovedPermanently: Moved Permanently",
            n.blob
        ),
    }
}

/// The AWS error code each wording of [`error_text`] carries.
pub(crate) fn named_code(shape: usize) -> &'static str {
    match shape % 8 {
        0 | 2 => "AccessDenied",
        1 => "InvalidPermission.Duplicate",
        3 => "InvalidClientTokenId",
        4 => "UnauthorizedOperation",
        5 => "InvalidParameterValue",
        6 => OLD_CODES[shape / 8 % OLD_CODES.len()],
        _ => "MovedPermanently",
    }
}

/// An error diagnostic's text plus secrets planted between its words.
#[derive(Debug, Clone)]
pub(crate) struct ErrorSpec {
    pub(crate) shape: usize,
    pub(crate) natural: Natural,
    pub(crate) plants: Vec<Plant>,
    /// Summary only (SDK v2 style), or summary + detail.
    pub(crate) split: bool,
    pub(crate) file: FileSpec,
    /// Replaces the generated wording (targeted properties).
    pub(crate) raw: Option<String>,
    /// Plants go at byte offsets, inside words too (adversarial).
    pub(crate) mid_word: bool,
    /// Plants with an even `at` go right after `perform:` (where the IAM action is read).
    pub(crate) after_perform: bool,
}

impl ErrorSpec {
    pub(crate) fn text(&self) -> String {
        let (base, code) = match &self.raw {
            Some(raw) => (raw.clone(), None),
            None => (
                error_text(self.shape, &self.natural),
                Some(named_code(self.shape)),
            ),
        };
        if self.mid_word {
            plant_mid_word(&base, &self.plants, code)
        } else if self.after_perform {
            let words: Vec<&str> = base.split(' ').collect();
            match words.iter().position(|w| *w == "perform:") {
                Some(i) => {
                    let plants: Vec<Plant> = self
                        .plants
                        .iter()
                        .map(|p| Plant {
                            at: if p.at % 2 == 0 { i + 1 } else { p.at },
                            ..p.clone()
                        })
                        .collect();
                    plant_into(&base, &plants)
                }
                None => plant_into(&base, &self.plants),
            }
        } else {
            plant_into(&base, &self.plants)
        }
    }

    pub(crate) fn summary_detail(&self) -> (String, String) {
        let text = self.text();
        if self.split {
            if let Some((s, d)) = text.split_once(": ") {
                return (s.to_string(), d.to_string());
            }
        }
        (text, String::new())
    }

    pub(crate) fn secrets(&self) -> Vec<Secret> {
        let mut out = self.natural.secrets();
        out.extend(self.plants.iter().map(|p| p.secret.clone()));
        out.extend(self.file.secret.clone());
        out
    }
}

/// A diagnostic's `range.filename`, sometimes with a secret as a directory name.
#[derive(Debug, Clone)]
pub(crate) struct FileSpec {
    pub(crate) secret: Option<Secret>,
    pub(crate) shape: usize,
}

impl FileSpec {
    pub(crate) fn name(&self) -> String {
        match &self.secret {
            None => "main.tf".into(),
            Some(s) => match self.shape % 3 {
                0 => format!("envs/{}/main.tf", s.text),
                1 => format!("modules/{}/iam.tf", s.text),
                _ => format!("{}.tf", s.text),
            },
        }
    }
}

/// `main.tf`: for positions whose file name is covered by its own property.
pub(crate) const NO_FILE: FileSpec = FileSpec {
    secret: None,
    shape: 0,
};

pub(crate) fn file_spec(secret: impl Strategy<Value = Secret>) -> impl Strategy<Value = FileSpec> {
    (prop::option::weighted(0.5, secret), 0usize..3)
        .prop_map(|(secret, shape)| FileSpec { secret, shape })
}

/// Secrets that can name a directory in a repository.
pub(crate) fn path_secret() -> impl Strategy<Value = Secret> {
    prop_oneof![
        account().prop_map(|s| Secret::new("account", s)),
        ipv4().prop_map(|s| Secret::new("ipv4", s)),
        email().prop_map(|s| Secret::new("email", s)),
        "[A-Za-z0-9_.=+-]{10,30}".prop_map(|s| Secret::new("known", s)),
    ]
}

pub(crate) fn error_spec_with(
    file: impl Strategy<Value = FileSpec>,
    plants: impl Strategy<Value = Vec<Plant>>,
) -> impl Strategy<Value = ErrorSpec> {
    (0usize..48, natural(), plants, any::<bool>(), file).prop_map(
        |(shape, natural, plants, split, file)| ErrorSpec {
            shape,
            natural,
            plants,
            split,
            file,
            raw: None,
            mid_word: false,
            after_perform: false,
        },
    )
}

pub(crate) fn error_spec() -> impl Strategy<Value = ErrorSpec> {
    error_spec_with(file_spec(path_secret()), plants(3))
}

pub(crate) fn diagnostic(spec: &ErrorSpec, address: Option<&str>) -> Value {
    let (summary, detail) = spec.summary_detail();
    let mut d = json!({
        "severity": "error",
        "summary": summary,
        "detail": detail,
        "range": {
            "filename": spec.file.name(),
            "start": {"line": 20, "column": 30, "byte": 810},
            "end": {"line": 20, "column": 31, "byte": 811}
        },
        "snippet": {
            "context": "resource \"aws_iam_role\" \"this\"",
            "code": format!("  assume_role = \"{}\"", spec.natural.principal),
            "start_line": 20,
            "highlight_start_offset": 29,
            "highlight_end_offset": 30,
            "values": [{"traversal": "var.admin_cidr", "statement": format!("is \"{}\"", spec.natural.cidr)}]
        }
    });
    if let Some(a) = address {
        d["address"] = json!(a);
    }
    d
}
