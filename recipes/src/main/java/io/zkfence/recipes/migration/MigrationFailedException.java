package io.zkfence.recipes.migration;

/**
 * Migrating failed while this runner held the migration lock, for a reason other than fencing:
 * a failing migration, a validation error, an unreachable database (the cause is Flyway's or
 * fencing-jdbc's exception), or a connection to ZooKeeper still suspended after the runner waited
 * the lease TTL before a step (the cause is lock-core's {@code LeaseSuspendedException}; the step
 * was not run: the runner could not tell whether it still held the lock, but nobody was known to
 * have taken over). The lock was released, so the next runner in line tries again.
 */
public final class MigrationFailedException extends MigrationException {

    private static final long serialVersionUID = 1L;

    MigrationFailedException(String lockName, long token, String message, Throwable cause) {
        super(
                lockName,
                token,
                message + " (migration lock '" + lockName + "', token " + token + "): " + cause.getMessage(),
                cause);
    }
}
