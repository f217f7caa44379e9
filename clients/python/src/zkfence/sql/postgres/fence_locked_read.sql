-- The stored token of a key, read with a row lock: tells "stale" from "no row yet" when the
-- advance matched nothing, and holds the answer until the transaction ends.
-- binds: key
SELECT zkfence_fence.fence_token FROM zkfence_fence WHERE zkfence_fence.resource_key = ? FOR UPDATE
