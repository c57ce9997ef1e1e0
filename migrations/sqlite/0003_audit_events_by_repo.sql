-- Workers look up audit events of one repository and rule (e.g. whether a repository without a
-- policy was already told so); without an index that read every audit event ever written.
CREATE INDEX audit_events_by_repo_rule ON audit_events (repo, rule);
