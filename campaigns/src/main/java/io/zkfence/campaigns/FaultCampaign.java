package io.zkfence.campaigns;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.lock.LockClient;
import io.zkfence.testing.EmbeddedServers;
import io.zkfence.testkit.EmbeddedEnsemble;
import io.zkfence.testkit.FreezableProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The fault campaign: worker JVMs hammer a few locks and fenced resources while faults drawn at
 * random from a seed hit them — SIGSTOP shorter and longer than the session timeout, network
 * partitions of one worker from the whole ensemble (its connections go through
 * {@link FreezableProxy}s), ZooKeeper server kills and restarts, worker kill -9 and restart, and
 * the server expiring a worker's session while it waits in a queue ({@link SessionExpiry}). Then
 * the {@link Checker} reads PostgreSQL and reconciles the workers' logs, and a report is written.
 */
public final class FaultCampaign {

    /** The worker's session timeout: the pauses and partitions are drawn shorter and longer than this. */
    static final Duration SESSION = Duration.ofSeconds(4);

    private final Settings settings;
    private final Path dir;
    private final List<FaultEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Integer> faultCounts = Collections.synchronizedMap(new TreeMap<>());
    private final AtomicLong lastFaultEnd = new AtomicLong();
    /** The campaign's own view of the ensemble: it finds the queue nodes a session expiry aims at. */
    private CuratorFramework observer;
    /** At most one ZooKeeper server down at a time: faults test safety, a lost quorum only stops everyone. */
    private final Semaphore serverDown = new Semaphore(1);

    /**
     * What to run.
     *
     * @param duration how long faults are injected
     * @param seed     the random seed (printed in the report; the same seed replays the same faults)
     * @param workers  worker JVMs
     * @param threads  threads per worker
     * @param locks     locks (and fenced resources) shared by all workers
     * @param injectors fault injectors running at once (each draws from its own seed: seed, seed + 1, ...),
     *                  so faults overlap
     * @param out       where the logs and the report go
     * @param cohortWorkers how many of the workers (the first ones) take the locks in cohort mode
     *                      ({@link io.zkfence.lock.FencedLock#withCohort()}): 0 for none, {@code workers} for all
     */
    public record Settings(
            Duration duration,
            long seed,
            int workers,
            int threads,
            int locks,
            int injectors,
            Path out,
            int cohortWorkers) {

        /** Plain mode (no cohorts). */
        public Settings(Duration duration, long seed, int workers, int threads, int locks, int injectors, Path out) {
            this(duration, seed, workers, threads, locks, injectors, out, 0);
        }

        /** Whether every worker runs in cohort mode ({@code ./faults --cohort}). */
        public boolean cohort() {
            return cohortWorkers > 0 && cohortWorkers >= workers;
        }
    }

    /**
     * What a campaign found: the checker's result, the faults injected, the queue nodes left once
     * every worker exited (must be none), the report's path.
     */
    public record Outcome(
            Checker.Result check,
            Map<String, Integer> faults,
            int leftoverQueueNodes,
            Path report,
            S3Summary s3,
            List<Recovery.Kind> recovery) {}

    /**
     * How long the workers may take, after the last fault, to each have a write accepted again
     * (liveness). The campaign goes on as soon as they all have; a worker restarted by the last
     * fault needs a JVM start and a new session first, which on a busy 2-core machine takes
     * seconds to tens of seconds.
     */
    static final Duration SETTLE = Duration.ofSeconds(60);

    /** The S3 documents, counted apart (S3Mock is not an atomic compare-and-set; see docs/faults.md). */
    public record S3Summary(long acceptedWrites, long finalCounters, List<String> notes) {}

    private FaultCampaign(Settings settings) {
        this.settings = settings;
        this.dir = settings.out();
    }

    /** Runs a campaign and writes its report. */
    public static Outcome run(Settings settings) {
        return new FaultCampaign(settings).run();
    }

