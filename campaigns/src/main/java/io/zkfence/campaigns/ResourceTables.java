package io.zkfence.campaigns;

import io.zkfence.fencing.StaleTokenException;
import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.SerializationConflictException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The protected resource both campaigns write to, in PostgreSQL: {@code fault_counter} (one counter
 * per resource, {@code res-0} to {@code res-63}), {@code fault_history} (one row per committed write:
 * resource, token, attempt id, counter after) and fencing-jdbc's fence table. A worker increments
 * the counter and appends its row in one fenced unit of work, so the history is the strict judge's
 * record ({@link Checker}).
 */
public final class ResourceTables {

    /** What PostgreSQL holds at the end: the history in commit order and every touched counter. */
    public record Contents(List<HistoryRow> history, Map<String, Long> counters) {}

    private ResourceTables() {}

    /**
     * One fenced unit of work: the counter of {@code resource} incremented and a history row
     * appended, through {@code fence} with {@code token}.
     *
     * @return the attempt's outcome: {@link Attempt#ACCEPTED}, {@link Attempt#STALE} (the fence
     *     refused the token), {@link Attempt#RETRYABLE} (a serialization conflict), or
     *     {@code error: ...} naming any other failure
     */
    public static String write(JdbcFence fence, String resource, long token, String attempt) {
        try {
            fence.inTransaction(resource, token, connection -> {
                long value;
                try (PreparedStatement up = connection.prepareStatement(
                        "update fault_counter set value = value + 1 where resource = ? returning value")) {
                    up.setString(1, resource);
                    try (ResultSet rs = up.executeQuery()) {
                        rs.next();
                        value = rs.getLong(1);
                    }
                }
                try (PreparedStatement ins = connection.prepareStatement(
                        "insert into fault_history (resource, token, attempt, value_after) values (?, ?, ?, ?)")) {
                    ins.setString(1, resource);
                    ins.setLong(2, token);
                    ins.setString(3, attempt);
                    ins.setLong(4, value);
                    ins.executeUpdate();
                }
                return value;
            });
            return Attempt.ACCEPTED;
        } catch (StaleTokenException e) {
            return Attempt.STALE;
        } catch (SerializationConflictException e) {
            return Attempt.RETRYABLE;
        } catch (RuntimeException e) {
            return "error: " + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** Creates the tables, the 64 counters at 0 and the fence table. */
    public static void prepare(String jdbcUrl) {
        try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("create table fault_counter (resource varchar(64) primary key, value bigint not null)");
            s.execute("create table fault_history (id bigserial primary key, resource varchar(64) not null,"
                    + " token bigint not null, attempt varchar(64) not null, value_after bigint not null)");
            for (int i = 0; i < 64; i++) {
                s.execute("insert into fault_counter values ('res-" + i + "', 0)");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare the campaign's tables: " + e.getMessage(), e);
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(jdbcUrl);
        ds.setUser("postgres");
        JdbcFence.create(ds, FenceConfig.defaults(FenceDialect.POSTGRES)).createIfMissing();
    }

    /** Reads the history and the counters of the resources that were written. */
    public static Contents read(String jdbcUrl) {
        List<HistoryRow> history = new ArrayList<>();
        Map<String, Long> counters = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("select id, resource, token, attempt, value_after from fault_history")) {
                while (rs.next()) {
                    history.add(new HistoryRow(
                            rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getLong(5)));
                }
            }
            try (ResultSet rs =
                    s.executeQuery("select resource, value from fault_counter where value > 0 or resource in"
                            + " (select resource from fault_history)")) {
                while (rs.next()) {
                    counters.put(rs.getString(1), rs.getLong(2));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the campaign's tables: " + e.getMessage(), e);
        }
        return new Contents(history, counters);
    }
}
