package io.zkfence.campaigns.service;

import io.zkfence.campaigns.FaultEvent;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.InstanceSpec;

/**
 * The faults of the lock service's campaign, each drawn from the injector's seeded {@link Random}
 * and recorded as a {@link FaultEvent} (kind, target, start, end). At most one replica is down,
 * paused, cut off or restarting at a time and at most one ZooKeeper server is down, so that the
 * service stays available: the faults test what it promises while it runs, not an outage.
 */
final class ServiceFaults {

    /** The kinds, each with its weight in the draw. */
    enum Kind {
        REPLICA_KILL("replica-kill", 2),
        REPLICA_KILL_WHILE_WAITING("replica-kill-while-waiting", 2),
        REPLICA_PAUSE("replica-pause", 2),
        REPLICA_CUTOFF_SHORT("replica-cutoff-short", 1),
        REPLICA_CUTOFF_LONG("replica-cutoff-long", 1),
        REPLICA_CLOCK_SKEW("replica-clock-skew", 1),
        REQUEST_HOLD("request-hold", 2),
        CONNECTION_DROP("connection-drop", 3),
        RETRY_AFTER_LOST_ANSWER("retry-after-lost-answer", 1),
        WORKER_PAUSE("worker-pause", 2),
        WORKER_KILL("worker-kill", 2),
        ZOOKEEPER_KILL("zk-kill", 2);

        final String label;
        final int weight;

        Kind(String label, int weight) {
            this.label = label;
            this.weight = weight;
        }

        static Kind draw(Random random) {
            int total = 0;
            for (Kind k : values()) {
                total += k.weight;
            }
            int n = random.nextInt(total);
            for (Kind k : values()) {
                n -= k.weight;
                if (n < 0) {
                    return k;
                }
            }
            throw new IllegalStateException("unreachable");
        }
    }

    /**
     * A replica's clock skew: the whole life of its skewed JVMs, from just before the first was
     * started under libfaketime (the unskewed one had stopped) to just after the last had stopped
     * (a kill meanwhile starts it again skewed); the offset in ms. Outside, it runs unskewed.
     */
    record Skew(String replica, long fromMillis, long toMillis, long offsetMillis) {}

    private final List<Replica> replicas;
    private final List<WorkerProcess> workers;
    private final EmbeddedEnsemble ensemble;
    private final List<FaultEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final List<Skew> skews = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Integer> counts = Collections.synchronizedMap(new TreeMap<>());
    private final AtomicLong lastFaultEnd = new AtomicLong();
    private final Probes probes;
    /** One replica disrupted at a time (killed, paused, cut off, restarting): the others serve. */
    private final Semaphore replicaDown = new Semaphore(1);
    /** One ZooKeeper server down at a time: a lost quorum only stops everyone. */
    private final Semaphore serverDown = new Semaphore(1);

    private final Map<String, Semaphore> busy = new ConcurrentHashMap<>();

    ServiceFaults(
            List<Replica> replicas,
            int locks,
            List<WorkerProcess> workers,
            EmbeddedEnsemble ensemble,
            QueueObserver observer,
            PrintWriter chaosLog) {
        this.replicas = replicas;
        this.workers = workers;
        this.ensemble = ensemble;
        this.probes = new Probes(replicas, locks, observer, chaosLog);
    }

    List<FaultEvent> events() {
        return List.copyOf(events);
    }

    List<Skew> skews() {
        return List.copyOf(skews);
    }

    Map<String, Integer> counts() {
        return new TreeMap<>(counts);
    }

    long lastFaultEnd() {
        return lastFaultEnd.get();
    }

