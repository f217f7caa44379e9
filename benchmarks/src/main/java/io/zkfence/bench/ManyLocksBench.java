package io.zkfence.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Workload 4: acquire latency while the client already holds 1, 1 000 and 10 000 locks, and the
 * client heap each held lock costs. The client runs in a child JVM ({@link ManyLocksProbe}) so its
 * heap is the client's alone.
 */
final class ManyLocksBench implements Workload {

    static final String CHILD_HEAP = "-Xmx1g";
    /** Below this many held locks, the heap difference is lost in what a full GC leaves behind. */
    static final int MIN_LEVEL_FOR_HEAP = 500;

    @Override
    public String name() {
        return "many-locks";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        List<Integer> levels = s.heldLevels();
        ctx.log().say("many locks: child JVM holds %s locks", levels);
        JsonNode json = runChild(ctx, levels);

        Map<Integer, Latency> lat = new LinkedHashMap<>();
        for (int level : levels) {
            JsonNode a = json.get("acquire_" + level);
            Latency l = new Latency(
                    a.get("count").asLong(),
                    a.get("p50_us").asDouble(),
                    a.get("p99_us").asDouble(),
                    a.get("p999_us").asDouble(),
                    a.get("max_us").asDouble(),
                    a.get("mean_us").asDouble());
            lat.put(level, l);
            r.latency("many_locks.held_" + level + ".acquire", l);
        }
        long heap0 = json.get("heap_used_bytes_0").asLong();
        Map<Integer, Double> perLock = new LinkedHashMap<>();
        for (int level : levels) {
            long used = json.get("heap_used_bytes_" + level).asLong();
            r.figure("many_locks.held_" + level + ".heap_used_bytes", used);
            double bytes = (used - heap0) / (double) level;
            perLock.put(level, bytes);
            r.figure("many_locks.held_" + level + ".heap_bytes_per_held_lock", bytes);
        }
        r.figure("many_locks.heap_used_bytes_none_held", heap0);
        r.fact(
                "many_locks.child_jvm",
                CHILD_HEAP + ", client only; stats at end: " + json.get("stats").asText());

        int first = levels.get(0);
        int last = levels.get(levels.size() - 1);
        double ratio = lat.get(last).p50() / lat.get(first).p50();
        r.figure("many_locks.ratio.p50_most_vs_fewest_held", ratio);
        String middle = levels.size() > 2
                ? ", " + Fmt.ratio(lat.get(levels.get(1)).p50() / lat.get(first).p50()) + " with " + levels.get(1)
                : "";
        r.target(Target.atMost(
                "many_locks_flat",
                name(),
                "acquire p50 with " + last + " locks held ≤ 1.1 × with " + first,
                ratio,
                1.1,
                "p50 " + Fmt.us(lat.get(last).p50()) + " with " + last + " held, "
                        + Fmt.us(lat.get(first).p50()) + " with " + first + middle + "; heap per held lock "
                        + Fmt.num(perLock.get(last)) + " bytes"));

        List<String> categories = levels.stream().map(l -> l + " held").toList();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("p50", levels.stream().map(l -> lat.get(l).p50()).toList());
        series.put("p99", levels.stream().map(l -> lat.get(l).p99()).toList());
        String plot = Plots.bars(
                ctx.out(),
                "many-locks.png",
                "Acquire latency with locks already held",
                "locks held by the client",
                "latency (µs)",
                categories,
                series);
        StringBuilder md = new StringBuilder();
        md.append("A client (in a JVM of its own, ")
                .append(CHILD_HEAP)
                .append(", so that its heap is the client's " + "alone) holds ")
                .append(levels.stream().map(String::valueOf).collect(Collectors.joining(", ")))
                .append(" distinct locks in turn and times acquires of one more lock (release not timed): ")
                .append(s.manySamples() / 2)
                .append(" going up, ")
                .append(s.manySamples() - s.manySamples() / 2)
                .append(" coming down again, after ")
                .append(s.manyWarmup())
                .append(" warm-up cycles. Heap is "
                        + "measured after full GCs; per held lock = (used with N held − used with none) ÷ N, and includes "
                        + "the `Lease` handle the application keeps, the grant, its own-node watch and Curator/ZooKeeper "
                        + "client state.\n\n");
        md.append("| locks held | samples | p50 | p99 | p99.9 | max | p50 ÷ p50 with ")
                .append(first)
                .append(" | heap per held lock |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int level : levels) {
            Latency l = lat.get(level);
            md.append(Fmt.row(
                    level,
                    l.count(),
                    Fmt.us(l.p50()),
                    Fmt.us(l.p99()),
                    Fmt.us(l.p999()),
                    Fmt.us(l.max()),
                    Fmt.ratio(l.p50() / lat.get(first).p50()),
                    level < MIN_LEVEL_FOR_HEAP ? "— (below GC noise)" : Fmt.num(perLock.get(level)) + " bytes"));
        }
        md.append("\n![acquire latency with many locks held](").append(plot).append(")\n");
        return new Section("4. Many locks held", md.toString());
    }

    private JsonNode runChild(BenchContext ctx, List<Integer> levels) {
        Settings s = ctx.settings();
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                CHILD_HEAP,
                "-cp",
                System.getProperty("java.class.path"),
                ManyLocksProbe.class.getName(),
                ctx.zk().connectString(),
                levels.stream().map(String::valueOf).collect(Collectors.joining(",")),
                String.valueOf(s.manyWarmup()),
                String.valueOf(s.manySamples())));
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            String result = null;
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith(ManyLocksProbe.RESULT)) {
                        result = line.substring(ManyLocksProbe.RESULT.length());
                    }
                }
            }
            if (!p.waitFor(20, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("the many-locks child JVM did not finish in 20 min");
            }
            if (p.exitValue() != 0 || result == null) {
                throw new IllegalStateException("the many-locks child JVM failed (exit " + p.exitValue() + "): " + cmd);
            }
            return new ObjectMapper().readTree(result);
        } catch (IOException e) {
            throw new UncheckedIOException("running the many-locks child JVM", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
