package io.zkfence.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * One simulated run of the lock service, decided by its seed: a ZooKeeper ensemble, two or three
 * replicas running the service's real code, clients and an admin, faults; the promises checked
 * after every step ({@link SimChecker}). The same seed runs the same schedule again, step for
 * step, so a failing seed is a reproduction.
 */
final class ServiceSimulation {

    static final String ROOT = "/zkfence";

    /** What a run found (null: nothing) and how far it went. */
    record Result(
            long seed,
            SimConfig config,
            long steps,
            long simMicros,
            SimChecker.Finding finding,
            String trace,
            String shortTrace,
            long grants,
            long orphans,
            long faults) {

        boolean passed() {
            return finding == null;
        }

        String summary() {
            return String.format(
                    "seed %d: %s after %d steps, %.1f s simulated, %d grants, %d faults (%s)",
                    seed,
                    finding == null ? "every promise kept" : finding.toString(),
                    steps,
                    simMicros / 1e6,
                    grants,
                    faults,
                    config);
        }
    }

    static {
        // The replicas' own warnings (a confirmation that failed, a leftover given up) are part of
        // the storm the simulation makes; the checker judges what matters.
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(Level.ERROR);
        ((Logger) LoggerFactory.getLogger("io.zkfence")).setLevel(Level.ERROR); // logback-test.xml sets it
    }

    private ServiceSimulation() {}

    /** The trace of the finding's key over the 10 simulated seconds before it. */
    private static String shortTrace(SimTrace trace, SimChecker.Finding f) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("sim:key-\\d+").matcher(f.detail());
        return m.find() ? trace.focus(m.group(), f.atMicros() - 10_000_000) : trace.dump();
    }

    /** Runs seed {@code seed} for at most {@code maxSteps} steps, stopping at the first broken promise. */
    static Result run(long seed, long maxSteps, int traceLines) {
        return run(seed, SimConfig.forSeed(seed), maxSteps, traceLines);
    }

    static Result run(long seed, SimConfig config, long maxSteps, int traceLines) {
        SimCluster cluster = new SimCluster(seed, config, traceLines);
        SimWorld world = cluster.world;
        SimTrace trace = cluster.trace;
        SimEnsemble ensemble = cluster.ensemble;
        List<SimReplica> replicas = cluster.replicas;
        SimChecker checker = cluster.checker;
        List<LockKey> keys = new ArrayList<>();
        for (int i = 0; i < config.keys(); i++) {
            keys.add(LockKey.parse("sim:key-" + i));
        }
        List<SimClient> clients = new ArrayList<>();
        for (int i = 0; i < config.clients(); i++) {
            clients.add(new SimClient("c" + i, world, config, replicas, keys, checker, false));
        }
        SimClient admin = new SimClient("admin", world, config, replicas, keys, checker, true);
        SimFaults faults = new SimFaults(world, config, ensemble, replicas, clients);
        clients.forEach(c -> c.faults(faults));
        clients.forEach(SimClient::start);
        admin.start();
        faults.start();
        SimChecker.Finding finding = null;
        try {
            while (world.steps() < maxSteps && checker.finding() == null) {
                if (!world.step()) {
                    break;
                }
            }
            finding = checker.finding();
        } catch (SimWorld.SimFailure e) {
            finding = new SimChecker.Finding("SIMULATION", world.now(), e.getMessage());
        } finally {
            world.shutdown();
        }
        return new Result(
                seed,
                config,
                world.steps(),
                world.now(),
                finding,
                finding == null ? "" : trace.dump(),
                finding == null ? "" : shortTrace(trace, finding),
                checker.grants(),
                checker.orphansSeen(),
                faults.struck());
    }
}
