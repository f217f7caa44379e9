package io.zkfence.recipes.migration;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseListener;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LeaseSuspendedException;
import io.zkfence.lock.LockException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;

/**
 * Fences each migration step of one runner, through Flyway's events:
 *
 * <ul>
 * <li>BEFORE_MIGRATE: creates the fence table if asked to and missing, and claims the fence with
 *     the runner's token, cutting off every older runner. This happens here, after Flyway has
 *     created its schema history table, because Flyway refuses to start on a schema that holds
 *     tables but no history table — and the fence table would be one.</li>
 * <li>BEFORE_EACH_MIGRATE (on the migration's own connection): the runner's lease must be HELD
 *     (a suspended connection is waited for, up to the lease's TTL; still suspended after that,
 *     the runner stops: it cannot tell whether it still holds the lock). A non-transactional
 *     step cannot be fenced atomically, so the fence is claimed again in a short transaction of
 *     its own right before it.</li>
 * <li>AFTER_EACH_MIGRATE of a transactional step: the fence is advanced in the step's own
 *     transaction, after its statements and before Flyway commits it. A runner whose token is
 *     no longer the highest fails there and the step is rolled back with everything it did.
 *     Advancing at the end, not at the start, keeps the fence row unlocked while a long step
 *     runs, so a newer runner's claim is never stuck behind a paused older runner's step.</li>
 * </ul>
 *
 * The first failure is kept so the runner can report it as such (Flyway wraps whatever a
 * callback throws): {@link MigrationFencedException} when the fence rejected the token or the
 * lease was lost, {@link MigrationFailedException} when the lease stayed SUSPECT.
 */
final class FenceCallback implements Callback {

    private final String lockName;
    private final String fenceKey;
    private final JdbcFence fence;
    private final Lease lease;
    private final boolean createFenceTable;
    private volatile boolean claimed;
    private volatile MigrationException failure;

    FenceCallback(String lockName, String fenceKey, JdbcFence fence, Lease lease, boolean createFenceTable) {
        this.lockName = lockName;
        this.fenceKey = fenceKey;
        this.fence = fence;
        this.lease = lease;
        this.createFenceTable = createFenceTable;
    }

    /** The first fencing or lease failure this callback threw, or null. */
    MigrationException failure() {
        return failure;
    }

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.BEFORE_MIGRATE || event == Event.BEFORE_EACH_MIGRATE || event == Event.AFTER_EACH_MIGRATE;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public void handle(Event event, Context context) {
        if (event == Event.BEFORE_MIGRATE) {
            claim("the fence claim before the first step");
            return;
        }
        String step = describe(context.getMigrationInfo());
        boolean transactional = !autoCommit(context.getConnection(), step);
        try {
            if (event == Event.BEFORE_EACH_MIGRATE) {
                awaitHeld();
                lease.checkValid();
                if (!claimed || !transactional) {
                    claim(step);
                }
            } else if (event == Event.AFTER_EACH_MIGRATE && transactional) {
                fence.advance(context.getConnection(), fenceKey, lease.token());
                if (lease.state().isFinal()) {
                    // The fence still admits us (nobody newer has claimed yet), but the lease is
                    // gone: a newer runner may be about to start. Roll this step back and stop.
                    lease.checkValid();
                }
            }
        } catch (JdbcStaleTokenException e) {
            throw fenced(step, e.storedToken(), "the fence has accepted the newer token " + e.storedToken(), e);
        } catch (LeaseSuspendedException e) {
            // Not fenced: nobody is known to have taken over. The runner cannot tell whether its
            // session is alive, so it stops before the step; the next runner retries it.
            throw keep(new MigrationFailedException(
                    lockName,
                    lease.token(),
                    "the connection to ZooKeeper was still"
                            + " suspended before " + step + " (waited up to the lease TTL, "
                            + lease.ttl().toMillis()
                            + " ms); the step was not run",
                    e));
        } catch (LockException e) {
            throw fenced(
                    step,
                    0,
                    "its lease is " + lease.state()
                            + lease.endReason().map(r -> " (" + r + ")").orElse(""),
                    e);
        }
    }

    @Override
    public String getCallbackName() {
        return "zkfence-migration-fence";
    }

    /** Advances the fence to our token in a transaction of its own (creating the table first if asked to). */
    private void claim(String what) {
        try {
            if (createFenceTable && !claimed) {
                fence.createIfMissing();
            }
            fence.claim(fenceKey, lease.token());
            claimed = true;
        } catch (JdbcStaleTokenException e) {
            throw fenced(what, e.storedToken(), "the fence has accepted the newer token " + e.storedToken(), e);
        }
    }

    /** While the connection to ZooKeeper is suspended, wait (up to the lease TTL) to know which way it goes. */
    private void awaitHeld() {
        if (lease.state() != LeaseState.SUSPECT) {
            return;
        }
        CountDownLatch settled = new CountDownLatch(1);
        LeaseListener listener = (l, from, to) -> {
            if (to != LeaseState.SUSPECT) {
                settled.countDown();
            }
        };
        lease.addListener(listener);
        try {
            if (lease.state() == LeaseState.SUSPECT) {
                settled.await(lease.ttl().toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lease.removeListener(listener);
        }
    }

    private MigrationFencedException fenced(String step, long storedToken, String reason, RuntimeException cause) {
        return keep(new MigrationFencedException(lockName, lease.token(), step, storedToken, reason, cause));
    }

    private <E extends MigrationException> E keep(E e) {
        if (failure == null) {
            failure = e;
        }
        return e;
    }

    private static boolean autoCommit(Connection c, String step) {
        try {
            return c.getAutoCommit();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the auto-commit mode of the connection migrating " + step, e);
        }
    }

    static String describe(MigrationInfo m) {
        if (m == null) {
            return "an unknown migration";
        }
        String what = m.getVersion() == null ? "repeatable migration" : "V" + m.getVersion();
        return what + (m.getDescription() == null || m.getDescription().isEmpty() ? "" : " " + m.getDescription())
                + " (" + m.getScript() + ")";
    }
}
