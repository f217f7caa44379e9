package io.zkfence.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.ExecuteListener;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** TokenColumn's calls that run SQL accept only contexts of the supported databases. */
class TokenColumnDialectTest {

    private static final Table<Record> ACCOUNT = DSL.table(DSL.unquotedName("account"));
    private static final Field<Long> ID = DSL.field(DSL.unquotedName("id"), Long.class);
    private static final Field<Long> BALANCE = DSL.field(DSL.unquotedName("balance"), Long.class);

    private final TokenColumn tokens = TokenColumn.named("fence_token");

    @ParameterizedTest
    @EnumSource(FenceDialect.class)
    void everySupportedDialectMapsBackToItself(FenceDialect dialect) {
        assertThat(JooqFence.dialectOf(DSL.using(JooqFence.sqlDialect(dialect)), "test"))
                .isEqualTo(dialect);
    }

    @Test
    void mySqlContextIsRefusedBeforeAnythingIsSent() {
        int[] statements = {0};
        DSLContext mysql = DSL.using(SQLDialect.MYSQL)
                .configuration()
                .derive(ExecuteListener.onStart(ctx -> statements[0]++))
                .dsl();

        IllegalArgumentException update = assertThrows(
                IllegalArgumentException.class, () -> tokens.update(mysql, ACCOUNT, ID.eq(1L), 5, Map.of(BALANCE, 1L)));
        IllegalArgumentException explain =
                assertThrows(IllegalArgumentException.class, () -> tokens.explainNoMatch(mysql, ACCOUNT, ID.eq(1L), 5));

        assertThat(update.getMessage()).contains("MYSQL", "account", "MariaDB", "PostgreSQL", "H2");
        assertThat(explain.getMessage()).contains("MYSQL", "account");
        assertThat(statements[0]).isZero();
    }

    @Test
    void contextWithoutADialectIsRefused() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> tokens.update(DSL.using(SQLDialect.DEFAULT), ACCOUNT, ID.eq(1L), 5, Map.of(BALANCE, 1L)));

        assertThat(e.getMessage()).contains("DEFAULT", "SQLDialect.POSTGRES");
    }
}
