package io.zkfence.shedlock;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.common.PathUtils;

/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} on zkfence: each run of a job holds
 * the zkfence lock named like the job, so its fencing token is available to the task
 * ({@link ZkfenceShedLock#currentToken()}) and every later run, on any replica, has a higher one.
 *
 * <ul>
 * <li><b>One run per occurrence:</b> {@code lock} takes the job's lock without waiting
 *     ({@code tryAcquire}); a replica that finds it held, or held by this provider on another thread,
 *     gets nothing and skips the run.</li>
 * <li><b>lockAtMostFor:</b> when it passes with the task still running, the provider releases the
 *     lock; the next taker gets a higher token, so what the hung task writes later is fenced off by
 *     the resource. A holder whose process dies loses the lock with its ZooKeeper session, earlier
 *     than lockAtMostFor.</li>
 * <li><b>lockAtLeastFor:</b> at lock time the run writes a persistent record
 *     ({@code <recordsPath>/<job>}) saying "locked until lockAtLeastUntil"; a later {@code lock}
 *     before that instant gets nothing, even after an early unlock and even if the process that ran
 *     the job has exited. The instants come from ShedLock's {@link ClockProvider} on each replica:
 *     clock skew between replicas shifts lockAtLeastFor by the skew (fencing does not depend on it).</li>
 * <li><b>Extension</b> ({@code SimpleLock.extend}): moves both deadlines from now; refused (empty)
 *     once the run expired or its lease is lost.</li>
 * <li><b>Unlock</b> releases only this run's own queue node: a former holder that unlocks after
 *     its lock passed to another replica cannot release the other's lock, nor move its record.</li>
 * </ul>
 *
 * <p>Thread-safe. The {@code CuratorFramework} is used for the records only and can be the one the
 * {@code LockClient} runs on.
 */
public final class ZkfenceLockProvider implements ExtensibleLockProvider {

    /** Default parent of the lockAtLeastFor records. */
    public static final String DEFAULT_RECORDS_PATH = "/zkfence/shedlock";

    private final LockClient client;
    private final LockAtLeastRecords records;
    private final Set<String> running = ConcurrentHashMap.newKeySet();

    private ZkfenceLockProvider(LockClient client, CuratorFramework curator, String recordsPath) {
        this.client = Objects.requireNonNull(client, "client");
        Objects.requireNonNull(curator, "curator");
        Objects.requireNonNull(recordsPath, "recordsPath");
        try {
            PathUtils.validatePath(recordsPath);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "recordsPath \"" + recordsPath + "\" is not a valid ZooKeeper path: " + e.getMessage(), e);
        }
        this.records =
                new LockAtLeastRecords(curator, recordsPath, client.config().acl());
    }

    /**
     * A provider keeping its lockAtLeastFor records under {@link #DEFAULT_RECORDS_PATH}.
     *
     * @param client  the lock client (its root path holds the job locks)
     * @param curator a started client on the same ensemble, for the records
     * @return the provider
     */
    public static ZkfenceLockProvider create(LockClient client, CuratorFramework curator) {
        return new ZkfenceLockProvider(client, curator, DEFAULT_RECORDS_PATH);
    }

    /**
     * A provider keeping its lockAtLeastFor records under {@code recordsPath}.
     *
     * @param client      the lock client (its root path holds the job locks)
     * @param curator     a started client on the same ensemble, for the records
     * @param recordsPath absolute znode path for the records
     * @return the provider
     * @throws IllegalArgumentException if {@code recordsPath} is not a valid ZooKeeper path
     */
    public static ZkfenceLockProvider create(LockClient client, CuratorFramework curator, String recordsPath) {
        return new ZkfenceLockProvider(client, curator, recordsPath);
    }

    /**
     * Takes the job's lock for one run, or returns empty when another run holds it or the last
     * run's lockAtLeastFor has not passed.
     *
     * @throws LockException (ShedLock's) if ZooKeeper cannot be reached; ShedLock then skips the run
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration config) {
        String name = config.getName();
        if (!running.add(name)) {
            return Optional.empty(); // held by this provider already (lock-core would re-enter on the same thread)
        }
        boolean started = false;
        try {
            Optional<Lease> taken = client.lock(name).tryAcquire();
            if (taken.isEmpty()) {
                return Optional.empty();
            }
            Lease lease = taken.get();
            try {
                LockAtLeastRecords.Entry record = records.read(name);
                if (record.lockedUntil().isAfter(ClockProvider.now())) {
                    lease.release();
                    return Optional.empty();
                }
                ShedLockRun run = new ShedLockRun(name, lease, record, () -> running.remove(name));
                if (!writeRecord(run, config.getLockAtLeastUntil())) {
                    lease.release();
                    return Optional.empty();
                }
                run.expireAt(config.getLockAtMostUntil());
                ZkfenceShedLock.started(run);
                started = true;
                return Optional.of(new RunLock(config, run));
            } catch (Exception e) {
                lease.release();
                throw new LockException(
                        "zkfence: cannot read or write the lockAtLeastFor" + " record of job '" + name + "' at "
                                + records.path(name) + ": " + e,
                        e);
            }
        } catch (io.zkfence.lock.LockException e) {
            throw new LockException("zkfence: cannot take the lock of job '" + name + "': " + e.getMessage(), e);
        } finally {
            if (!started) {
                running.remove(name);
            }
        }
    }

    /** Writes the run's lockAtLeastUntil against the version it last saw; false if another run wrote since. */
    private boolean writeRecord(ShedLockRun run, Instant lockedUntil) throws Exception {
        if (!run.lease().isValid()) {
            return false;
        }
        OptionalLong version =
                records.write(run.name(), run.record(), lockedUntil, run.lease().token());
        if (version.isEmpty()) {
            return false;
        }
        run.record(new LockAtLeastRecords.Entry(lockedUntil, (int) version.getAsLong()));
        return true;
    }

    /** ShedLock's handle on one run; after {@code extend} the new handle takes over the same run. */
    private final class RunLock extends AbstractSimpleLock {

        private final ShedLockRun run;

        RunLock(LockConfiguration config, ShedLockRun run) {
            super(config);
            this.run = run;
        }

        @Override
        protected void doUnlock() {
            run.unlock();
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration newConfig) {
            if (!run.isActive()) {
                return refused();
            }
            try {
                if (!writeRecord(run, newConfig.getLockAtLeastUntil())) {
                    return refused();
                }
            } catch (Exception e) {
                throw new LockException(
                        "zkfence: cannot extend the lockAtLeastFor record of job '" + run.name() + "': " + e, e);
            }
            run.expireAt(newConfig.getLockAtMostUntil());
            return Optional.of(new RunLock(newConfig, run));
        }

        /** ShedLock invalidates this handle even when extension fails, so nobody can unlock the run: end it here. */
        private Optional<SimpleLock> refused() {
            run.unlock();
            return Optional.empty();
        }
    }
}
