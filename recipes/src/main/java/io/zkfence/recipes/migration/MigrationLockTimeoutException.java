package io.zkfence.recipes.migration;

import java.time.Duration;
import java.util.Optional;

/**
 * The runner waited its whole wait timeout for the migration lock: another runner is still
 * migrating (a long migration, or one that hangs while its process stays alive). Nothing was
 * migrated by this runner and its place in the queue was given up. The message names the
 * holder as ZooKeeper showed it when the wait ended.
 */
public final class MigrationLockTimeoutException extends MigrationException {

    private static final long serialVersionUID = 1L;

    private final Duration waited;
    private final String holder;

    MigrationLockTimeoutException(String lockName, Duration waited, String holder, Throwable cause) {
        super(
                lockName,
                "timed out after " + waited.toMillis() + " ms waiting for migration lock '" + lockName + "'"
                        + (holder == null ? "" : ", held by " + holder) + "; the schema may not be current",
                cause);
        this.waited = waited;
        this.holder = holder;
    }

    /** How long the runner waited. */
    public Duration waited() {
        return waited;
    }

    /** The holder when the wait ended ({@code "<owner id> (token <n>)"}), if there was one and it could be read. */
    public Optional<String> holder() {
        return Optional.ofNullable(holder);
    }
}
