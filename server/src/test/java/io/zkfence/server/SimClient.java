package io.zkfence.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A client of the lock service in the simulation, as the clients' docs tell them to behave and as
 * they misbehave: it acquires (with or without a requestId, waiting or not), sometimes sends the
 * same acquire to a second replica (a hedge) and closes the losing copy's connection once one is
 * answered, retries with the same requestId after a 503 or a lost answer, renews at a third of the
 * validity (some renew late, some never; half the renewals through the batch endpoint, a batch of
 * its one lease), releases through any replica, and may be paused past its
 * lease. An admin client force-releases and reads status now and then.
 *
 * <p>Its events belong to its own process, so pausing it stops it. Every answer it hears goes to
 * the {@link SimChecker}.
 */
final class SimClient {

    private record Attempt(
            LockKey key,
            long ttl,
            boolean waiting,
            long waitMillis,
            String requestId,
            List<SimCall> copies,
            int[] tries) {}

    final String name;
    private final SimProcess process;
    private final SimWorld world;
    private final SimConfig config;
    private final List<SimReplica> replicas;
    private final List<LockKey> keys;
    private final SimChecker checker;
    private final boolean admin;
    private final String lane;
    private final Map<String, Long> tokens = new HashMap<>();
    private long calls;
    private long requestIds;
    private Attempt attempt;
    private boolean holding;
    private SimFaults faults;

    SimClient(
            String name,
            SimWorld world,
            SimConfig config,
            List<SimReplica> replicas,
            List<LockKey> keys,
            SimChecker checker,
            boolean admin) {
        this.name = name;
        this.process = new SimProcess(name, world);
        this.world = world;
        this.config = config;
        this.replicas = replicas;
        this.keys = keys;
        this.checker = checker;
        this.admin = admin;
        this.lane = name + "-self";
    }

    SimProcess process() {
        return process;
    }

    /** Where a hedge may ask for its replica to be killed soon after (a targeted fault). */
    void faults(SimFaults faults) {
        this.faults = faults;
    }

    /** The fencing token of a lockToken this client was answered. */
    long tokenOf(String lockToken) {
        return tokens.getOrDefault(lockToken, 0L);
    }

    void start() {
        world.after(world.between(0, 300_000), process, lane, admin ? this::adminTurn : this::next);
    }

    /** SIGSTOP for {@code micros}: no renewal, no release, nothing until it goes on. */
    void pause(long micros) {
        if (!process.running()) {
            return;
        }
        world.trace().add(world.now(), name, "paused for " + micros / 1000 + " ms");
        process.pause();
        world.after(micros, null, "resume-" + name, () -> {
            world.trace().add(world.now(), name, "resumed");
            process.resume();
        });
    }

    // ---- acquiring ----

    private void next() {
        holding = false;
        world.after(world.between(0, 400_000), process, lane, this::acquire);
    }

    private void acquire() {
        LockKey key = keys.get(world.random().nextInt(keys.size()));
        long ttl = config.longTtlShare() > 0 && world.chance(config.longTtlShare())
                ? world.between(config.longTtlFrom(), config.longTtlFrom() + 3_000)
                : world.between(config.ttlMinMillis(), config.ttlMaxMillis());
        boolean waiting = world.chance(0.7);
        long waitMillis = waiting ? world.between(0, config.waitMaxMillis()) : 0;
        String requestId = world.chance(0.8) ? name + "-rq" + requestIds++ : null;
        Attempt a = new Attempt(key, ttl, waiting, waitMillis, requestId, new ArrayList<>(), new int[] {0});
        attempt = a;
        int first = world.random().nextInt(replicas.size());
        send(a, first);
        if (requestId != null && replicas.size() > 1 && world.chance(config.hedging())) {
            int second = (first + 1 + world.random().nextInt(replicas.size() - 1)) % replicas.size();
            world.after(world.between(0, waitMillis * 1000 + 200_000), process, lane, () -> {
                if (attempt == a && !holding) {
                    send(a, second);
                    if (faults != null) {
                        faults.afterHedge(second);
                    }
                }
            });
        }
    }

    private void send(Attempt a, int replica) {
        SimCall call = call(
                SimCall.Kind.ACQUIRE,
                a.key(),
                a.ttl(),
                a.waiting(),
                a.waitMillis(),
                a.requestId(),
                null,
                null,
                replica);
        a.copies().add(call);
        a.tries()[0]++;
        long timeout = a.waitMillis() * 1000 + 3_000_000;
        transmit(call, timeout, answer -> acquired(a, call, answer));
    }

