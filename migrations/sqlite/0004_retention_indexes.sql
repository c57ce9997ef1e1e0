-- Retention (`TFGATE_RETENTION_DAYS`) deletes old finished jobs and, separately, old deliveries.
-- A job no longer needs its delivery row (the id is only what recognises a redelivery, which
-- GitHub allows for 7 days at most), so the foreign key from jobs to deliveries goes: with it,
-- deleting a delivery would read the jobs table for references, unless jobs were indexed by
-- delivery id, an index that every webhook would pay for (measured: +10-20 % of the intake's
-- insert cost with time-ordered ids, +45 % with random ones). SQLite cannot drop a constraint,
-- so `jobs` is rebuilt. Migrations run in a transaction with foreign keys enforced, so runs are
-- unlinked from their jobs while the table is replaced (dropping a table that runs refer to
-- would fail the commit) and linked again after. Old deliveries are found by the time they were
-- received (an index that only ever grows at its end), and a job's runs by job id.
CREATE TEMP TABLE run_jobs AS SELECT id, job_id FROM runs WHERE job_id IS NOT NULL;
UPDATE runs SET job_id = NULL WHERE job_id IS NOT NULL;
CREATE TABLE jobs_rebuilt (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    delivery_id TEXT,
    repo TEXT,
    pr BIGINT,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    max_attempts BIGINT NOT NULL,
    interruptions BIGINT NOT NULL DEFAULT 0,
    takeover BIGINT NOT NULL DEFAULT 0,
    run_at BIGINT NOT NULL,
    lease_until BIGINT,
    lease_owner TEXT,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
INSERT INTO jobs_rebuilt (id, kind, delivery_id, repo, pr, payload, status, attempts,
    max_attempts, interruptions, takeover, run_at, lease_until, lease_owner, last_error,
    created_at, updated_at)
SELECT id, kind, delivery_id, repo, pr, payload, status, attempts, max_attempts,
    interruptions, takeover, run_at, lease_until, lease_owner, last_error, created_at,
    updated_at
FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_rebuilt RENAME TO jobs;
UPDATE runs SET job_id = (SELECT r.job_id FROM run_jobs r WHERE r.id = runs.id)
WHERE id IN (SELECT id FROM run_jobs);
DROP TABLE run_jobs;
CREATE INDEX jobs_claimable ON jobs (status, run_at);
CREATE INDEX jobs_by_pr ON jobs (repo, pr, status);
CREATE INDEX runs_by_job ON runs (job_id);
CREATE INDEX deliveries_by_received_at ON deliveries (received_at);
