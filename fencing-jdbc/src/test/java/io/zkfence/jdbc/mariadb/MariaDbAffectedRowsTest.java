package io.zkfence.jdbc.mariadb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.jdbc.JooqFence;
import io.zkfence.jdbc.TokenColumn;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With {@code useAffectedRows=true} MariaDB reports changed rather than matched rows, so an
 * admitted update that changes nothing counts 0: the fence must still call it accepted.
 */
class MariaDbAffectedRowsTest {

    private static final Table<Record> ACCOUNT = DSL.table(DSL.unquotedName("zk_account"));
    private static final Field<Long> ID = DSL.field(DSL.unquotedName("id"), Long.class);
    private static final Field<Long> BALANCE = DSL.field(DSL.unquotedName("balance"), Long.class);

    private static HikariDataSource affectedRows;

    @BeforeAll
    static void pool() {
        Engine engine = Engines.mariaDb();
        HikariConfig config = new HikariConfig();
        config.setPoolName("mariadb-affected-rows");
        config.setJdbcUrl(engine.jdbcUrl() + "?useAffectedRows=true");
        config.setUsername("root");
        config.setPassword("");
        config.setMaximumPoolSize(2);
        affectedRows = new HikariDataSource(config);
    }

    @AfterAll
    static void closePool() {
        affectedRows.close();
    }

    @Test
    void unchangedRowWithAnAdmittedTokenIsAcceptedNotStale() {
        DSLContext dsl = DSL.using(affectedRows, JooqFence.sqlDialect(FenceDialect.MARIADB));
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        dsl.insertInto(ACCOUNT, ID, BALANCE, DSL.field(DSL.unquotedName("fence_token"), Long.class))
                .values(id, 10L, 4L)
                .execute();
        TokenColumn tokens = TokenColumn.named("fence_token");

        assertThat(dsl.update(ACCOUNT)
                        .set(BALANCE, 10L)
                        .set(tokens.field(), 4L)
                        .where(ID.eq(id).and(tokens.admits(4)))
                        .execute())
                .as("the driver reports no changed row")
                .isZero();
        assertThat(tokens.update(dsl, ACCOUNT, ID.eq(id), 4, Map.of(BALANCE, 10L)))
                .isEqualTo(1);
        assertThrows(
                JdbcStaleTokenException.class, () -> tokens.update(dsl, ACCOUNT, ID.eq(id), 3, Map.of(BALANCE, 10L)));
    }

    @Test
    void unchangedRowWithAnAdmittedTokenIsAcceptedInsideATransactionToo() {
        DSLContext dsl = DSL.using(affectedRows, JooqFence.sqlDialect(FenceDialect.MARIADB));
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        dsl.insertInto(ACCOUNT, ID, BALANCE, DSL.field(DSL.unquotedName("fence_token"), Long.class))
                .values(id, 10L, 4L)
                .execute();
        TokenColumn tokens = TokenColumn.named("fence_token");

        int updated =
                dsl.transactionResult(trx -> tokens.update(trx.dsl(), ACCOUNT, ID.eq(id), 4, Map.of(BALANCE, 10L)));

        assertThat(updated).isEqualTo(1);
        int newer = dsl.transactionResult(trx -> tokens.update(trx.dsl(), ACCOUNT, ID.eq(id), 5, Map.of(BALANCE, 10L)));
        assertThat(newer)
                .as("a newer token changes the token column, so it counts")
                .isEqualTo(1);
        assertThrows(
                JdbcStaleTokenException.class,
                () -> dsl.transaction(trx -> tokens.update(trx.dsl(), ACCOUNT, ID.eq(id), 4, Map.of(BALANCE, 10L))));
    }

    @Test
    void fenceAcceptsEqualAndRejectsLowerTokensWithAffectedRowCounts() {
        JdbcFence fence = JdbcFence.create(affectedRows, FenceConfig.defaults(FenceDialect.MARIADB));
        fence.createIfMissing();
        String key = "affected-rows:" + UUID.randomUUID();

        fence.claim(key, 9);
        fence.claim(key, 9);

        assertThrows(JdbcStaleTokenException.class, () -> fence.claim(key, 8));
        assertThat(fence.currentToken(key)).hasValue(9);
    }
}
