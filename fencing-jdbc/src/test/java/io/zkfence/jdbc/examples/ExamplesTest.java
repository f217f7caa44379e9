package io.zkfence.jdbc.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.jdbc.RowNotFoundException;
import io.zkfence.jdbc.SerializationConflictException;
import io.zkfence.jdbc.TestFailures;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The documented examples do what the guide says, on every engine. */
class ExamplesTest {

    static Stream<Supplier<Engine>> engines() {
        return Stream.of(
                named(Engines::h2, "h2"), named(Engines::postgres, "postgres"), named(Engines::mariaDb, "mariadb"));
    }

    private static Supplier<Engine> named(Supplier<Engine> engine, String name) {
        return new Supplier<>() {
            @Override
            public Engine get() {
                return engine.get();
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    private static String newSku(Engine engine) {
        engine.execute("create table if not exists zk_stock (sku varchar(64) primary key, quantity int not null)");
        String sku = UUID.randomUUID().toString();
        engine.execute("insert into zk_stock (sku, quantity) values ('" + sku + "', 0)");
        JdbcFence.create(engine.dataSource()).createIfMissing();
        return sku;
    }

    private static int quantity(Engine engine, String sku) {
        return engine.dsl()
                .select(DSL.field("quantity", Integer.class))
                .from("zk_stock")
                .where(DSL.field("sku").eq(sku))
                .fetchSingle()
                .value1();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void jdbcDaoWritesWithTheCurrentTokenAndRefusesAStaleOne(Supplier<Engine> engines) {
        Engine engine = engines.get();
        String sku = newSku(engine);
        InventoryDao dao = new InventoryDao(engine.dataSource());

        assertThat(dao.setStock(sku, 12, 5)).isEqualTo(1);
        assertThrows(JdbcStaleTokenException.class, () -> dao.setStock(sku, 99, 4));

        assertThat(quantity(engine, sku)).isEqualTo(12);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void jooqDaoWritesWithTheCurrentTokenAndRefusesAStaleOne(Supplier<Engine> engines) {
        Engine engine = engines.get();
        String sku = newSku(engine);
        JooqInventoryDao dao = new JooqInventoryDao(
                engine.dsl(), JdbcFence.create(engine.dataSource(), FenceConfig.defaults(engine.dialect())));

        dao.setStock(sku, 7, 5);
        dao.setStock(sku, 8, 5);
        assertThrows(JdbcStaleTokenException.class, () -> dao.setStock(sku, 99, 4));

        assertThat(quantity(engine, sku)).isEqualTo(8);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void accountDaoTellsStaleFromMissing(Supplier<Engine> engines) {
        Engine engine = engines.get();
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE - 1);
        engine.execute("insert into zk_account (id, balance, fence_token) values (" + id + ", 0, 1)");
        engine.execute("delete from zk_account where id = " + (id + 1));
        AccountDao dao = new AccountDao(engine.dsl());

        dao.setBalance(id, 10, 2);
        dao.setBalanceByHand(id, 20, 3);

        assertThrows(JdbcStaleTokenException.class, () -> dao.setBalance(id, 99, 2));
        assertThrows(JdbcStaleTokenException.class, () -> dao.setBalanceByHand(id, 99, 2));
        assertThrows(RowNotFoundException.class, () -> dao.setBalance(id + 1, 99, 5));
        assertThrows(RowNotFoundException.class, () -> dao.setBalanceByHand(id + 1, 99, 5));
        assertThat(engine.dsl().fetchValue("select balance from zk_account where id = " + id))
                .isEqualTo(20L);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void claimAfterAcquiringCutsOffTheFormerHolder(Supplier<Engine> engines) {
        Engine engine = engines.get();
        String sku = newSku(engine);
        InventoryDao formerHolder = new InventoryDao(engine.dataSource());
        formerHolder.setStock(sku, 1, 10);

        long token = LockHolder.acquired(JdbcFence.create(engine.dataSource()), "inventory:" + sku, () -> 11);

        assertThat(token).isEqualTo(11);
        assertThrows(JdbcStaleTokenException.class, () -> formerHolder.setStock(sku, 2, 10));
        assertThat(quantity(engine, sku)).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void quickStartClaimsAndWrites(Supplier<Engine> engines) {
        JdbcFence fence = QuickStart.run(engines.get().dataSource(), 1);

        assertThat(fence.currentToken("inventory:sku:123")).hasValue(1);
    }

    @Test
    void retriesRepeatConflictsOnly() {
        AtomicInteger calls = new AtomicInteger();
        SerializationConflictException conflict = TestFailures.conflict("k", 1);

        assertThat(LockHolder.withRetries(() -> {
                    if (calls.incrementAndGet() < 3) {
                        throw conflict;
                    }
                    return "written";
                }))
                .isEqualTo("written");
        assertThat(calls).hasValue(3);

        calls.set(0);
        assertThrows(
                JdbcStaleTokenException.class,
                () -> LockHolder.withRetries(() -> {
                    calls.incrementAndGet();
                    throw TestFailures.stale("k", 1, 2);
                }));
        assertThat(calls).hasValue(1);
    }
}
