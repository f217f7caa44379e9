package io.zkfence.recipes.migration;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.AcquireTimeoutException;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.configuration.Configuration;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Flyway's {@code migrate()} on exactly one pod of a deployment at a time, with every
 * migration step fenced by the runner's token.
 *
 * <pre>{@code
 * FencedFlyway migrations = FencedFlyway.builder(lockClient, "db-migration:user-service",
 *                 Flyway.configure().dataSource(dataSource).locations("classpath:db/migration"))
 *         .waitTimeout(Duration.ofMinutes(10))
 *         .build();
 * MigrationReport report = migrations.migrate();   // at start-up, on every pod
 * }</pre>
 *
 * <p>Every pod calls {@link #migrate()}. The first to get the migration lock migrates; the
 * others wait in line (FIFO) and, when their turn comes, run {@code migrate()} too, which finds
 * the schema current and applies nothing — or, if the previous runner failed, takes over. A pod
 * that waits longer than the wait timeout fails with {@link MigrationLockTimeoutException}.
 *
 * <h2>Fencing</h2>
 *
 * <p>Before the first step (once Flyway has its schema history table), the runner claims a
 * fencing-jdbc fence row ({@code fenceKey}, by default the lock name) with its token, which cuts
 * off every older runner. Then each
 * transactional migration step advances that fence inside its own transaction, just before
 * Flyway commits it: a runner that was paused past its session while a newer runner claimed the
 * fence fails there, and the step it was applying is rolled back. Non-transactional steps
 * (e.g. PostgreSQL's {@code CREATE INDEX CONCURRENTLY}) cannot be fenced atomically: the fence is
 * claimed right before them, which narrows the window but cannot close it. See
 * docs/migration-runner.md.
 *
 * <p>Thread-safe; {@code migrate()} may be called again (e.g. after a failure).
 */
public final class FencedFlyway {

    private static final Logger log = LoggerFactory.getLogger(FencedFlyway.class);
    private static final Duration MAX_WAIT = Duration.ofHours(24);

    private final LockClient client;
    private final String lockName;
    private final String fenceKey;
    private final Configuration flywayConfiguration;
    private final Duration waitTimeout;
    private final boolean createFenceTable;
    private final JdbcFence givenFence;
    private volatile JdbcFence fence;

    private FencedFlyway(Builder b) {
        this.client = b.client;
        this.lockName = b.lockName;
        this.fenceKey = b.fenceKey == null ? b.lockName : b.fenceKey;
        this.flywayConfiguration = b.configuration;
        this.waitTimeout = b.waitTimeout;
        this.createFenceTable = b.createFenceTable;
        this.givenFence = b.fence;
    }

    /**
     * A builder for the runner of one deployment's migrations.
     *
     * @param client        the lock client whose session is the runner's lease
     * @param lockName      the migration lock, one per database schema, e.g.
     *                      {@code "db-migration:user-service"}
     * @param configuration the Flyway configuration (a {@code FluentConfiguration} works); it is
     *                      copied on each {@code migrate()}, with the fence callback added to its
     *                      own callbacks
     */
    public static Builder builder(LockClient client, String lockName, Configuration configuration) {
        return new Builder(client, lockName, configuration);
    }

    /** The migration lock's name. */
    public String lockName() {
        return lockName;
    }

    /** The fencing-jdbc resource key each step advances. */
    public String fenceKey() {
        return fenceKey;
    }

    /**
     * Waits for the migration lock (up to the wait timeout), claims the fence, runs Flyway's
     * {@code migrate()} with every step fenced, and releases the lock.
     *
     * @return what this runner did (0 migrations if another runner had already migrated)
     * @throws MigrationLockTimeoutException if the lock was not granted within the wait timeout
     * @throws MigrationFencedException      if a newer runner took over while this one migrated
     *                                       (lease lost, or the fence rejected its token)
     * @throws MigrationFailedException      if Flyway or the fence failed otherwise, or the
     *                                       connection to ZooKeeper stayed suspended for the
     *                                       lease TTL before a step (not run)
     * @throws io.zkfence.lock.AcquireInterruptedException if the thread was interrupted while
     *                                       waiting (its flag is set again)
     * @throws io.zkfence.lock.CoordinationException       if ZooKeeper refused the operation
     */
    public MigrationReport migrate() {
        FencedLock lock = client.lock(lockName);
        long start = System.nanoTime();
        Lease lease;
        try {
            lease = lock.acquire(waitTimeout);
        } catch (AcquireTimeoutException e) {
            throw new MigrationLockTimeoutException(lockName, waitTimeout, holder(lock), e);
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        long token = lease.token();
        log.info("migration lock '{}' granted with token {} after {} ms", lockName, token, waited.toMillis());
        try (lease) {
            FenceCallback callback = new FenceCallback(lockName, fenceKey, fence(token), lease, createFenceTable);
            MigrateResult result = run(flyway(callback), callback, token);
            String version =
                    result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion;
            log.info(
                    "migration runner with token {} on '{}' applied {} migrations; schema version {}",
                    token,
                    lockName,
                    result.migrationsExecuted,
                    version);
            return new MigrationReport(lockName, token, waited, result.migrationsExecuted, version, result);
        }
    }

    @Override
    public String toString() {
        return "FencedFlyway{lock=" + lockName + ", fenceKey=" + fenceKey + ", waitTimeout=" + waitTimeout + "}";
    }

    private MigrateResult run(Flyway flyway, FenceCallback callback, long token) {
        try {
            return flyway.migrate();
        } catch (FlywayException e) {
            MigrationException stopped = callback.failure();
            if (stopped != null) {
                stopped.addSuppressed(e);
                throw stopped;
            }
            throw new MigrationFailedException(lockName, token, "Flyway migrate failed", e);
        } catch (LockException e) {
            throw new MigrationFailedException(lockName, token, "the migration lock failed while migrating", e);
        }
    }

    private Flyway flyway(Callback fenceCallback) {
        Callback[] callbacks = Stream.concat(
                        Arrays.stream(flywayConfiguration.getCallbacks()), Stream.of(fenceCallback))
                .toArray(Callback[]::new);
        return Flyway.configure(flywayConfiguration.getClassLoader())
                .configuration(flywayConfiguration)
                .callbacks(callbacks)
                .load();
    }

    private JdbcFence fence(long token) {
        JdbcFence f = fence;
        if (f == null) {
            if (givenFence != null) {
                f = givenFence;
            } else {
                try {
                    f = JdbcFence.create(flywayConfiguration.getDataSource());
                } catch (RuntimeException e) {
                    throw new MigrationFailedException(
                            lockName, token, "cannot set up the fence on Flyway's data source", e);
                }
            }
            fence = f;
        }
        return f;
    }

    private String holder(FencedLock lock) {
        try {
            return lock.inspect()
                    .holder()
                    .map(h -> h.ownerId() + " (token " + h.token() + ")")
                    .orElse(null);
        } catch (RuntimeException e) {
            log.debug("could not read the holder of '{}'", lockName, e);
            return null;
        }
    }

    /** Builds a {@link FencedFlyway}. Not thread-safe. */
    public static final class Builder {

        private final LockClient client;
        private final String lockName;
        private final Configuration configuration;
        private String fenceKey;
        private JdbcFence fence;
        private Duration waitTimeout = Duration.ofMinutes(10);
        private boolean createFenceTable = true;

        private Builder(LockClient client, String lockName, Configuration configuration) {
            this.client = Objects.requireNonNull(client, "client");
            this.lockName = lockName;
            this.configuration = Objects.requireNonNull(configuration, "configuration");
        }

        /**
         * The fencing-jdbc resource key the steps advance. Default: the lock name. 1 to 255
         * characters, not blank.
         */
        public Builder fenceKey(String fenceKey) {
            this.fenceKey = fenceKey;
            return this;
        }

        /**
         * The fence to use (its table, columns, isolation). Default: {@code JdbcFence.create} on
         * the Flyway configuration's data source, with the default fence table. It must be on
         * the database being migrated, so the steps' transactions can advance it.
         */
        public Builder fence(JdbcFence fence) {
            this.fence = Objects.requireNonNull(fence, "fence");
            return this;
        }

        /** How long {@code migrate()} waits for another runner to finish. Default 10 min; 1 ms to 24 h. */
        public Builder waitTimeout(Duration waitTimeout) {
            this.waitTimeout = waitTimeout;
            return this;
        }

        /**
         * Whether {@code migrate()} creates the fence table when it is missing (default true).
         * Turn it off when the table is created by other means, e.g. a DBA's script.
         */
        public Builder createFenceTable(boolean createFenceTable) {
            this.createFenceTable = createFenceTable;
            return this;
        }

        /**
         * Validates and builds. Does not touch ZooKeeper or the database.
         *
         * @throws IllegalArgumentException naming the setting and the rule it breaks
         */
        public FencedFlyway build() {
            if (lockName == null) {
                throw new IllegalArgumentException("lockName must not be null");
            }
            client.lock(lockName); // validates the lock name
            if (fenceKey != null && (fenceKey.isBlank() || fenceKey.length() > JdbcFence.MAX_KEY_LENGTH)) {
                throw new IllegalArgumentException("fenceKey must be 1 to " + JdbcFence.MAX_KEY_LENGTH
                        + " characters and not blank, was \"" + fenceKey + "\" (migration lock '" + lockName + "')");
            }
            if (fenceKey == null && lockName.length() > JdbcFence.MAX_KEY_LENGTH) {
                throw new IllegalArgumentException("lockName is longer than a fence key may be ("
                        + JdbcFence.MAX_KEY_LENGTH + " characters); set fenceKey (migration lock '" + lockName + "')");
            }
            Objects.requireNonNull(waitTimeout, "waitTimeout must not be null");
            if (waitTimeout.compareTo(Duration.ofMillis(1)) < 0 || waitTimeout.compareTo(MAX_WAIT) > 0) {
                throw new IllegalArgumentException("waitTimeout must be between 1 ms and 24 h, was " + waitTimeout
                        + " (migration lock '" + lockName + "')");
            }
            DataSource ds = configuration.getDataSource();
            if (fence == null && ds == null) {
                throw new IllegalArgumentException(
                        "the Flyway configuration has no data source, so no fence can be set up on"
                                + " it; configure one or pass fence(...) (migration lock '" + lockName + "')");
            }
            return new FencedFlyway(this);
        }
    }
}
