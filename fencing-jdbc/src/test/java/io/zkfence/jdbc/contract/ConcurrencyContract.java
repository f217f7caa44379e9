package io.zkfence.jdbc.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.jdbc.JooqFence;
import io.zkfence.jdbc.SerializationConflictException;
import io.zkfence.jdbc.TokenColumn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Races between a stale and a newer holder on one fence row, made deterministic with latches
 * and the engine's own view of lock waits (no sleeps), at READ COMMITTED and REPEATABLE READ.
 */
public abstract class ConcurrencyContract extends FenceTestBase {

    private static final Table<Record> ACCOUNT = DSL.table(DSL.unquotedName("zk_account"));
    private static final Field<Long> ID = DSL.field(DSL.unquotedName("id"), Long.class);
    private static final Field<Long> BALANCE = DSL.field(DSL.unquotedName("balance"), Long.class);

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ})
    void staleWriterBlockedBehindAnOpenNewerTransactionIsRejectedOnceItCommits(int isolation) throws SQLException {
        JdbcFence fence = fence(isolation);
        String key = newKey();
        fence.claim(key, 1);
        CountDownLatch newerAdvanced = new CountDownLatch(1);
        CountDownLatch commitNewer = new CountDownLatch(1);
        AtomicBoolean staleWorkRan = new AtomicBoolean();

        Future<Object> newer = executor.submit(() -> fence.inTransaction(key, 5, c -> {
            write(c, key, "newer");
            newerAdvanced.countDown();
            await(commitNewer);
            return null;
        }));
        await(newerAdvanced);
        Future<Object> stale = executor.submit(() -> retryingConflicts(() -> fence.inTransaction(key, 3, c -> {
            staleWorkRan.set(true);
            write(c, key, "stale");
            return null;
        })));
        awaitLockWaiter();
        commitNewer.countDown();

        resultOf(newer);
        assertThat(failureOf(stale)).isInstanceOf(JdbcStaleTokenException.class);
        assertThat(staleWorkRan).isFalse();
        assertThat(writes(key)).containsExactly("newer");
        assertThat(fence.currentToken(key)).hasValue(5);
    }

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ})
    void newerWriterWaitsForAnOpenOlderTransactionAndThenWins(int isolation) throws SQLException {
        JdbcFence fence = fence(isolation);
        String key = newKey();
        fence.claim(key, 1);
        CountDownLatch olderAdvanced = new CountDownLatch(1);
        CountDownLatch commitOlder = new CountDownLatch(1);

        Future<Object> older = executor.submit(() -> fence.inTransaction(key, 3, c -> {
            write(c, key, "older");
            olderAdvanced.countDown();
            await(commitOlder);
            return null;
        }));
        await(olderAdvanced);
        Future<Object> newer = executor.submit(() -> retryingConflicts(() -> fence.inTransaction(key, 5, c -> {
            write(c, key, "newer");
            return null;
        })));
        awaitLockWaiter();
        commitOlder.countDown();

        resultOf(older);
        resultOf(newer);
        assertThat(writes(key)).containsExactly("newer", "older");
        assertThat(fence.currentToken(key)).hasValue(5);
        assertThrows(JdbcStaleTokenException.class, () -> fence.claim(key, 3));
    }

    @Test
    void concurrentFirstUseOfANewKeyCreatesOneRowAndRejectsTheStaleWriter() throws SQLException {
        String key = newKey();
        CountDownLatch newerAdvanced = new CountDownLatch(1);
        CountDownLatch commitNewer = new CountDownLatch(1);

        Future<Object> newer = executor.submit(() -> fence.inTransaction(key, 5, c -> {
            write(c, key, "newer");
            newerAdvanced.countDown();
            await(commitNewer);
            return null;
        }));
        await(newerAdvanced);
        Future<Object> stale = executor.submit(() -> retryingConflicts(() -> fence.inTransaction(key, 3, c -> {
            write(c, key, "stale");
            return null;
        })));
        awaitLockWaiter();
        commitNewer.countDown();

        resultOf(newer);
        assertThat(failureOf(stale)).isInstanceOf(JdbcStaleTokenException.class);
        assertThat(writes(key)).containsExactly("newer");
        assertThat(fenceRows(key)).isEqualTo(1);
    }

    @Test
    void concurrentFirstUseOfANewKeyLetsTheNewerWriterFollowTheOlder() throws SQLException {
        String key = newKey();
        CountDownLatch olderAdvanced = new CountDownLatch(1);
        CountDownLatch commitOlder = new CountDownLatch(1);

        Future<Object> older = executor.submit(() -> fence.inTransaction(key, 3, c -> {
            write(c, key, "older");
            olderAdvanced.countDown();
            await(commitOlder);
            return null;
        }));
        await(olderAdvanced);
        Future<Object> newer = executor.submit(() -> retryingConflicts(() -> fence.inTransaction(key, 5, c -> {
            write(c, key, "newer");
            return null;
        })));
        awaitLockWaiter();
        commitOlder.countDown();

        resultOf(older);
        resultOf(newer);
        assertThat(writes(key)).containsExactly("newer", "older");
        assertThat(fence.currentToken(key)).hasValue(5);
        assertThat(fenceRows(key)).isEqualTo(1);
    }

    @Test
    void claimCutsOffAStaleWriterBeforeTheNewHolderWrites() throws SQLException {
        String key = newKey();
        fence.inTransaction(key, 3, c -> {
            write(c, key, "old holder, before its pause");
            return null;
        });

        fence.claim(key, 4); // the new holder, straight after acquiring the lock
        AtomicBoolean staleWorkRan = new AtomicBoolean();
        JdbcStaleTokenException e = assertThrows(
                JdbcStaleTokenException.class,
                () -> fence.inTransaction(key, 3, c -> {
                    staleWorkRan.set(true);
                    write(c, key, "old holder, after its pause");
                    return null;
                }));

        assertThat(e.storedToken()).isEqualTo(4);
        assertThat(staleWorkRan).isFalse();
        assertThat(writes(key)).containsExactly("old holder, before its pause");
    }

    @Test
    void claimWaitsForAnOpenOlderTransactionThenCutsItsHolderOff() throws SQLException {
        String key = newKey();
        CountDownLatch olderAdvanced = new CountDownLatch(1);
        CountDownLatch commitOlder = new CountDownLatch(1);
        Future<Object> older = executor.submit(() -> fence.inTransaction(key, 3, c -> {
            write(c, key, "older, in flight");
            olderAdvanced.countDown();
            await(commitOlder);
            return null;
        }));
        await(olderAdvanced);

        Future<Object> claim = executor.submit(() -> {
            fence.claim(key, 4);
            return null;
        });
        awaitLockWaiter();
        assertThat(claim).isNotDone();
        commitOlder.countDown();
        resultOf(older);
        resultOf(claim);

        assertThrows(
                JdbcStaleTokenException.class,
                () -> fence.inTransaction(key, 3, c -> {
                    write(c, key, "older, after the claim");
                    return null;
                }));
        assertThat(writes(key)).containsExactly("older, in flight");
        assertThat(fence.currentToken(key)).hasValue(4);
    }

    @Test
    void lockWaitThatTimesOutIsRetryableAndNotStale() throws SQLException {
        String key = newKey();
        fence.claim(key, 1);
        CountDownLatch olderAdvanced = new CountDownLatch(1);
        CountDownLatch commitOlder = new CountDownLatch(1);
        Future<Object> older = executor.submit(() -> fence.inTransaction(key, 3, c -> {
            write(c, key, "older");
            olderAdvanced.countDown();
            await(commitOlder);
            return null;
        }));
        await(olderAdvanced);
        JdbcFence impatient =
                JdbcFence.create(engine().boundedLockWaitDataSource(), FenceConfig.defaults(engine().dialect()));
        AtomicBoolean workRan = new AtomicBoolean();

        SerializationConflictException e = assertThrows(
                SerializationConflictException.class,
                () -> impatient.inTransaction(key, 5, c -> {
                    workRan.set(true);
                    write(c, key, "newer, first attempt");
                    return null;
                }));

        assertThat(e.getMessage()).contains(key, "5", "timed out waiting for a lock", "retry");
        assertThat(e.getCause()).isInstanceOf(SQLException.class);
        assertThat(workRan).isFalse();
        commitOlder.countDown();
        resultOf(older);
        impatient.inTransaction(
                key,
                5,
                c -> { // the retry, once the older transaction is gone
                    write(c, key, "newer, retried");
                    return null;
                });
        assertThat(writes(key)).containsExactly("newer, retried", "older");
        assertThat(fence.currentToken(key)).hasValue(5);
    }

    @Test
    void tokenColumnUpdateWhoseLockWaitTimesOutIsRetryable() {
        long account = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        engine().dsl().insertInto(ACCOUNT, ID, BALANCE).values(account, 100L).execute();
        TokenColumn tokens = TokenColumn.named("fence_token");
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<Object> holder = executor.submit(() -> {
            engine().dsl().transaction(trx -> {
                tokens.update(trx.dsl(), ACCOUNT, ID.eq(account), 3, Map.of(BALANCE, 90L));
                locked.countDown();
                await(release);
            });
            return null;
        });
        await(locked);
        DSLContext impatient =
                DSL.using(engine().boundedLockWaitDataSource(), JooqFence.sqlDialect(engine().dialect()));

        SerializationConflictException e = assertThrows(
                SerializationConflictException.class,
                () -> tokens.update(impatient, ACCOUNT, ID.eq(account), 5, Map.of(BALANCE, 50L)));

        assertThat(e.getMessage()).contains("zk_account", "timed out waiting for a lock");
        release.countDown();
        resultOf(holder);
        assertThat(tokens.update(impatient, ACCOUNT, ID.eq(account), 5, Map.of(BALANCE, 50L)))
                .isEqualTo(1);
    }

    @Test
    void snapshotConflictAtRepeatableReadIsRetryableAndNotStale() throws SQLException {
        String key = newKey();
        fence.claim(key, 1);
        try (Connection c = engine().snapshotIsolationDataSource().getConnection()) {
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setAutoCommit(false);
            assertThat(readToken(c, key)).as("snapshot taken").isEqualTo(1);

            fence.claim(key, 5); // another holder commits after our snapshot

            SerializationConflictException e =
                    assertThrows(SerializationConflictException.class, () -> fence.advance(c, key, 7));
            assertThat(e.resourceKey()).hasValue(key);
            assertThat(e.token()).hasValue(7);
            assertThat(e.getMessage()).contains("retry");
            assertThat(e.getCause()).isInstanceOf(SQLException.class);
            c.rollback();
            c.setAutoCommit(true);
        }

        fence.claim(key, 7); // the retry, in a fresh transaction
        assertThat(fence.currentToken(key)).hasValue(7);
    }

    @Test
    void serializationFailureInsideTheWorkIsRetryableAndRollsBackTheAdvance() throws SQLException {
        JdbcFence fence = JdbcFence.create(
                engine().snapshotIsolationDataSource(),
                FenceConfig.builder(engine().dialect())
                        .transactionIsolation(Connection.TRANSACTION_REPEATABLE_READ)
                        .build());
        String key = newKey();
        long account = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        engine().dsl().insertInto(ACCOUNT, ID, BALANCE).values(account, 100L).execute();

        SerializationConflictException e = assertThrows(
                SerializationConflictException.class,
                () -> fence.inTransaction(key, 1, c -> {
                    DSLContext trx = DSL.using(c, JooqFence.sqlDialect(engine().dialect()));
                    assertThat(trx.select(BALANCE)
                                    .from(ACCOUNT)
                                    .where(ID.eq(account))
                                    .fetchSingle(BALANCE))
                            .as("read into the snapshot")
                            .isEqualTo(100L);
                    resultOf(executor.submit(() -> engine().dsl()
                            .update(ACCOUNT)
                            .set(BALANCE, 50L)
                            .where(ID.eq(account))
                            .execute()));
                    trx.update(ACCOUNT).set(BALANCE, 150L).where(ID.eq(account)).execute();
                    return null;
                }));

        assertThat(e.getCause()).isInstanceOf(DataAccessException.class);
        assertThat(e.resourceKey()).hasValue(key);
        assertThat(fence.currentToken(key)).as("advance rolled back").isEmpty();
        assertThat(engine().dsl()
                        .select(BALANCE)
                        .from(ACCOUNT)
                        .where(ID.eq(account))
                        .fetchSingle(BALANCE))
                .isEqualTo(50L);
    }

    private static long readToken(Connection c, String key) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("select fence_token from zkfence_fence where resource_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(1);
            }
        }
    }

    private int fenceRows(String key) throws SQLException {
        try (Connection c = engine().connection();
                PreparedStatement ps =
                        c.prepareStatement("select count(*) from zkfence_fence where resource_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
