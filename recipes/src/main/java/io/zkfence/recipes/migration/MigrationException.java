package io.zkfence.recipes.migration;

import java.util.OptionalLong;

/**
 * Base of every exception the migration runner throws (all unchecked). Carries the migration
 * lock's name and, once the lock was granted, the runner's fencing token, so a log line alone
 * says which deployment lock and which runner.
 */
public abstract class MigrationException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    private static final long NO_TOKEN = Long.MIN_VALUE;

    private final String lockName;
    private final long token;

    MigrationException(String lockName, long token, String message, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.token = token;
    }

    MigrationException(String lockName, String message, Throwable cause) {
        this(lockName, NO_TOKEN, message, cause);
    }

    /** The migration lock's name. */
    public String lockName() {
        return lockName;
    }

    /** The runner's fencing token, if it was granted the lock. */
    public OptionalLong token() {
        return token == NO_TOKEN ? OptionalLong.empty() : OptionalLong.of(token);
    }
}
