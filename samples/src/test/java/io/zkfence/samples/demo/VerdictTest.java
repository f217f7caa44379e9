package io.zkfence.samples.demo;

import static io.zkfence.samples.demo.Inventory.Copy.FENCED;
import static io.zkfence.samples.demo.Inventory.Copy.UNFENCED;
import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.lock.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The verdict's exit codes, from records of stories that went right and wrong. */
class VerdictTest {

    private static final long TA = 4294967303L;
    private static final long TB = 4294967304L;
    private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

    @Test
    void theStoryAsToldExitsZero() {
        Verdict v = Verdict.of(told(), Optional.of(finalState("pod-B", TB, 7)));

        assertThat(v.checks()).allMatch(Verdict.Check::passed);
        assertThat(v.exitCode()).isEqualTo(Verdict.OK);
    }

    @Test
    void aFencedStoreAcceptingTheStaleWriteExitsOne() {
        StoryRecord r = told();
        r.staleWritesOfA.set(0, new StoryRecord.Write("fenced", "postgres", TA, "accepted"));

        Verdict v = Verdict.of(r, Optional.of(finalState("pod-A", TA, 6)));

        assertThat(v.exitCode()).isEqualTo(Verdict.STALE_WRITE_ACCEPTED);
        assertThat(v.checks())
                .filteredOn(c -> !c.passed())
                .extracting(Verdict.Check::text)
                .anyMatch(t -> t.startsWith("pod-A's stale write to PostgreSQL through the fence"))
                .anyMatch(t -> t.startsWith("fenced PostgreSQL holds pod-B's write"));
    }

    @Test
    void aStaleWriteThatFailedForAnotherReasonIsAStoryFailureNotASafetyOne() {
        StoryRecord r = told();
        r.staleWritesOfA.set(1, new StoryRecord.Write("fenced", "s3", TA, "failed"));

        assertThat(Verdict.of(r, Optional.of(finalState("pod-B", TB, 7))).exitCode())
                .isEqualTo(Verdict.STORY_NOT_AS_TOLD);
    }

    @Test
    void podBGrantedWhileAStillHeldTheLockIsNotAnExpiry() {
        StoryRecord r = told();
        r.queueAtGrant = new LockInfo(Inventory.LOCK, "/x", List.of(entry("pod-A", TA), entry("pod-B", TB)));

        Verdict v = Verdict.of(r, Optional.of(finalState("pod-B", TB, 7)));

        assertThat(v.exitCode()).isEqualTo(Verdict.STORY_NOT_AS_TOLD);
        assertThat(v.checks())
                .filteredOn(c -> !c.passed())
                .extracting(Verdict.Check::text)
                .singleElement()
                .asString()
                .startsWith("the servers expired pod-A's session");
    }

    @Test
    void aFreezeShorterThanTheSessionTimeoutIsNotTheStory() {
        StoryRecord r = told();
        r.resumedAt = r.frozenAt.plusSeconds(3);

        assertThat(Verdict.of(r, Optional.of(finalState("pod-B", TB, 7))).exitCode())
                .isEqualTo(Verdict.STORY_NOT_AS_TOLD);
    }

    @Test
    void aStoryThatStoppedEarlyExitsThreeEvenWithoutAFinalState() {
        StoryRecord r = new StoryRecord();
        r.tokenA = TA;
        r.failure = "pod-B was not granted the lock";

        Verdict v = Verdict.of(r, Optional.empty());

        assertThat(v.exitCode()).isEqualTo(Verdict.STORY_NOT_AS_TOLD);
        assertThat(v.checks()).noneMatch(Verdict.Check::safety);
        assertThat(v.checks())
                .filteredOn(c -> c.text().startsWith("pod-A's stale write to"))
                .extracting(Verdict.Check::status)
                .containsOnly(Verdict.Status.NOT_REACHED)
                .hasSize(2);
    }

    private static StoryRecord told() {
        StoryRecord r = new StoryRecord();
        r.tokenA = TA;
        r.tokenB = TB;
        r.ttlA = Duration.ofSeconds(4);
        r.frozenAt = T0;
        r.grantedToBAt = T0.plusMillis(4_400);
        r.procStateAtGrant = "T (stopped)";
        r.queueAtGrant = new LockInfo(Inventory.LOCK, "/x", List.of(entry("pod-B", TB)));
        r.resumedAt = T0.plusMillis(4_600);
        for (String copy : List.of("fenced", "unfenced")) {
            for (String store : List.of("postgres", "s3")) {
                r.firstWritesOfA.add(new StoryRecord.Write(copy, store, TA, "accepted"));
                r.writesOfB.add(new StoryRecord.Write(copy, store, TB, "accepted"));
                r.staleWritesOfA.add(
                        new StoryRecord.Write(copy, store, TA, copy.equals("fenced") ? "rejected" : "accepted"));
            }
        }
        return r;
    }

