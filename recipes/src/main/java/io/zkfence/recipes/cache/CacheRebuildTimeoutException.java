package io.zkfence.recipes.cache;

import java.time.Duration;

/**
 * A caller had no value it could be served (none cached, or older than the staleness bound)
 * and the rebuild did not finish within the wait timeout. The rebuild itself may still finish
 * and write the value later; a following call may then find it.
 */
public final class CacheRebuildTimeoutException extends CacheRebuildException {

    private static final long serialVersionUID = 1L;

    private final Duration waited;

    CacheRebuildTimeoutException(String key, Duration waited, String why, Throwable cause) {
        super(key, "no value after waiting " + waited.toMillis() + " ms (waitTimeout): " + why, cause);
        this.waited = waited;
    }

    /** How long the caller waited. */
    public Duration waited() {
        return waited;
    }
}
