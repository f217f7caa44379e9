package zkfence

// fencing-jdbc's PostgreSQL statements (fencing-jdbc/src/main/resources/io/zkfence/jdbc/postgres/*.sql),
// each its file's text byte for byte (the conformance suite compares them), compiled in: nothing
// is read from disk at run time.
var postgresSQL = map[string]string{
	"fence_advance": `-- The fence advance, the hot path: accepted when it matches the key's row (a row count of 1),
-- which it then keeps locked until the transaction ends. A plain conditional UPDATE, no upsert,
-- so its row count is an exact accept signal on every engine.
-- Columns are qualified where the engines allow it; names are the defaults of FenceConfig.
-- binds: token, holder, key, token
UPDATE zkfence_fence
   SET fence_token = ?, holder = ?, updated_at = CURRENT_TIMESTAMP
 WHERE zkfence_fence.resource_key = ? AND zkfence_fence.fence_token <= ?
`,
	"fence_insert": `-- A new key's fence row, when neither the advance nor the locked read found one.
-- A duplicate key aborts a whole PostgreSQL transaction, so the insert must not fail: it inserts
-- nothing (row count 0) when the row exists.
-- binds: key, token, holder
INSERT INTO zkfence_fence (resource_key, fence_token, holder, updated_at)
VALUES (?, ?, ?, CURRENT_TIMESTAMP) ON CONFLICT DO NOTHING
`,
	"fence_locked_read": `-- The stored token of a key, read with a row lock: tells "stale" from "no row yet" when the
-- advance matched nothing, and holds the answer until the transaction ends.
-- binds: key
SELECT zkfence_fence.fence_token FROM zkfence_fence WHERE zkfence_fence.resource_key = ? FOR UPDATE
`,
	"fence_read": `-- The stored token of a key, without locks (JdbcFence.currentToken).
-- binds: key
SELECT zkfence_fence.fence_token FROM zkfence_fence WHERE zkfence_fence.resource_key = ?
`,
	"zkfence_fence": `-- zkfence fence table for PostgreSQL: one row per protected resource key, holding the highest
-- fencing token accepted for it. Usable as a Flyway/Liquibase migration as it is; with other
-- names, rename the table and columns here and in FenceConfig alike.
CREATE TABLE IF NOT EXISTS zkfence_fence (
    resource_key VARCHAR(255)             NOT NULL,
    fence_token  BIGINT                   NOT NULL,
    holder       VARCHAR(255),
    updated_at   TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (resource_key),
    CHECK (fence_token > 0)
);
`,
}

// PostgresStatementsForTests returns a copy of the statements as compiled in, for the
// conformance suite's check that they are fencing-jdbc's files. Not for applications.
func PostgresStatementsForTests() map[string]string {
	out := make(map[string]string, len(postgresSQL))
	for k, v := range postgresSQL {
		out[k] = v
	}
	return out
}
