//! The category decision: code AND context AND wording.
//!
//! Order (first match wins):
//! 1. state lock; a stale saved plan; throttling (code, relayed code or wording);
//! 2. the provider failing to assume its own role, or the caller's credential codes/wording →
//!    `credentials_invalid` (unless a validation code relays it: then a service could not use a
//!    role it was handed → `propagation_delay`);
//! 3. relayed access-denied codes (`Error Code: AccessDeniedException`) → `permission_missing`;
//! 4. IAM eventual-consistency wordings → `propagation_delay` (see [`wording::PROPAGATION`]);
//! 5. caller denials (`is not authorized to perform`, AccessDenied …) → `permission_missing`;
//! 6. IAM `NoSuchEntity` while writing (attach/add/put/create) → `propagation_delay`;
//! 7. specific codes by documented meaning; generic codes (`ValidationError`,
//!    `ResourceInUseException`, …) and code-less texts by wording;
//! 8. no AWS shape: Terraform configuration diagnostics → `configuration_error`.
//!
//! Context then upgrades not-found / invalid / credential shapes to `propagation_delay` when the
//! failing resource refers to something created earlier in the same apply.

use super::codes;
use super::extract::Extracted;
use super::wording::{self, any};
use super::{Category, ClassifyContext, FreshCause, FreshRef};
use once_cell::sync::Lazy;
use regex::Regex;

/// Decides the category of an error text.
pub fn decide(text: &str, x: &Extracted, ctx: &ClassifyContext) -> Category {
    let lc = text.to_ascii_lowercase();
    let base = decide_without_context(&lc, x, ctx);
    apply_freshness(base, text, &lc, ctx)
}

fn decide_without_context(lc: &str, x: &Extracted, ctx: &ClassifyContext) -> Category {
    let code = x.code.as_deref();
    let validation_coded = code.is_some_and(codes::is_validation);

    if any(lc, wording::STATE_LOCK) {
        return Category::StateLock;
    }
    if any(lc, wording::PLAN_STALE) {
        return Category::PlanStale;
    }
    if x.all_codes().any(codes::is_throttling) || any(lc, wording::THROTTLED) {
        return Category::Throttled;
    }
    // EC2 answers `AuthFailure: Not authorized for images: [ami-…]` for an image the account
    // cannot see (private, deregistered or in another region): the reference, not the session.
    if lc.contains("not authorized for image") {
        return Category::NotFound;
    }
    if any(lc, wording::PROVIDER_ASSUME_ROLE) {
        return Category::CredentialsInvalid;
    }
    if code.is_some_and(codes::is_credentials) || any(lc, wording::CREDENTIALS) {
        return if validation_coded {
            Category::PropagationDelay
        } else {
            Category::CredentialsInvalid
        };
    }
    if x.embedded_codes.iter().any(|c| codes::is_permission(c)) {
        return Category::PermissionMissing;
    }
    // The caller passing a role it may not pass is always the apply role's own permission.
    if lc.contains("perform: iam:passrole") {
        return Category::PermissionMissing;
    }
    if let Some(c) = propagation_by_wording(lc, x) {
        return c;
    }
    if code.is_some_and(codes::is_permission) || any(lc, wording::PERMISSION) {
        return Category::PermissionMissing;
    }
    if code.is_some_and(codes::is_no_such_entity)
        && is_write(lc)
        && !is_definitely_absent_policy(lc)
    {
        return Category::PropagationDelay;
    }
    if let Some(c) = code.and_then(codes::category_of_code) {
        return c;
    }
    if let Some(c) = x
        .embedded_codes
        .iter()
        .find_map(|c| codes::category_of_code(c))
    {
        return c;
    }
    if let Some(c) = category_by_wording(lc) {
        return c;
    }
    if let Some(code) = code {
        return codes::generic_fallback(code);
    }
    if x.has_aws_shape() {
        return Category::Unknown;
    }
    if any(lc, wording::TERRAFORM_CONFIG) || !ctx.has_address {
        return Category::ConfigurationError;
    }
    // A provider waiter meeting a state it does not know (`unexpected state 'X', wanted target
    // 'Y'`) is not a schema validation, whatever "expected" it contains.
    if any(lc, wording::PROVIDER_VALIDATION) && !lc.contains("unexpected state") {
        return Category::InvalidRequest;
    }
    Category::Unknown
}

static PROFILE_VALUE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"value \(([^)]*)\) for parameter iaminstanceprofile\.(name|arn)").unwrap()
});

