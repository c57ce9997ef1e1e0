-- A `/plan` of several independent roots is split into run jobs any worker can take (issue 41).
-- One row per split command: its roots in order (a JSON list of {project, dir, workspace}) and the one PR
-- comment every part updates in place. The row's id is the id of the run job that split it.
-- `comment_claimed_until` lets one publish job at a time create that comment.
CREATE TABLE plan_batches (
    id BIGINT PRIMARY KEY,
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    head_sha TEXT NOT NULL,
    roots TEXT NOT NULL,
    comment_id BIGINT,
    comment_claimed_until BIGINT,
    follow_ups_queued BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
);
-- A part's result per root (key 'root:<project>') names its batch.
ALTER TABLE publications ADD COLUMN batch_id BIGINT;
CREATE INDEX publications_batch ON publications (batch_id);
