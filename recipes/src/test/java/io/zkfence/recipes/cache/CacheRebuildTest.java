package io.zkfence.recipes.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Several pods (lock clients with their own sessions) and many threads each, on one key. */
class CacheRebuildTest extends CacheTestBase {

    private static final int PODS = 3;
    private static final int THREADS_PER_POD = 10;

    private final List<LockClient> clients = new ArrayList<>();

    private List<CacheRebuild<String>> pods() {
        List<CacheRebuild<String>> pods = new ArrayList<>();
        for (int i = 0; i < PODS; i++) {
            LockClient c = client("pod-" + i);
            clients.add(c);
            pods.add(pod(c).build());
        }
        return pods;
    }

    /** THREADS_PER_POD callers on every pod at once; {@code calling} counts down as each starts. */
    private List<CompletableFuture<String>> everyoneGets(
            List<CacheRebuild<String>> pods, CountDownLatch calling, Supplier<String> loader) {
        List<CompletableFuture<String>> results = new ArrayList<>();
        for (CacheRebuild<String> pod : pods) {
            for (int t = 0; t < THREADS_PER_POD; t++) {
                results.add(async(() -> {
                    calling.countDown();
                    return pod.get(key, loader);
                }));
            }
        }
        return results;
    }

    private static List<String> joinAll(List<CompletableFuture<String>> results) {
        return results.stream().map(CompletableFuture::join).toList();
    }

    /** Waits until no pod holds or waits for the key's rebuild lock: every rebuild has ended. */
    private void allRebuildsEnded() {
        eventually()
                .until(() -> clients.get(0)
                        .inspect(CacheRebuild.lockName(key))
                        .entries()
                        .isEmpty());
    }

    @Test
    void aColdKeyIsLoadedOnceAcrossPodsAndEveryCallerGetsTheValue() {
        List<CacheRebuild<String>> pods = pods();
        AtomicInteger loads = new AtomicInteger();
        CountDownLatch calling = new CountDownLatch(PODS * THREADS_PER_POD);

        List<String> got = joinAll(everyoneGets(pods, calling, () -> {
            loads.incrementAndGet();
            await(calling); // everybody is calling while this load runs
            return "v1";
        }));
        allRebuildsEnded();

        assertThat(got).hasSize(PODS * THREADS_PER_POD).containsOnly("v1");
        assertThat(loads).hasValue(1);
        // The threads of a pod shared one acquisition: at most one grant per pod, not one per thread.
        assertThat(clients).allSatisfy(c -> assertThat(c.stats().grants()).isLessThanOrEqualTo(1));
    }

    @Test
    void anExpiredKeyIsRebuiltOnceWhileEveryCallerIsServedTheStaleValue() {
        List<CacheRebuild<String>> pods = pods();
        assertThat(pods.get(0).get(key, () -> "v1")).isEqualTo("v1");
        clock.advance(FRESH_FOR.plusSeconds(30)); // stale, within maxStaleness
        AtomicInteger loads = new AtomicInteger();
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        closeLater((AutoCloseable) finish::countDown);

        List<String> got = joinAll(everyoneGets(pods, new CountDownLatch(0), () -> {
            loads.incrementAndGet();
            loading.countDown();
            await(finish);
            return "v2";
        }));

        // Every caller returned while the one rebuild was still blocked in its loader.
        assertThat(got).hasSize(PODS * THREADS_PER_POD).containsOnly("v1");
        await(loading);
        finish.countDown();
        eventually().until(() -> store().read(key).orElseThrow().value().equals("v2"));
        allRebuildsEnded();
        assertThat(loads).hasValue(1);
        assertThat(pods)
                .allSatisfy(p -> assertThat(p.get(key, () -> "not called")).isEqualTo("v2"));
    }

