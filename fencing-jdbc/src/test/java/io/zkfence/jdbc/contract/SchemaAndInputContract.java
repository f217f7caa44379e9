package io.zkfence.jdbc.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.FenceTableMissingException;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcFenceException;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.jdbc.JooqFence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fence table's life cycle and every bad input: each a clear exception naming the problem,
 * with nothing written.
 */
public abstract class SchemaAndInputContract extends FenceTestBase {

    @Test
    void createIfMissingIsIdempotent() {
        fence.createIfMissing();
        fence.createIfMissing();

        String key = newKey();
        fence.claim(key, 1);
        assertThat(fence.currentToken(key)).hasValue(1);
    }

    @Test
    void concurrentCreateIfMissingCallsAllSucceed() throws Exception {
        // Several pods starting at once, each creating the fence table if it is missing.
        for (int round = 0; round < 3; round++) {
            String table = "zk_fences_" + UUID.randomUUID().toString().replace("-", "");
            JdbcFence pods = JdbcFence.create(
                    engine().dataSource(),
                    FenceConfig.builder(engine().dialect()).table(table).build());
            CyclicBarrier start = new CyclicBarrier(3);
            List<Future<Object>> calls = new ArrayList<>();
            for (int pod = 0; pod < 3; pod++) {
                calls.add(executor.submit(() -> {
                    start.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                    pods.createIfMissing();
                    return null;
                }));
            }
            for (Future<Object> call : calls) {
                resultOf(call);
            }
            String key = newKey();
            pods.claim(key, 2);
            assertThat(pods.currentToken(key)).hasValue(2);
            engine().execute("drop table " + table);
        }
    }

    @Test
    void customTableAndColumnNamesWorkEndToEnd() {
        JdbcFence custom = JdbcFence.create(
                engine().dataSource(),
                FenceConfig.builder(engine().dialect())
                        .table("Lock_Fences")
                        .keyColumn("lock_name")
                        .tokenColumn("highest_token")
                        .holderColumn("owner")
                        .updatedAtColumn("touched_at")
                        .build());
        custom.createIfMissing();
        String key = newKey();

        custom.claim(key, 2);

        assertThat(custom.currentToken(key)).hasValue(2);
        assertThrows(JdbcStaleTokenException.class, () -> custom.claim(key, 1));
        assertThat(fence.currentToken(key)).as("default table untouched").isEmpty();
    }

    @Test
    void schemaQualifiedTableWorks() {
        engine().execute("create schema if not exists zk_fencing");
        JdbcFence qualified = JdbcFence.create(
                engine().dataSource(),
                FenceConfig.builder(engine().dialect()).schema("zk_fencing").build());
        qualified.createIfMissing();
        String key = newKey();

        qualified.claim(key, 3);

        assertThat(qualified.currentToken(key)).hasValue(3);
        assertThat(fence.currentToken(key)).isEmpty();
    }

    @Test
    void dialectIsDetectedFromTheConnection() throws SQLException {
        try (Connection c = engine().connection()) {
            assertThat(FenceDialect.detect(c)).isEqualTo(engine().dialect());
        }
        JdbcFence detected = JdbcFence.create(engine().dataSource());
        assertThat(detected.config().dialect()).isEqualTo(engine().dialect());
        String key = newKey();
        detected.claim(key, 1);
        assertThat(fence.currentToken(key)).hasValue(1);
    }

    @Test
    void missingFenceTableIsReportedByNameAndTheWorkNeverRuns() throws SQLException {
        JdbcFence missing = JdbcFence.create(
                engine().dataSource(),
                FenceConfig.builder(engine().dialect()).table("no_such_fence").build());
        String key = newKey();
        AtomicBoolean ran = new AtomicBoolean();

        FenceTableMissingException e = assertThrows(
                FenceTableMissingException.class,
                () -> missing.inTransaction(key, 1, c -> {
                    ran.set(true);
                    write(c, key, "unfenced");
                    return null;
                }));

        assertThat(e.table()).isEqualTo("no_such_fence");
        assertThat(e.getMessage()).contains("no_such_fence", key, "createIfMissing");
        assertThat(e.getCause()).isInstanceOf(SQLException.class);
        assertThat(ran).isFalse();
        assertThat(writes(key)).isEmpty();
        assertThrows(FenceTableMissingException.class, () -> missing.claim(key, 1));
        assertThrows(FenceTableMissingException.class, () -> missing.currentToken(key));
        try (Connection c = engine().connection()) {
            c.setAutoCommit(false);
            assertThrows(FenceTableMissingException.class, () -> missing.advance(c, key, 1));
            c.rollback();
            c.setAutoCommit(true);
        }
    }

