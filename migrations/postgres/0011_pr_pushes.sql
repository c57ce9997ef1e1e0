-- Who moved each pull request's head, as tfgate received it from `pull_request` deliveries:
-- `opened`/`reopened` (the sender, at the head then; `before_sha` empty: the history starts
-- there) and `synchronize` (the sender, at `after`, with `before`). Nobody who pushed to a PR
-- may approve it, and a head whose history has a gap counts as pushed by someone unknown.
CREATE TABLE pr_pushes (
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    head_sha TEXT NOT NULL,
    before_sha TEXT NOT NULL,
    pusher TEXT NOT NULL,
    action TEXT NOT NULL,
    recorded_at BIGINT NOT NULL,
    PRIMARY KEY (repo, pr, head_sha, before_sha, pusher, action)
);
