package io.zkfence.jdbc.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.JdbcFenceException;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.jdbc.RowNotFoundException;
import io.zkfence.jdbc.TokenColumn;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Business rows that carry their own token column: the composable condition and the helper
 * that tells a stale token from a missing row.
 */
public abstract class TokenColumnContract extends FenceTestBase {

    private static final Table<Record> ACCOUNT = DSL.table(DSL.unquotedName("zk_account"));
    private static final Field<Long> ID = DSL.field(DSL.unquotedName("id"), Long.class);
    private static final Field<Long> BALANCE = DSL.field(DSL.unquotedName("balance"), Long.class);

    private final TokenColumn tokens = TokenColumn.named("fence_token");
    private DSLContext dsl;
    private long id;

    @BeforeEach
    void newAccount() {
        dsl = engine().dsl();
        id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        dsl.insertInto(ACCOUNT, ID, BALANCE, tokens.field())
                .values(id, 100L, 10L)
                .execute();
    }

    @Test
    void newerTokenUpdatesTheRowAndStampsIt() {
        int updated = tokens.update(dsl, ACCOUNT, ID.eq(id), 11, Map.of(BALANCE, 90L));

        assertThat(updated).isEqualTo(1);
        assertThat(balance()).isEqualTo(90);
        assertThat(storedToken()).isEqualTo(11);
    }

    @Test
    void equalTokenUpdatesTheRow() {
        tokens.update(dsl, ACCOUNT, ID.eq(id), 10, Map.of(BALANCE, 80L));

        assertThat(balance()).isEqualTo(80);
        assertThat(storedToken()).isEqualTo(10);
    }

    @Test
    void equalTokenWithUnchangedValuesStillCountsAsAccepted() {
        tokens.update(dsl, ACCOUNT, ID.eq(id), 12, Map.of(BALANCE, 70L));

        int updated = tokens.update(dsl, ACCOUNT, ID.eq(id), 12, Map.of(BALANCE, 70L));

        assertThat(updated).isEqualTo(1);
        assertThat(balance()).isEqualTo(70);
    }

    @Test
    void lowerTokenIsStaleAndLeavesTheRowUnchanged() {
        JdbcStaleTokenException e = assertThrows(
                JdbcStaleTokenException.class, () -> tokens.update(dsl, ACCOUNT, ID.eq(id), 9, Map.of(BALANCE, 0L)));

        assertThat(e.presentedToken()).isEqualTo(9);
        assertThat(e.storedToken()).isEqualTo(10);
        assertThat(e.getMessage()).containsIgnoringCase("zk_account").contains(Long.toString(id));
        assertThat(balance()).isEqualTo(100);
        assertThat(storedToken()).isEqualTo(10);
    }

    @Test
    void missingRowIsReportedAsNotFoundRatherThanStale() {
        long missing = id == Long.MAX_VALUE - 1 ? 1 : id + 1;
        dsl.deleteFrom(ACCOUNT).where(ID.eq(missing)).execute();

        RowNotFoundException e = assertThrows(
                RowNotFoundException.class, () -> tokens.update(dsl, ACCOUNT, ID.eq(missing), 50, Map.of(BALANCE, 1L)));

        assertThat(e.rowCondition()).contains(Long.toString(missing));
        assertThat(e.token()).hasValue(50);
    }

    @Test
    void rowWithoutATokenYetAdmitsAnyToken() {
        dsl.update(ACCOUNT).setNull(tokens.field()).where(ID.eq(id)).execute();

        tokens.update(dsl, ACCOUNT, ID.eq(id), 1, Map.of(BALANCE, 5L));

        assertThat(storedToken()).isEqualTo(1);
        assertThat(balance()).isEqualTo(5);
    }

    @Test
    void admitsComposesIntoAHandWrittenUpdateAndExplainsAMiss() {
        int updated = dsl.update(ACCOUNT)
                .set(BALANCE, 1L)
                .set(tokens.field(), 8L)
                .where(ID.eq(id).and(tokens.admits(8)))
                .execute();
        assertThat(updated).isZero();

        JdbcStaleTokenException e = assertThrows(
                JdbcStaleTokenException.class,
                () -> dsl.transaction(trx -> tokens.explainNoMatch(trx.dsl(), ACCOUNT, ID.eq(id), 8)));
        assertThat(e.storedToken()).isEqualTo(10);
        assertThat(balance()).isEqualTo(100);
    }

    @Test
    void fencedUpdatesInsideOneTransactionRollBackTogether() {
        long other = id == 1 ? 2 : id - 1;
        dsl.deleteFrom(ACCOUNT).where(ID.eq(other)).execute();
        dsl.insertInto(ACCOUNT, ID, BALANCE, tokens.field())
                .values(other, 100L, 30L)
                .execute();

        assertThrows(
                JdbcStaleTokenException.class,
                () -> dsl.transaction(trx -> {
                    tokens.update(trx.dsl(), ACCOUNT, ID.eq(id), 20, Map.of(BALANCE, 50L));
                    tokens.update(trx.dsl(), ACCOUNT, ID.eq(other), 20, Map.of(BALANCE, 150L));
                }));

        assertThat(balance()).isEqualTo(100);
        assertThat(storedToken()).isEqualTo(10);
    }

