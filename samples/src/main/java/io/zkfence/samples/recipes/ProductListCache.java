package io.zkfence.samples.recipes;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.cache.CacheRebuild;
import io.zkfence.recipes.cache.JdbcCacheStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The product list every page shows, cached in PostgreSQL and rebuilt by one pod per expiry
 * instead of by every pod at once. Start it on several machines (or terminals): each prints the
 * list every second; when it expires, one of them runs the query, the others keep printing the
 * stale list until the new one is written.
 *
 * <pre>
 * ProductListCache &lt;zookeeper&gt; &lt;jdbc-url&gt; &lt;user&gt; &lt;password&gt;
 * </pre>
 */
public final class ProductListCache {

    private final CacheRebuild<String> cache;
    private final DataSource db;
    private final AtomicInteger queries = new AtomicInteger();

    ProductListCache(LockClient client, DataSource db) {
        this.cache = productCache(client, db);
        this.db = db;
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 4) {
            System.err.println("usage: ProductListCache <zookeeper> <jdbc-url> <user> <password>");
            System.exit(2);
        }
        DataSource db = SampleDatabase.postgres(args[1], args[2], args[3]);
        createTables(db);
        try (LockClient client = LockClient.connect(args[0])) {
            ProductListCache products = new ProductListCache(client, db);
            while (!Thread.currentThread().isInterrupted()) {
                System.out.println(products.productList() + "   (queries run by this pod: " + products.queries() + ")");
                Thread.sleep(1000);
            }
        }
    }

    static void createTables(DataSource db) {
        SampleDatabase.execute(db, "create table if not exists product (name varchar(100) primary key)");
    }

    // snippet:setup
    /** One per pod, at start-up. */
    static CacheRebuild<String> productCache(LockClient client, DataSource db) {
        JdbcCacheStore<String> store = JdbcCacheStore.create(
                db,
                JdbcFence.create(db),
                "product_cache",
                Function.identity(),
                Function.identity()); // the value is already text
        store.createTableIfMissing();
        return CacheRebuild.builder(client, store)
                .freshFor(Duration.ofMinutes(5)) // rebuild 5 min after the last rebuild
                .maxStaleness(Duration.ofMinutes(1)) // until 1 min past that, serve the old list meanwhile
                .waitTimeout(Duration.ofSeconds(10)) // callers with nothing to serve wait this long
                .failureBackoff(Duration.ofSeconds(5)) // after a failed query, wait before trying again
                .build();
    }
    // end:setup

    // snippet:get
    /** Every request on every pod calls this; one pod per expiry runs the query. */
    String productList() {
        return cache.get("product-list", () -> queryProductList(db));
    }
    // end:get

    /** How many times this pod ran the expensive query. */
    int queries() {
        return queries.get();
    }

    private String queryProductList(DataSource db) {
        queries.incrementAndGet();
        try (Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("select coalesce(string_agg(name, ',' order by name), '') from product")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("querying the product list failed", e);
        }
    }
}
