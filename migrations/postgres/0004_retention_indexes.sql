-- Retention (`TFGATE_RETENTION_DAYS`) deletes old finished jobs and, separately, old deliveries.
-- A job no longer needs its delivery row (the id is only what recognises a redelivery, which
-- GitHub allows for 7 days at most), so the foreign key from jobs to deliveries goes: with it,
-- deleting a delivery would read the jobs table for references, unless jobs were indexed by
-- delivery id, an index of random GUIDs that every webhook would pay for. Old deliveries are
-- found by the time they were received, and a job's runs by job id.
ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_delivery_id_fkey;
CREATE INDEX runs_by_job ON runs (job_id);
CREATE INDEX deliveries_by_received_at ON deliveries (received_at);
