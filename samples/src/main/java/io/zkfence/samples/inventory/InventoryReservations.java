package io.zkfence.samples.inventory;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.samples.Schema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A critical section: reserving stock of one SKU. The lock {@code inventory:sku:<sku>} makes
 * reservations of a SKU take turns; the fence makes the database refuse the writes of a holder
 * whose turn is over (paused past its session while the next holder wrote).
 */
public final class InventoryReservations {

    private final LockClient locks;
    private final JdbcFence fence;

    public InventoryReservations(LockClient locks, DataSource pool) {
        this.locks = locks;
        this.fence = JdbcFence.create(pool); // fence table zkfence_fence, dialect from the pool
    }

    // snippet:reserve
    /**
     * Reserves {@code quantity} units of {@code sku} for an order.
     *
     * @return false if fewer units are left
     * @throws io.zkfence.jdbc.JdbcStaleTokenException if this holder's lease ran out and a newer
     *         holder has written since; nothing was written
     */
    public boolean reserve(String sku, String orderId, int quantity) {
        String lockName = "inventory:sku:" + sku;
        try (Lease lease = locks.lock(lockName).acquire(Duration.ofSeconds(10))) {
            long token = lease.token();
            // One transaction: the fence checks the token first, then the read and the writes.
            return fence.inTransaction(lockName, token, connection -> {
                int available = stock(connection, sku);
                if (available < quantity) {
                    return false;
                }
                update(connection, "update inventory_stock set quantity = ? where sku = ?", available - quantity, sku);
                update(
                        connection,
                        "insert into inventory_reservation (order_id, sku, quantity, token)" + " values (?, ?, ?, ?)",
                        orderId,
                        sku,
                        quantity,
                        token);
                return true;
            });
        }
    }
    // end:reserve

    private static int stock(Connection c, String sku) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select quantity from inventory_stock where sku = ?")) {
            ps.setString(1, sku);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : 0;
            }
        }
    }

    private static void update(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            ps.executeUpdate();
        }
    }

    /** {@code InventoryReservations <zookeeper> <jdbc-url> <user> <password> <sku> <order-id> <quantity>} */
    public static void main(String[] args) {
        // snippet:pool
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[1]); // e.g. jdbc:postgresql://db:5432/shop
        config.setUsername(args[2]);
        config.setPassword(args[3]);
        config.setMaximumPoolSize(10);
        try (HikariDataSource pool = new HikariDataSource(config);
                LockClient locks = LockClient.connect(args[0])) {
            JdbcFence.create(pool).createIfMissing(); // or ship the DDL in your migrations
            Schema.apply(pool, InventoryReservations.class);
            InventoryReservations reservations = new InventoryReservations(locks, pool);
            boolean done = reservations.reserve(args[4], args[5], Integer.parseInt(args[6]));
            System.out.println(
                    args[5] + (done ? ": reserved " : ": not enough stock for ") + args[6] + " of " + args[4]);
        }
        // end:pool
    }
}