    private void acquired(Attempt a, SimCall call, SimCall.Answer answer) {
        if (attempt != a || holding) {
            return; // a late copy: the checker has judged it
        }
        if (answer.ok()) {
            a.copies().forEach(c -> {
                if (c != call) {
                    cancel(c);
                }
            });
            tokens.put(answer.grant().lockToken(), answer.grant().fencingToken());
            hold(a, answer.grant(), call.sentAt + answer.validForMillis() * 1000);
            return;
        }
        ErrorCode e = answer.error();
        if (e == ErrorCode.CALLER_GONE) {
            return;
        }
        boolean retry = answer.status() == 0
                || e == ErrorCode.UNAVAILABLE
                || e == ErrorCode.SHUTTING_DOWN
                || e == ErrorCode.TOO_MANY_WAITERS;
        if (retry && a.requestId() != null && a.tries()[0] < 6) {
            if (pending(a) > 0) {
                return; // another copy may still answer
            }
            int replica = world.random().nextInt(replicas.size());
            world.after(world.between(50_000, 500_000), process, lane, () -> {
                if (attempt == a && !holding) {
                    send(a, replica);
                }
            });
            return;
        }
        if (pending(a) > 0 && !(e == ErrorCode.LOCK_ALREADY_HELD || e == ErrorCode.REQUEST_FINISHED)) {
            return;
        }
        a.copies().forEach(this::cancel);
        next();
    }

    private int pending(Attempt a) {
        int n = 0;
        for (SimCall c : a.copies()) {
            if (!c.answered) {
                n++;
            }
        }
        return n;
    }

    // ---- holding ----

    private void hold(Attempt a, LeaseGrant grant, long deadline) {
        holding = true;
        long validity = Math.max(0, deadline - world.now());
        double style = world.random().nextDouble();
        long holdFor = world.between(0, 2 * a.ttl() * 1000);
        long releaseAt = world.now() + holdFor;
        if (style < 0.1) {
            // walks away: neither renews nor releases
            world.after(holdFor, process, lane, this::next);
            return;
        }
        boolean late = style < 0.2;
        scheduleRenewal(a, grant, deadline, releaseAt, late ? validity + validity / 10 : validity / 3);
    }

    private void scheduleRenewal(Attempt a, LeaseGrant grant, long deadline, long releaseAt, long renewIn) {
        long at = world.now() + Math.max(1000, renewIn);
        if (releaseAt <= at) {
            world.at(releaseAt, process, lane, () -> release(grant, 0));
            return;
        }
        world.at(at, process, lane, () -> renew(a, grant, deadline, releaseAt));
    }

    private void renew(Attempt a, LeaseGrant grant, long deadline, long releaseAt) {
        int replica = world.random().nextInt(replicas.size());
        // Half the renewals go through the batch endpoint (a batch of this one lease).
        SimCall.Kind kind = world.random().nextBoolean() ? SimCall.Kind.RENEW_BATCH : SimCall.Kind.RENEW;
        SimCall call = call(kind, a.key(), a.ttl(), false, 0, null, grant.lockToken(), null, replica);
        transmit(call, 3_000_000, answer -> {
            if (answer.ok()) {
                long next = call.sentAt + answer.validForMillis() * 1000;
                scheduleRenewal(a, grant, next, releaseAt, (next - world.now()) / 3);
            } else if (answer.status() == 0
                    || answer.error() == ErrorCode.UNAVAILABLE
                    || answer.error() == ErrorCode.SHUTTING_DOWN) {
                if (world.now() < deadline) {
                    scheduleRenewal(a, grant, deadline, releaseAt, 100_000);
                } else {
                    release(grant, 0);
                }
            } else {
                next(); // lost: acquire again
            }
        });
    }

    private void release(LeaseGrant grant, int tries) {
        int replica = world.random().nextInt(replicas.size());
        LockKey key = LockKey.parse(grant.lockKey());
        SimCall call = call(SimCall.Kind.RELEASE, key, 0, false, 0, null, grant.lockToken(), null, replica);
        checker.releaseSent(name, grant.fencingToken());
        transmit(call, 3_000_000, answer -> {
            if (!answer.ok() && tries < 3 && (answer.status() == 0 || answer.error() == ErrorCode.UNAVAILABLE)) {
                world.after(100_000, process, lane, () -> release(grant, tries + 1));
            } else {
                next();
            }
        });
    }

    // ---- the admin ----

    /** Reads a key's status; now and then force-releases its holder, pinned to the token the status showed or not. */
    private void adminTurn() {
        LockKey key = keys.get(world.random().nextInt(keys.size()));
        int replica = world.random().nextInt(replicas.size());
        transmit(call(SimCall.Kind.STATUS, key, 0, false, 0, null, null, null, replica), 12_000_000, status -> {
            if (status.ok() && world.chance(0.25)) {
                Long pinned = world.chance(0.5) ? status.grant().fencingToken() : null;
                int to = world.random().nextInt(replicas.size());
                transmit(
                        call(SimCall.Kind.FORCE_RELEASE, key, 0, false, 0, null, null, pinned, to),
                        12_000_000,
                        a -> {});
            }
        });
        world.after(world.between(500_000, 8_000_000), process, lane, this::adminTurn);
    }

