package io.zkfence.server;

import java.util.ArrayList;
import java.util.List;

/**
 * What every simulated run has: the world, the ZooKeeper ensemble, the replicas (started) and the
 * checker judging after every step. A random run ({@link ServiceSimulation}) adds random clients
 * and faults; a scenario adds scripted calls and faults at given moments.
 */
final class SimCluster {

    final SimWorld world;
    final SimConfig config;
    final SimEnsemble ensemble;
    final List<SimReplica> replicas = new ArrayList<>();
    final SimChecker checker;
    final SimTrace trace;

    SimCluster(long seed, SimConfig config, int traceLines) {
        this.trace = new SimTrace(traceLines);
        this.world = new SimWorld(seed, trace);
        this.config = config;
        this.ensemble = new SimEnsemble(world, config);
        for (int i = 0; i < config.replicas(); i++) {
            replicas.add(new SimReplica(
                    i, world, ensemble, config, world.between(-config.maxSkewMillis(), config.maxSkewMillis())));
        }
        this.checker = new SimChecker(world, ensemble, config, replicas, ServiceSimulation.ROOT);
        ensemble.observe(checker);
        world.afterEveryStep(checker::afterStep);
        replicas.forEach(SimReplica::start);
    }

    /** A client whose calls a scenario sends itself. */
    SimClient client(String name) {
        return new SimClient(name, world, config, replicas, List.of(LockKey.parse("sim:key-0")), checker, false);
    }

    /** Runs {@code action} at {@code seconds} of simulated time. */
    void at(double seconds, Runnable action) {
        world.at((long) (seconds * 1e6), null, "script", action);
    }

    /**
     * Runs until {@code seconds} of simulated time, or the first broken promise.
     *
     * @return the broken promise, or null
     */
    SimChecker.Finding runUntil(double seconds) {
        try {
            while (world.now() < seconds * 1e6 && checker.finding() == null) {
                if (!world.step()) {
                    break;
                }
            }
            return checker.finding();
        } catch (SimWorld.SimFailure e) {
            return new SimChecker.Finding("SIMULATION", world.now(), e.getMessage());
        }
    }

    void close() {
        world.shutdown();
    }
}
