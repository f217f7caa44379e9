package io.zkfence.spring.boot;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import java.sql.PreparedStatement;
import java.time.Duration;

// snippet:service
/** A service using the starter's beans: the lock's token goes with the write, in one transaction. */
public class InventoryService {

    private final LockClient locks;
    private final JdbcFence fence;

    public InventoryService(LockClient locks, JdbcFence fence) {
        this.locks = locks;
        this.fence = fence;
    }

    public void reserve(String sku, int quantity) {
        String name = "inventory:sku:" + sku;
        try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(5))) {
            lease.checkValid();
            fence.inTransaction(name, lease.token(), connection -> {
                try (PreparedStatement update =
                        connection.prepareStatement("update stock set reserved = reserved + ? where sku = ?")) {
                    update.setInt(1, quantity);
                    update.setString(2, sku);
                    return update.executeUpdate();
                }
            });
        }
    }
}
// end:service