    /** Draws and runs one fault (or none, when its target is busy with another one). */
    void injectOne(Random random) {
        Kind kind = Kind.draw(random);
        Replica replica = replicas.get(random.nextInt(replicas.size()));
        WorkerProcess worker = workers.get(random.nextInt(workers.size()));
        // Every draw is made whether or not it is used, so that one seed draws the same sequence.
        long a = random.nextInt(1_000_000);
        long b = random.nextInt(1_000_000);
        switch (kind) {
            case REPLICA_KILL -> onReplica(replica, () -> killReplica(kind.label, replica, 1_000 + a % 2_000, null));
            case REPLICA_KILL_WHILE_WAITING ->
                onReplica(replica, () -> killWhileWaiting(replica, 1_000 + a % 2_000, b));
            case REPLICA_PAUSE -> {
                long ms = ServiceWorker.TTL + 1_000 + a % 4_000;
                onReplica(
                        replica,
                        () -> fault(
                                kind.label,
                                replica.name,
                                replica.name + " SIGSTOP for " + ms + " ms (past the clients' TTL)",
                                () -> {
                                    replica.pause();
                                    sleep(ms);
                                    replica.resume();
                                }));
            }
            case REPLICA_CUTOFF_SHORT, REPLICA_CUTOFF_LONG -> {
                boolean past = kind == Kind.REPLICA_CUTOFF_LONG;
                long ms = past ? Replica.SESSION.toMillis() + 1_000 + a % 6_000 : 2_000 + a % 4_000;
                onReplica(
                        replica,
                        () -> fault(
                                kind.label,
                                replica.name,
                                replica.name + " cut off from ZooKeeper for " + ms + " ms"
                                        + (past ? " (past its session)" : ""),
                                () -> {
                                    replica.cutOff();
                                    sleep(ms);
                                    replica.heal();
                                }));
            }
            case REPLICA_CLOCK_SKEW -> clockSkew(replica, (2 + a % 5) * (b % 2 == 0 ? 1 : -1), 20_000 + b % 20_000);
            case REQUEST_HOLD -> {
                long ms = ServiceWorker.CALL_TIMEOUT.toMillis() + 1_000 + a % 3_000;
                long start = System.currentTimeMillis();
                DelayProxy.Held held = replica.front.hold(Duration.ofMillis(ms));
                sleep(ms);
                int[] n = held.counts();
                record(
                        kind.label,
                        replica.name,
                        start,
                        System.currentTimeMillis(),
                        "the proxy of " + replica.name
                                + " held every byte for " + ms + " ms (" + n[0] + " reads from clients, " + n[1]
                                + " from the replica, delivered late)");
            }
            case CONNECTION_DROP -> {
                long start = System.currentTimeMillis();
                int inFlight = replica.front.dropAll();
                record(
                        kind.label,
                        replica.name,
                        start,
                        System.currentTimeMillis(),
                        "the proxy of " + replica.name + " reset its connections (" + inFlight
                                + " with a call in flight, waiting callers among them)");
            }
            case RETRY_AFTER_LOST_ANSWER ->
                retryAfterLostAnswer(replica, replicas.get((replicas.indexOf(replica) + 1) % replicas.size()));
            case WORKER_PAUSE -> {
                long ms = ServiceWorker.TTL + 1_000 + a % 3_000;
                onWorker(
                        worker,
                        () -> fault(
                                kind.label,
                                worker.name,
                                worker.name + " SIGSTOP for " + ms + " ms (past its TTL)",
                                () -> {
                                    worker.pause();
                                    sleep(ms);
                                    worker.resume();
                                }));
            }
            case WORKER_KILL ->
                onWorker(
                        worker,
                        () -> fault(kind.label, worker.name, worker.name + " kill -9, restarted", () -> {
                            worker.kill();
                            sleep(500);
                            worker.restart();
                        }));
            case ZOOKEEPER_KILL -> zookeeperKill(a, b);
        }
    }

    private void onReplica(Replica replica, Runnable fault) {
        if (!replicaDown.tryAcquire()) {
            return; // another replica is disrupted: keep two serving
        }
        try {
            fault.run();
        } finally {
            replicaDown.release();
        }
    }

    private void onWorker(WorkerProcess worker, Runnable fault) {
        Semaphore s = busy.computeIfAbsent(worker.name, k -> new Semaphore(1));
        if (!s.tryAcquire()) {
            return;
        }
        try {
            fault.run();
        } finally {
            s.release();
        }
    }

    private void killReplica(String kind, Replica replica, long downMillis, String waiting) {
        fault(
                kind,
                replica.name,
                replica.name + " SIGKILL" + (waiting == null ? "" : " while " + waiting) + ", restarted after "
                        + downMillis + " ms",
                () -> {
                    replica.kill();
                    sleep(downMillis);
                    replica.restart();
                });
    }

    /**
     * A caller waits on the replica behind a holder, the replica is killed, and the caller never
     * comes back ({@link Probes#plantWaiter}): its entry must stop blocking the key within the
     * replica's session timeout. When the caller was not queued (granted at once, refused, not seen
     * within 3 s), the replica is killed all the same, as a plain kill.
     */
    private void killWhileWaiting(Replica replica, long downMillis, long pick) {
        Probes.Planted planted = probes.plantWaiter(replica, pick);
        if (planted == null || !planted.queued()) {
            killReplica(Kind.REPLICA_KILL.label, replica, downMillis, null);
        } else {
            planted.abandon();
            killReplica(
                    Kind.REPLICA_KILL_WHILE_WAITING.label,
                    replica,
                    downMillis,
                    planted.owner() + " waited on it for " + planted.key() + " (waitMillis "
                            + Probes.DOOMED_WAIT.toMillis() + "; it never retries)");
        }
        if (planted != null) {
            planted.finish();
        }
    }

