package io.zkfence.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Runs the workloads in order (the lock workloads on one ZooKeeper ensemble, then the fencing
 * workloads, each with its own server) and writes README.md, results.json and the plots.
 */
final class Harness {

    static List<Workload> all() {
        return List.of(
                new UncontendedBench(),
                new ContendedBench(),
                new HandoffBench(),
                new ManyLocksBench(),
                new CacheRebuildBench(),
                new HotLockBench(),
                new HotLockProcessesBench(),
                new AggregateBench(),
                new FileProcessingBench(),
                new ServerBench(),
                new JdbcFencingBench(),
                new S3FencingBench(),
                new RedisFencingBench(),
                new AzureBlobFencingBench(),
                new ServiceScaleBench());
    }

    private final Settings settings;
    private final Path out;
    private final boolean fsync;
    private final Set<String> only;
    private final String command;
    private final Progress log = new Progress(System.out);

    Harness(Settings settings, Path out, boolean fsync, Set<String> only, String command) {
        this.settings = settings;
        this.out = out;
        this.fsync = fsync;
        this.only = only;
        this.command = command;
    }

    /** Runs everything selected; returns the results (also written to the output folder). */
    Results run() {
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + out, e);
        }
        Results results = new Results();
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        long t0 = System.nanoTime();
        results.run().put("started", started.toString());
        results.run().put("mode", settings.smoke() ? "smoke" : "full");
        results.run().put("command", command);
        results.run().put("settings", settings.toString());
        MachineInfo.capture(results.machine());
        results.machine().put("load_average_before", MachineInfo.loadAverage());

        List<Workload> selected = all().stream()
                .filter(w -> only.isEmpty() ? !w.optIn() : only.contains(w.name()))
                .toList();
        List<Section> sections = new ArrayList<>();
        try (CpuSampler cpu = new CpuSampler()) {
            List<Workload> zkWorkloads =
                    selected.stream().filter(Workload::needsZooKeeper).toList();
            if (!zkWorkloads.isEmpty()) {
                log.say("starting a %d-server ZooKeeper ensemble (fsync %s)", ZkCluster.SIZE, fsync ? "on" : "off");
                try (ZkCluster zk = ZkCluster.start(fsync)) {
                    results.machine().put("zookeeper_ensemble_size", ZkCluster.SIZE);
                    results.machine().put("zookeeper_fsync", fsync);
                    results.machine().put("zookeeper_tick_ms", ZkCluster.TICK_MS);
                    results.machine().put("zookeeper_session_timeout_ms", ZkCluster.SESSION_TIMEOUT_MS);
                    results.machine().put("zookeeper_clients_on", zk.pinnedRole() + " " + zk.connectString());
                    results.machine().put("zookeeper_data_fs", MachineInfo.fileSystemOf(zk.dataDirectory()));
                    try (HazelcastCp hazelcast = startHazelcastIfNeeded(zkWorkloads, results)) {
                        for (Workload w : zkWorkloads) {
                            sections.add(w.run(new BenchContext(settings, results, out, zk, hazelcast, log)));
                        }
                    }
                }
            }
            for (Workload w : selected) {
                if (!w.needsZooKeeper()) {
                    sections.add(w.run(new BenchContext(settings, results, out, null, null, log)));
                }
            }
            results.machine().put("cpu_share_other_processes", cpu.foreignShare());
            results.machine().put("cpu_share_other_processes_worst_window", cpu.worstWindowShare());
        }
        // The ZooKeeper workloads run first, so the report would not follow the sections' numbers.
        sections.sort(Comparator.comparing(Section::title));
        results.machine().put("load_average_after", MachineInfo.loadAverage());
        results.run().put("duration_s", Math.round((System.nanoTime() - t0) / 1e9));
        results.writeJson(out.resolve("results.json"));
        ReportWriter.write(out.resolve("README.md"), results, sections);
        log.say("wrote %s (README.md, results.json, plots) in %d s", out, (System.nanoTime() - t0) / 1_000_000_000);
        return results;
    }

    /** The peer's members, started once for every workload that compares with it; null if none does. */
    private HazelcastCp startHazelcastIfNeeded(List<Workload> zkWorkloads, Results results) {
        if (zkWorkloads.stream().noneMatch(Workload::needsHazelcast)) {
            return null;
        }
        log.say("starting %d Hazelcast CP members (in memory)", HazelcastCp.MEMBERS);
        HazelcastCp hazelcast = HazelcastCp.start();
        results.machine().put("hazelcast_cp_members", HazelcastCp.MEMBERS);
        results.machine().put("hazelcast_cp_persistence", false);
        return hazelcast;
    }
}
