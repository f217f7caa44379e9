package io.zkfence.lock;

import java.util.OptionalLong;

/**
 * Base of every exception lock-core throws (all unchecked). Carries the lock name and, once a
 * grant exists, its fencing token, so a log line alone says which lock and which holder.
 */
public abstract class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    private static final long NO_TOKEN = Long.MIN_VALUE;

    private final String lockName;
    private final long token;

    LockException(String lockName, long token, String message, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.token = token;
    }

    LockException(String lockName, String message, Throwable cause) {
        this(lockName, NO_TOKEN, message, cause);
    }

    /** The application lock name this failure is about. */
    public String lockName() {
        return lockName;
    }

    /** The fencing token of the grant this failure is about, if there was a grant. */
    public OptionalLong token() {
        return token == NO_TOKEN ? OptionalLong.empty() : OptionalLong.of(token);
    }
}
