package io.zkfence.campaigns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checker detects each kind of broken promise it claims to (and passes a clean history). */
class CheckerTest {

    private static Attempt logged(String attempt, String resource, long token, String jdbc) {
        return new Attempt(attempt, "w0", resource, token, "HELD", jdbc, Attempt.ACCEPTED, 0, 0, "RELEASED", "t0");
    }

    @Test
    void aCleanHistoryHasNoViolations() {
        List<HistoryRow> rows = List.of(
                new HistoryRow(1, "r", 10, "a1", 1),
                new HistoryRow(2, "r", 10, "a2", 2),
                new HistoryRow(3, "r", 12, "a3", 3));
        Checker.Result r = Checker.check(
                rows,
                Map.of("r", 3L),
                List.of(
                        logged("a1", "r", 10, Attempt.ACCEPTED),
                        logged("a2", "r", 10, Attempt.ACCEPTED),
                        logged("a3", "r", 12, Attempt.ACCEPTED),
                        logged("a4", "r", 9, Attempt.STALE)));
        assertThat(r.violations()).isEmpty();
        assertThat(r.rows()).isEqualTo(3);
    }

    @Test
    void aLowerTokenAcceptedAfterAHigherOneIsAFencingViolation() {
        List<HistoryRow> rows = List.of(new HistoryRow(1, "r", 12, "a1", 1), new HistoryRow(2, "r", 10, "a2", 2));
        Checker.Result r = Checker.check(rows, Map.of("r", 2L), List.of());
        assertThat(r.violations())
                .singleElement()
                .asString()
                .startsWith("fencing:")
                .contains("token 10");
    }

    @Test
    void aLostUpdateAndACounterMismatchAreViolations() {
        List<HistoryRow> rows = List.of(new HistoryRow(1, "r", 10, "a1", 1), new HistoryRow(2, "r", 11, "a2", 1));
        Checker.Result r = Checker.check(rows, Map.of("r", 1L), List.of());
        assertThat(r.violations())
                .anyMatch(v -> v.startsWith("lost or doubled update"))
                .anyMatch(v -> v.startsWith("counter:"));
    }

    @Test
    void logsThatContradictTheDatabaseAreViolationsAndUnloggedCommitsAreCounted() {
        List<HistoryRow> rows = List.of(new HistoryRow(1, "r", 10, "a1", 1), new HistoryRow(2, "r", 11, "a2", 2));
        Checker.Result r = Checker.check(
                rows,
                Map.of("r", 2L),
                List.of(logged("a1", "r", 10, Attempt.STALE), logged("a9", "r", 11, Attempt.ACCEPTED)));
        assertThat(r.violations())
                .anyMatch(v -> v.contains("a1") && v.contains("rejected as stale"))
                .anyMatch(v -> v.contains("a9") && v.contains("not in the history"));
        assertThat(r.unloggedCommits()).isEqualTo(1);
    }

    @Test
    void overlappingCriticalSectionsAreCountedWithTheEarlierSidesRejections() {
        Attempt earlier =
                new Attempt("a1", "w0", "r", 10, "HELD", Attempt.STALE, Attempt.STALE, 100, 500, "HELD", "t0");
        Attempt later = new Attempt(
                "a2", "w1", "r", 12, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 300, 400, "RELEASED", "t0");
        Attempt after = new Attempt(
                "a3", "w1", "r", 13, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 600, 700, "RELEASED", "t0");
        Checker.Result r = Checker.check(
                List.of(new HistoryRow(1, "r", 12, "a2", 1), new HistoryRow(2, "r", 13, "a3", 2)),
                Map.of("r", 2L),
                List.of(earlier, later, after));
        assertThat(r.violations()).isEmpty();
        assertThat(r.overlaps()).isEqualTo(1);
        assertThat(r.overlapRejections()).isEqualTo(2);
        assertThat(r.overlapsStillHeld()).isEqualTo(1);
    }

