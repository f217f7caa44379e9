package io.zkfence.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;
import java.util.function.Supplier;
import org.h2.jdbcx.JdbcDataSource;

/**
 * What a plain-JDBC user does with the fence, run by {@link WithoutJooqTest} in a class loader that
 * has no jOOQ: every entry point that takes no jOOQ type, and the error classification. Returns
 * what it saw, one line per step.
 */
public final class PlainJdbcProgram implements Supplier<String> {

    @Override
    public String get() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:no-jooq-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        StringBuilder seen = new StringBuilder();

        JdbcFence fence = JdbcFence.create(dataSource);
        seen.append("dialect ").append(fence.config().dialect()).append('\n');
        try {
            fence.currentToken("sku-1");
        } catch (FenceTableMissingException e) {
            seen.append("missing table ").append(e.table()).append('\n');
        }
        fence.createIfMissing();
        fence.claim("sku-1", 2);
        fence.inTransaction("sku-1", 2, c -> null);
        try {
            fence.inTransaction("sku-1", 1, c -> null);
        } catch (JdbcStaleTokenException e) {
            seen.append("stale ")
                    .append(e.presentedToken())
                    .append(" < ")
                    .append(e.storedToken())
                    .append('\n');
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            fence.advance(c, "sku-1", 3);
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        seen.append("stored ").append(fence.currentToken("sku-1").orElseThrow());
        return seen.toString();
    }

    /** Asks a dialect for its jOOQ dialect: the one call of this program's kind that needs jOOQ. */
    public static final class CallsJooq implements Supplier<Object> {

        @Override
        public Object get() {
            return JooqFence.sqlDialect(FenceDialect.H2);
        }
    }
}
