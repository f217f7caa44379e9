package io.zkfence.campaigns.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.campaigns.Attempt;
import io.zkfence.campaigns.ResourceTables;
import io.zkfence.campaigns.RunDirectory;
import io.zkfence.testing.EmbeddedServers;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The lock service's fault campaign: replicas of {@code zkfence-server} as separate JVMs over the
 * 3-server embedded ensemble, worker processes (Java and Python) that reach them only over HTTP and
 * write to PostgreSQL under their leases, faults drawn from a seed ({@link ServiceFaults}), an
 * observer of the service's queues ({@link QueueObserver}), then the checks
 * ({@link ServiceChecker}) and a report ({@link ServiceReport}). docs/faults.md describes it.
 */
public final class ServiceCampaign {

    /** The namespace of the campaign's lock keys, and their prefix: {@code faults:res-0}, ... */
    static final String NAMESPACE = "faults";

    static final String KEY_PREFIX = NAMESPACE + ":res-";

    /** The service's root in ZooKeeper ({@code --root}). */
    static final String ROOT = "/faults/service";

    /**
     * How long the workers may take, after the last fault, to each have a write accepted again; the
     * campaign goes on as soon as they all have.
     */
    static final Duration SETTLE = Duration.ofSeconds(90);

    /**
     * What to run.
     *
     * @param duration      how long faults are injected
     * @param seed          the random seed (the same seed draws the same faults per injector)
     * @param javaWorkers   Java worker processes
     * @param pythonWorkers Python worker processes
     * @param threads       threads per worker
     * @param replicas      replicas of the service
     * @param locks         lock keys (and PostgreSQL resources) shared by the workers
     * @param injectors     fault injectors at once (seeds seed, seed + 1, ...)
     * @param out           where the logs and the report go
     */
    public record Settings(
            Duration duration,
            long seed,
            int javaWorkers,
            int pythonWorkers,
            int threads,
            int replicas,
            int locks,
            int injectors,
            Path out) {

        /** Bounds the command checks: a campaign needs some of each. */
        public Settings {
            if (duration.toSeconds() < 5
                    || javaWorkers < 0
                    || pythonWorkers < 0
                    || javaWorkers + pythonWorkers < 1
                    || threads < 1
                    || replicas < 3
                    || locks < 1
                    || locks > 64
                    || injectors < 1) {
                throw new IllegalArgumentException("a service campaign needs --seconds >= 5, at least one worker,"
                        + " --threads >= 1, --replicas >= 3, 1 <= --locks <= 64 and --injectors >= 1");
            }
        }
    }

    private final Settings settings;
    private final Path dir;

    private ServiceCampaign(Settings settings) {
        this.settings = settings;
        this.dir = settings.out();
    }

    /** Runs a campaign and writes its report. */
    public static ServiceOutcome run(Settings settings) {
        return new ServiceCampaign(settings).run();
    }

