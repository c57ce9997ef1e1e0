-- Fingerprints (HMAC-SHA256 under a server key; never values) of the shared inputs each root
-- consumed at its last successful apply.
CREATE TABLE input_fingerprints (
    repo TEXT NOT NULL,
    project TEXT NOT NULL,
    workspace TEXT NOT NULL,
    input TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    run_id BIGINT NOT NULL,
    applied_at BIGINT NOT NULL,
    PRIMARY KEY (repo, project, workspace, input)
);
