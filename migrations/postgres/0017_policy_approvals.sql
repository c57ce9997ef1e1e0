-- `/approve-policies` (issue 42): an owner of a plan policy set approved its failures on one
-- plan run. The apply gate reads the approvals of the plan run it applies, so a new plan or a
-- new push (which needs a new plan) voids them. Each approval is also in the audit log.
CREATE TABLE policy_approvals (
    plan_run_id BIGINT NOT NULL,
    set_name TEXT NOT NULL,
    approver TEXT NOT NULL,
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    project TEXT NOT NULL,
    head_sha TEXT NOT NULL,
    approved_at BIGINT NOT NULL,
    PRIMARY KEY (plan_run_id, set_name)
);
