-- The fence advance, the hot path: accepted when it matches the key's row (a row count of 1).
-- In SQLite every write statement takes the database's write lock until the transaction ends
-- (whether it matches a row or not), which stands in for the row lock the other engines take.
-- binds: token, holder, key, token
UPDATE zkfence_fence
   SET fence_token = ?, holder = ?, updated_at = CURRENT_TIMESTAMP
 WHERE zkfence_fence.resource_key = ? AND zkfence_fence.fence_token <= ?
