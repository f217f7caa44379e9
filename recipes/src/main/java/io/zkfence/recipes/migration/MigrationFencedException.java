package io.zkfence.recipes.migration;

import java.util.OptionalLong;

/**
 * This runner is no longer the one allowed to migrate: its lease on the migration lock was lost
 * (a pause or partition past its session) or a newer runner's higher token has already been
 * accepted by the fence. The step named by {@link #migration()} was not applied — in a
 * transactional migration its changes were rolled back — and the runner stopped. Another
 * runner, the newer one, carries on; do not retry with this runner's token.
 */
public final class MigrationFencedException extends MigrationException {

    private static final long serialVersionUID = 1L;

    private final String migration;
    private final long storedToken;

    MigrationFencedException(
            String lockName, long token, String migration, long storedToken, String reason, Throwable cause) {
        super(
                lockName,
                token,
                "migration runner with token " + token + " on lock '" + lockName + "' was fenced out at " + migration
                        + ": " + reason,
                cause);
        this.migration = migration;
        this.storedToken = storedToken;
    }

    /** The step the runner was at, e.g. {@code "V2 add index"}, or what it was doing before the first step. */
    public String migration() {
        return migration;
    }

    /** The newer token the fence had already accepted, when the fence (not the lease) stopped the runner. */
    public OptionalLong storedToken() {
        return storedToken > 0 ? OptionalLong.of(storedToken) : OptionalLong.empty();
    }

    /** Whether the database's fence, rather than the runner's own lease check, stopped the runner. */
    public boolean rejectedByFence() {
        return storedToken > 0;
    }
}