    private static FinalState finalState(String fencedWriter, long fencedToken, int fencedStock) {
        String fencedOrder = fencedWriter.equals("pod-B") ? "B-1" : "A-2";
        List<Inventory.Reservation> fencedReservations = fencedWriter.equals("pod-B")
                ? List.of(
                        new Inventory.Reservation("A-1", 1, "pod-A", TA),
                        new Inventory.Reservation("B-1", 2, "pod-B", TB))
                : List.of(
                        new Inventory.Reservation("A-1", 1, "pod-A", TA),
                        new Inventory.Reservation("B-1", 2, "pod-B", TB),
                        new Inventory.Reservation("A-2", 3, "pod-A", TA));
        return new FinalState(
                Map.of(
                        FENCED,
                        new Inventory.Stock(fencedStock, fencedOrder, fencedWriter, fencedToken),
                        UNFENCED,
                        new Inventory.Stock(6, "A-2", "pod-A", TA)),
                Map.of(
                        FENCED,
                        fencedReservations,
                        UNFENCED,
                        List.of(
                                new Inventory.Reservation("A-1", 1, "pod-A", TA),
                                new Inventory.Reservation("B-1", 2, "pod-B", TB),
                                new Inventory.Reservation("A-2", 3, "pod-A", TA))),
                Map.of(
                        FENCED,
                        Optional.of(new StockDocument(fencedStock, fencedOrder, fencedWriter, fencedToken)),
                        UNFENCED,
                        Optional.of(new StockDocument(6, "A-2", "pod-A", TA))),
                OptionalLong.of(fencedToken),
                OptionalLong.of(fencedToken),
                Map.of());
    }

    /** The story with Redis and Azure Blob Storage too ({@code --with-redis --with-azure-blob}). */
    private static StoryRecord toldWithExtraStores(String redisStaleOutcome) {
        StoryRecord r = told();
        r.stores = List.of("postgres", "s3", "redis", "azure-blob");
        for (String copy : List.of("fenced", "unfenced")) {
            for (String store : List.of("redis", "azure-blob")) {
                r.firstWritesOfA.add(new StoryRecord.Write(copy, store, TA, "accepted"));
                r.writesOfB.add(new StoryRecord.Write(copy, store, TB, "accepted"));
                String stale =
                        copy.equals("unfenced") ? "accepted" : store.equals("redis") ? redisStaleOutcome : "rejected";
                r.staleWritesOfA.add(new StoryRecord.Write(copy, store, TA, stale));
            }
        }
        return r;
    }

    private static FinalState withExtras(FinalState s, String redisWriter, long redisToken) {
        ExtraStores.Held redis = new ExtraStores.Held(
                Optional.of(new StockDocument(7, "B-1", redisWriter, redisToken)),
                Optional.of(new StockDocument(6, "A-2", "pod-A", TA)),
                OptionalLong.of(redisToken));
        ExtraStores.Held blob = new ExtraStores.Held(
                Optional.of(new StockDocument(7, "B-1", "pod-B", TB)),
                Optional.of(new StockDocument(6, "A-2", "pod-A", TA)),
                OptionalLong.of(TB));
        return new FinalState(
                s.rows(),
                s.reservations(),
                s.objects(),
                s.fencedObjectToken(),
                s.fenceToken(),
                Map.of("redis", redis, "azure-blob", blob));
    }

    @Test
    void withRedisAndAzureBlobTheStoryAsToldExitsZeroNamingEveryStore() {
        Verdict v = Verdict.of(
                toldWithExtraStores("rejected"), Optional.of(withExtras(finalState("pod-B", TB, 7), "pod-B", TB)));

        assertThat(v.checks()).allMatch(Verdict.Check::passed);
        assertThat(v.exitCode()).isEqualTo(Verdict.OK);
        assertThat(v.checks())
                .extracting(Verdict.Check::text)
                .contains(
                        "pod-B's order was accepted by all 8 paths",
                        "fenced Redis holds pod-B's write (written by pod-B, fence token " + TB + ")")
                .anyMatch(t -> t.startsWith("pod-A's stale write to Azure Blob through the fence was rejected"));
    }

    @Test
    void redisAcceptingTheStaleWriteExitsOne() {
        Verdict v = Verdict.of(
                toldWithExtraStores("accepted"), Optional.of(withExtras(finalState("pod-B", TB, 7), "pod-A", TA)));

        assertThat(v.exitCode()).isEqualTo(Verdict.STALE_WRITE_ACCEPTED);
        assertThat(v.checks())
                .filteredOn(c -> !c.passed())
                .extracting(Verdict.Check::text)
                .anyMatch(t -> t.startsWith("pod-A's stale write to Redis through the fence"))
                .anyMatch(t -> t.startsWith("fenced Redis holds pod-B's write"));
    }

    private static LockInfo.Entry entry(String owner, long token) {
        return new LockInfo.Entry(owner, token, 0, T0, "q-" + owner);
    }
}
