-- A new key's fence row, when neither the advance nor the locked read found one.
-- A duplicate key aborts a whole PostgreSQL transaction, so the insert must not fail: it inserts
-- nothing (row count 0) when the row exists.
-- binds: key, token, holder
INSERT INTO zkfence_fence (resource_key, fence_token, holder, updated_at)
VALUES (?, ?, ?, CURRENT_TIMESTAMP) ON CONFLICT DO NOTHING