    @Test
    void rowCreatedAfterTheUpdateLookedIsUpdatedAndCounted() {
        long fresh = absentId();
        DSLContext racing =
                AfterStatements.on(dsl, () -> insertAccount(fresh, 100, 10)); // after the first UPDATE found nothing

        int updated = tokens.update(racing, ACCOUNT, ID.eq(fresh), 11, Map.of(BALANCE, 90L));

        assertThat(updated).isEqualTo(1);
        assertThat(balance(fresh)).isEqualTo(90);
        assertThat(storedToken(fresh)).isEqualTo(11);
    }

    @Test
    void newerWriteSlippingInAfterTheExplanationIsStaleNotACountedUpdate() {
        long fresh = absentId();
        DSLContext racing = AfterStatements.on(
                dsl,
                () -> insertAccount(fresh, 100, 10), // after the first UPDATE found nothing
                // after the locking read found token 10: in auto-commit its lock is already gone
                () -> dsl.update(ACCOUNT)
                        .set(BALANCE, BALANCE.plus(1000))
                        .set(tokens.field(), 12L)
                        .where(ID.eq(fresh).and(tokens.admits(12)))
                        .execute());

        JdbcStaleTokenException e = assertThrows(
                JdbcStaleTokenException.class,
                () -> tokens.update(racing, ACCOUNT, ID.eq(fresh), 11, Map.of(BALANCE, 90L)));

        assertThat(e.storedToken()).isEqualTo(12);
        assertThat(balance(fresh)).as("only the newer holder's write happened").isEqualTo(1100);
        assertThat(storedToken(fresh)).isEqualTo(12);
    }

    @Test
    void rowDeletedAfterTheExplanationIsReportedMissingNotACountedUpdate() {
        long fresh = absentId();
        DSLContext racing = AfterStatements.on(
                dsl,
                () -> insertAccount(fresh, 100, 10),
                () -> dsl.deleteFrom(ACCOUNT).where(ID.eq(fresh)).execute());

        assertThrows(
                RowNotFoundException.class,
                () -> tokens.update(racing, ACCOUNT, ID.eq(fresh), 11, Map.of(BALANCE, 90L)));

        assertThat(dsl.fetchExists(ACCOUNT, ID.eq(fresh))).isFalse();
    }

    @Test
    void rowsThatKeepChangingBetweenStatementsEndInAClearFailureNotAnEndlessLoop() {
        long fresh = absentId();
        // Not a fenced writer's doing (tokens never go down): an unfenced script flipping the token
        // between a newer one, while our UPDATEs run, and an older one, while we look.
        Runnable newer = () -> setToken(fresh, 12);
        Runnable older = () -> setToken(fresh, 10);
        DSLContext racing =
                AfterStatements.on(dsl, () -> insertAccount(fresh, 100, 10), newer, older, newer, older, newer, older);

        JdbcFenceException e = assertThrows(
                JdbcFenceException.class, () -> tokens.update(racing, ACCOUNT, ID.eq(fresh), 11, Map.of(BALANCE, 90L)));

        assertThat(e).isExactlyInstanceOf(JdbcFenceException.class);
        assertThat(e.getMessage()).containsIgnoringCase("zk_account").contains("kept changing", "nothing was written");
        assertThat(balance(fresh)).isEqualTo(100);
    }

    @Test
    void settingTheTokenColumnYourselfIsRefused() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> tokens.update(dsl, ACCOUNT, ID.eq(id), 11, Map.of(tokens.field(), 99L)));

        assertThat(e.getMessage()).contains("fence_token");
        assertThat(storedToken()).isEqualTo(10);
    }

    @Test
    void nonPositiveTokensAreRefusedBeforeTheUpdate() {
        assertThrows(
                IllegalArgumentException.class, () -> tokens.update(dsl, ACCOUNT, ID.eq(id), 0, Map.of(BALANCE, 1L)));
        assertThrows(IllegalArgumentException.class, () -> tokens.admits(-1));

        assertThat(balance()).isEqualTo(100);
    }

    private long balance() {
        return balance(id);
    }

    private long storedToken() {
        return storedToken(id);
    }

    private long balance(long account) {
        return dsl.select(BALANCE).from(ACCOUNT).where(ID.eq(account)).fetchSingle(BALANCE);
    }

    private long storedToken(long account) {
        return dsl.select(tokens.field()).from(ACCOUNT).where(ID.eq(account)).fetchSingle(tokens.field());
    }

    /** An account id with no row (yet). */
    private long absentId() {
        long fresh = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        dsl.deleteFrom(ACCOUNT).where(ID.eq(fresh)).execute();
        return fresh;
    }

    private void setToken(long account, long token) {
        dsl.update(ACCOUNT).set(tokens.field(), token).where(ID.eq(account)).execute();
    }

    private void insertAccount(long account, long balance, long token) {
        dsl.insertInto(ACCOUNT, ID, BALANCE, tokens.field())
                .values(account, balance, token)
                .execute();
    }
}
