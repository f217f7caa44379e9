package io.zkfence.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * jOOQ is an optional dependency: the fence, its configuration, dialects and exceptions load and
 * run in a class loader whose class path is this module's test class path without jOOQ's jar.
 * Only TokenColumn and JooqFence need it, and only when they are used.
 */
class WithoutJooqTest {

    @Test
    void theFenceRunsOnPlainJdbcWithNoJooqOnTheClassPath() throws IOException, ReflectiveOperationException {
        try (URLClassLoader noJooq = new URLClassLoader(classPathWithoutJooq(), ClassLoader.getPlatformClassLoader())) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName("org.jooq.DSLContext", false, noJooq));

            Supplier<?> program = (Supplier<?>) Class.forName(PlainJdbcProgram.class.getName(), true, noJooq)
                    .getConstructor()
                    .newInstance();

            assertThat(program.get()).isEqualTo("""
                    dialect H2
                    missing table zkfence_fence
                    stale 1 < 2
                    stored 3""");
        }
    }

    @Test
    void theJooqEntryPointsFailOnlyWhenCalled() throws IOException, ReflectiveOperationException {
        try (URLClassLoader noJooq = new URLClassLoader(classPathWithoutJooq(), ClassLoader.getPlatformClassLoader())) {
            Supplier<?> call = (Supplier<?>) Class.forName(PlainJdbcProgram.CallsJooq.class.getName(), true, noJooq)
                    .getConstructor()
                    .newInstance();

            NoClassDefFoundError e = assertThrows(NoClassDefFoundError.class, call::get);

            assertThat(e).hasMessageContaining("org/jooq/SQLDialect");
        }
    }

    @Test
    void frameworksCanReflectOverTheFenceTypesWithNoJooqOnTheClassPath() throws IOException, ClassNotFoundException {
        // Spring, Jackson and the like list a bean's methods: no signature of these may name a jOOQ type.
        try (URLClassLoader noJooq = new URLClassLoader(classPathWithoutJooq(), ClassLoader.getPlatformClassLoader())) {
            for (Class<?> type : List.of(JdbcFence.class, FenceDialect.class, FenceConfig.class, ConflictRetry.class)) {
                Class<?> loaded = Class.forName(type.getName(), true, noJooq);
                assertThat(loaded.getDeclaredMethods()).as(type.getSimpleName()).isNotEmpty();
                assertThat(loaded.getDeclaredConstructors())
                        .as(type.getSimpleName())
                        .isNotNull();
            }
        }
    }

    private static URL[] classPathWithoutJooq() throws MalformedURLException {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.isEmpty()
                    && !entry.contains(File.separator + "org" + File.separator + "jooq" + File.separator)) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        assertThat(urls)
                .as("the class path had jOOQ's jar to leave out")
                .hasSizeLessThan(classPath.split(File.pathSeparator).length);
        return urls.toArray(URL[]::new);
    }
}
