-- Comments tfgate has acted on: a comment is handled once, whatever delivery carries it, and
-- the commands a user ran in the last hour are counted for the per-user rate limit.
CREATE TABLE handled_comments (
    repo TEXT NOT NULL,
    comment_id BIGINT NOT NULL,
    actor TEXT NOT NULL,
    -- The job handling it: a retry of that job may handle it again.
    job_id BIGINT NOT NULL,
    commands BIGINT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (repo, comment_id)
);
CREATE INDEX handled_comments_by_actor ON handled_comments (repo, actor, at);