    private Outcome run() {
        RunDirectory.announceMoved(dir, RunDirectory.startFresh(dir, Clock.systemUTC()));
        Instant started = Instant.now();
        try (EmbeddedServers servers = EmbeddedServers.start(true, true, true, dir)) {
            EmbeddedEnsemble ensemble = servers.ensemble();
            String bucket = "faults";
            S3Client s3 = S3Client.builder()
                    .region(Region.US_EAST_1)
                    .forcePathStyle(true)
                    .endpointOverride(servers.s3Endpoint())
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("f", "f")))
                    .build();
            s3.createBucket(b -> b.bucket(bucket));
            ResourceTables.prepare(servers.jdbcUrl());
            List<WorkerHandle> workers = new ArrayList<>();
            observer = CuratorFrameworkFactory.newClient(ensemble.connectString(), LockClient.defaultRetryPolicy());
            observer.start();
            try {
                for (int w = 0; w < settings.workers(); w++) {
                    workers.add(WorkerHandle.start(
                            "w" + w, ensemble, servers, bucket, settings, w < settings.cohortWorkers(), dir));
                }
                inject(workers, ensemble);
            } finally {
                workers.forEach(WorkerHandle::close);
                observer.close();
                ensemble.servers().forEach(s -> restartIfDown(ensemble, s));
            }
            int leftover = leftoverQueueNodes(ensemble.connectString());
            ResourceTables.Contents db = ResourceTables.read(servers.jdbcUrl());
            List<Attempt> log = readLogs(workers);
            Set<String> names = workers.stream().map(w -> w.name).collect(Collectors.toSet());
            Checker.Result check = Checker.check(db.history(), db.counters(), log, names, lastFaultEnd.get());
            S3Summary s3Summary = s3Summary(s3, bucket, log);
            Map<String, Integer> faults = new TreeMap<>(faultCounts);
            List<FaultEvent> injected = List.copyOf(events);
            List<Recovery.Kind> recovery = Recovery.of(injected, log, names);
            List<String> workerNames = workers.stream().map(w -> w.name).toList();
            TimelinePlot.write(
                    dir.resolve(CampaignReport.TIMELINE_PNG), started.toEpochMilli(), workerNames, injected, log);
            Path report = CampaignReport.write(
                    dir.resolve("report.md"),
                    settings,
                    started,
                    faults,
                    injected,
                    check,
                    s3Summary,
                    leftover,
                    recovery);
            return new Outcome(check, faults, leftover, report, s3Summary, recovery);
        }
    }

    /**
     * Runs {@code injectors} fault injectors at once until the campaign's time is up, so faults
     * overlap; each draws its faults from its own seed. Then the workers run on until each has
     * had a write accepted after the last fault, for at most {@link #SETTLE}.
     */
    private void inject(List<WorkerHandle> workers, EmbeddedEnsemble ensemble) {
        long end = System.nanoTime() + settings.duration().toNanos();
        sleep(Duration.ofSeconds(2)); // let the workers get going
        ExecutorService pool = Executors.newFixedThreadPool(settings.injectors());
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < settings.injectors(); i++) {
            Random random = new Random(settings.seed() + i);
            running.add(pool.submit(() -> {
                while (System.nanoTime() < end) {
                    injectOne(random, workers, ensemble);
                    sleep(Duration.ofMillis(200 + random.nextInt(800)));
                }
            }));
        }
        try {
            for (Future<?> f : running) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a fault injector failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
        awaitProgressAfterLastFault(workers);
    }

    /** Waits until every worker logged an accepted write after the last fault ended, or {@link #SETTLE} ran out. */
    private void awaitProgressAfterLastFault(List<WorkerHandle> workers) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        Set<String> live;
        do {
            sleep(Duration.ofMillis(500));
            long after = lastFaultEnd.get();
            live = readLogs(workers).stream()
                    .filter(a -> Attempt.ACCEPTED.equals(a.jdbc()) && a.acquiredAt() > after)
                    .map(Attempt::worker)
                    .collect(Collectors.toSet());
        } while (live.size() < workers.size() && System.nanoTime() < deadline);
    }

    private void injectOne(Random random, List<WorkerHandle> workers, EmbeddedEnsemble ensemble) {
        WorkerHandle victim = workers.get(random.nextInt(workers.size()));
        int kind = random.nextInt(7);
        Duration shortPause = Duration.ofMillis(300 + random.nextInt(1_200));
        Duration longPause = SESSION.plusMillis(1_000 + random.nextInt(3_000));
        switch (kind) {
            case 0 ->
                fault("pause-short", victim.name, victim.name + " SIGSTOP for " + shortPause.toMillis() + " ms", () -> {
                    victim.stop();
                    sleep(shortPause);
                    victim.resume();
                });
            case 1 ->
                fault(
                        "pause-long",
                        victim.name,
                        victim.name + " SIGSTOP for " + longPause.toMillis() + " ms (past its session)",
                        () -> {
                            victim.stop();
                            sleep(longPause);
                            victim.resume();
                        });
            case 2 ->
                fault(
                        "partition-short",
                        victim.name,
                        victim.name + " cut off from the ensemble for " + shortPause.toMillis() + " ms",
                        () -> {
                            victim.partition();
                            sleep(shortPause);
                            victim.heal();
                        });
            case 3 ->
                fault(
                        "partition-long",
                        victim.name,
                        victim.name + " cut off from the ensemble for " + longPause.toMillis()
                                + " ms (past its session)",
                        () -> {
                            victim.partition();
                            sleep(longPause);
                            victim.heal();
                        });
            case 4 -> {
                if (!serverDown.tryAcquire()) {
                    return; // another server is down: keep the quorum
                }
                try {
                    // The leader preferred: two draws in three.
                    InstanceSpec leader = leaderOrNull(ensemble);
                    InstanceSpec server = random.nextInt(3) < 2 && leader != null
                            ? leader
                            : ensemble.servers()
                                    .get(random.nextInt(ensemble.servers().size()));
                    boolean isLeader = server.equals(leader);
                    fault(
                            isLeader ? "zk-leader-kill" : "zk-follower-kill",
                            FaultEvent.ENSEMBLE,
                            "ZooKeeper server :" + server.getPort() + (isLeader ? " (the leader)" : "")
                                    + " killed, restarted after 3 s",
                            () -> {
                                ensemble.kill(server);
                                sleep(Duration.ofSeconds(3));
                                ensemble.restart(server);
                                // Until the restarted server has rejoined, killing another would take
                                // the quorum away, which tests nothing but an outage.
                                ensemble.awaitAllServing(Duration.ofSeconds(120));
                            });
                } finally {
                    serverDown.release();
                }
            }
            case 5 ->
                fault("worker-kill", victim.name, victim.name + " kill -9, restarted", () -> {
                    victim.kill();
                    sleep(Duration.ofMillis(500));
                    victim.restart();
                });
            default -> expireWhileWaiting(victim, ensemble);
        }
    }

    /**
     * Has the server expire the victim's session while one of its threads waits in a queue. When
     * none of its nodes waits within 2 s (it holds, or it is between attempts), no fault is drawn.
     */
    private void expireWhileWaiting(WorkerHandle victim, EmbeddedEnsemble ensemble) {
        Optional<SessionExpiry.Session> session = SessionExpiry.read(victim.session);
        if (session.isEmpty()) {
            return; // the worker has not connected yet
        }
        long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        Optional<String> waiting = SessionExpiry.waitingNode(
                observer, "/faults/locks", session.get().id());
        while (waiting.isEmpty() && System.nanoTime() < until) {
            sleep(Duration.ofMillis(50));
            waiting = SessionExpiry.waitingNode(
                    observer, "/faults/locks", session.get().id());
        }
        if (waiting.isEmpty()) {
            return;
        }
        fault(
                "session-expiry-waiting",
                victim.name,
                victim.name + " session 0x" + Long.toHexString(session.get().id()) + " expired by the server while "
                        + waiting.get() + " waited",
                () -> SessionExpiry.expire(ensemble.connectString(), session.get()));
    }

    private void fault(String kind, String target, String what, Runnable action) {
        long start = System.currentTimeMillis();
        faultCounts.merge(kind, 1, Integer::sum);
        action.run();
        long end = System.currentTimeMillis();
        events.add(new FaultEvent(kind, target, start, end, what));
        lastFaultEnd.accumulateAndGet(end, Math::max);
    }

    /** The leader, or null while an election runs (a restarted server may still be rejoining). */
    private static InstanceSpec leaderOrNull(EmbeddedEnsemble ensemble) {
        try {
            return ensemble.leader();
        } catch (IllegalStateException electing) {
            return null;
        }
    }

    /** Queue nodes still under the campaign's lock root once every worker exited and its session expired. */
    private static int leftoverQueueNodes(String connectString) {
        try (CuratorFramework zk =
                CuratorFrameworkFactory.newClient(connectString, new ExponentialBackoffRetry(100, 3))) {
            zk.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            int left;
            do {
                left = 0;
                if (zk.checkExists().forPath("/faults/locks") != null) {
                    for (String lock : zk.getChildren().forPath("/faults/locks")) {
                        left += zk.getChildren()
                                .forPath("/faults/locks/" + lock)
                                .size();
                    }
                }
                if (left > 0) {
                    sleep(Duration.ofMillis(500)); // sessions of killed workers expire within their timeout
                }
            } while (left > 0 && System.nanoTime() < deadline);
            return left;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the campaign's queue nodes: " + e, e);
        }
    }

    private static void restartIfDown(EmbeddedEnsemble ensemble, InstanceSpec server) {
        try {
            ensemble.restart(server);
        } catch (RuntimeException alreadyRunning) {
            // it was up: nothing to do
        }
    }

    private static List<Attempt> readLogs(List<WorkerHandle> workers) {
        ObjectMapper json = new ObjectMapper();
        List<Attempt> all = new ArrayList<>();
        for (WorkerHandle w : workers) {
            try {
                for (String line : Files.readAllLines(w.log, StandardCharsets.UTF_8)) {
                    try {
                        all.add(json.readValue(line, Attempt.class));
                    } catch (IOException torn) {
                        // the last line of a worker killed mid-write: nothing to judge
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return all;
    }

    private static S3Summary s3Summary(S3Client s3, String bucket, List<Attempt> log) {
        long accepted =
                log.stream().filter(a -> Attempt.ACCEPTED.equals(a.s3())).count();
        Map<String, Long> perResource = log.stream()
                .filter(a -> Attempt.ACCEPTED.equals(a.s3()))
                .collect(Collectors.groupingBy(Attempt::resource, Collectors.counting()));
        ObjectMapper json = new ObjectMapper();
        long finals = 0;
        List<String> notes = new ArrayList<>();
        for (var e : perResource.entrySet()) {
            try {
                byte[] doc = s3.getObjectAsBytes(b -> b.bucket(bucket).key("docs/" + e.getKey() + ".json"))
                        .asByteArray();
                long counter = json.readTree(doc).get("counter").asLong();
                finals += counter;
                if (counter != e.getValue()) {
                    notes.add(e.getKey() + ": document counter " + counter + ", accepted writes logged " + e.getValue()
                            + " (a write by a worker killed before its log line, or two conditional PUTs overlapping on"
                            + " S3Mock, which is not an atomic compare-and-set)");
                }
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        return new S3Summary(accepted, finals, notes);
    }

    static void sleep(Duration d) {
        try {
            TimeUnit.NANOSECONDS.sleep(d.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
