package io.zkfence.campaigns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Recovery per fault: the time from a fault's end to its victim's next accepted write. */
class RecoveryTest {

    private static Attempt write(String worker, long at, String jdbc) {
        return new Attempt(
                worker + "-" + at, worker, "r", 1, "HELD", jdbc, Attempt.ACCEPTED, at, at + 1, "RELEASED", "t0");
    }

    @Test
    void aWorkerFaultRecoversAtItsVictimsNextAcceptedWriteOnly() {
        List<Attempt> log = List.of(
                write("w0", 900, Attempt.ACCEPTED),
                write("w1", 1_100, Attempt.ACCEPTED),
                write("w0", 1_300, Attempt.STALE),
                write("w0", 1_500, Attempt.ACCEPTED));
        List<Recovery.Kind> r = Recovery.of(
                List.of(new FaultEvent("pause-long", "w0", 0, 1_000, "w0 paused")), log, Set.of("w0", "w1"));
        assertThat(r).containsExactly(new Recovery.Kind("pause-long", 1, 0, 500, 500));
    }

    @Test
    void aServerKillRecoversWhenEveryWorkerHasWrittenAgain() {
        List<Attempt> log = List.of(write("w0", 1_200, Attempt.ACCEPTED), write("w1", 1_700, Attempt.ACCEPTED));
        List<Recovery.Kind> r = Recovery.of(
                List.of(new FaultEvent("zk-leader-kill", FaultEvent.ENSEMBLE, 0, 1_000, "")), log, Set.of("w0", "w1"));
        assertThat(r).containsExactly(new Recovery.Kind("zk-leader-kill", 1, 0, 700, 700));
    }

    @Test
    void aVictimThatNeverWritesAgainCountsAsNotRecoveredAndStaysOutOfTheTimes() {
        List<Attempt> log = List.of(write("w0", 2_000, Attempt.ACCEPTED), write("w0", 5_000, Attempt.ACCEPTED));
        List<Recovery.Kind> r = Recovery.of(
                List.of(
                        new FaultEvent("worker-kill", "w0", 0, 1_000, ""),
                        new FaultEvent("worker-kill", "w0", 0, 3_000, ""),
                        new FaultEvent("worker-kill", "w0", 0, 6_000, "")),
                log,
                Set.of("w0"));
        assertThat(r).containsExactly(new Recovery.Kind("worker-kill", 3, 1, 1_000, 2_000));
    }
}
