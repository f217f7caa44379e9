package io.zkfence.bench;

import java.time.Duration;
import java.util.List;

/**
 * How much each workload does. {@link #fullRun()} is what the committed report uses; {@link #smokeRun()}
 * runs the same code with tiny counts in seconds (CI) and proves only that the harness works.
 *
 * @param smoke              true for the CI smoke run
 * @param lockWarmupRounds   uncontended: interleaved rounds thrown away before measuring
 * @param lockRounds         uncontended: measured rounds; each runs every variant in turn
 * @param lockOpsPerRound    uncontended: cycles per variant per round
 * @param requestCountOps    uncontended: cycles per variant when counting requests on the server
 * @param contendedClients   contended: clients (one session each) on the one lock
 * @param contendedRound     contended: length of one round of one implementation
 * @param contendedRounds    contended: measured rounds per implementation (alternated ABBA)
 * @param handoffWaiters     hand-off: the waiter counts measured
 * @param handoffWarmup      hand-off: hand-offs thrown away per waiter count
 * @param handoffSamples     hand-off: hand-offs measured per waiter count
 * @param handoffMaxSessions hand-off: waiters are spread over at most this many sessions
 * @param heldLevels         many locks: held-lock counts measured
 * @param manyWarmup         many locks: acquire cycles thrown away before measuring
 * @param manySamples        many locks: acquires measured per level (half going up, half coming down)
 * @param fenceWarmupRounds  fencing: interleaved rounds thrown away
 * @param fenceRounds        fencing: measured rounds
 * @param fenceOpsPerRound   fencing: operations per variant per round
 */
record Settings(
        boolean smoke,
        int lockWarmupRounds,
        int lockRounds,
        int lockOpsPerRound,
        int requestCountOps,
        int contendedClients,
        Duration contendedRound,
        int contendedRounds,
        List<Integer> handoffWaiters,
        int handoffWarmup,
        int handoffSamples,
        int handoffMaxSessions,
        List<Integer> heldLevels,
        int manyWarmup,
        int manySamples,
        int fenceWarmupRounds,
        int fenceRounds,
        int fenceOpsPerRound) {

    static Settings fullRun() {
        return new Settings(
                false,
                4,
                30,
                50,
                200,
                8,
                Duration.ofSeconds(5),
                4,
                List.of(1, 100, 1000),
                30,
                300,
                100,
                List.of(1, 1000, 10000),
                300,
                600,
                5,
                30,
                50);
    }

    static Settings smokeRun() {
        return new Settings(
                true,
                1,
                2,
                5,
                10,
                8,
                Duration.ofMillis(300),
                1,
                List.of(1, 5, 20),
                3,
                10,
                10,
                List.of(1, 10, 50),
                10,
                20,
                1,
                2,
                5);
    }
}