    private void retryAfterLostAnswer(Replica first, Replica second) {
        long start = System.currentTimeMillis();
        String what = probes.retryAfterLostAnswer(first, second);
        record(Kind.RETRY_AFTER_LOST_ANSWER.label, first.name, start, System.currentTimeMillis(), what);
    }

    /** Restarts the replica with its clock skewed, runs it so for a while, restarts it with the right clock. */
    private void clockSkew(Replica replica, long seconds, long forMillis) {
        Semaphore skewing = busy.computeIfAbsent("skew:" + replica.name, k -> new Semaphore(1));
        if (!skewing.tryAcquire()) {
            return; // its clock is skewed already: one skew per replica at a time, so every answer has one offset
        }
        try {
            skewFor(replica, seconds, forMillis);
        } finally {
            skewing.release();
        }
    }

    private void skewFor(Replica replica, long seconds, long forMillis) {
        if (!replicaDown.tryAcquire()) {
            return;
        }
        long start = System.currentTimeMillis();
        counts.merge(Kind.REPLICA_CLOCK_SKEW.label, 1, Integer::sum);
        long skewedFrom;
        try {
            replica.skew(seconds);
            replica.terminate(); // a rolling restart, as an operator would make one
            skewedFrom = System.currentTimeMillis(); // no unskewed JVM of it runs from here
            replica.restart();
        } finally {
            replicaDown.release();
        }
        sleep(forMillis);
        try {
            replicaDown.acquire(); // the skew must end: wait for the replica fault in progress to end
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        long skewedTo;
        try {
            replica.skew(0);
            replica.terminate();
            skewedTo = System.currentTimeMillis(); // no skewed JVM of it runs from here
            replica.restart();
        } finally {
            replicaDown.release();
        }
        long end = System.currentTimeMillis();
        // Every answer of this replica between these two came from a JVM under libfaketime, and none outside.
        skews.add(new Skew(replica.name, skewedFrom, skewedTo, seconds * 1_000));
        events.add(new FaultEvent(
                Kind.REPLICA_CLOCK_SKEW.label,
                replica.name,
                start,
                end,
                replica.name + " restarted under libfaketime with its clock " + (seconds > 0 ? "+" : "") + seconds
                        + " s, for " + (end - start) + " ms, then restarted with the right clock"));
        lastFaultEnd.accumulateAndGet(end, Math::max);
    }

    private void zookeeperKill(long a, long b) {
        if (!serverDown.tryAcquire()) {
            return;
        }
        try {
            InstanceSpec leader = leaderOrNull();
            List<InstanceSpec> servers = ensemble.servers();
            InstanceSpec server = a % 3 < 2 && leader != null ? leader : servers.get((int) (b % servers.size()));
            boolean isLeader = server.equals(leader);
            fault(
                    isLeader ? "zk-leader-kill" : "zk-follower-kill",
                    FaultEvent.ENSEMBLE,
                    "ZooKeeper server :" + server.getPort() + (isLeader ? " (the leader)" : "")
                            + " killed, restarted after 3 s",
                    () -> {
                        ensemble.kill(server);
                        sleep(3_000);
                        ensemble.restart(server);
                        ensemble.awaitAllServing(Duration.ofSeconds(120));
                    });
        } finally {
            serverDown.release();
        }
    }

    private InstanceSpec leaderOrNull() {
        try {
            return ensemble.leader();
        } catch (IllegalStateException electing) {
            return null;
        }
    }

    private void fault(String kind, String target, String what, Runnable action) {
        long start = System.currentTimeMillis();
        action.run();
        record(kind, target, start, System.currentTimeMillis(), what);
    }

    private void record(String kind, String target, long start, long end, String what) {
        counts.merge(kind, 1, Integer::sum);
        events.add(new FaultEvent(kind, target, start, end, what));
        lastFaultEnd.accumulateAndGet(end, Math::max);
    }

    private static void sleep(long millis) {
        ServiceCampaign.sleep(Duration.ofMillis(millis));
    }
}
