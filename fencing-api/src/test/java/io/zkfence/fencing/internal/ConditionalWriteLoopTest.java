package io.zkfence.fencing.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The object stores' loop against a scripted store: what it reads, sends, retries and throws. */
class ConditionalWriteLoopTest {

    /** A store whose reads answer from a queue and whose failures are {@link Failed}. */
    private static final class Store implements ConditionalWriteLoop.Store {
        final Deque<ObjectState> reads = new ArrayDeque<>();
        final List<String> log = new ArrayList<>();

        @Override
        public ObjectState read(String key) {
            log.add("read " + key);
            return reads.removeFirst();
        }

        @Override
        public boolean isStoreFailure(RuntimeException failure) {
            return failure instanceof Failed;
        }

        @Override
        public boolean isLostRace(RuntimeException failure) {
            return ((Failed) failure).lostRace;
        }

        @Override
        public RuntimeException failed(RuntimeException failure, String key, String operation) {
            return new IllegalStateException("failed " + operation + " " + key, failure);
        }

        @Override
        public RuntimeException stale(String key, String operation, long presented, long stored, boolean objectGone) {
            return new StaleThrown(new Stale(presented, stored, objectGone));
        }

        @Override
        public RuntimeException contention(
                String key, String operation, long token, int attempts, String detail, RuntimeException lastLoss) {
            return new Contention(attempts);
        }

        @Override
        public RuntimeException interrupted(String key, int retry, InterruptedException cause) {
            return new IllegalStateException("interrupted", cause);
        }

        @Override
        public String location(String key) {
            return "test://" + key;
        }
    }

    private static final class Failed extends RuntimeException {
        final boolean lostRace;

        Failed(boolean lostRace) {
            this.lostRace = lostRace;
        }
    }

    private record Stale(long presented, long stored, boolean gone) {}

    private static final class AdaptersOwn extends RuntimeException {}

    private static final class Contention extends RuntimeException {
        final int attempts;

        Contention(int attempts) {
            this.attempts = attempts;
        }
    }

    private final Store store = new Store();
    private final StateCache cache = new StateCache(10, e -> false);

    private ConditionalWriteLoop loop(int maxRetries) {
        return new ConditionalWriteLoop(
                store, cache, Backoff.exponential(Duration.ZERO, Duration.ZERO), maxRetries, FenceObserver.NONE);
    }

    private static ObjectState at(String eTag, long token) {
        return ObjectState.present(eTag, OptionalLong.of(token));
    }

    @Test
    void aHigherStoredTokenIsStaleAndNothingIsSent() {
        store.reads.add(at("e1", 9));
        List<ObjectState> sent = new ArrayList<>();

        Stale stale = staleOf(() -> loop(3).run("k", 5, "put", s -> {
            sent.add(s);
            return "done";
        }));

        assertThat(stale).isEqualTo(new Stale(5, 9, false));
        assertThat(sent).isEmpty();
    }

    @Test
    void aRaceLostToAnEqualOrLowerTokenIsRetriedAgainstWhatTheStoreHoldsNow() {
        store.reads.add(at("e1", 3));
        store.reads.add(at("e2", 4));
        List<String> preconditions = new ArrayList<>();

        String result = loop(3).run("k", 5, "put", s -> {
            preconditions.add(s.eTag());
            if (s.eTag().equals("e1")) {
                throw new Failed(true);
            }
            return "written";
        });

        assertThat(result).isEqualTo("written");
        assertThat(preconditions).containsExactly("e1", "e2");
        assertThat(store.log).containsExactly("read k", "read k");
    }

    @Test
    void aRaceLostToAHigherTokenIsAStaleRefusalNotARetry() {
        store.reads.add(at("e1", 3));
        store.reads.add(at("e2", 9));
        List<String> preconditions = new ArrayList<>();

        Stale stale = staleOf(() -> loop(3).run("k", 5, "put", s -> {
            preconditions.add(s.eTag());
            throw new Failed(true);
        }));

        assertThat(stale).isEqualTo(new Stale(5, 9, false));
        assertThat(preconditions).containsExactly("e1");
    }

    @Test
    void everyRaceLostGivesUpAfterTheBoundWithTheAttemptsCounted() {
        for (int i = 0; i < 5; i++) {
            store.reads.add(at("e" + i, 5));
        }

        Contention e = assertThrows(
                Contention.class,
                () -> loop(2).run("k", 5, "put", s -> {
                    throw new Failed(true);
                }));

        assertThat(e.attempts).isEqualTo(3);
    }

    @Test
    void aStoreFailureThatIsNoRaceIsTranslatedAndTheCacheForgetsTheKey() {
        cache.rememberWrite("k", "e1", 5);

        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> loop(3).run("k", 5, "put", s -> {
                    throw new Failed(false);
                }));

        assertThat(e.getMessage()).isEqualTo("failed put k");
        assertThat(cache.usableFor("k", 5)).isNull();
        assertThat(store.log).as("the cached state was used, no read").isEmpty();
    }

    @Test
    void anExceptionOfTheAdaptersOwnPassesThroughUnchanged() {
        store.reads.add(ObjectState.absent());

        assertThrows(
                AdaptersOwn.class,
                () -> loop(3).run("k", 5, "put", s -> {
                    throw new AdaptersOwn();
                }));
    }

    @Test
    void aGoneObjectOnWhichAHigherTokenWasSeenIsStaleAsGone() {
        cache.noteToken("k", 9);
        store.reads.add(ObjectState.absent());

        Stale stale = staleOf(() -> loop(3).run("k", 5, "put", s -> "created"));

        assertThat(stale).isEqualTo(new Stale(5, 9, true));
    }

    /** The loop throws what the store's {@code stale} made: a record, wrapped here to be thrown. */
    private Stale staleOf(Runnable call) {
        try {
            call.run();
        } catch (StaleThrown e) {
            return e.stale;
        }
        throw new AssertionError("no stale refusal");
    }

    private static final class StaleThrown extends RuntimeException {
        final Stale stale;

        StaleThrown(Stale stale) {
            this.stale = stale;
        }
    }
}