/// Eventual-consistency wordings, with the documented exceptions.
fn propagation_by_wording(lc: &str, x: &Extracted) -> Option<Category> {
    // An ARN passed where a profile *name* is expected, or a role ARN where a profile ARN is
    // expected, will never become valid: that is a configuration value error.
    if let Some(c) = PROFILE_VALUE.captures(lc) {
        let value = &c[1];
        let wrong = match &c[2] {
            "name" => value.starts_with("arn:"),
            _ => value.contains(":role/"),
        };
        return Some(if wrong {
            Category::InvalidRequest
        } else {
            Category::PropagationDelay
        });
    }
    if let Some(c) = role_handed_to_a_service(lc) {
        return Some(c);
    }
    if any(lc, wording::PROPAGATION) {
        return Some(Category::PropagationDelay);
    }
    // Auto Scaling / EKS launch activity failing with "Authentication Failure" right after an
    // instance profile was created: the profile's role is not usable yet.
    if lc.contains("authentication failure")
        && (lc.contains("launch") || lc.contains("instance") || lc.contains("auto scaling"))
    {
        return Some(Category::PropagationDelay);
    }
    let code = x.code.as_deref();
    // A validation-coded rejection that talks about a role's permissions: the service checked the
    // role it was handed (created or attached in the same run) and could not use it yet. The AWS
    // provider retries these for IAM propagation (CodeBuild, ECS, Firehose, Glue, Lambda ...).
    // An IAM-format denial of the caller (`User: arn:… is not authorized`) in a synchronous reply
    // stays a permission failure even under a validation code.
    // EC2's own wording for the caller (`You are not authorized to perform this operation`),
    // relayed by Auto Scaling under `ValidationError`, is the caller's permission too.
    let caller_denied = (lc.contains("user: arn:") && !is_async_status(lc))
        || lc.contains("you are not authorized to perform this operation");
    if code.is_some_and(codes::is_validation)
        && any(lc, wording::RELAYED_ROLE_PROBLEM)
        && !caller_denied
    {
        return Some(Category::PropagationDelay);
    }
    // A denial inside an asynchronous status reason names a *service's* role session
    // (`assumed-role/<service role>/<service session>`), not the caller: the apply role's call
    // succeeded. The usual cause is the service role's policy attachment not being effective yet
    // (provider docs prescribe `depends_on` on the attachment).
    if is_async_status(lc)
        && lc.contains("assumed-role/")
        && lc.contains("is not authorized to perform")
    {
        return Some(Category::PropagationDelay);
    }
    // Provider read-after-create finding nothing yet.
    if (lc.contains("empty result") || lc.contains("couldn't find resource")) && is_create(lc) {
        return Some(Category::PropagationDelay);
    }
    None
}

/// A role handed to a service that the service cannot use, where the text itself says why: the
/// service-linked role does not exist in the account, the role's trust policy does not name the
/// service, or the role's own policy lacks a permission. Each is the base category; only a role
/// created earlier in the same apply makes it possibly propagation (`apply_freshness`).
fn role_handed_to_a_service(lc: &str) -> Option<Category> {
    if (lc.contains("service linked role") || lc.contains("service-linked role"))
        && lc.contains("exist")
    {
        return Some(Category::NotFound);
    }
    if any(lc, wording::TRUST_REJECTED) {
        return Some(Category::InvalidRequest);
    }
    if service_role_lacks(lc) {
        return Some(Category::PermissionMissing);
    }
    None
}

fn service_role_lacks(lc: &str) -> bool {
    any(lc, wording::SERVICE_ROLE_LACKS)
        || (lc.contains("has insufficient") && lc.contains("permission"))
}

/// Wording refinements for generic codes and code-less texts.
fn category_by_wording(lc: &str) -> Option<Category> {
    let ordered: [(&[&str], Category); 9] = [
        (wording::CONFLICT, Category::Conflict),
        (wording::ALREADY_EXISTS, Category::AlreadyExists),
        (wording::DEPENDENCY, Category::DependencyViolation),
        (wording::CAPACITY, Category::CapacityUnavailable),
        (wording::QUOTA, Category::QuotaExceeded),
        (wording::TIMEOUT, Category::Timeout),
        (wording::NOT_FOUND, Category::NotFound),
        (&["empty result"], Category::NotFound),
        (wording::REQUEST_VALIDATION, Category::InvalidRequest),
    ];
    ordered
        .iter()
        .find(|(phrases, _)| any(lc, phrases))
        .map(|(_, c)| *c)
}

fn is_async_status(lc: &str) -> bool {
    lc.contains("last error:") || lc.contains("unexpected state") || lc.contains("status reason")
}

