package io.zkfence.jdbc.examples;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JooqFence;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;

/** The jOOQ DAO pattern quoted in docs/fencing-jdbc.md. */
// snippet:jooq-dao
public final class JooqInventoryDao {

    private static final Table<Record> STOCK = table(unquotedName("zk_stock"));
    private static final Field<String> SKU = field(unquotedName("sku"), String.class);
    private static final Field<Integer> QUANTITY = field(unquotedName("quantity"), Integer.class);

    private final DSLContext dsl;
    private final JdbcFence fence;

    public JooqInventoryDao(DSLContext dsl, JdbcFence fence) {
        this.dsl = dsl;
        this.fence = fence;
    }

    /** Sets a SKU's stock. The caller holds the lock "inventory:" + sku, granted with this token. */
    public void setStock(String sku, int quantity, long token) {
        dsl.transaction(trx -> {
            JooqFence.advance(fence, trx.dsl(), "inventory:" + sku, token); // first statement of the transaction
            trx.dsl().update(STOCK).set(QUANTITY, quantity).where(SKU.eq(sku)).execute();
        });
    }
}
// end:jooq-dao
