package io.zkfence.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Watches, while the run goes, how much of the machine's CPU went to processes that are not this
 * harness or its children (the embedded PostgreSQL, the many-locks JVM): other builds sharing the
 * machine. Reads /proc (Linux); elsewhere it reports nothing.
 */
final class CpuSampler implements AutoCloseable {

    private static final long PERIOD_MS = 2_000;

    private final Thread thread;
    private volatile boolean running = true;
    private long foreignTicks;
    private long totalTicks;
    private double worstWindow;
    private int windows;

    CpuSampler() {
        thread = Thread.ofPlatform().daemon().name("bench-cpu-sampler").start(this::loop);
    }

    private void loop() {
        Map<Long, Long> prevOwn = new HashMap<>();
        long[] prev = sample(prevOwn);
        while (running && prev != null) {
            try {
                TimeUnit.MILLISECONDS.sleep(PERIOD_MS); // a sampling period, not synchronisation
            } catch (InterruptedException e) {
                return;
            }
            Map<Long, Long> own = new HashMap<>();
            long[] now = sample(own);
            if (now == null) {
                return;
            }
            // Only processes seen in both samples: one that exited (a PostgreSQL backend, the
            // many-locks JVM) takes its ticks with it and would otherwise count as negative.
            long ownDelta = 0;
            for (Map.Entry<Long, Long> e : own.entrySet()) {
                Long before = prevOwn.get(e.getKey());
                ownDelta += before == null ? 0 : Math.max(0, e.getValue() - before);
            }
            long total = now[0] - prev[0];
            long busy = now[1] - prev[1];
            long foreign = Math.min(busy, Math.max(0, busy - ownDelta));
            synchronized (this) {
                if (total > 0) {
                    totalTicks += total;
                    foreignTicks += foreign;
                    worstWindow = Math.max(worstWindow, foreign / (double) total);
                    windows++;
                }
            }
            prev = now;
            prevOwn = own;
        }
    }

    /** [all ticks, busy ticks]; fills {@code own} with each process of this tree's ticks; null without /proc. */
    private static long[] sample(Map<Long, Long> own) {
        try {
            String[] cpu =
                    Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long user = Long.parseLong(cpu[1]);
            long nice = Long.parseLong(cpu[2]);
            long system = Long.parseLong(cpu[3]);
            long idle = Long.parseLong(cpu[4]);
            long iowait = Long.parseLong(cpu[5]);
            long irq = Long.parseLong(cpu[6]);
            long softirq = Long.parseLong(cpu[7]);
            long steal = cpu.length > 8 ? Long.parseLong(cpu[8]) : 0;
            long busy = user + nice + system + irq + softirq + steal;
            Set<Long> mine = new HashSet<>();
            mine.add(ProcessHandle.current().pid());
            try (Stream<ProcessHandle> d = ProcessHandle.current().descendants()) {
                mine.addAll(d.map(ProcessHandle::pid).collect(Collectors.toSet()));
            }
            for (long pid : mine) {
                own.put(pid, processTicks(pid));
            }
            return new long[] {busy + idle + iowait, busy};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static long processTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            List<String> f = List.of(stat.substring(stat.lastIndexOf(')') + 2).split(" "));
            return Long.parseLong(f.get(11)) + Long.parseLong(f.get(12)); // utime, stime
        } catch (IOException | RuntimeException e) {
            return 0; // exited between listing and reading
        }
    }

    /** Share of all CPU time (0–1) used by other processes, over the whole run; -1 if unknown. */
    synchronized double foreignShare() {
        return totalTicks == 0 ? -1 : foreignTicks / (double) totalTicks;
    }

    /** Largest share in one sampling window. */
    synchronized double worstWindowShare() {
        return windows == 0 ? -1 : worstWindow;
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
