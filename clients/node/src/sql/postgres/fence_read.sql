-- The stored token of a key, without locks (JdbcFence.currentToken).
-- binds: key
SELECT zkfence_fence.fence_token FROM zkfence_fence WHERE zkfence_fence.resource_key = ?
