-- Retention (`TFGATE_RETENTION_DAYS`) deletes old finished jobs and then their deliveries.
-- Deleting a delivery (or a job) makes the database check that no job (or run) still refers to
-- it: without an index on the referring column, that check reads the whole table for every row
-- deleted.
CREATE INDEX jobs_by_delivery ON jobs (delivery_id);
CREATE INDEX runs_by_job ON runs (job_id);
