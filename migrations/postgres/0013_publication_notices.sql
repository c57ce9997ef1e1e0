-- Notices go through the outbox too: a job may leave several publications (its result and the
-- notices it raised on the way), one per (job, key). `key` is 'result' for a run's result and
-- names the notice otherwise (e.g. 'plan_stale:eks:0'); 'command' is 'notice' for notices,
-- whose `result` is the sealed JSON of a render::Notice.
ALTER TABLE publications ADD COLUMN key TEXT NOT NULL DEFAULT 'result';
ALTER TABLE publications DROP CONSTRAINT publications_job_id_key;
ALTER TABLE publications ADD CONSTRAINT publications_job_id_key_key UNIQUE (job_id, key);
