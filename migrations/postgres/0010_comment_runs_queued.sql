-- Whether the runs a comment asked for are queued: set in the transaction that queues them, so
-- a comment job that runs again (its worker died, or it failed after queueing) queues none twice.
ALTER TABLE handled_comments ADD COLUMN runs_queued BIGINT NOT NULL DEFAULT 0;
