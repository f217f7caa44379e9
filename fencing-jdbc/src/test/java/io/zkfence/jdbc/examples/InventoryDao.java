package io.zkfence.jdbc.examples;

import io.zkfence.jdbc.JdbcFence;
import java.sql.PreparedStatement;
import javax.sql.DataSource;

/** The plain-JDBC DAO pattern quoted in docs/fencing-jdbc.md. */
// snippet:jdbc-dao
public final class InventoryDao {

    private final JdbcFence fence;

    public InventoryDao(DataSource dataSource) {
        this.fence = JdbcFence.create(dataSource); // dialect detected, default fence table
    }

    /** Sets a SKU's stock. The caller holds the lock "inventory:" + sku, granted with this token. */
    public int setStock(String sku, int quantity, long token) {
        return fence.inTransaction("inventory:" + sku, token, connection -> {
            try (PreparedStatement ps = connection.prepareStatement("update zk_stock set quantity = ? where sku = ?")) {
                ps.setInt(1, quantity);
                ps.setString(2, sku);
                return ps.executeUpdate();
            }
        });
    }
}
// end:jdbc-dao
