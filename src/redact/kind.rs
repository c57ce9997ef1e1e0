//! Kinds of redacted values; each kind numbers its placeholders separately.

/// What a redacted value was. The placeholder is `<{prefix}-{n}>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Arn,
    Account,
    Ipv4,
    Cidr,
    Ipv6,
    AccessKey,
    Secret,
    Email,
    RequestId,
    /// Admin patterns and encoded authorization failure messages.
    Redacted,
}

impl Kind {
    pub const ALL: [Kind; 10] = [
        Kind::Arn,
        Kind::Account,
        Kind::Ipv4,
        Kind::Cidr,
        Kind::Ipv6,
        Kind::AccessKey,
        Kind::Secret,
        Kind::Email,
        Kind::RequestId,
        Kind::Redacted,
    ];

    pub fn prefix(self) -> &'static str {
        match self {
            Kind::Arn => "arn",
            Kind::Account => "account",
            Kind::Ipv4 => "ipv4",
            Kind::Cidr => "cidr",
            Kind::Ipv6 => "ipv6",
            Kind::AccessKey => "access-key",
            Kind::Secret => "secret",
            Kind::Email => "email",
            Kind::RequestId => "request-id",
            Kind::Redacted => "redacted",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}
