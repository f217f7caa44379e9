package io.zkfence.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs small test classes (the nested fixtures, which surefire does not pick up by themselves) on
 * the JUnit Platform and looks at what their Teardown closed and how the tests ended.
 */
class TeardownTest {

    /** What the fixtures did, in order: "close a", "after each", "test one", ... */
    static final List<String> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void forget() {
        events.clear();
    }

    @Test
    void closesNewestFirstAfterTheTestsOwnAfterEachMethods() {
        Map<String, TestExecutionResult> results = run(ClosesInReverse.class);

        assertThat(results.get("test()").getStatus()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(events).containsExactly("test", "after each", "close c", "close b", "close a");
    }

    @Test
    void everyResourceIsClosedAndEveryFailureReportedWhenSomeFailToClose() {
        Map<String, TestExecutionResult> results = run(SomeFailToClose.class);

        assertThat(events).containsExactly("close c", "close b", "close a");
        Throwable failure = results.get("test()").getThrowable().orElseThrow();
        assertThat(failure)
                .isInstanceOf(TeardownException.class)
                .hasMessageContaining("2 of 3 resources failed to close after test()")
                .hasMessageContaining("c: java.io.IOException: c broke")
                .hasMessageContaining("a: java.lang.IllegalStateException: a broke");
        assertThat(failure.getSuppressed()).extracting(Throwable::getMessage).containsExactly("c broke", "a broke");
    }

    @Test
    void aTestsOwnFailureStaysTheFailureWithTheTeardownsAttached() {
        Map<String, TestExecutionResult> results = run(FailsAndFailsToClose.class);

        Throwable failure = results.get("test()").getThrowable().orElseThrow();
        assertThat(failure).isInstanceOf(AssertionError.class).hasMessage("the test's own failure");
        assertThat(failure.getSuppressed()).singleElement().isInstanceOf(TeardownException.class);
        assertThat(events).containsExactly("close a");
    }

    @Test
    void anInterruptedCloseStillClosesTheRestAndLeavesTheThreadInterrupted() {
        Map<String, TestExecutionResult> results = run(InterruptedWhileClosing.class);

        assertThat(events)
                .containsExactly(
                        "close b",
                        "close a",
                        "interrupted while closing a: false",
                        "interrupted after the teardown: true");
        assertThat(results.get("test()").getThrowable().orElseThrow().getSuppressed())
                .singleElement()
                .isInstanceOf(InterruptedException.class);
    }

    @Test
    void afterAllOnAStaticFieldClosesOnceTheLastTestIsOver() {
        Map<String, TestExecutionResult> results = run(ClosesAfterAll.class);

        assertThat(results.values())
                .extracting(TestExecutionResult::getStatus)
                .containsOnly(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(events)
                .containsExactly("test one", "close client of one", "test two", "close client of two", "close server");
    }

    @Test
    void afterAllOnAnInstanceFieldFailsTheTestInsteadOfNeverClosing() {
        Map<String, TestExecutionResult> results = run(AfterAllOnInstanceField.class);

        assertThat(results.get("test()").getThrowable().orElseThrow())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("make the field static");
    }

    /** Runs {@code fixture} and answers each of its tests' results by display name ("test()"). */
    private static Map<String, TestExecutionResult> run(Class<?> fixture) {
        Map<String, TestExecutionResult> results = new ConcurrentHashMap<>();
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                if (test.isTest()) {
                    results.put(test.getDisplayName(), result);
                }
            }
        };
        LauncherFactory.create()
                .execute(
                        LauncherDiscoveryRequestBuilder.request()
                                .selectors(selectClass(fixture))
                                .build(),
                        listener);
        return results;
    }

    private static AutoCloseable resource(String name) {
        return named(name, () -> events.add("close " + name));
    }

    private static AutoCloseable named(String name, AutoCloseable close) {
        return new AutoCloseable() {
            @Override
            public void close() throws Exception {
                close.close();
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    static class ClosesInReverse {
        @RegisterExtension
        final Teardown teardown = Teardown.afterEach();

        @Test
        void test() {
            teardown.closeLater(resource("a"));
            teardown.closeLater(resource("b"));
            teardown.closeLater(resource("c"));
            events.add("test");
        }

        @AfterEach
        void afterEach() {
            events.add("after each");
        }
    }

    static class SomeFailToClose {
        @RegisterExtension
        final Teardown teardown = Teardown.afterEach();

        @Test
        void test() {
            teardown.closeLater(named("a", () -> {
                events.add("close a");
                throw new IllegalStateException("a broke");
            }));
            teardown.closeLater(resource("b"));
            teardown.closeLater(named("c", () -> {
                events.add("close c");
                throw new IOException("c broke");
            }));
        }
    }

    static class FailsAndFailsToClose {
        @RegisterExtension
        final Teardown teardown = Teardown.afterEach();

        @Test
        void test() {
            teardown.closeLater(named("a", () -> {
                events.add("close a");
                throw new IOException("a broke");
            }));
            throw new AssertionError("the test's own failure");
        }
    }

    static class InterruptedWhileClosing {
        /** Runs after the teardown (after-callbacks run in reverse order); clears the flag it reports. */
        @RegisterExtension
        @Order(1)
        static final AfterEachCallback flag =
                context -> events.add("interrupted after the teardown: " + Thread.interrupted());

        @RegisterExtension
        @Order(2)
        final Teardown teardown = Teardown.afterEach();

        @Test
        void test() {
            teardown.closeLater(named("a", () -> {
                events.add("close a");
                events.add(
                        "interrupted while closing a: " + Thread.currentThread().isInterrupted());
            }));
            teardown.closeLater(named("b", () -> {
                events.add("close b");
                throw new InterruptedException("b was interrupted");
            }));
        }
    }

    @TestMethodOrder(MethodOrderer.MethodName.class)
    static class ClosesAfterAll {
        @RegisterExtension
        static final Teardown servers = Teardown.afterAll();

        @RegisterExtension
        final Teardown clients = Teardown.afterEach();

        @BeforeAll
        static void startServer() {
            servers.closeLater(resource("server"));
        }

        @Test
        void one() {
            clients.closeLater(resource("client of one"));
            events.add("test one");
        }

        @Test
        void two() {
            clients.closeLater(resource("client of two"));
            events.add("test two");
        }
    }

    static class AfterAllOnInstanceField {
        @RegisterExtension
        final Teardown teardown = Teardown.afterAll();

        @Test
        void test() {
            teardown.closeLater(resource("a"));
        }
    }
}
