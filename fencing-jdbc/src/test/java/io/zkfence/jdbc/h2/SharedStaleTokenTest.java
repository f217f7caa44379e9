package io.zkfence.jdbc.h2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.fencing.FencingException;
import io.zkfence.fencing.StaleTokenException;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcFenceException;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.jdbc.testing.Engines;
import io.zkfence.testing.PublicApi;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A stale token at the database is the shared {@code io.zkfence.fencing} type, fully populated. */
class SharedStaleTokenTest {

    private final JdbcFence fence = JdbcFence.create(Engines.h2().dataSource());

    @Test
    void aStaleClaimIsCaughtAsTheSharedStaleTokenExceptionWithResourceAndBothTokens() {
        fence.createIfMissing();
        String key = "shared-stale:" + UUID.randomUUID();
        fence.claim(key, 20);

        StaleTokenException e = assertThrows(StaleTokenException.class, () -> fence.claim(key, 19));

        assertThat(e).isInstanceOf(JdbcStaleTokenException.class);
        assertThat(e.resource()).isEqualTo(key);
        assertThat(e.presentedToken()).isEqualTo(19);
        assertThat(e.storedToken()).isEqualTo(20);
        assertThat(fence.currentToken(key)).hasValue(20);
    }

    @Test
    void oneCatchOfTheSharedBaseHandlesEveryExceptionTheModuleDeclares() {
        List<Class<?>> exceptions = PublicApi.publicTypesOf(JdbcFence.class).stream()
                .filter(Throwable.class::isAssignableFrom)
                .toList();

        assertThat(exceptions).contains(JdbcFenceException.class, JdbcStaleTokenException.class);
        assertThat(exceptions).allMatch(FencingException.class::isAssignableFrom, "is a FencingException");
    }

    @Test
    void theModuleBaseAndTheStaleExceptionShareTheFencingBaseButNotEachOther() {
        assertThat(FencingException.class).isAssignableFrom(JdbcFenceException.class);
        assertThat(FencingException.class).isAssignableFrom(JdbcStaleTokenException.class);
        assertThat(JdbcFenceException.class.isAssignableFrom(JdbcStaleTokenException.class))
                .isFalse();
    }
}
