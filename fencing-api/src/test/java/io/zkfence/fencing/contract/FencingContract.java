package io.zkfence.fencing.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.fencing.StaleTokenException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The accept/reject rule every fencing adapter keeps, written once: a token {@code >=} the
 * highest accepted for a key is accepted and becomes the highest; a lower one is rejected with
 * {@link StaleTokenException} naming the resource, the presented and the stored token, and
 * leaves the resource exactly as the newer holder left it.
 *
 * <p>An adapter runs it by subclassing it once per engine or store mode and returning a
 * {@link FencedResource} over its public API from {@link #newResource()}. The tests use fresh
 * keys, so subclasses may share one database or bucket. Adapter-specific behaviour (isolation
 * levels, multipart uploads, self-checks) stays in the adapter's own suites.
 */
public abstract class FencingContract {

    /** Bound for waits that normally take milliseconds; reached only on failure. */
    protected static final Duration PATIENCE = Duration.ofSeconds(60);

    private FencedResource resource;
    private ExecutorService executor;

    /** A resource over the adapter under test; closed after each test. */
    protected abstract FencedResource newResource();

    @BeforeEach
    void openResource() {
        resource = newResource();
        executor = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void closeResource() throws InterruptedException {
        executor.shutdownNow();
        try {
            assertThat(executor.awaitTermination(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("writers finished")
                    .isTrue();
        } finally {
            resource.close();
        }
    }

    private static String newKey() {
        return "contract/" + UUID.randomUUID();
    }

    @Test
    void firstWriteOfANewKeyIsAccepted() {
        String key = newKey();

        resource.write(key, 5, "by 5");

        assertThat(resource.read(key)).hasValue("by 5");
        assertThat(resource.storedToken(key)).hasValue(5);
    }

    @Test
    void equalTokenIsAcceptedSoOneHolderWritesManyTimes() {
        String key = newKey();
        resource.write(key, 5, "first by 5");

        resource.write(key, 5, "second by 5");

        assertThat(resource.read(key)).hasValue("second by 5");
        assertThat(resource.storedToken(key)).hasValue(5);
    }

    @Test
    void higherTokenIsAcceptedAndBecomesTheStoredOne() {
        String key = newKey();
        resource.write(key, 5, "by 5");

        resource.write(key, 9, "by 9");

        assertThat(resource.read(key)).hasValue("by 9");
        assertThat(resource.storedToken(key)).hasValue(9);
    }

    @Test
    void lowerTokenIsRejectedNamingTheResourceAndBothTokens() {
        String key = newKey();
        resource.write(key, 9, "by 9");

        StaleTokenException e = assertThrows(StaleTokenException.class, () -> resource.write(key, 5, "by 5"));

        assertThat(e.resource()).isEqualTo(resource.resourceName(key));
        assertThat(e.presentedToken()).isEqualTo(5);
        assertThat(e.storedToken()).isEqualTo(9);
        assertThat(e.getMessage()).contains("5", "9");
    }

    @Test
    void rejectedWriteLeavesTheResourceAsTheNewerHolderLeftIt() {
        String key = newKey();
        resource.write(key, 9, "by 9");

        assertThrows(StaleTokenException.class, () -> resource.write(key, 5, "by 5"));

        assertThat(resource.read(key)).hasValue("by 9");
        assertThat(resource.storedToken(key)).hasValue(9);
    }

    @Test
    void staleWriteOfTheValueAlreadyThereIsRejectedToo() {
        String key = newKey();
        resource.write(key, 9, "same");

        StaleTokenException e = assertThrows(StaleTokenException.class, () -> resource.write(key, 5, "same"));

        assertThat(e.storedToken()).isEqualTo(9);
        assertThat(resource.storedToken(key)).hasValue(9);
        assertThat(resource.read(key)).hasValue("same");
    }

    @Test
    void staleDeleteIsRefusedAndTheValueStays() {
        String key = newKey();
        resource.write(key, 9, "by 9");

        StaleTokenException e = assertThrows(StaleTokenException.class, () -> resource.delete(key, 5));

        assertThat(e.resource()).isEqualTo(resource.resourceName(key));
        assertThat(e.presentedToken()).isEqualTo(5);
        assertThat(e.storedToken()).isEqualTo(9);
        assertThat(resource.read(key)).hasValue("by 9");
    }

    @Test
    void deleteWithTheStoredTokenRemovesTheValue() {
        String key = newKey();
        resource.write(key, 9, "by 9");

        assertThat(resource.delete(key, 9)).isTrue();

        assertThat(resource.read(key)).isEmpty();
    }

    /**
     * Concurrent first writes of a new key, the lower one first: it has looked and is about to
     * make its write visible when the higher one writes. Exactly one order may come out: the lower
     * write lands first and the higher one after it, or the lower one is rejected. The higher
     * value is there at the end either way.
     */
    @Test
    void concurrentFirstWritesLowerOnePausedMidwayEndWithTheHigherValue() {
        race(1, 2);
    }

    /** As above with the higher writer paused midway while the lower one writes. */
    @Test
    void concurrentFirstWritesHigherOnePausedMidwayEndWithTheHigherValue() {
        race(2, 1);
    }

    private void race(long pausedToken, long otherToken) {
        String key = newKey();
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Future<Outcome> first =
                executor.submit(() -> outcome(() -> resource.write(key, pausedToken, "by " + pausedToken, () -> {
                    paused.countDown();
                    await(resume);
                })));
        await(paused);
        Future<Outcome> second =
                executor.submit(() -> outcome(() -> resource.write(key, otherToken, "by " + otherToken)));
        // Let the other writer go as far as it can: done, or blocked on the paused one.
        Awaitility.await("the second writer done or waiting for the paused one")
                .atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(10))
                .until(() -> second.isDone() || resource.aWriterIsWaiting());
        resume.countDown();

        Outcome lower = get(pausedToken < otherToken ? first : second);
        Outcome higher = get(pausedToken < otherToken ? second : first);

        assertThat(higher.failure()).as("the higher writer's outcome").isNull();
        if (lower.failure() != null) {
            assertThat(lower.failure()).as("the lower writer's outcome").isInstanceOf(StaleTokenException.class);
            assertThat(((StaleTokenException) lower.failure()).storedToken()).isEqualTo(2);
        }
        assertThat(resource.read(key)).hasValue("by 2");
        assertThat(resource.storedToken(key)).hasValue(2);
    }

    private record Outcome(Throwable failure) {}

    private static Outcome outcome(Runnable write) {
        try {
            write.run();
            return new Outcome(null);
        } catch (RuntimeException e) {
            return new Outcome(e);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("latch not released within " + PATIENCE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static <T> T get(Future<T> future) {
        try {
            return future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("writer failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (TimeoutException e) {
            throw new AssertionError("writer did not finish within " + PATIENCE, e);
        }
    }
}