fn is_create(lc: &str) -> bool {
    lc.contains("creat")
}

/// Provider wordings of a write call (attaching a policy, adding a role to a profile ...): a
/// write verb and no read or delete wording.
fn is_write(lc: &str) -> bool {
    let writing = [
        "attach", "adding", "add role", "putting", "creat", "updat", "modif", "associat", "assign",
    ];
    let reading = [
        "reading ",
        "unable to get",
        "getting ",
        "finding ",
        "describing ",
        "listing ",
    ];
    let deleting = ["deleting ", "detaching ", "removing "];
    any(lc, &writing) && !any(lc, &reading) && !any(lc, &deleting)
}

/// IAM's definitive answer for a policy ARN that does not exist: AWS-managed policies are never
/// created by an apply, so this cannot be a propagation race.
fn is_definitely_absent_policy(lc: &str) -> bool {
    lc.contains("does not exist or is not attachable")
}

/// Upgrades reference-shaped failures to `propagation_delay` when the failing resource refers to
/// something created earlier in the same apply.
fn apply_freshness(base: Category, text: &str, lc: &str, ctx: &ClassifyContext) -> Category {
    let mentions_fresh = mentions_any(text, &ctx.fresh_identifiers);
    let fresh = ctx.refers_to_fresh_resource || mentions_fresh;
    if !fresh {
        return base;
    }
    match base {
        Category::NotFound | Category::CredentialsInvalid => Category::PropagationDelay,
        Category::InvalidRequest if mentions_fresh || reference_shaped(lc) => {
            Category::PropagationDelay
        }
        // A denied principal that was itself created in this apply (a service role whose policy
        // is not effective yet).
        Category::PermissionMissing
            if denied_principal_is_fresh(text, ctx) || fresh_role_not_usable_yet(text, lc, ctx) =>
        {
            Category::PropagationDelay
        }
        _ => base,
    }
}

/// The resource created earlier in this apply that a `propagation_delay` is put down to: one the
/// failing resource refers to whose id the text names, else one the text names, else one it
/// refers to (most recently created first). `None` for other categories, and when nothing
/// fresh is involved (the shape alone made it a propagation delay).
pub fn fresh_cause(category: Category, text: &str, ctx: &ClassifyContext) -> Option<FreshCause> {
    if category != Category::PropagationDelay {
        return None;
    }
    let named = |f: &&FreshRef| mentions_any(text, &f.identifiers);
    let fresh = &ctx.fresh_resources;
    let cause = fresh
        .iter()
        .filter(|f| f.referenced)
        .find(named)
        .or_else(|| fresh.iter().find(named))
        .or_else(|| fresh.iter().find(|f| f.referenced))?;
    Some(FreshCause {
        address: cause.address.clone(),
        seconds_earlier: cause.seconds_earlier,
    })
}

fn reference_shaped(lc: &str) -> bool {
    any(
        lc,
        &[
            "invalid principal",
            "role",
            "instance profile",
            "does not exist",
            "not found",
            "arn",
            "is invalid",
            "not valid",
        ],
    )
}

/// A service role's policy or grant reported missing while the failing resource refers to
/// something created in this apply, or the apply role denied passing/assuming a role created in
/// this apply (IAM's `PassRole` check does not see a brand-new role for some seconds).
fn fresh_role_not_usable_yet(text: &str, lc: &str, ctx: &ClassifyContext) -> bool {
    let service_role = service_role_lacks(lc)
        && (ctx.refers_to_fresh_resource || mentions_any(text, &ctx.fresh_identifiers));
    service_role
        || PASSED_ROLE
            .captures(text)
            .is_some_and(|c| mentions_any(&c[1], &ctx.fresh_identifiers))
}

static PASSED_ROLE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)perform:\s*(?:iam:PassRole|sts:AssumeRole)\s+on resource:\s*(\S+)").unwrap()
});

static DENIED_PRINCIPAL: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"User: (arn:[^\s]+) is not authorized").unwrap());

fn denied_principal_is_fresh(text: &str, ctx: &ClassifyContext) -> bool {
    DENIED_PRINCIPAL
        .captures(text)
        .is_some_and(|c| mentions_any(&c[1], &ctx.fresh_identifiers))
}

/// Whether `text` contains one of `ids` as a whole token (not inside a longer name).
pub fn mentions_any(text: &str, ids: &[String]) -> bool {
    ids.iter().filter(|id| id.len() >= 3).any(|id| {
        text.match_indices(id.as_str()).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + id.len()..].chars().next();
            let part_of_name =
                |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
            !part_of_name(before) && !part_of_name(after)
        })
    })
}
