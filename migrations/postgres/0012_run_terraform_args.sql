-- The Terraform flags a run was made with (a JSON list, e.g. ["-replace=aws_db_instance.main"]).
-- An apply checks who made a plan with flags that change what it applies; NULL (runs recorded
-- before this column) is "unknown" and treated like such flags.
ALTER TABLE runs ADD COLUMN terraform_args TEXT;
