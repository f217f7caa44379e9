package io.zkfence.fencing.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.fencing.FencingException;
import io.zkfence.fencing.StaleTokenException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.LongStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The accept/reject rule every fencing adapter keeps, written once: a token {@code >=} the
 * highest accepted for a key is accepted and becomes the highest; a lower one is rejected with
 * {@link StaleTokenException} naming the resource, the presented and the stored token, and
 * leaves the resource exactly as the newer holder left it.
 *
 * <p>Beside the rule itself it holds what every adapter must do with its input and under
 * concurrency: a bad key or token is refused with {@link IllegalArgumentException} before
 * anything is sent; a key that looks like syntax (SQL, Lua, a path, a URL, a hash tag) is stored
 * exactly as given, with a fence of its own; and {@value #RACERS} writers racing on one key with
 * tokens 1 to {@value #RACERS} end with the highest one, each refused writer told a higher stored
 * token, and, where the store keeps a history, accepted tokens that never go down in commit order.
 *
 * <p>An adapter runs it by subclassing it once per engine or store mode and returning a
 * {@link FencedResource} over its public API from {@link #newResource()}. The tests use fresh
 * keys, so subclasses may share one database or bucket. Adapter-specific behaviour (isolation
 * levels, multipart uploads, self-checks) stays in the adapter's own suites.
 */
public abstract class FencingContract {

    /** Bound for waits that normally take milliseconds; reached only on failure. */
    protected static final Duration PATIENCE = Duration.ofSeconds(60);

    /** Writers in the race on one key. */
    protected static final int RACERS = 16;

    /** Races run, each on a fresh key with its own order of start. */
    private static final int RACE_ROUNDS = 3;

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

    /**
     * {@value #RACERS} writers released together on one new key, with the tokens 1 to
     * {@value #RACERS} in a shuffled order. Whatever the interleaving: token {@value #RACERS} is
     * accepted and its value is there at the end; every other writer is accepted or refused with
     * a stored token above its own; and where the store keeps a history, it holds exactly the
     * accepted writes, whose tokens never go down in commit order.
     */
    @Test
    void racingWritersNeverCommitALowerTokenAfterAHigherOne() throws InterruptedException {
        Assumptions.assumeTrue(
                resource.atomicUnderConcurrentWrites(),
                "this store mode is not an atomic compare-and-set under concurrent writes (an emulator);"
                        + " the race would test the emulator, not the adapter");
        ExecutorService racers = Executors.newFixedThreadPool(RACERS);
        try {
            for (int round = 0; round < RACE_ROUNDS; round++) {
                raceOnce(racers, new Random(round));
            }
        } finally {
            racers.shutdownNow();
            assertThat(racers.awaitTermination(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("racers finished")
                    .isTrue();
        }
    }

    private void raceOnce(ExecutorService racers, Random random) {
        String key = newKey();
        List<Long> tokens =
                new ArrayList<>(LongStream.rangeClosed(1, RACERS).boxed().toList());
        Collections.shuffle(tokens, random);
        CountDownLatch start = new CountDownLatch(1);
        Map<Long, Future<Outcome>> racing = new HashMap<>();
        for (long token : tokens) {
            racing.put(token, racers.submit(() -> {
                await(start);
                return outcome(() -> resource.write(key, token, "by " + token));
            }));
        }
        start.countDown();

        List<Long> accepted = new ArrayList<>();
        for (long token : tokens) {
            Throwable failure = get(racing.get(token)).failure();
            if (failure == null) {
                accepted.add(token);
                continue;
            }
            assertThat(failure).as("writer with token %d", token).isInstanceOf(StaleTokenException.class);
            StaleTokenException stale = (StaleTokenException) failure;
            assertThat(stale.presentedToken()).isEqualTo(token);
            assertThat(stale.storedToken())
                    .as("stored token named to writer %d", token)
                    .isGreaterThan(token)
                    .isLessThanOrEqualTo(RACERS);
        }
        assertThat(accepted).as("the highest token is never refused").contains((long) RACERS);
        assertThat(resource.read(key)).hasValue("by " + RACERS);
        assertThat(resource.storedToken(key)).hasValue(RACERS);

        Optional<List<String>> history = resource.history(key);
        if (history.isPresent()) {
            List<Long> committed = history.get().stream()
                    .map(v -> Long.parseLong(v.substring("by ".length())))
                    .toList();
            assertThat(committed)
                    .as("the history holds exactly the accepted writes")
                    .containsExactlyInAnyOrderElementsOf(accepted);
            assertThat(committed).as("accepted tokens in commit order").isSorted();
        }
    }

    /** Refused by every adapter: empty, NUL, and unpaired surrogates (UTF-8 would make them '?'). */
    static List<String> keysEveryAdapterRefuses() {
        return List.of("", "nul\u0000key", "x\uD800", "\uDC00y", "a\uDC00\uD800b");
    }

    @ParameterizedTest
    @MethodSource("keysEveryAdapterRefuses")
    void badKeyIsRefusedBeforeAnythingIsSent(String key) {
        long before = resource.requestsSent();

        IllegalArgumentException write =
                assertThrows(IllegalArgumentException.class, () -> resource.write(key, 1, "x"));
        IllegalArgumentException delete = assertThrows(IllegalArgumentException.class, () -> resource.delete(key, 1));

        assertThat(resource.requestsSent()).as("requests sent").isEqualTo(before);
        assertThat(write.getMessage()).containsIgnoringCase("key");
        assertThat(delete.getMessage()).containsIgnoringCase("key");
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void badTokenIsRefusedBeforeAnythingIsSentAndNothingIsWritten(long token) {
        String key = newKey();
        long before = resource.requestsSent();

        IllegalArgumentException write =
                assertThrows(IllegalArgumentException.class, () -> resource.write(key, token, "x"));
        IllegalArgumentException delete =
                assertThrows(IllegalArgumentException.class, () -> resource.delete(key, token));

        assertThat(resource.requestsSent()).as("requests sent").isEqualTo(before);
        assertThat(write.getMessage()).containsIgnoringCase("token").contains(Long.toString(token));
        assertThat(delete.getMessage()).containsIgnoringCase("token").contains(Long.toString(token));
        assertThat(resource.read(key)).isEmpty();
        assertThat(resource.storedToken(key)).isEmpty();
    }

    /**
     * Keys that are syntax somewhere: SQL, Lua and Redis protocol, shell and format strings, URL
     * and path pieces, Redis hash tags, whitespace and control characters, other scripts.
     */
    static List<String> keysThatLookLikeSyntax() {
        return List.of(
                "'; drop table zkfence_fence; --",
                "' or '1'='1",
                "\" .. redis.call('flushall') .. \"",
                "]] redis.call('del', KEYS[1]) --[[",
                "a\r\nDEL b\r\n",
                "*3\r\n$3\r\nSET\r\n",
                "$(rm -rf /)",
                "%s%n%d",
                "${jndi:ldap://x}",
                "?versionId=1",
                "#fragment",
                "a&b=c",
                "per%2Fcent",
                "back\\slash",
                "../escape",
                "./here",
                "a//b",
                "{tag}:x",
                "x:{tag}",
                "}{",
                "{}",
                "*?[a-z]",
                "sp ace",
                "tab\tnew\nline",
                "ключ 键 🔑",
                "null",
                "0");
    }

    /**
     * A key is refused before anything is sent, or stored exactly as given with a fence of its
     * own: writing it leaves every other key as it was, and the store lists it verbatim. An adapter
     * may refuse keys its store cannot keep verbatim (its rules say which), and a store may refuse a
     * key it does not take (an emulator's HTTP 400): then the adapter's exception says so and the
     * key is not stored. Most of these keys are kept.
     */
    @Test
    void keysThatLookLikeSyntaxAreRefusedOrStoredVerbatimEachWithItsOwnFence() {
        String prefix = newKey() + "/";
        String victim = prefix + "victim";
        resource.write(victim, 1_000, "victim's");
        Map<String, Long> stored = new HashMap<>();
        Set<String> refused = new HashSet<>();
        List<String> keys = keysThatLookLikeSyntax();
        for (int i = 0; i < keys.size(); i++) {
            String key = prefix + keys.get(i);
            long token = i + 1;
            long before = resource.requestsSent();
            try {
                resource.write(key, token, "value " + token);
                stored.put(key, token);
            } catch (IllegalArgumentException e) {
                assertThat(resource.requestsSent())
                        .as("requests sent for refused key %s", key)
                        .isEqualTo(before);
                refused.add(key);
            } catch (FencingException e) {
                assertThat(e).as("the store's refusal of %s", key).isNotInstanceOf(StaleTokenException.class);
                refused.add(key);
            }
        }

        for (Map.Entry<String, Long> e : stored.entrySet()) {
            assertThat(resource.read(e.getKey())).as("value of %s", e.getKey()).hasValue("value " + e.getValue());
            assertThat(resource.storedToken(e.getKey()))
                    .as("token of %s", e.getKey())
                    .hasValue(e.getValue());
        }
        Set<String> expected = new HashSet<>(stored.keySet());
        expected.add(victim);
        assertThat(resource.keysUnder(prefix)).as("keys the store holds").isEqualTo(expected);
        assertThat(resource.read(victim)).hasValue("victim's");
        assertThat(resource.storedToken(victim)).hasValue(1_000);
        assertThat(refused.size())
                .as("keys refused (%s): an adapter keeps most of them", refused)
                .isLessThanOrEqualTo(keys.size() / 4);
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
