package io.zkfence.jdbc.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.ConflictRetry;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.jdbc.SerializationConflictException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two holders creating the fence row of the same new key: at every isolation level the answer
 * is success, {@link JdbcStaleTokenException} for the older token, or the retryable
 * {@link SerializationConflictException} — never a plain {@code FenceException} — and the same
 * interleaving gets a retryable answer (or success) on every engine.
 */
public abstract class NewKeyRaceContract extends FenceTestBase {

    private static final int READ_COMMITTED = Connection.TRANSACTION_READ_COMMITTED;

    /**
     * Deterministic interleaving, driven step by step from the test on two connections: the newer
     * holder's transaction takes its snapshot (its first statement sees no row for the key), the
     * older holder then creates the key's row and commits, and only then does the newer holder's
     * fence statement run.
     */
    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(
            ints = {
                Connection.TRANSACTION_READ_COMMITTED,
                Connection.TRANSACTION_REPEATABLE_READ,
                Connection.TRANSACTION_SERIALIZABLE
            })
    void newerHolderPausedWhileTheKeysRowIsCreatedGetsSuccessOrARetryableConflict(int isolation) throws SQLException {
        String key = newKey();
        JdbcFence older = fence(isolation);
        JdbcFence newer = fence(isolation);
        boolean advanced;
        try (Connection c = engine().connection()) {
            c.setTransactionIsolation(isolation);
            c.setAutoCommit(false);
            try {
                assertThat(storedToken(c, key))
                        .as("no row yet in the newer holder's snapshot")
                        .isNull();

                // On MariaDB at SERIALIZABLE the snapshot read holds a shared gap lock, so the older
                // holder's insert waits for the newer transaction: run it on its own thread and go
                // on once it has committed or is blocked.
                Future<Boolean> olderClaim = executor.submit(() -> advanceOrConflict(older, key, 1));
                Awaitility.await("the older holder committed or blocked")
                        .atMost(PATIENCE)
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> olderClaim.isDone() || engine().lockWaiters() > 0);

                advanced = advanceOrConflict(newer, c, key, 2);
                if (advanced) {
                    write(c, key, "newer");
                    c.commit();
                } else {
                    c.rollback();
                }
                resultOf(olderClaim); // accepted, or a retryable conflict: either is a correct answer
            } finally {
                c.setAutoCommit(true);
            }
        }
        if (isolation == READ_COMMITTED) {
            assertThat(advanced)
                    .as("at READ COMMITTED the fence sees the new row and decides")
                    .isTrue();
        }
        if (!advanced) {
            // The retry the conflict asks for: a new transaction sees the row and wins.
            retryingConflicts(() -> newer.inTransaction(key, 2, c -> {
                write(c, key, "newer");
                return null;
            }));
        }
        assertThat(fence.currentToken(key)).hasValue(2);
        assertThat(writes(key)).containsExactly("newer");
        assertThrows(JdbcStaleTokenException.class, () -> older.claim(key, 1));
    }

    /** The race by brute force: a few threads, each claiming a new key with its own token. */
    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(
            ints = {
                Connection.TRANSACTION_READ_COMMITTED,
                Connection.TRANSACTION_REPEATABLE_READ,
                Connection.TRANSACTION_SERIALIZABLE
            })
    void racingHoldersOfANewKeyEndWithTheHighestTokenAndOnlyRetryableConflicts(int isolation) {
        int holders = 3;
        JdbcFence racing = fence(isolation);
        for (int round = 0; round < 8; round++) {
            String key = newKey();
            CyclicBarrier start = new CyclicBarrier(holders);
            List<Future<Boolean>> calls = new ArrayList<>();
            for (int h = 1; h <= holders; h++) {
                long token = h;
                calls.add(executor.submit(() -> {
                    start.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                    return claimWithBackoff(racing, key, token);
                }));
            }
            List<Boolean> accepted = new ArrayList<>();
            for (Future<Boolean> call : calls) {
                accepted.add(resultOf(call));
            }
            assertThat(accepted.get(holders - 1))
                    .as("the highest token is never refused")
                    .isTrue();
            assertThat(fence.currentToken(key)).hasValue(holders);
        }
    }

    /** Claims, retrying conflicts with the module's jittered back-off: true if accepted, false if stale. */
    private static boolean claimWithBackoff(JdbcFence f, String key, long token) {
        try {
            ConflictRetry.within(PATIENCE).run(() -> {
                f.claim(key, token);
                return null;
            });
            return true;
        } catch (JdbcStaleTokenException e) {
            return false;
        }
    }

    private static boolean advanceOrConflict(JdbcFence f, Connection c, String key, long token) {
        try {
            f.advance(c, key, token);
            return true;
        } catch (SerializationConflictException e) {
            assertThat(e.getMessage()).contains(key);
            return false;
        }
    }

    /** A claim in a transaction of its own: true if accepted, false on a retryable conflict. */
    private static boolean advanceOrConflict(JdbcFence f, String key, long token) {
        try {
            f.claim(key, token);
            return true;
        } catch (SerializationConflictException e) {
            return false;
        }
    }

    private static Long storedToken(Connection c, String key) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("select fence_token from zkfence_fence where resource_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }
}
