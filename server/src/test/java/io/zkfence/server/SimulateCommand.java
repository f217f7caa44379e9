package io.zkfence.server;

import java.time.Duration;

/**
 * {@code ./simulate}: runs the service simulation for as long as asked, seed after seed, printing
 * the steps per second as it goes and every seed that breaks a promise, with its trace.
 *
 * <pre>
 *   ./simulate MINUTES [--seed FIRST] [--steps PER_SEED]
 *   ./simulate --seed N [--steps PER_SEED]        # replays one seed and prints its trace
 * </pre>
 *
 * Exit code 0 if every seed kept every promise, 1 if one did not, 2 on bad arguments.
 */
public final class SimulateCommand {

    private SimulateCommand() {}

    public static void main(String[] args) {
        Duration length = null;
        Long seed = null;
        long stepsPerSeed = 40_000;
        boolean full = false;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--seed" -> seed = Long.parseLong(args[++i]);
                    case "--steps" -> stepsPerSeed = Long.parseLong(args[++i]);
                    case "--full-trace" -> full = true;
                    case "--help", "-h" -> {
                        System.out.println(
                                "usage: ./simulate MINUTES [--seed FIRST] [--steps PER_SEED] | ./simulate --seed N");
                        return;
                    }
                    default -> length = Duration.ofSeconds((long) (Double.parseDouble(args[i]) * 60));
                }
            }
        } catch (RuntimeException e) {
            System.err.println("simulate: bad arguments: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (length == null && seed != null) {
            ServiceSimulation.Result r = ServiceSimulation.run(seed, stepsPerSeed, 400);
            System.out.println(r.summary());
            if (!r.passed()) {
                System.out.println(full ? r.trace() : r.shortTrace());
            }
            System.exit(r.passed() ? 0 : 1);
            return;
        }
        if (length == null) {
            System.err.println("simulate: give MINUTES, or --seed N to replay one seed");
            System.exit(2);
            return;
        }
        long first = seed == null ? System.nanoTime() & 0xffffffffL : seed;
        long end = System.nanoTime() + length.toNanos();
        long steps = 0;
        long seeds = 0;
        long failed = 0;
        long started = System.nanoTime();
        long lastReport = started;
        for (long s = first; System.nanoTime() < end; s++) {
            ServiceSimulation.Result r = ServiceSimulation.run(s, stepsPerSeed, 400);
            steps += r.steps();
            seeds++;
            if (!r.passed()) {
                failed++;
                System.out.println("FAILED " + r.summary());
                System.out.println(full ? r.trace() : r.shortTrace());
            }
            long now = System.nanoTime();
            if (now - lastReport > 10_000_000_000L) {
                lastReport = now;
                System.out.printf(
                        "simulate: %d seeds, %d steps, %.0f steps/s, %d failed%n",
                        seeds, steps, steps / ((now - started) / 1e9), failed);
            }
        }
        double secs = (System.nanoTime() - started) / 1e9;
        System.out.printf(
                "simulate: done: seeds %d to %d, %d steps in %.0f s (%.0f steps/s), %d failed%n",
                first, first + seeds - 1, steps, secs, steps / secs, failed);
        System.exit(failed == 0 ? 0 : 1);
    }
}