    private ServiceOutcome run() {
        RunDirectory.announceMoved(dir, RunDirectory.startFresh(dir, Clock.systemUTC()));
        PrintWriter chaos;
        try {
            chaos = new PrintWriter(
                    Files.newBufferedWriter(
                            dir.resolve("campaign.jsonl"),
                            StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND),
                    true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path libfaketime = HostTools.ensure();
        Path pythonWorker = pythonWorker();
        Instant started = Instant.now();
        String commit = ServiceReport.commit();
        try (chaos;
                EmbeddedServers servers = EmbeddedServers.start(true, true, false, dir)) {
            EmbeddedEnsemble ensemble = servers.ensemble();
            ResourceTables.prepare(servers.jdbcUrl());
            List<Replica> replicas = new ArrayList<>();
            List<WorkerProcess> workers = new ArrayList<>();
            QueueObserver observer = null;
            ServiceFaults faults;
            List<QueueObserver.Entry> leftover;
            try {
                for (int r = 0; r < settings.replicas(); r++) {
                    replicas.add(Replica.start("r" + r, ensemble, ROOT, dir, libfaketime));
                }
                observer = new QueueObserver(ensemble.connectString(), ROOT, replicas);
                String replicaUrls =
                        replicas.stream().map(r -> r.name + "=" + r.front.url()).collect(Collectors.joining(","));
                for (int w = 0; w < settings.javaWorkers(); w++) {
                    workers.add(javaWorker("w" + w, replicaUrls, servers.jdbcUrl(), settings.seed() + 100 + w));
                }
                for (int p = 0; p < settings.pythonWorkers(); p++) {
                    workers.add(pythonWorker(
                            "py" + p, pythonWorker, replicaUrls, servers.jdbcUrl(), settings.seed() + 200 + p));
                }
                workers.forEach(WorkerProcess::restart);
                faults = new ServiceFaults(replicas, settings.locks(), workers, ensemble, observer, chaos);
                inject(faults);
                awaitProgressAfterLastFault(workers, faults.lastFaultEnd());
                stopWorkers(workers);
                // Dead entries (a killed worker's lease, a dead replica's waiter) must go on their own:
                // nothing calls the service any more. Give them the replicas' session timeout and more.
                sleep(Replica.SESSION.plusSeconds(5));
                leftover = observer.now();
                observer.scrapeAll();
            } finally {
                workers.forEach(WorkerProcess::close);
                if (observer != null) {
                    observer.close();
                }
                replicas.forEach(Replica::close);
                ensemble.servers().forEach(s -> {
                    try {
                        ensemble.restart(s);
                    } catch (RuntimeException alreadyRunning) {
                        // it was up
                    }
                });
            }
            ServiceLog.Logs logs = ServiceLog.read(
                    Stream.concat(workers.stream().map(w -> w.log), Stream.of(dir.resolve("campaign.jsonl")))
                            .toList());
            ResourceTables.Contents db = ResourceTables.read(servers.jdbcUrl());
            writeQueues(observer);
            List<String> workerNames = workers.stream().map(w -> w.name).toList();
            ServiceChecker.Findings findings = ServiceChecker.check(new ServiceChecker.Input(
                    logs,
                    db,
                    observer.entries(),
                    observer.snapshots(),
                    observer.polls(),
                    observer.evictions(),
                    leftover,
                    faults.events(),
                    faults.skews(),
                    workerNames,
                    settings.locks(),
                    faults.lastFaultEnd()));
            return ServiceReport.write(
                    dir,
                    settings,
                    started,
                    commit,
                    faults.counts(),
                    faults.events(),
                    findings,
                    logs,
                    observer.metrics(),
                    workers);
        }
    }

    /** What the observer saw, for reading a run's findings again (queues.json, beside the report). */
    private void writeQueues(QueueObserver observer) {
        Map<String, Object> dump = new LinkedHashMap<>();
        dump.put(
                "entries",
                observer.entries().stream()
                        .map(e -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("path", e.path);
                            m.put("owner", e.owner);
                            m.put("request", e.request);
                            m.put("fencingToken", e.fencingToken);
                            m.put("firstSeen", e.firstSeen);
                            m.put("lastSeen", e.lastSeen);
                            m.put("grantedSeen", e.grantedSeen);
                            m.put("expiresAt", e.expiresAt);
                            m.put("waitUntil", e.waitUntil);
                            m.put("states", e.states);
                            m.put("sessionEndedSeen", e.sessionEndedSeen);
                            m.put("goneSeen", e.goneSeen);
                            m.put("removedAt", e.removedAt);
                            m.put("removedAs", e.removedAs);
                            return m;
                        })
                        .toList());
        dump.put("listed", observer.listed());
        dump.put("evictions", observer.evictions());
        dump.put("snapshots", observer.snapshots());
        dump.put("polls", observer.polls());
        try {
            new ObjectMapper().writeValue(dir.resolve("queues.json").toFile(), dump);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void inject(ServiceFaults faults) {
        long end = System.nanoTime() + settings.duration().toNanos();
        sleep(Duration.ofSeconds(3)); // let the workers get going
        ExecutorService pool = Executors.newFixedThreadPool(settings.injectors());
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < settings.injectors(); i++) {
            Random random = new Random(settings.seed() + i);
            running.add(pool.submit(() -> {
                while (System.nanoTime() < end) {
                    faults.injectOne(random);
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
    }

    /**
     * Waits until every worker, and every key, had an accepted write after the last fault, or
     * {@link #SETTLE} ran out: liveness is judged on what happened after the faults stopped.
     */
    private void awaitProgressAfterLastFault(List<WorkerProcess> workers, long lastFaultEnd) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (System.nanoTime() < deadline) {
            sleep(Duration.ofSeconds(1));
            List<ServiceLog.Write> after = ServiceLog.read(
                            workers.stream().map(w -> w.log).toList())
                    .writes()
                    .stream()
                    .filter(w -> Attempt.ACCEPTED.equals(w.jdbc()) && w.startAt() > lastFaultEnd)
                    .toList();
            long live = after.stream().map(ServiceLog.Write::worker).distinct().count();
            long keys =
                    after.stream().map(ServiceLog.Write::resource).distinct().count();
            if (live == workers.size() && keys == settings.locks()) {
                return;
            }
        }
    }

    /** SIGTERM to every worker at once: each releases what it holds and exits. */
    private static void stopWorkers(List<WorkerProcess> workers) {
        List<Thread> stopping = new ArrayList<>();
        for (WorkerProcess w : workers) {
            stopping.add(Thread.ofVirtual().start(() -> w.stop(Duration.ofSeconds(60))));
        }
        for (Thread t : stopping) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    private WorkerProcess javaWorker(String name, String replicaUrls, String jdbcUrl, long seed) {
        Path log = dir.resolve(name + ".jsonl");
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx160m",
                "-Djava.io.tmpdir=" + dir.toAbsolutePath(),
                "-cp",
                System.getProperty("java.class.path"),
                ServiceWorker.class.getName(),
                name,
                replicaUrls,
                jdbcUrl,
                Integer.toString(settings.locks()),
                Integer.toString(settings.threads()),
                Long.toString(seed),
                log.toString());
        return new WorkerProcess(name, false, command, log, dir.resolve(name + ".stderr.log"));
    }

    private WorkerProcess pythonWorker(String name, Path script, String replicaUrls, String jdbcUrl, long seed) {
        Path log = dir.resolve(name + ".jsonl");
        List<String> command = List.of(
                HostTools.PYTHON.toString(),
                script.toString(),
                "--name",
                name,
                "--replicas",
                replicaUrls,
                "--pg-port",
                Integer.toString(postgresPort(jdbcUrl)),
                "--locks",
                Integer.toString(settings.locks()),
                "--threads",
                Integer.toString(settings.threads()),
                "--seed",
                Long.toString(seed),
                "--log",
                log.toString());
        return new WorkerProcess(name, true, command, log, dir.resolve(name + ".stderr.log"));
    }

    /** The port in {@code jdbc:postgresql://localhost:PORT/...}. */
    static int postgresPort(String jdbcUrl) {
        Matcher m = Pattern.compile("//[^:/]+:(\\d+)/").matcher(jdbcUrl);
        if (!m.find()) {
            throw new IllegalStateException("no port in the JDBC URL " + jdbcUrl);
        }
        return Integer.parseInt(m.group(1));
    }

    /** The Python worker's script, from the project's root or from the campaigns module (where Maven runs tests). */
    private static Path pythonWorker() {
        for (Path p :
                List.of(Path.of("campaigns", "python", "faults_worker.py"), Path.of("python", "faults_worker.py"))) {
            if (Files.isReadable(p)) {
                return p.toAbsolutePath();
            }
        }
        throw new IllegalStateException("campaigns/python/faults_worker.py not found from "
                + Path.of("").toAbsolutePath()
                + ": run the campaign from the project's root (./faults) or the campaigns module");
    }

    /** The lock key of a lock's znode ({@code <root>/<namespace>/<name>}), for the keys the campaign names itself. */
    static String keyOfLock(String lockPath) {
        String[] parts = lockPath.split("/");
        return parts.length < 2 ? lockPath : parts[parts.length - 2] + ":" + parts[parts.length - 1];
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
