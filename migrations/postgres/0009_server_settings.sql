-- Values every tfgate process must agree on, kept where every process reads them: the sealing
-- key's fingerprint (a key-check value, never the key) and the GitHub App credentials from the
-- manifest flow, sealed.
CREATE TABLE server_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
