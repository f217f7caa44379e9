package io.zkfence.server;

import io.zkfence.lock.ForcedRelease;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * One replica of the lock service in the simulation: a process running the service's real code
 * ({@link LeaseService} with its {@link Acquirer}, {@link LeaseOps} and {@link LockReads}) on a
 * simulated ZooKeeper client, clock and scheduler, answering calls as the HTTP routes do
 * ({@link AcquireRoute}: an acquire goes on where it must wait; {@code validForMillis} from the request's
 * arrival). It can be killed, paused, stopped gracefully and started again (a new process and a
 * new session), and its clock skewed.
 */
final class SimReplica {

    final int index;
    final String name;
    private final SimWorld world;
    private final SimEnsemble ensemble;
    private final SimConfig config;
    private final SimClock clock;
    private SimProcess process;
    private SimZkClient zk;
    private SimScheduler scheduler;
    private LeaseService service;
    private boolean ready;
    private int incarnation;
    private int acquiresInFlight;

    SimReplica(int index, SimWorld world, SimEnsemble ensemble, SimConfig config, long skewMillis) {
        this.index = index;
        this.name = "r" + index;
        this.world = world;
        this.ensemble = ensemble;
        this.config = config;
        this.clock = new SimClock(world, skewMillis);
    }

    SimProcess process() {
        return process;
    }

    SimZkClient zk() {
        return zk;
    }

    SimClock clock() {
        return clock;
    }

    boolean ready() {
        return ready && process != null && process.running();
    }

    /** Healthy: running, connected, and holding session {@code session}. */
    boolean holds(long session) {
        return process != null && process.running() && ready && zk.isConnected() && zk.sessionId() == session;
    }

    /** Starts a new process: a new ZooKeeper session, the service started on it. */
    void start() {
        incarnation++;
        process = new SimProcess(name + (incarnation > 1 ? "." + incarnation : ""), world);
        zk = new SimZkClient(world, ensemble, process, config, config.sessionTimeoutMs());
        scheduler = new SimScheduler(world, process);
        ready = false;
        acquiresInFlight = 0;
        SimProcess p = process;
        SimZkClient link = zk;
        SimScheduler sched = scheduler;
        long seed = world.random().nextLong();
        world.trace().add(world.now(), p.name(), "starting");
        world.spawn(p, p.name() + ":start", () -> {
            while (true) {
                try {
                    LeaseService s = new LeaseService(
                                    link,
                                    clock,
                                    new LeaseService.Settings(
                                            ServiceSimulation.ROOT,
                                            20,
                                            config.requestRetentionMillis(),
                                            1000,
                                            config.lagBoundMillis()),
                                    sched,
                                    new SplittableRandom(seed))
                            .start();
                    service = s;
                    ready = true;
                    world.trace().add(world.now(), p.name(), "ready, session " + Long.toHexString(link.sessionId()));
                    return;
                } catch (LockServiceException e) {
                    sched.sleep(200_000_000L); // ZooKeeper not reachable yet: try again
                }
            }
        });
    }

    /** SIGKILL: every call in it ends at once, its session lives until ZooKeeper expires it. */
    void kill() {
        if (process == null || process.dead()) {
            return;
        }
        world.trace().add(world.now(), process.name(), "killed (SIGKILL)");
        ready = false;
        zk.crashed();
        process.kill();
    }

    /** SIGSTOP for {@code micros}, then SIGCONT. */
    void pause(long micros) {
        if (process == null || !process.running()) {
            return;
        }
        SimProcess p = process;
        world.trace().add(world.now(), p.name(), "paused (SIGSTOP) for " + micros / 1000 + " ms");
        p.pause();
        world.after(micros, null, "resume-" + p.name(), () -> {
            if (!p.dead()) {
                world.trace().add(world.now(), p.name(), "resumed (SIGCONT)");
                p.resume();
            }
        });
    }

    /** SIGTERM: waiting acquires answer 503 SHUTTING_DOWN, then the service closes and the session ends. */
    void stopGracefully(Runnable then) {
        if (!ready()) {
            return;
        }
        SimProcess p = process;
        LeaseService s = service;
        SimZkClient link = zk;
        world.trace().add(world.now(), p.name(), "stopping (SIGTERM)");
        world.spawn(p, p.name() + ":stop", () -> {
            s.shutdown();
            long deadline = world.now() + 10_000_000;
            while (acquiresInFlight > 0 && world.now() < deadline) {
                scheduler.sleep(10_000_000);
            }
            ready = false;
            s.close();
            link.close();
            world.trace().add(world.now(), p.name(), "stopped");
            world.after(0, null, "stopped-" + p.name(), () -> {
                p.kill();
                then.run();
            });
        });
    }

    /** This replica's clock is now {@code millis} off. */
    void skew(long millis) {
        world.trace().add(world.now(), name, "clock skew now " + millis + " ms");
        clock.skew(millis);
    }

