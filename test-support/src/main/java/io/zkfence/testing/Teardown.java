package io.zkfence.testing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes what a test opened, last opened first, once the test is over: clients before the servers
 * they talk to. Register it as a JUnit extension and hand it each resource as it is made:
 *
 * <pre>
 * {@literal @}RegisterExtension
 * final Teardown teardown = Teardown.afterEach();
 *
 * LockClient client = teardown.closeLater(LockClient.connect(...));
 * </pre>
 *
 * <p>{@link #afterEach()} closes after each test (after its {@code @AfterEach} methods);
 * {@link #afterAll()}, on a {@code static} field, after the last test of the class, for servers a
 * {@code @BeforeAll} method starts. Every resource is closed even when another fails to close; if
 * any fails, the test fails with a {@link TeardownException} that names each one and carries each
 * failure as a suppressed exception (JUnit attaches it to the test's own failure, if there is one).
 */
public final class Teardown implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private enum Scope {
        EACH_TEST,
        CLASS
    }

    private final Scope scope;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private volatile boolean registeredForClass;

    private Teardown(Scope scope) {
        this.scope = scope;
    }

    /** Closes what was registered once each test is over. */
    public static Teardown afterEach() {
        return new Teardown(Scope.EACH_TEST);
    }

    /** Closes what was registered once every test of the class is over; register it on a static field. */
    public static Teardown afterAll() {
        return new Teardown(Scope.CLASS);
    }

    /** Registers {@code resource} to be closed before everything registered earlier; returns it. */
    public <T extends AutoCloseable> T closeLater(T resource) {
        if (resource == null) {
            throw new IllegalArgumentException("resource must not be null");
        }
        synchronized (resources) {
            resources.push(resource);
        }
        return resource;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        registeredForClass = true;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (scope == Scope.EACH_TEST) {
            closeAll(context.getDisplayName());
        } else if (!registeredForClass) {
            // JUnit calls no class-level callback on an extension in an instance field, so these
            // resources would never be closed: say so at the first test rather than leak them.
            throw new IllegalStateException(
                    "Teardown.afterAll() in " + context.getRequiredTestClass().getName()
                            + " is on an instance field and would never close: make the field static");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (scope == Scope.CLASS) {
            closeAll(context.getDisplayName());
        }
    }

    /** Closes every registered resource, newest first, and forgets them all. */
    void closeAll(String after) {
        List<Failure> failures = new ArrayList<>();
        boolean interrupted = false;
        int closed = 0;
        for (AutoCloseable resource = next(); resource != null; resource = next()) {
            closed++;
            try {
                resource.close();
            } catch (InterruptedException e) {
                // Go on closing the rest (most of them would fail at once with the flag set), and
                // give the flag back to the thread before reporting.
                interrupted = true;
                failures.add(new Failure(resource, e));
            } catch (Exception | AssertionError e) {
                failures.add(new Failure(resource, e));
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (!failures.isEmpty()) {
            throw TeardownException.of(after, closed, failures);
        }
    }

    private AutoCloseable next() {
        synchronized (resources) {
            return resources.poll();
        }
    }

    /** A resource whose close threw. */
    record Failure(AutoCloseable resource, Throwable error) {}
}
