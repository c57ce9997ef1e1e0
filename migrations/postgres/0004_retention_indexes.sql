-- Retention (`TFGATE_RETENTION_DAYS`) deletes old finished jobs and the deliveries they came
-- from. Deleting a delivery (or a job) makes the database check that no job (or run) still
-- refers to it: without an index on the referring column, that check reads the whole table for
-- every row deleted. Old deliveries are found by when they were received.
CREATE INDEX jobs_by_delivery ON jobs (delivery_id);
CREATE INDEX runs_by_job ON runs (job_id);
CREATE INDEX deliveries_by_received_at ON deliveries (received_at);
