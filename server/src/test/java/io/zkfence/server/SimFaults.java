package io.zkfence.server;

import java.util.List;

/**
 * The faults of a simulated run, struck at random moments at the rate its {@link SimConfig} sets:
 * replicas killed and started again, paused (shorter and longer than a session), stopped
 * gracefully, cut off from ZooKeeper, their clocks moved; ZooKeeper's connections dropped, a
 * write's answer lost after it committed, leader elections, servers killed, followers cut off from
 * the leader or lagging, empty lock nodes removed; clients paused past their leases.
 */
final class SimFaults {

    private final SimWorld world;
    private final SimConfig config;
    private final SimEnsemble ensemble;
    private final List<SimReplica> replicas;
    private final List<SimClient> clients;
    private long struck;

    SimFaults(
            SimWorld world,
            SimConfig config,
            SimEnsemble ensemble,
            List<SimReplica> replicas,
            List<SimClient> clients) {
        this.world = world;
        this.config = config;
        this.ensemble = ensemble;
        this.replicas = replicas;
        this.clients = clients;
    }

    long struck() {
        return struck;
    }

    void start() {
        scheduleNext();
    }

    /**
     * A hedged copy of an acquire went to replica {@code i}: now and then that replica is killed
     * soon after, while the copy may have taken the entry over (a targeted fault: the moment that
     * matters is rare at random).
     */
    void afterHedge(int i) {
        if (!world.chance(config.faultsPerMinute() / 200)) {
            return;
        }
        SimReplica r = replicas.get(i);
        long session = config.sessionTimeoutMs() * 1000L;
        world.after(world.between(0, 2_000_000), null, "faults", () -> {
            struck++;
            r.kill();
            world.after(world.between(200_000, 2 * session), null, "restart-" + r.name, () -> {
                if (r.process().dead()) {
                    r.start();
                }
            });
        });
    }

    private void scheduleNext() {
        if (config.faultsPerMinute() <= 0) {
            return;
        }
        double meanMicros = 60e6 / config.faultsPerMinute();
        long gap = (long) (-Math.log(1 - world.random().nextDouble()) * meanMicros);
        world.after(Math.max(1_000, gap), null, "faults", () -> {
            strike();
            scheduleNext();
        });
    }

    private void strike() {
        struck++;
        long session = config.sessionTimeoutMs() * 1000L;
        SimReplica r = replicas.get(world.random().nextInt(replicas.size()));
        int server = world.random().nextInt(SimEnsemble.SERVERS);
        switch (world.random().nextInt(16)) {
            case 0 -> {
                r.kill();
                world.after(world.between(200_000, 2 * session), null, "restart-" + r.name, () -> {
                    if (r.process().dead()) {
                        r.start();
                    }
                });
            }
            case 1, 2 -> r.pause(world.between(20_000, 1_000_000));
            case 3 -> r.pause(world.between(session * 8 / 10, session * 5 / 2));
            case 4 ->
                r.stopGracefully(
                        () -> world.after(world.between(100_000, 2_000_000), null, "restart-" + r.name, r::start));
            case 5 -> {
                if (r.zk() != null) {
                    r.zk().cutOff(world.between(session / 2, 2 * session));
                }
            }
            case 6 -> r.skew(world.between(-config.maxSkewMillis(), config.maxSkewMillis()));
            case 7 -> {
                if (r.zk() != null) {
                    r.zk().disconnected("a dropped connection");
                }
            }
            case 8, 9 -> {
                if (r.zk() != null) {
                    r.zk().loseNextWriteAnswer();
                }
            }
            case 10 -> ensemble.startElection();
            case 11 -> {
                ensemble.killServer(server);
                world.after(
                        world.between(300_000, 3_000_000),
                        null,
                        "zk-restart-" + server,
                        () -> ensemble.restartServer(server));
            }
            case 12 -> ensemble.isolate(server, world.between(300_000, 3_000_000));
            case 13 ->
                ensemble.lag(server, world.between(50_000, config.maxLagMicros()), world.between(1_000_000, 5_000_000));
            case 14 -> ensemble.reapContainers();
            default -> {
                SimClient c = clients.get(world.random().nextInt(clients.size()));
                c.pause(world.between(100_000, 3 * config.ttlMaxMillis() * 1000));
            }
        }
    }
}
