package io.zkfence.bench;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.recipes.files.FilePass;
import io.zkfence.recipes.files.FileProcessor;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Workload 9: files processed exactly once by 1, 2 and 4 workers on one S3 prefix (the
 * {@code FileProcessor} recipe). Each worker is a lock client with its own ZooKeeper session and
 * runs passes until every file has a completion record; the task parks its thread for a fixed
 * time as a stand-in for parsing a file. Measures files per second against the number of workers,
 * and counts how often each file was processed (the target: exactly once).
 */
final class FileProcessingBench implements Workload {

    static final Duration TASK_COST = Duration.ofMillis(50);
    static final int SMOKE_FILES = 8;
    private static final Duration IDLE_PASS_PAUSE = Duration.ofMillis(5);

    @Override
    public String name() {
        return "file-processing";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        int files = s.smoke() ? SMOKE_FILES : 60;
        List<Integer> layouts = s.smoke() ? List.of(1, 2) : List.of(1, 2, 4);
        ctx.log()
                .say(
                        "file processing: %d files, %d ms each, %s workers; starting S3Mock and embedded PostgreSQL",
                        files, TASK_COST.toMillis(), layouts);
        try (Closer closer = new Closer()) {
            S3MockServer s3mock = closer.add(S3MockServer.start());
            S3Client s3 = closer.add(s3mock.client());
            EmbeddedPostgres pg = closer.add(EmbeddedPostgres.builder()
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .start());
            DataSource db = closer.add(CacheRebuildBench.pool(pg, 2 * layouts.get(layouts.size() - 1)));
            JdbcFence fence = JdbcFence.create(db);
            fence.createIfMissing();
            String bucket = "bench-files";
            s3.createBucket(b -> b.bucket(bucket));
            FencedBucket output = FencedBucket.create(s3, S3FenceConfig.of(bucket));

            Map<Integer, Run> runs = new LinkedHashMap<>();
            // A warm-up layout first (JIT, connection pools, the S3 fence's one-off self-check), not reported.
            List<Integer> rounds = new ArrayList<>(layouts);
            rounds.add(0, 0);
            for (int round : rounds) {
                int workers = Math.max(round, 1);
                String prefix = round == 0 ? "warm-up/" : "in-" + workers + "/";
                for (int i = 0; i < files; i++) {
                    String key = String.format(Locale.ROOT, "%s2026-01-05-%03d.csv", prefix, i);
                    s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("rows of " + key));
                }
                List<FileProcessor> processors = new ArrayList<>();
                AtomicInteger taskRuns = new AtomicInteger();
                for (int w = 0; w < workers; w++) {
                    LockClient client = closer.add(LockClient.create(
                            closer.add(ctx.zk().curator()),
                            LockClientConfig.builder()
                                    .rootPath("/bench/files")
                                    .ownerId("bench-files-" + round + "-" + w)
                                    .build()));
                    FileProcessor p = FileProcessor.builder(client, s3, output, fence, db, (key, input, token) -> {
                                taskRuns.incrementAndGet();
                                LockSupport.parkNanos(TASK_COST.toNanos());
                                return new String(input, StandardCharsets.UTF_8)
                                        .toUpperCase(Locale.ROOT)
                                        .getBytes(StandardCharsets.UTF_8);
                            })
                            .input(bucket, prefix)
                            .outputPrefix("out/" + prefix)
                            .completionTable("bench_files_done")
                            .build();
                    p.createCompletionTableIfMissing();
                    processors.add(p);
                }
                Run run = process(processors, files, taskRuns);
                run = run.withCompletions(completions(db, prefix));
                if (round == 0) {
                    continue;
                }
                runs.put(workers, run);
                ctx.log()
                        .say(
                                "file processing: %d workers: %s files/s, task runs %d, recorded as done %d",
                                workers, Fmt.num(run.filesPerSecond(files)), run.taskRuns(), run.completions());
            }
            return report(ctx, r, runs, files);
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL", e);
        }
    }

    /** What one layout did. */
    private record Run(long nanos, int taskRuns, int processedInPasses, int completions) {
        double filesPerSecond(int files) {
            return files / (nanos / 1e9);
        }

        Run withCompletions(int n) {
            return new Run(nanos, taskRuns, processedInPasses, n);
        }
    }

    /** Every worker runs passes on its own thread until a pass finds every file done. */
    private static Run process(List<FileProcessor> processors, int files, AtomicInteger taskRuns) {
        ExecutorService threads = Executors.newFixedThreadPool(processors.size());
        try {
            AtomicInteger processed = new AtomicInteger();
            long t0 = System.nanoTime();
            List<Future<?>> done = new ArrayList<>();
            for (FileProcessor p : processors) {
                done.add(threads.submit(() -> {
                    while (true) {
                        FilePass pass = p.processPending();
                        processed.addAndGet(pass.processed().size());
                        if (!pass.failed().isEmpty() || !pass.lostToNewer().isEmpty()) {
                            throw new IllegalStateException(
                                    "a pass failed or lost files with no fault injected: " + pass);
                        }
                        if (pass.alreadyDone().size() == files) {
                            return null;
                        }
                        if (pass.processed().isEmpty()) {
                            LockSupport.parkNanos(IDLE_PASS_PAUSE.toNanos()); // others hold the last files
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                try {
                    f.get(10, TimeUnit.MINUTES);
                } catch (Exception e) {
                    throw new IllegalStateException("a worker failed", e);
                }
            }
            return new Run(System.nanoTime() - t0, taskRuns.get(), processed.get(), 0);
        } finally {
            threads.shutdownNow();
        }
    }

    private static int completions(DataSource db, String prefix) {
        try (Connection c = db.getConnection();
                PreparedStatement s =
                        c.prepareStatement("select count(*) from bench_files_done where file_key like ?")) {
            s.setString(1, prefix + "%");
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("counting completions failed", e);
        }
    }

    private Section report(BenchContext ctx, Results r, Map<Integer, Run> runs, int files) {
        StringBuilder md = new StringBuilder();
        md.append(files)
                .append(" input files on S3Mock per layout; each worker is a lock client with its own ZooKeeper ")
                .append(
                        "session (in this JVM) running `processPending()` passes on its own thread until every file has ")
                .append("a completion record. The task parks ")
                .append(TASK_COST.toMillis())
                .append(" ms per file as a stand-in ")
                .append("for parsing; each file's output is a fenced put (fencing-s3), its completion a fenced row ")
                .append(
                        "(fencing-jdbc, embedded PostgreSQL). No faults are injected here (the recipe's test and the fault ")
                .append("campaign do that).\n\n");
        md.append(
                        "| workers | files/s | speed-up over 1 worker | ms per file per worker | task runs | completion rows |\n")
                .append("|---:|---:|---:|---:|---:|---:|\n");
        double one = runs.values().iterator().next().filesPerSecond(files);
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("files/s", new ArrayList<>());
        List<String> categories = new ArrayList<>();
        int worstRuns = 0;
        int worstRows = files;
        for (Map.Entry<Integer, Run> e : runs.entrySet()) {
            int workers = e.getKey();
            Run run = e.getValue();
            double perSecond = run.filesPerSecond(files);
            double msPerFile = workers * 1000.0 / perSecond;
            r.figure("file_processing.workers_" + workers + ".files_per_s", perSecond);
            r.figure("file_processing.workers_" + workers + ".task_runs", run.taskRuns());
            r.figure("file_processing.workers_" + workers + ".completions", run.completions());
            md.append(Fmt.row(
                    workers,
                    Fmt.num(perSecond),
                    Fmt.ratio(perSecond / one),
                    Fmt.num(msPerFile),
                    run.taskRuns(),
                    run.completions()));
            series.get("files/s").add(perSecond);
            categories.add(workers + (workers == 1 ? " worker" : " workers"));
            worstRuns = Math.max(worstRuns, run.taskRuns());
            worstRows = Math.min(worstRows, run.completions());
        }
        int most = runs.keySet().stream().mapToInt(Integer::intValue).max().orElseThrow();
        double speedUp = runs.get(most).filesPerSecond(files) / one;
        r.figure("file_processing.ratio.speed_up_" + most + "_workers", speedUp);
        r.target(Target.exactly(
                "file_processing_task_runs_per_file",
                name(),
                "file processing, no faults: task runs per file, most in any layout, == 1",
                worstRuns / (double) files,
                1,
                worstRuns + " task runs for " + files + " files; fewest completion rows in a layout " + worstRows));
        r.target(Target.atLeast(
                "file_processing_scaling",
                name(),
                "file processing: files/s with " + most + " workers ≥ " + (most * 3 / 4.0) + " × with 1 (75 % scaling)",
                speedUp,
                most * 3 / 4.0,
                "files/s: "
                        + runs.entrySet().stream()
                                .map(e -> e.getKey() + " → "
                                        + Fmt.num(e.getValue().filesPerSecond(files)))
                                .toList()));
        String plot = Plots.bars(
                ctx.out(),
                "file-processing.png",
                files + " files, " + TASK_COST.toMillis() + " ms each",
                "workers",
                "files per second",
                categories,
                series);
        md.append("\n![file processing](").append(plot).append(")\n");
        return new Section("9. Files processed exactly once", md.toString());
    }
}
