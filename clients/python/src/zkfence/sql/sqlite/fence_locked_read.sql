-- The stored token of a key, read after the advance matched nothing: tells "stale" from "no row
-- yet". No FOR UPDATE in SQLite: the advance before it holds the database's write lock already.
-- binds: key
SELECT zkfence_fence.fence_token FROM zkfence_fence WHERE zkfence_fence.resource_key = ?
