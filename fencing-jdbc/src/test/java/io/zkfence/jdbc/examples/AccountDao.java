package io.zkfence.jdbc.examples;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import io.zkfence.jdbc.TokenColumn;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;

/** The token-column pattern quoted in docs/fencing-jdbc.md: the row carries its own token. */
public final class AccountDao {

    private static final Table<Record> ACCOUNT = table(unquotedName("zk_account"));
    private static final Field<Long> ID = field(unquotedName("id"), Long.class);
    private static final Field<Long> BALANCE = field(unquotedName("balance"), Long.class);

    private final DSLContext dsl;

    public AccountDao(DSLContext dsl) {
        this.dsl = dsl;
    }

    // snippet:token-column
    private static final TokenColumn FENCE = TokenColumn.named("fence_token");

    /** Throws StaleTokenException if a newer holder wrote the row, RowNotFoundException if none. */
    public void setBalance(long accountId, long balance, long token) {
        FENCE.update(dsl, ACCOUNT, ID.eq(accountId), token, Map.of(BALANCE, balance));
    }

    /** The same by hand: compose the condition, explain a zero count. */
    public void setBalanceByHand(long accountId, long balance, long token) {
        dsl.transaction(trx -> {
            int updated = trx.dsl()
                    .update(ACCOUNT)
                    .set(BALANCE, balance)
                    .set(FENCE.field(), token)
                    .where(ID.eq(accountId).and(FENCE.admits(token)))
                    .execute();
            if (updated == 0) {
                FENCE.explainNoMatch(trx.dsl(), ACCOUNT, ID.eq(accountId), token); // throws
            }
        });
    }
    // end:token-column
}