    @Test
    void fenceTableInASchemaThatDoesNotExistIsReportedAsMissingByEveryEntryPoint() throws SQLException {
        JdbcFence missing = JdbcFence.create(
                engine().dataSource(),
                FenceConfig.builder(engine().dialect()).schema("no_such_schema").build());
        String key = newKey();
        AtomicBoolean ran = new AtomicBoolean();

        FenceTableMissingException e = assertThrows(
                FenceTableMissingException.class,
                () -> missing.inTransaction(key, 1, c -> {
                    ran.set(true);
                    return null;
                }));

        assertThat(e.getMessage()).contains("no_such_schema", key, "createIfMissing");
        assertThat(ran).isFalse();
        assertThrows(FenceTableMissingException.class, () -> missing.claim(key, 1));
        assertThrows(FenceTableMissingException.class, () -> missing.currentToken(key));
        try (Connection c = engine().connection()) {
            c.setAutoCommit(false);
            assertThrows(FenceTableMissingException.class, () -> missing.advance(c, key, 1));
            c.rollback();
            c.setAutoCommit(true);
        }
        assertThrows(
                FenceTableMissingException.class,
                () -> engine().dsl().transaction(trx -> JooqFence.advance(missing, trx.dsl(), key, 1)));
    }

    @Test
    void tableWithoutTheFenceColumnsIsReportedWithTheColumnNames() {
        JdbcFence wrong = JdbcFence.create(
                engine().dataSource(),
                FenceConfig.builder(engine().dialect()).table("zk_ledger").build());

        JdbcFenceException e = assertThrows(JdbcFenceException.class, () -> wrong.claim(newKey(), 1));

        assertThat(e).isNotInstanceOf(FenceTableMissingException.class);
        assertThat(e.getMessage()).contains("zk_ledger", "resource_key", "fence_token");
    }