    /**
     * A call arrives: the replica runs it on an actor of its own and sends the answer back through
     * {@code answer} (the network's way back). A replica that is down refuses the connection.
     */
    void receive(SimCall call, Consumer<SimCall.Answer> answer) {
        if (process == null || process.dead()) {
            answer.accept(SimCall.Answer.connectionFailed("connection refused by " + name));
            return;
        }
        if (process.paused()) {
            SimProcess p = process;
            p.defer("http-" + name, () -> receive(call, answer));
            return;
        }
        if (!ready) {
            answer.accept(SimCall.Answer.failed(ErrorCode.UNAVAILABLE, name, "not ready"));
            return;
        }
        LeaseService s = service;
        SimProcess p = process;
        world.spawn(p, p.name() + ":" + call.tag(), () -> {
                            SimCall.Answer a = run(s, call);
                            world.trace()
                                    .add(
                                            world.now(),
                                            p.name(),
                                            "answers " + a + " to " + call.tag() + " (" + call.key.key() + ")");
                            answer.accept(a);
                        })
                        .tag =
                call.tag();
    }

    private SimCall.Answer run(LeaseService s, SimCall call) {
        long arrived = scheduler.nanoTime();
        try {
            return switch (call.kind) {
                case ACQUIRE -> acquire(s, call, arrived);
                case RENEW -> {
                    long expiresAt = s.ops().renew(call.key, call.lockToken, call.ownerId, call.ttlMillis);
                    yield new SimCall.Answer(
                            200, null, null, validFor(expiresAt, arrived), null, null, process.name(), null);
                }
                case RENEW_BATCH -> {
                    // As LeaseRoutes.renewBatch: a lease's refusal is its result, answered here as the
                    // single renewal's error so the client and the checker treat both alike.
                    BatchRenewal.Outcome o = s.batchRenewal()
                            .renew(List.of(
                                    new BatchRenewal.Lease(call.key, call.lockToken, call.ownerId, call.ttlMillis)))
                            .get(0);
                    if (!o.renewed()) {
                        throw o.refused();
                    }
                    yield new SimCall.Answer(
                            200, null, null, validFor(o.expiresAt(), arrived), null, null, process.name(), null);
                }
                case RELEASE -> {
                    boolean held = s.ops().release(call.key, call.lockToken, call.ownerId);
                    yield new SimCall.Answer(200, null, null, 0, held, null, process.name(), null);
                }
                case FORCE_RELEASE -> {
                    ForcedRelease r = s.ops().forceRelease(call.key, call.tag(), "admin", call.expectedToken);
                    yield new SimCall.Answer(
                            200, null, null, 0, null, r.outcome().name(), process.name(), "token " + r.token());
                }
                case STATUS -> {
                    LockReads.Status st = s.reads().status(call.key);
                    yield new SimCall.Answer(
                            st.holder() == null ? 404 : 200,
                            st.holder() == null ? ErrorCode.NOT_LOCKED : null,
                            st.holder() == null
                                    ? null
                                    : new LeaseGrant(
                                            call.key.key(),
                                            null,
                                            st.holder().fencingToken(),
                                            st.holder().data().ownerId(),
                                            st.holder().data().expiresAt()),
                            0,
                            null,
                            null,
                            process.name(),
                            st.holder() == null
                                    ? "waiters " + st.waiters().size()
                                    : "holder " + st.holder().fencingToken());
                }
            };
        } catch (LockServiceException e) {
            return SimCall.Answer.failed(e.code(), process.name(), e.getMessage());
        } catch (RuntimeException bug) {
            return SimCall.Answer.failed(ErrorCode.INTERNAL, process.name(), bug.toString());
        }
    }

    /** As {@code AcquireRoute.acquire}: it runs until it must wait, then goes on waiting. */
    private SimCall.Answer acquire(LeaseService s, SimCall call, long arrived) {
        acquiresInFlight++;
        try {
            Acquirer acquirer = s.acquirer();
            AcquireCall c = acquirer.begin(
                    new Acquirer.Request(
                            call.key, call.ownerId, call.ttlMillis, call.waiting, call.waitMillis, call.requestId),
                    call);
            LeaseGrant g = acquirer.proceed(c, false);
            if (g == null) {
                g = acquirer.proceed(c, true);
            }
            return new SimCall.Answer(200, null, g, validFor(g.expiresAt(), arrived), null, null, process.name(), null);
        } finally {
            acquiresInFlight--;
        }
    }

    private long validFor(long expiresAt, long arrivedNanos) {
        return LeaseGrant.validForMillis(expiresAt, clock.millis(), (scheduler.nanoTime() - arrivedNanos) / 1_000_000);
    }

    @Override
    public String toString() {
        return name;
    }
}
