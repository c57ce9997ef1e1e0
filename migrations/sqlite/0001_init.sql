-- tfgate schema (SQLite). Times are unix epoch milliseconds.
CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    event TEXT NOT NULL,
    action TEXT,
    repo TEXT,
    installation_id BIGINT,
    received_at BIGINT NOT NULL
);

CREATE TABLE jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    delivery_id TEXT REFERENCES deliveries(id),
    repo TEXT,
    pr BIGINT,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    max_attempts BIGINT NOT NULL,
    interruptions BIGINT NOT NULL DEFAULT 0,
    takeover BIGINT NOT NULL DEFAULT 0,
    run_at BIGINT NOT NULL,
    lease_until BIGINT,
    lease_owner TEXT,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX jobs_claimable ON jobs (status, run_at);
CREATE INDEX jobs_by_pr ON jobs (repo, pr, status);

CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id BIGINT REFERENCES jobs(id),
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    project TEXT NOT NULL,
    dir TEXT NOT NULL,
    workspace TEXT NOT NULL,
    command TEXT NOT NULL,
    actor TEXT NOT NULL,
    head_sha TEXT NOT NULL,
    status TEXT NOT NULL,
    plan_blob BLOB,
    raw_log BLOB,
    outcome TEXT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX runs_by_pr ON runs (repo, pr, project, workspace);

CREATE TABLE locks (
    repo TEXT NOT NULL,
    project TEXT NOT NULL,
    workspace TEXT NOT NULL,
    pr BIGINT NOT NULL,
    run_id BIGINT,
    acquired_by TEXT NOT NULL,
    acquired_at BIGINT NOT NULL,
    PRIMARY KEY (repo, project, workspace)
);

CREATE TABLE audit_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at BIGINT NOT NULL,
    actor TEXT NOT NULL,
    repo TEXT,
    pr BIGINT,
    action TEXT NOT NULL,
    rule TEXT,
    result TEXT NOT NULL,
    detail TEXT
);
