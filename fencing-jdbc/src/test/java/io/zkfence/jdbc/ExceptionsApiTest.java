package io.zkfence.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Modifier;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The exceptions are the module's to throw: callers catch them, never construct or extend them. */
class ExceptionsApiTest {

    private static final List<Class<? extends RuntimeException>> EXCEPTIONS = List.of(
            JdbcFenceException.class,
            JdbcStaleTokenException.class,
            SerializationConflictException.class,
            FenceTableMissingException.class,
            RowNotFoundException.class);

    @Test
    void noExceptionHasAPublicOrProtectedConstructor() {
        for (Class<?> type : EXCEPTIONS) {
            assertThat(type.getDeclaredConstructors())
                    .as(type.getSimpleName())
                    .allMatch(c -> !Modifier.isPublic(c.getModifiers()) && !Modifier.isProtected(c.getModifiers()));
        }
    }

    @Test
    void everySpecificExceptionIsFinalAndUnchecked() {
        for (Class<?> type : EXCEPTIONS.subList(1, EXCEPTIONS.size())) {
            assertThat(Modifier.isFinal(type.getModifiers()))
                    .as(type.getSimpleName())
                    .isTrue();
            assertThat(RuntimeException.class).isAssignableFrom(type);
        }
    }
}
