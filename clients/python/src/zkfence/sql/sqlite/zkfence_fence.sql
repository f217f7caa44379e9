-- zkfence fence table for SQLite: one row per protected resource key, holding the highest fencing
-- token accepted for it. The columns of fencing-jdbc's table, in SQLite's types (the key compares
-- byte for byte: SQLite's default BINARY collation). Usable as a migration as it is.
CREATE TABLE IF NOT EXISTS zkfence_fence (
    resource_key TEXT    NOT NULL,
    fence_token  INTEGER NOT NULL,
    holder       TEXT,
    updated_at   TEXT    NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (resource_key),
    CHECK (fence_token > 0)
);
