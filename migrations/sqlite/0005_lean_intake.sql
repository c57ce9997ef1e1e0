-- Webhook intake commits a delivery and its job in one transaction, and every index a row goes
-- into adds the pages it touches to the WAL of that commit, to be written, synced and copied
-- into the database again by the checkpointer. On a saturated intake this writing is what
-- decides the p99 (bench/README.md, tenth session). Two indexes go; what read them reads
-- another way:
-- - deliveries_by_received_at: retention walks deliveries in rowid order (the order they were
--   received in) a window at a time, and deletes the old ones of each window.
-- - jobs_by_pr: the one query that used it asks for a PR's queued jobs, which jobs_claimable
--   (status, run_at) finds among the queued jobs alone.
-- PostgreSQL keeps both: its intake writes through the pool, not this SQLite WAL and
-- checkpointer, and was not measured to need the change.
DROP INDEX deliveries_by_received_at;
DROP INDEX jobs_by_pr;