    @Test
    void aValueStalerThanMaxStalenessIsNotServedAndCallersWaitForTheFreshOne() {
        List<CacheRebuild<String>> pods = pods();
        pods.get(0).get(key, () -> "v1");
        clock.advance(FRESH_FOR.plus(MAX_STALENESS).plusSeconds(1));
        AtomicInteger loads = new AtomicInteger();
        CountDownLatch calling = new CountDownLatch(PODS * THREADS_PER_POD);

        List<String> got = joinAll(everyoneGets(pods, calling, () -> {
            loads.incrementAndGet();
            await(calling);
            return "v2";
        }));
        allRebuildsEnded();

        assertThat(got).containsOnly("v2");
        assertThat(loads).hasValue(1);
    }

    @Test
    void aCallerWithNothingToServeTimesOutWithAClearException() {
        Duration waitTimeout = Duration.ofMillis(300);
        CacheRebuild<String> pod = pod(client("pod-0")).waitTimeout(waitTimeout).build();
        CountDownLatch finish = new CountDownLatch(1);
        closeLater((AutoCloseable) finish::countDown);

        CacheRebuildTimeoutException e = assertThrows(
                CacheRebuildTimeoutException.class,
                () -> pod.get(key, () -> {
                    await(finish);
                    return "late";
                }));

        assertThat(e.key()).isEqualTo(key);
        assertThat(e.waited()).isGreaterThanOrEqualTo(waitTimeout);
        assertThat(e)
                .hasMessageContaining("waitTimeout")
                .hasMessageContaining(key)
                .hasMessageContaining("no value");
        // The rebuild itself goes on and writes its value for the next caller.
        finish.countDown();
        eventually()
                .until(() ->
                        store().read(key).map(v -> v.value().equals("late")).orElse(false));
    }

    @Test
    void aLoaderFailureReachesEveryWaitingCallerAndReleasesTheLockAtOnce() {
        LockClient a = client("pod-a");
        CacheRebuild<String> podA = pod(a).build();
        CacheRebuild<String> podB = pod(client("pod-b")).build();
        int callers = 5;
        CountDownLatch calling = new CountDownLatch(callers);
        AtomicInteger loads = new AtomicInteger();
        List<CompletableFuture<String>> results = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            results.add(async(() -> {
                calling.countDown();
                return podA.get(key, () -> {
                    loads.incrementAndGet();
                    await(calling);
                    throw new IllegalStateException("catalog service down");
                });
            }));
        }

        for (CompletableFuture<String> r : results) {
            CompletionException e = assertThrows(CompletionException.class, r::join);
            assertThat(e.getCause())
                    .isInstanceOf(CacheRebuildException.class)
                    .hasMessageContaining(key)
                    .hasRootCauseInstanceOf(IllegalStateException.class)
                    .hasRootCauseMessage("catalog service down");
        }
        assertThat(loads).hasValue(1);
        assertThat(a.inspect(CacheRebuild.lockName(key)).holder()).isEmpty(); // no lock left behind
        assertThat(podB.get(key, () -> "v1")).isEqualTo("v1");
    }

    @Test
    void aFailedRebuildIsRetriedOnlyAfterTheBackOff() {
        Duration backoff = Duration.ofSeconds(10);
        CacheRebuild<String> pod = pod(client("pod-0")).failureBackoff(backoff).build();
        AtomicInteger loads = new AtomicInteger();
        assertThrows(
                CacheRebuildException.class,
                () -> pod.get(key, () -> {
                    throw new IllegalStateException("catalog service down");
                }));

        CacheRebuildException backingOff = assertThrows(
                CacheRebuildException.class,
                () -> pod.get(key, () -> {
                    loads.incrementAndGet();
                    return "v1";
                }));
        assertThat(backingOff).hasMessageContaining("failureBackoff").hasRootCauseMessage("catalog service down");
        assertThat(loads).hasValue(0);

        clock.advance(backoff.plusSeconds(1));
        assertThat(pod.get(key, () -> {
                    loads.incrementAndGet();
                    return "v1";
                }))
                .isEqualTo("v1");
        assertThat(loads).hasValue(1);
    }
}