    // ---- the network ----

    private SimCall call(
            SimCall.Kind kind,
            LockKey key,
            long ttl,
            boolean waiting,
            long waitMillis,
            String requestId,
            String lockToken,
            Long expected,
            int replica) {
        return new SimCall(
                ((long) name.hashCode() & 0xffff) * 1_000_000 + calls++,
                this,
                kind,
                key,
                admin ? "admin" : name,
                ttl,
                waiting,
                waitMillis,
                requestId,
                lockToken,
                expected,
                world.now(),
                replica);
    }

    /**
     * Sends {@code call}; {@code then} hears the answer, or a connection failure when the answer
     * was lost or {@code timeoutMicros} passed first (the connection is then closed).
     */
    private void transmit(SimCall call, long timeoutMicros, java.util.function.Consumer<SimCall.Answer> then) {
        transmit(call, timeoutMicros, false, then);
    }

    /**
     * A scripted call (for the simulation's scenarios): sent now to {@code replica}; its answer is
     * lost on the way back if {@code loseAnswer}.
     */
    SimCall send(
            SimCall.Kind kind,
            int replica,
            LockKey key,
            long ttl,
            boolean waiting,
            long waitMillis,
            String requestId,
            LeaseGrant held,
            boolean loseAnswer,
            java.util.function.Consumer<SimCall.Answer> then) {
        SimCall call = call(
                kind,
                key,
                ttl,
                waiting,
                waitMillis,
                requestId,
                held == null ? null : held.lockToken(),
                kind == SimCall.Kind.FORCE_RELEASE && held != null ? held.fencingToken() : null,
                replica);
        if (kind == SimCall.Kind.RELEASE) {
            checker.releaseSent(name, held.fencingToken());
        }
        transmit(call, waitMillis * 1000 + 20_000_000, loseAnswer, answer -> {
            if (answer.ok() && answer.grant() != null && answer.grant().lockToken() != null) {
                tokens.put(answer.grant().lockToken(), answer.grant().fencingToken());
            }
            then.accept(answer);
        });
        return call;
    }

    /** Closes a scripted call's connection (a hedging client cancels the losing copy). */
    void close(SimCall call) {
        cancel(call);
    }

    private void transmit(
            SimCall call, long timeoutMicros, boolean loseAnswer, java.util.function.Consumer<SimCall.Answer> then) {
        SimReplica r = replicas.get(call.replica);
        world.trace().add(world.now(), name, "sends " + call);
        String toReplica = name + ">" + r.name;
        String back = r.name + ">" + name;
        world.message(
                toReplica,
                config.httpLatency(world),
                null,
                () -> r.receive(call, answer -> {
                    boolean lost = answer.status() != 0 && (loseAnswer || world.chance(config.answerLoss()));
                    world.message(back, config.httpLatency(world), process, () -> {
                        if (call.answered) {
                            return;
                        }
                        call.answered = true;
                        SimCall.Answer heard = lost ? SimCall.Answer.connectionFailed("the answer was lost") : answer;
                        world.trace()
                                .add(
                                        world.now(),
                                        name,
                                        "hears " + heard + " to " + call.tag() + " ("
                                                + call.kind.name().toLowerCase()
                                                + " " + call.key.key() + ")"
                                                + (lost ? " (the replica answered " + answer + ")" : ""));
                        checker.answered(call, heard);
                        then.accept(heard);
                    });
                }));
        world.after(timeoutMicros, process, lane, () -> {
            if (!call.answered) {
                call.answered = true;
                world.trace()
                        .add(world.now(), name, "gives up waiting for " + call.tag() + " (" + call.key.key() + ")");
                cancel(call);
                SimCall.Answer none = SimCall.Answer.connectionFailed("timed out");
                checker.answered(call, none);
                then.accept(none);
            }
        });
    }

    /** Closes the call's connection: the replica sees its caller gone. */
    private void cancel(SimCall call) {
        SimReplica r = replicas.get(call.replica);
        call.answered = true;
        world.message(name + ">" + r.name, config.httpLatency(world), null, () -> {
            SimProcess p = r.process();
            if (p != null && p.paused()) {
                p.defer("http-" + r.name, call::closeConnection);
            } else {
                call.closeConnection();
            }
        });
    }

    @Override
    public String toString() {
        return name;
    }
}
