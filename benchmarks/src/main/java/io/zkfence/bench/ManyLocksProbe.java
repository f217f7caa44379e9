package io.zkfence.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;

/**
 * The client side of workload 4, run in a JVM of its own so that its heap holds only the client
 * (the ensemble's servers live in the harness's JVM). Holds 1, 1 000, 10 000 locks in turn and times
 * acquires of one more lock at each level, going up and then coming down again so drift averages
 * out; measures the heap used after full GCs. Prints one line "RESULT {json}" on stdout.
 *
 * <p>Arguments: connectString levels(comma-separated) warmup samplesPerLevel
 */
public final class ManyLocksProbe {

    static final String RESULT = "RESULT ";
    private static final int PARALLELISM = 8;

    private ManyLocksProbe() {}

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        List<Integer> levels =
                Arrays.stream(args[1].split(",")).map(Integer::parseInt).toList();
        int warmup = Integer.parseInt(args[2]);
        int samples = Integer.parseInt(args[3]);

        Map<String, Object> out = new LinkedHashMap<>();
        try (CuratorFramework session = ZkCluster.curator(connect);
                LockClient client = LockClient.create(
                        session,
                        LockClientConfig.builder()
                                .rootPath("/bench/many")
                                .ownerId("bench-many-locks")
                                .build())) {
            FencedLock probe = client.lock("probe");
            time(probe, warmup, null);
            long baseline = usedHeapAfterGc();
            out.put("heap_used_bytes_0", baseline);

            Map<Integer, Histogram> histograms = new LinkedHashMap<>();
            List<Lease> held = new ArrayList<>();
            for (int level : levels) {
                holdUpTo(client, held, level);
                out.put("heap_used_bytes_" + level, usedHeapAfterGc());
                System.err.printf("[probe] holding %d locks%n", held.size());
                time(probe, samples / 2, histograms.computeIfAbsent(level, k -> Latency.newHistogram()));
            }
            List<Integer> down = new ArrayList<>(levels);
            Collections.reverse(down);
            for (int level : down) {
                while (held.size() > level) {
                    held.remove(held.size() - 1).release();
                }
                time(probe, samples - samples / 2, histograms.get(level));
            }
            held.forEach(Lease::release);
            histograms.forEach((level, h) -> {
                Latency l = Latency.of(h);
                out.put(
                        "acquire_" + level,
                        Map.of(
                                "count", l.count(), "p50_us", l.p50(), "p99_us", l.p99(), "p999_us", l.p999(), "max_us",
                                l.max(), "mean_us", l.mean()));
            });
            out.put("stats", client.stats().toString());
        }
        System.out.println(RESULT + new ObjectMapper().writeValueAsString(out));
        System.out.flush();
    }

    /** Times {@code n} acquires of {@code lock} (the release after each is not timed). */
    private static void time(FencedLock lock, int n, Histogram into) {
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            Lease lease = lock.acquire();
            long t1 = System.nanoTime();
            lease.release();
            if (into != null) {
                Latency.record(into, t1 - t0);
            }
        }
    }

    /** Acquires distinct locks from a few threads until {@code level} are held. */
    private static void holdUpTo(LockClient client, List<Lease> held, int level) throws Exception {
        int from = held.size();
        if (level <= from) {
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(PARALLELISM);
        try {
            List<Future<Lease>> futures = new ArrayList<>();
            for (int i = from; i < level; i++) {
                String name = "held-" + i;
                futures.add(pool.submit(() -> client.lock(name).acquire()));
            }
            for (Future<Lease> f : futures) {
                held.add(f.get());
            }
        } finally {
            pool.shutdown();
        }
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
