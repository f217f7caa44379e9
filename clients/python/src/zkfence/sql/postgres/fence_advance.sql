-- The fence advance, the hot path: accepted when it matches the key's row (a row count of 1),
-- which it then keeps locked until the transaction ends. A plain conditional UPDATE, no upsert,
-- so its row count is an exact accept signal on every engine.
-- Columns are qualified where the engines allow it; names are the defaults of FenceConfig.
-- binds: token, holder, key, token
UPDATE zkfence_fence
   SET fence_token = ?, holder = ?, updated_at = CURRENT_TIMESTAMP
 WHERE zkfence_fence.resource_key = ? AND zkfence_fence.fence_token <= ?
