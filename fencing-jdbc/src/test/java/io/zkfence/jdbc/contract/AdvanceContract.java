package io.zkfence.jdbc.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcFenceException;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.jdbc.JooqFence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Accept and reject: the token rules of the fence and the atomicity of a fenced unit of work,
 * through every entry point, at READ COMMITTED and REPEATABLE READ.
 */
public abstract class AdvanceContract extends FenceTestBase {

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ})
    void newerTokenIsAcceptedAndTheWorkIsCommitted(int isolation) throws SQLException {
        JdbcFence fence = fence(isolation);
        String key = newKey();
        fence.inTransaction(key, 10, c -> {
            write(c, key, "first");
            return null;
        });

        String result = fence.inTransaction(key, 11, c -> {
            assertThat(c.getTransactionIsolation()).isEqualTo(isolation);
            write(c, key, "second");
            return "done";
        });

        assertThat(result).isEqualTo("done");
        assertThat(fence.currentToken(key)).hasValue(11);
        assertThat(writes(key)).containsExactly("first", "second");
    }

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ})
    void equalTokenIsAcceptedSoOneHolderCanWriteTwice(int isolation) throws SQLException {
        JdbcFence fence = fence(isolation);
        String key = newKey();
        fence.inTransaction(key, 7, c -> {
            write(c, key, "a");
            return null;
        });
        fence.inTransaction(key, 7, c -> {
            write(c, key, "b");
            return null;
        });

        assertThat(fence.currentToken(key)).hasValue(7);
        assertThat(writes(key)).containsExactly("a", "b");
    }

    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ})
    void lowerTokenIsRejectedAndItsWorkNeverRuns(int isolation) throws SQLException {
        JdbcFence fence = fence(isolation);
        String key = newKey();
        fence.inTransaction(key, 20, c -> {
            write(c, key, "newer");
            return null;
        });
        AtomicBoolean ran = new AtomicBoolean();

        JdbcStaleTokenException e = assertThrows(
                JdbcStaleTokenException.class,
                () -> fence.inTransaction(key, 19, c -> {
                    ran.set(true);
                    write(c, key, "stale");
                    return null;
                }));

        assertThat(e.resourceKey()).hasValue(key);
        assertThat(e.presentedToken()).isEqualTo(19);
        assertThat(e.storedToken()).isEqualTo(20);
        assertThat(e.getMessage()).contains(key, "19", "20", "zkfence_fence");
        assertThat(ran).isFalse();
        assertThat(fence.currentToken(key)).hasValue(20);
        assertThat(writes(key)).containsExactly("newer");
    }

    @Test
    void staleTokenForASecondKeyRollsBackTheWholeUnitOfWork() throws SQLException {
        String orders = newKey();
        String stock = newKey();
        fence.claim(stock, 50);

        assertThrows(
                JdbcStaleTokenException.class,
                () -> fence.inTransaction(orders, 5, c -> {
                    write(c, orders, "order written before the second fence");
                    fence.advance(c, stock, 5);
                    return null;
                }));

        assertThat(writes(orders)).isEmpty();
        assertThat(fence.currentToken(orders))
                .as("the first key's advance was rolled back too")
                .isEmpty();
        assertThat(fence.currentToken(stock)).hasValue(50);
    }

    @Test
    void failingWorkRollsBackTheFenceAdvanceAndKeepsItsException() throws SQLException {
        String key = newKey();
        fence.claim(key, 3);
        IllegalStateException boom = new IllegalStateException("business rule violated");

        IllegalStateException thrown = assertThrows(
                IllegalStateException.class,
                () -> fence.inTransaction(key, 4, c -> {
                    write(c, key, "doomed");
                    throw boom;
                }));

        assertThat(thrown).isSameAs(boom);
        assertThat(fence.currentToken(key)).hasValue(3);
        assertThat(writes(key)).isEmpty();
    }

    @Test
    void sqlErrorInTheWorkIsTranslatedWithItsCauseAndRolledBack() throws SQLException {
        String key = newKey();

        JdbcFenceException e = assertThrows(
                JdbcFenceException.class,
                () -> fence.inTransaction(key, 4, c -> {
                    write(c, key, "doomed");
                    try (Statement s = c.createStatement()) {
                        s.execute("insert into zk_ledger (resource_key) values ('missing writer column')");
                    }
                    return null;
                }));

        assertThat(e.getCause()).isInstanceOf(SQLException.class);
        assertThat(e.resourceKey()).hasValue(key);
        assertThat(e.getMessage()).contains(key, "unit of work");
        assertThat(fence.currentToken(key)).isEmpty();
        assertThat(writes(key)).isEmpty();
    }

    @Test
    void firstUseOfAKeyCreatesItsRowWithHolderAndTime() throws SQLException {
        String key = newKey();
        JdbcFence labelled = JdbcFence.create(
                engine().dataSource(),
                FenceConfig.builder(engine().dialect())
                        .holderLabel("orders-service@host-7")
                        .build());
        assertThat(labelled.currentToken(key)).isEmpty();

        labelled.claim(key, 1);

        assertThat(labelled.currentToken(key)).hasValue(1);
        try (Connection c = engine().connection();
                PreparedStatement ps =
                        c.prepareStatement("select holder, updated_at from zkfence_fence where resource_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("orders-service@host-7");
                assertThat(rs.getTimestamp(2)).isNotNull();
            }
        }
    }

    @Test
    void keysAreIndependentAndComparedExactly() {
        String key = newKey();
        fence.claim(key, 100);

        fence.claim(key.toUpperCase(), 1);
        fence.claim(key + " ", 2);

        assertThat(fence.currentToken(key)).hasValue(100);
        assertThat(fence.currentToken(key.toUpperCase())).hasValue(1);
        assertThat(fence.currentToken(key + " ")).hasValue(2);
    }

    @Test
    void largestTokensAreAccepted() {
        String key = newKey();
        fence.claim(key, Long.MAX_VALUE - 1);
        fence.claim(key, Long.MAX_VALUE);

        assertThrows(JdbcStaleTokenException.class, () -> fence.claim(key, Long.MAX_VALUE - 1));
        assertThat(fence.currentToken(key)).hasValue(Long.MAX_VALUE);
    }

    @Test
    void callerManagedConnectionTransactionIsFencedAndRolledBackByTheCaller() throws SQLException {
        String key = newKey();
        try (Connection c = engine().connection()) {
            c.setAutoCommit(false);
            fence.advance(c, key, 8);
            write(c, key, "holder 8");
            c.commit();

            assertThrows(JdbcStaleTokenException.class, () -> fence.advance(c, key, 7));
            c.rollback();
            c.setAutoCommit(true);
        }

        assertThat(fence.currentToken(key)).hasValue(8);
        assertThat(writes(key)).containsExactly("holder 8");
    }

    @Test
    void callerManagedAdvanceIsUndoneWhenTheCallerRollsBack() throws SQLException {
        String key = newKey();
        fence.claim(key, 1);
        try (Connection c = engine().connection()) {
            c.setAutoCommit(false);
            fence.advance(c, key, 9);
            write(c, key, "abandoned");
            c.rollback();
            c.setAutoCommit(true);
        }

        assertThat(fence.currentToken(key)).hasValue(1);
        assertThat(writes(key)).isEmpty();
    }

    @Test
    void jooqTransactionIsFencedAndAStaleOneIsRolledBackByJooq() throws SQLException {
        String key = newKey();
        var dsl = engine().dsl();
        var ledger = DSL.table(DSL.unquotedName("zk_ledger"));
        var resourceKey = DSL.field(DSL.unquotedName("resource_key"), String.class);
        var writer = DSL.field(DSL.unquotedName("writer"), String.class);

        dsl.transaction(trx -> {
            JooqFence.advance(fence, trx.dsl(), key, 30);
            trx.dsl()
                    .insertInto(ledger, resourceKey, writer)
                    .values(key, "jooq 30")
                    .execute();
        });
        assertThrows(
                JdbcStaleTokenException.class,
                () -> dsl.transaction(trx -> {
                    trx.dsl()
                            .insertInto(ledger, resourceKey, writer)
                            .values(key, "jooq 29")
                            .execute();
                    JooqFence.advance(fence, trx.dsl(), key, 29);
                }));

        assertThat(fence.currentToken(key)).hasValue(30);
        assertThat(writes(key)).containsExactly("jooq 30");
    }

    @Test
    void currentTokenOfAnUnknownKeyIsEmpty() {
        assertThat(fence.currentToken(newKey())).isEqualTo(OptionalLong.empty());
    }
}
