package io.zkfence.recipes.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.testing.PostgresServer;
import java.time.Instant;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fenced store on a real PostgreSQL. */
class JdbcCacheStoreTest {

    private static final Instant T0 = Instant.parse("2026-01-05T09:00:00Z");

    private DataSource db;
    private JdbcCacheStore<String> store;

    @BeforeEach
    void freshDatabase() {
        db = PostgresServer.shared().freshDatabase().dataSource();
        store = JdbcCacheStore.create(
                db, JdbcFence.create(db), JdbcCacheStore.DEFAULT_TABLE, Function.identity(), Function.identity());
        store.createTableIfMissing();
    }

    @Test
    void aKeyNeverWrittenReadsEmpty() {
        assertThat(store.read("product-list")).isEmpty();
    }

    @Test
    void aValueReadsBackWithItsWrittenAtAndToken() {
        assertThat(store.write("product-list", new CachedValue<>("v1", T0, 7))).isTrue();

        assertThat(store.read("product-list")).contains(new CachedValue<>("v1", T0, 7));
    }

    @Test
    void aStaleTokenWriteIsRejectedAndLeavesTheNewerValue() {
        store.write("product-list", new CachedValue<>("newer", T0.plusSeconds(60), 10));

        boolean written = store.write("product-list", new CachedValue<>("older", T0, 9));

        assertThat(written).isFalse();
        assertThat(store.read("product-list")).contains(new CachedValue<>("newer", T0.plusSeconds(60), 10));
    }

    @Test
    void theSameTokenMayWriteAgain() {
        store.write("product-list", new CachedValue<>("v1", T0, 10));

        assertThat(store.write("product-list", new CachedValue<>("v1b", T0.plusSeconds(1), 10)))
                .isTrue();
        assertThat(store.read("product-list").orElseThrow().value()).isEqualTo("v1b");
    }

    @Test
    void creatingTheTablesTwiceIsHarmless() {
        store.createTableIfMissing();

        assertThat(store.write("k", new CachedValue<>("v", T0, 1))).isTrue();
    }

    @Test
    void aTableNameThatIsNotAnIdentifierIsRejectedNamingIt() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> JdbcCacheStore.create(
                        db, JdbcFence.create(db), "cache; drop table x", Function.identity(), Function.identity()));

        assertThat(e).hasMessageContaining("table").hasMessageContaining("cache; drop table x");
    }
}
