-- Notices go through the outbox too: a job may leave several publications (its result and the
-- notices it raised on the way), one per (job, key). `key` is 'result' for a run's result and
-- names the notice otherwise (e.g. 'plan_stale:eks:0'); 'command' is 'notice' for notices.
-- SQLite cannot drop the old UNIQUE (job_id): the table is rebuilt, rows and ids kept.
CREATE TABLE publications_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id BIGINT NOT NULL,
    key TEXT NOT NULL DEFAULT 'result',
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    -- 'plan', 'apply' or 'notice'.
    command TEXT NOT NULL,
    head_sha TEXT NOT NULL,
    -- Sealed JSON of run_planner::outbox::RunResult, or of a render::Notice for a notice.
    result TEXT NOT NULL,
    comment_id BIGINT,
    created_at BIGINT NOT NULL,
    published_at BIGINT,
    UNIQUE (job_id, key)
);
INSERT INTO publications_new
    (id, job_id, key, repo, pr, command, head_sha, result, comment_id, created_at, published_at)
SELECT id, job_id, 'result', repo, pr, command, head_sha, result, comment_id, created_at,
       published_at
FROM publications;
DROP TABLE publications;
ALTER TABLE publications_new RENAME TO publications;
