-- One running plan or apply per root (repo, project, workspace): the run that holds it. A row
-- goes when its run finishes; `locks.release_pending` marks a lock that `/unlock` or a closed
-- PR asked to release while a run held the root, released when that run finishes.
CREATE TABLE root_runs (
    repo TEXT NOT NULL,
    project TEXT NOT NULL,
    workspace TEXT NOT NULL,
    run_id BIGINT NOT NULL,
    job_id BIGINT,
    command TEXT NOT NULL,
    PRIMARY KEY (repo, project, workspace)
);
ALTER TABLE locks ADD COLUMN release_pending INTEGER NOT NULL DEFAULT 0;
