package io.zkfence.jdbc.examples;

import io.zkfence.jdbc.JdbcFence;
import javax.sql.DataSource;

/** The quick start quoted in fencing-jdbc/README.md and docs/fencing-jdbc.md. */
final class QuickStart {

    private QuickStart() {}

    static JdbcFence run(DataSource dataSource, long token) {
        // snippet:quick-start
        JdbcFence fence = JdbcFence.create(dataSource); // dialect detected, default table
        fence.createIfMissing(); // or ship the DDL in your migrations
        fence.claim("inventory:sku:123", token); // right after acquiring the lock
        fence.inTransaction("inventory:sku:123", token, connection -> {
            // the protected writes, on this connection
            return null;
        });
        // end:quick-start
        return fence;
    }
}
