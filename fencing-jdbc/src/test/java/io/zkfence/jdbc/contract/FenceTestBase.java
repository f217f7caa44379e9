package io.zkfence.jdbc.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.SerializationConflictException;
import io.zkfence.jdbc.testing.Engine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every contract suite needs: the engine under test, a fence over its pool, unique keys,
 * a ledger table standing for the business writes, and tools for deterministic races.
 */
public abstract class FenceTestBase {

    /** Generous bound for waits that normally take milliseconds; only reached on failure. */
    protected static final Duration PATIENCE = Duration.ofSeconds(60);

    protected JdbcFence fence;
    protected ExecutorService executor;

    /** The engine this concrete suite runs on. */
    protected abstract Engine engine();

    @BeforeEach
    void startFence() {
        fence = JdbcFence.create(engine().dataSource(), FenceConfig.defaults(engine().dialect()));
        fence.createIfMissing();
        executor = Executors.newFixedThreadPool(3);
    }

    @AfterEach
    void stopExecutor() throws InterruptedException {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .as("test threads finished")
                .isTrue();
    }

    /** A fence whose own transactions run at the given JDBC isolation level. */
    protected JdbcFence fence(int isolation) {
        return JdbcFence.create(
                engine().dataSource(),
                FenceConfig.builder(engine().dialect())
                        .transactionIsolation(isolation)
                        .build());
    }

    protected static String newKey() {
        return "inventory:sku:" + UUID.randomUUID();
    }

    /** A business write: one ledger row for the key, naming the writer. */
    protected static void write(Connection c, String key, String writer) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("insert into zk_ledger (resource_key, writer) values (?, ?)")) {
            ps.setString(1, key);
            ps.setString(2, writer);
            ps.executeUpdate();
        }
    }

    /** The committed business writes for a key. */
    protected List<String> writes(String key) throws SQLException {
        try (Connection c = engine().connection();
                PreparedStatement ps =
                        c.prepareStatement("select writer from zk_ledger where resource_key = ? order by writer")) {
            ps.setString(1, key);
            List<String> writers = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    writers.add(rs.getString(1));
                }
            }
            return writers;
        }
    }

    protected static void await(CountDownLatch latch) {
        try {
            if (!latch.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("latch not released within " + PATIENCE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for a latch", e);
        }
    }

    /** Waits until the engine reports a session blocked on a row lock held by another. */
    protected void awaitLockWaiter() {
        Awaitility.await("a transaction blocked on the fence row's lock")
                .atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> engine().lockWaiters() > 0);
    }

    /** The result of a future, or the exception that ended it (unwrapped). */
    protected static Throwable failureOf(Future<?> future) {
        try {
            future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("expected the task to fail, but it succeeded");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (TimeoutException e) {
            throw new AssertionError("task did not finish within " + PATIENCE, e);
        }
    }

    protected static <T> T resultOf(Future<T> future) {
        try {
            return future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("task failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (TimeoutException e) {
            throw new AssertionError("task did not finish within " + PATIENCE, e);
        }
    }

    /**
     * Runs a fenced operation the way a caller should: retrying the whole unit of work while
     * the database reports a serialization conflict (a bounded number of times).
     */
    protected static <T> T retryingConflicts(Supplier<T> unitOfWork) {
        SerializationConflictException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                return unitOfWork.get();
            } catch (SerializationConflictException e) {
                last = e;
            }
        }
        throw new AssertionError("still conflicting after 5 attempts", last);
    }
}
