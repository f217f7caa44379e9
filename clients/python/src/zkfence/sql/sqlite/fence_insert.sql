-- A new key's fence row, when neither the advance nor the locked read found one.
-- A plain INSERT: a duplicate key fails only the statement in SQLite, and every other error stays
-- an error, which INSERT OR IGNORE would not keep.
-- binds: key, token, holder
INSERT INTO zkfence_fence (resource_key, fence_token, holder, updated_at)
VALUES (?, ?, ?, CURRENT_TIMESTAMP)