    @Test
    void anAttemptIdLoggedTwiceIsAViolationBecauseReconcilingNeedsUniqueIds() {
        Checker.Result r = Checker.check(
                List.of(new HistoryRow(1, "r", 10, "w0-1", 1)),
                Map.of("r", 1L),
                List.of(logged("w0-1", "r", 10, Attempt.ACCEPTED), logged("w0-1", "r", 12, Attempt.ACCEPTED)));
        assertThat(r.violations()).anyMatch(v -> v.startsWith("log: attempt id w0-1"));
    }

    @Test
    void aPausedSectionThatOverlapsSeveralLaterOnesCountsOnce() {
        Attempt paused =
                new Attempt("a1", "w0", "r", 10, "HELD", Attempt.ACCEPTED, Attempt.STALE, 100, 5_000, "LOST", "t0");
        Attempt second = new Attempt(
                "a2", "w1", "r", 12, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 300, 400, "RELEASED", "t0");
        Attempt third = new Attempt(
                "a3", "w2", "r", 13, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 600, 700, "RELEASED", "t0");
        Checker.Result r = Checker.check(
                List.of(
                        new HistoryRow(1, "r", 10, "a1", 1),
                        new HistoryRow(2, "r", 12, "a2", 2),
                        new HistoryRow(3, "r", 13, "a3", 3)),
                Map.of("r", 3L),
                List.of(paused, second, third));
        assertThat(r.violations()).isEmpty();
        assertThat(r.overlaps()).isEqualTo(1);
        assertThat(r.overlapRejections()).as("its S3 write, once").isEqualTo(1);
        assertThat(r.overlapsStillHeld()).isZero();
    }

    @Test
    void aWorkerWithNoAcceptedWriteAfterTheLastFaultIsStalled() {
        Attempt early = new Attempt(
                "a1", "w0", "r", 10, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 100, 200, "RELEASED", "t0");
        Attempt late = new Attempt(
                "a2", "w1", "r", 11, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 900, 950, "RELEASED", "t0");
        Checker.Result r = Checker.check(
                List.of(new HistoryRow(1, "r", 10, "a1", 1), new HistoryRow(2, "r", 11, "a2", 2)),
                Map.of("r", 2L),
                List.of(early, late),
                Set.of("w0", "w1"),
                500);
        assertThat(r.stalled()).containsExactly("w0");
    }

    @Test
    void twoThreadsOfOneProcessInsideOneGrantAtOnceAreAnExclusionViolation() {
        Attempt first = new Attempt(
                "a1", "w0", "r", 10, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 100, 300, "RELEASED", "w0-t0");
        Attempt second = new Attempt(
                "a2", "w0", "r", 10, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 200, 400, "RELEASED", "w0-t1");
        Checker.Result r = Checker.check(
                List.of(new HistoryRow(1, "r", 10, "a1", 1), new HistoryRow(2, "r", 10, "a2", 2)),
                Map.of("r", 2L),
                List.of(first, second));
        assertThat(r.violations())
                .singleElement()
                .asString()
                .startsWith("exclusion:")
                .contains("w0-t0", "w0-t1");
    }

    @Test
    void turnsUnderOneGrantThatFollowEachOtherAreNoViolation() {
        // Cohort mode: the next thread's turn begins when the previous one logged and released.
        Attempt first = new Attempt(
                "a1", "w0", "r", 10, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 100, 300, "RELEASED", "w0-t0");
        Attempt second = new Attempt(
                "a2", "w0", "r", 10, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 300, 400, "RELEASED", "w0-t1");
        Attempt otherProcess = new Attempt(
                "a3", "w1", "r", 12, "HELD", Attempt.ACCEPTED, Attempt.ACCEPTED, 400, 450, "RELEASED", "w1-t0");
        Checker.Result r = Checker.check(
                List.of(
                        new HistoryRow(1, "r", 10, "a1", 1),
                        new HistoryRow(2, "r", 10, "a2", 2),
                        new HistoryRow(3, "r", 12, "a3", 3)),
                Map.of("r", 3L),
                List.of(first, second, otherProcess));
        assertThat(r.violations()).isEmpty();
    }
}
