-- The outbox: what a finished run job tells its PR. The run job writes the row (the comment's
-- view model, sealed) and queues its `publish` job in one transaction; the publish job posts
-- the comment, folds older plans and creates the check runs, with retries of its own.
CREATE TABLE publications (
    id BIGSERIAL PRIMARY KEY,
    -- The run job whose result this is: one publication a job.
    job_id BIGINT NOT NULL UNIQUE,
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    -- 'plan' or 'apply'.
    command TEXT NOT NULL,
    head_sha TEXT NOT NULL,
    -- Sealed JSON of run_planner::outbox::RunResult.
    result TEXT NOT NULL,
    -- The comment once posted (or found by its marker).
    comment_id BIGINT,
    created_at BIGINT NOT NULL,
    published_at BIGINT
);