    static Stream<Arguments> badCalls() {
        String tooLong = "k".repeat(JdbcFence.MAX_KEY_LENGTH + 1);
        return Stream.of(
                Arguments.of("zero token", "inventory:1", 0L, "must be positive"),
                Arguments.of("negative token", "inventory:1", -5L, "must be positive"),
                Arguments.of("minimum long token", "inventory:1", Long.MIN_VALUE, "must be positive"),
                Arguments.of("null key", null, 1L, "must not be null"),
                Arguments.of("empty key", "", 1L, "must not be blank"),
                Arguments.of("blank key", " \t ", 1L, "must not be blank"),
                Arguments.of("overlong key", tooLong, 1L, "the limit is 255"),
                Arguments.of("key with NUL", REFUSED + "a\u0000b", 1L, "must not contain U+0000"),
                Arguments.of("key of only NUL", "\u0000", 1L, "must not contain U+0000"),
                Arguments.of("unpaired high surrogate at the end", REFUSED + "x\uD800", 1L, "not well-formed Unicode"),
                Arguments.of("unpaired high surrogate inside", REFUSED + "x\uD83Dy", 1L, "not well-formed Unicode"),
                Arguments.of("unpaired low surrogate", REFUSED + "x\uDC00", 1L, "not well-formed Unicode"),
                Arguments.of("surrogates in the wrong order", REFUSED + "\uDE00\uD83D", 1L, "not well-formed Unicode"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCalls")
    void badKeyOrTokenIsRefusedByEveryEntryPointAndNothingIsWritten(String what, String key, long token, String message)
            throws SQLException {
        AtomicBoolean ran = new AtomicBoolean();
        for (Consumer<JdbcFence> call : entryPoints(key, token, ran)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> call.accept(fence));
            assertThat(e.getMessage()).contains(message);
        }
        assertThat(ran).isFalse();
        if (message.equals("must be positive")) {
            assertThat(fence.currentToken(key)).isEmpty();
            assertThat(writes(key)).isEmpty();
        }
        // No fence row under any spelling an engine might have turned a refused key into.
        assertThat(fenceRows(REFUSED)).isEmpty();
    }

    /** Prefix of the refused keys that could otherwise be stored (mangled) by an engine. */
    private static final String REFUSED = "refused-key:";

    /**
     * Keys that are easy to mangle or to confuse: case, leading and trailing spaces (MariaDB's
     * PAD SPACE collations compare 'a' = 'a '), composed and decomposed accents, characters
     * outside the Basic Multilingual Plane, the characters engines substitute for broken input.
     */
    private static List<String> oddKeys(String prefix) {
        String emoji = "\uD83D\uDE00";
        int room = JdbcFence.MAX_KEY_LENGTH - prefix.length();
        String longest = prefix + emoji.repeat(room / 2) + "z".repeat(room % 2);
        return List.of(
                prefix + "sku-1",
                prefix + "Sku-1",
                prefix + "SKU-1",
                prefix + "sku-1 ",
                prefix + "sku-1  ",
                prefix + " sku-1",
                prefix + "sku-1\t",
                prefix + "sku-1\n",
                prefix + "\u00e9",
                prefix + "e\u0301",
                prefix + "E\u0301",
                prefix + "\u00df",
                prefix + "ss",
                prefix + "\u0131",
                prefix + "i",
                prefix + "\uFF53ku-1",
                prefix + emoji,
                prefix + "x" + emoji,
                prefix + "\uD834\uDD1E",
                prefix + "x?",
                prefix + "x\uFFFD",
                prefix + "?",
                prefix + "%",
                prefix + "_",
                prefix + "\\",
                prefix + "'",
                prefix + "\u200B",
                prefix + "\uFEFF",
                prefix + "\uFFFF",
                prefix + "\uDBFF\uDFFF",
                longest);
    }

    @Test
    void everyAcceptedKeyRoundTripsExactlyAndHasItsOwnFence() throws SQLException {
        String prefix = newKey() + "/";
        List<String> keys = oddKeys(prefix);
        assertThat(new HashSet<>(keys)).as("the odd keys are distinct in Java").hasSize(keys.size());

        for (int i = 0; i < keys.size(); i++) {
            fence.claim(keys.get(i), i + 1);
        }

        Map<String, Long> expected = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            expected.put(keys.get(i), (long) i + 1);
            assertThat(fence.currentToken(keys.get(i)))
                    .as("token of key #%d", i)
                    .hasValue(i + 1);
        }
        assertThat(fenceRows(prefix))
                .as("one row per key, each key stored exactly")
                .isEqualTo(expected);
    }

    /**
     * The fence rows whose key starts with the prefix, read on a connection of their own. Filtered
     * here, not with LIKE: MariaDB 11.4's LIKE 'prefix%' on the binary key column misses keys with
     * a supplementary character right after the prefix.
     */
    private Map<String, Long> fenceRows(String prefix) throws SQLException {
        Map<String, Long> rows = new HashMap<>();
        try (Connection c = engine().connection();
                PreparedStatement ps = c.prepareStatement("select resource_key, fence_token from zkfence_fence");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (rs.getString(1).startsWith(prefix)) {
                    assertThat(rows.put(rs.getString(1), rs.getLong(2)))
                            .as("duplicate key read back")
                            .isNull();
                }
            }
        }
        return rows;
    }

    private List<Consumer<JdbcFence>> entryPoints(String key, long token, AtomicBoolean ran) {
        return List.of(
                f -> f.inTransaction(key, token, c -> {
                    ran.set(true);
                    write(c, key, "bad");
                    return null;
                }),
                f -> f.claim(key, token),
                f -> {
                    try (Connection c = engine().connection()) {
                        c.setAutoCommit(false);
                        try {
                            f.advance(c, key, token);
                        } finally {
                            c.rollback();
                            c.setAutoCommit(true);
                        }
                    } catch (SQLException e) {
                        throw new AssertionError(e);
                    }
                },
                f -> engine().dsl().transaction(trx -> JooqFence.advance(f, trx.dsl(), key, token)));
    }

    @Test
    void autoCommitConnectionIsRefusedAndNothingIsWritten() throws SQLException {
        String key = newKey();
        try (Connection c = engine().connection()) {
            assertThat(c.getAutoCommit()).isTrue();

            IllegalStateException e = assertThrows(IllegalStateException.class, () -> fence.advance(c, key, 1));

            assertThat(e.getMessage()).contains("auto-commit", key);
        }
        assertThat(fence.currentToken(key)).isEmpty();
    }

    @Test
    void jooqContextOutsideATransactionIsRefusedAndNothingIsWritten() {
        String key = newKey();

        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> JooqFence.advance(fence, engine().dsl(), key, 1));

        assertThat(e.getMessage()).contains("auto-commit", key);
        assertThat(fence.currentToken(key)).isEmpty();
    }
}
