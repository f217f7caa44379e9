package io.zkfence.samples.jdbc;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * fencing-jdbc with nothing but JDBC: no jOOQ on the class path, to compile or to run
 * (consumer-check's jdbc-without-jooq project builds and runs it that way). The current holder of
 * the lock on a SKU (token 2) sets its stock; a paused former holder (token 1) then tries to, and
 * the database refuses it; the next holder (token 3) writes in a transaction it manages.
 */
public final class PlainJdbcFencing {

    private PlainJdbcFencing() {}

    /**
     * Runs the writes on the database behind {@code dataSource}: the current holder's, the former
     * holder's (refused), then the next holder's in a transaction it manages itself.
     *
     * @return what the stale write got and the stock left, e.g.
     *         {@code stale write refused: presented 1, stored 2; stock 30 at token 3}
     */
    public static String run(DataSource dataSource) {
        createStock(dataSource);
        String outcome;
        // snippet:plain-jdbc
        JdbcFence fence = JdbcFence.create(dataSource); // the dialect is detected from a connection
        fence.createIfMissing(); // or ship the dialect's DDL as a migration

        // The current holder, token 2: the fence advances, then its writes, one transaction.
        fence.inTransaction("inventory:sku:123", 2, c -> setStock(c, "123", 40));
        try {
            // A former holder that paused past its lease, token 1: refused, its work never runs.
            fence.inTransaction("inventory:sku:123", 1, c -> setStock(c, "123", 99));
            outcome = "stale write accepted";
        } catch (JdbcStaleTokenException e) {
            outcome = "stale write refused: presented " + e.presentedToken() + ", stored " + e.storedToken();
        }

        // A transaction you manage yourself: advance the fence first, on the same connection.
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            fence.advance(c, "inventory:sku:123", 3);
            setStock(c, "123", 30);
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("the caller-managed transaction failed", e);
        }
        // end:plain-jdbc
        return outcome + "; stock " + stock(dataSource, "123") + " at token "
                + fence.currentToken("inventory:sku:123").orElseThrow();
    }

    private static int setStock(Connection c, String sku, int quantity) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("update stock set quantity = ? where sku = ?")) {
            ps.setInt(1, quantity);
            ps.setString(2, sku);
            return ps.executeUpdate();
        }
    }

    private static void createStock(DataSource dataSource) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("create table if not exists stock (sku varchar(64) primary key, quantity int not null)");
            s.execute("delete from stock where sku = '123'");
            s.execute("insert into stock (sku, quantity) values ('123', 50)");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the stock table", e);
        }
    }

    private static int stock(DataSource dataSource, String sku) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("select quantity from stock where sku = ?")) {
            ps.setString(1, sku);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : -1;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the stock of " + sku, e);
        }
    }

    /** {@code PlainJdbcFencing [h2-jdbc-url]}, by default an in-memory H2 database. */
    public static void main(String[] args) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(args.length > 0 ? args[0] : "jdbc:h2:mem:plain-jdbc;DB_CLOSE_DELAY=-1");
        System.out.println(run(dataSource));
    }
}
