package io.zkfence.recipes.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.testing.TokenCheckedRegister;
import io.zkfence.recipes.testing.ZooKeeperTestBase;
import io.zkfence.testkit.FreezableProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Five replicas fire the same job; each occurrence must start exactly once. */
class ExactlyOncePerOccurrenceTest extends ZooKeeperTestBase {

    private static final int REPLICAS = 5;

    /** One started run: which replica, which occurrence, with which token. */
    private record Start(String replica, String occurrence, long token) {}

    @Test
    void fiveScheduledReplicasRunEachOccurrenceOnceWhileOneIsPausedPastItsSession() throws Exception {
        // "No gaps" needs some replica to reach every occurrence within the misfire threshold:
        // 3.5 s leaves room for five replicas' schedulers and ZooKeeper on two loaded cores.
        Duration period = Duration.ofSeconds(4);
        RunOnceJob job = RunOnceJob.builder("every-4s")
                .holdAtLeast(Duration.ofMillis(3500))
                .misfireThreshold(Duration.ofMillis(3500))
                .build();
        FreezableProxy proxy = proxy();
        List<LockClient> clients = new ArrayList<>();
        clients.add(clientThrough(proxy, "replica-0", SHORT_SESSION, Duration.ofSeconds(1)));
        for (int i = 1; i < REPLICAS; i++) {
            clients.add(client("replica-" + i));
        }
        Map<Instant, List<Start>> starts = new ConcurrentHashMap<>();
        List<ScheduledExecutorService> executors = new ArrayList<>();
        List<JobSchedule> schedules = new ArrayList<>();
        Instant firstCounted;
        try {
            for (int i = 0; i < REPLICAS; i++) {
                String replica = "replica-" + i;
                JobRunner runner = closeLater(JobRunner.create(clients.get(i)));
                ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
                executors.add(executor);
                schedules.add(runner.scheduleAtFixedRate(
                        executor,
                        job,
                        period,
                        run -> starts.computeIfAbsent(
                                        Instant.parse(run.occurrence()), k -> new CopyOnWriteArrayList<>())
                                .add(new Start(replica, run.occurrence(), run.token()))));
            }
            // Every replica's schedule was set up before this occurrence.
            firstCounted = schedules.get(REPLICAS - 1).nextOccurrence();
            eventually()
                    .until(() -> starts.keySet().stream()
                                    .filter(t -> !t.isBefore(firstCounted))
                                    .count()
                            >= 3);

            // Replica 0 is cut off for longer than its session: the servers expire it.
            Lease probe = clients.get(0).lock("replica-0-probe").acquire();
            proxy.freeze();
            try (Lease taken = clients.get(1).lock("replica-0-probe").acquire(Duration.ofSeconds(60))) {
                assertThat(taken.token()).isGreaterThan(probe.token()); // only the servers could have freed it
            }
            eventually().until(() -> probe.state() == LeaseState.LOST);
            proxy.thaw();
            Instant thawed = Instant.now();
            eventually()
                    .until(() -> starts.keySet().stream()
                                    .filter(t -> t.isAfter(thawed))
                                    .count()
                            >= 3);
        } finally {
            schedules.forEach(JobSchedule::cancel);
            for (ScheduledExecutorService e : executors) {
                e.shutdownNow();
                assertThat(e.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            }
        }

        TreeMap<Instant, List<Start>> counted = new TreeMap<>(starts.entrySet().stream()
                .filter(e -> !e.getKey().isBefore(firstCounted))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
        assertThat(counted).hasSizeGreaterThanOrEqualTo(7);
        long previousToken = 0;
        for (Map.Entry<Instant, List<Start>> e : counted.entrySet()) {
            assertThat(e.getValue()).as("runs of occurrence %s", e.getKey()).hasSize(1);
            long token = e.getValue().get(0).token();
            assertThat(token).as("token of occurrence %s", e.getKey()).isGreaterThan(previousToken);
            previousToken = token;
        }
        // No occurrence fell through the gap, not even while replica 0 was cut off.
        Instant expected = firstCounted;
        for (Instant t : counted.keySet()) {
            assertThat(t).isEqualTo(expected);
            expected = expected.plus(period);
        }
    }

    @Test
    void aReplicaPausedPastItsSessionMidRunIsFencedAndNobodyRunsItsOccurrenceAgain() throws Exception {
        // The servers take at least the 4 s session to expire the paused replica: by then its
        // occurrence is past the 3 s misfire threshold for everyone.
        RunOnceJob job = RunOnceJob.builder("ledger-close")
                .holdAtLeast(Duration.ofSeconds(3))
                .misfireThreshold(Duration.ofSeconds(3))
                .build();
        FreezableProxy proxy = proxy();
        List<JobRunner> runners = new ArrayList<>();
        runners.add(closeLater(JobRunner.create(clientThrough(proxy, "paused", SHORT_SESSION, Duration.ofSeconds(1)))));
        LockClient observer = client("observer");
        for (int i = 1; i < REPLICAS; i++) {
            runners.add(closeLater(JobRunner.create(client("replica-" + i))));
        }
        List<JobRunner> others = runners.subList(1, REPLICAS);
        TokenCheckedRegister ledger = new TokenCheckedRegister();
        List<Start> starts = new CopyOnWriteArrayList<>();
        CountDownLatch pausedRunStarted = new CountDownLatch(1);
        CountDownLatch wakeUp = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(REPLICAS);
        try {
            // Occurrence 1: the paused replica gets there first, then "pauses" inside its run.
            Instant first = Instant.now();
            CompletableFuture<JobOutcome> pausedRun = CompletableFuture.supplyAsync(
                    () -> runners.get(0).runOnce(job, first, run -> {
                        starts.add(new Start("paused", run.occurrence(), run.token()));
                        pausedRunStarted.countDown();
                        await(wakeUp);
                        ledger.write(run.token(), "first by the paused replica"); // long after its lease is gone
                    }),
                    pool);
            assertThat(pausedRunStarted.await(60, TimeUnit.SECONDS)).isTrue();
            assertThat(fireAll(others, job, first, starts, ledger, pool)).doesNotContain(JobOutcome.RAN);

            // The paused replica is cut off until the servers expire its session and free the occurrence.
            proxy.freeze();
            eventually()
                    .until(() -> observer.inspect(job.lockName(first)).holder().isEmpty());
            // Replicas that get to the first occurrence now are too late for it: nobody runs it again.
            assertThat(fireAll(others, job, first, starts, ledger, pool)).containsOnly(JobOutcome.MISFIRED);

            // The next occurrence runs on exactly one of the others, with a higher token.
            Instant second = Instant.now();
            assertThat(fireAll(others, job, second, starts, ledger, pool))
                    .filteredOn(o -> o == JobOutcome.RAN)
                    .hasSize(1);

            // The paused replica wakes up and writes with its old token: the resource refuses it.
            wakeUp.countDown();
            ExecutionException refused =
                    assertThrows(ExecutionException.class, () -> pausedRun.get(60, TimeUnit.SECONDS));
            assertThat(refused.getCause()).isInstanceOf(TokenCheckedRegister.StaleWriteException.class);
            proxy.thaw();
        } finally {
            wakeUp.countDown();
            pool.shutdownNow();
            assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(starts).hasSize(2);
        assertThat(starts.get(0).replica()).isEqualTo("paused");
        assertThat(starts.get(1).token()).isGreaterThan(starts.get(0).token());
        assertThat(ledger.accepted())
                .extracting(TokenCheckedRegister.Write::token)
                .containsExactly(starts.get(1).token());
    }

    /** Four replicas fire one occurrence at the same moment; returns their outcomes. */
    private static List<JobOutcome> fireAll(
            List<JobRunner> runners,
            RunOnceJob job,
            Instant occurrence,
            List<Start> starts,
            TokenCheckedRegister ledger,
            ExecutorService pool)
            throws Exception {
        CyclicBarrier together = new CyclicBarrier(runners.size());
        List<CompletableFuture<JobOutcome>> outcomes = new ArrayList<>();
        for (int i = 0; i < runners.size(); i++) {
            JobRunner runner = runners.get(i);
            String replica = "replica-" + (i + 1);
            outcomes.add(CompletableFuture.supplyAsync(
                    () -> {
                        awaitBarrier(together);
                        return runner.runOnce(job, occurrence, run -> {
                            starts.add(new Start(replica, run.occurrence(), run.token()));
                            ledger.write(run.token(), run.occurrence());
                        });
                    },
                    pool));
        }
        List<JobOutcome> result = new ArrayList<>();
        for (CompletableFuture<JobOutcome> f : outcomes) {
            result.add(f.get(60, TimeUnit.SECONDS));
        }
        return result;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(60, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void awaitBarrier(CyclicBarrier barrier) {
        try {
            barrier.await(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
