package io.zkfence.server;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The simulation's one schedule: simulated time, the events due at each moment, and the actors
 * (threads running the service's real code) that wait for something. Exactly one thing runs at a
 * time, on this world's thread or on one actor's thread, and a seeded random decides which of the
 * things ready to run goes next; so one seed replays one schedule exactly.
 *
 * <p>An actor runs real code until it waits through {@link #block} (every wait of the service goes
 * through its {@link Scheduler}, which in the simulation ends here), then hands control back.
 * Code that waits any other way (a monitor held across a wait, a real sleep) stops the world: the
 * watchdog reports it with the actor's stack instead of hanging.
 *
 * <p>Time is in microseconds from the start. Events and actors belong to a {@link SimProcess}: a
 * paused process runs nothing (its due events wait for it), a dead one nothing ever again (its
 * actors are unwound by {@link SimKilled} when they next run).
 */
final class SimWorld {

    /** Thrown out of every wait of an actor whose process was killed: unwinds it, doing nothing more. */
    static final class SimKilled extends Error {
        SimKilled() {
            super("killed by the simulation", null, false, false);
        }
    }

    /** Something that went wrong in the simulation itself or in code it ran, with the trace so far. */
    static final class SimFailure extends RuntimeException {
        SimFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** A thread running real code in the simulation. */
    final class Actor {
        final SimProcess owner;
        final String name;
        final Runnable body;
        final Semaphore go = new Semaphore(0);
        final Thread thread;
        private BooleanSupplier ready = () -> true;
        private long deadline = Long.MAX_VALUE;
        private boolean finished;
        private boolean killed;
        /** What the actor works for (a call's id), for the checker to tell whose write a change was. */
        String tag;

        private Actor(SimProcess owner, String name, Runnable body) {
            this.owner = owner;
            this.name = name;
            this.body = body;
            this.thread = new Thread(this::main, "sim-" + name);
            this.thread.setDaemon(true);
        }

        private void main() {
            go.acquireUninterruptibly();
            try {
                if (!killed) {
                    body.run();
                }
            } catch (SimKilled killedHere) {
                // unwound: the process is gone
            } catch (Throwable t) {
                uncaught(this, t);
            } finally {
                finished = true;
                back.release();
            }
        }

        private boolean runnable() {
            if (finished || owner.paused()) {
                return false;
            }
            return killed || owner.dead() || deadline <= now || ready.getAsBoolean();
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private record Timed(long time, long seq, SimProcess owner, String lane, Runnable action) {}

    private static final long WATCHDOG_SECONDS = 60;

    private final SplittableRandom random;
    private final PriorityQueue<Timed> events =
            new PriorityQueue<>((a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
    private final List<Actor> actors = new ArrayList<>();
    private final Semaphore back = new Semaphore(0);
    private final SimTrace trace;
    private final List<Runnable> afterStep = new ArrayList<>();
    private final java.util.Map<String, Long> laneClock = new java.util.HashMap<>();
    private long now;
    private long seq;
    private long steps;
    private Actor running;
    private Throwable uncaught;
    private String uncaughtIn;

    SimWorld(long seed, SimTrace trace) {
        this.random = new SplittableRandom(seed);
        this.trace = trace;
    }

    /** Now, in microseconds of simulated time. */
    long now() {
        return now;
    }

    long nowMillis() {
        return now / 1000;
    }

    long steps() {
        return steps;
    }

    SimTrace trace() {
        return trace;
    }

    /** The seed's random: every choice of the simulation comes from here, on the world's schedule. */
    SplittableRandom random() {
        return random;
    }

    /** A uniformly chosen long in [from, to]. */
    long between(long from, long to) {
        return to <= from ? from : from + random.nextLong(to - from + 1);
    }

    boolean chance(double p) {
        return random.nextDouble() < p;
    }

    /** Runs {@code check} after every step (the invariants). */
    void afterEveryStep(Runnable check) {
        afterStep.add(check);
    }

    /**
     * Runs {@code action} on the world's thread at {@code time} (µs), unless {@code owner} (null:
     * nobody) is dead by then. Events of one {@code lane} (a connection, a timer) run in the order
     * they were added; events of different lanes due at the same moment run in the schedule's order.
     */
    void at(long time, SimProcess owner, String lane, Runnable action) {
        events.add(new Timed(Math.max(time, now), seq++, owner, lane, action));
    }

    void after(long delayMicros, SimProcess owner, String lane, Runnable action) {
        at(now + delayMicros, owner, lane, action);
    }

    /**
     * A message on a connection ({@code lane}): due {@code delayMicros} from now, but never before
     * a message sent earlier on the same lane (a connection delivers in order).
     */
    void message(String lane, long delayMicros, SimProcess owner, Runnable action) {
        long at = Math.max(now + delayMicros, laneClock.getOrDefault(lane, 0L));
        laneClock.put(lane, at);
        at(at, owner, lane, action);
    }

    /** Starts {@code body} on an actor of {@code owner}; it runs when the schedule picks it. */
    Actor spawn(SimProcess owner, String name, Runnable body) {
        Actor a = new Actor(owner, name, body);
        actors.add(a);
        a.thread.start();
        return a;
    }

    /** The actor running now, or null on the world's own thread. */
    Actor current() {
        return running;
    }

    /**
     * Waits, on an actor's thread, until {@code ready} is true or {@code deadline} (µs) has come:
     * hands control back to the world, which resumes this actor when one of them holds and the
     * schedule picks it.
     *
     * @throws SimKilled if the actor's process was killed meanwhile
     */
    void block(BooleanSupplier ready, long deadline) {
        Actor me = running;
        if (me == null || Thread.currentThread() != me.thread) {
            throw new IllegalStateException("a wait on the simulation's own thread ("
                    + Thread.currentThread().getName() + "): a callback must not wait");
        }
        if (me.killed || me.owner.dead()) {
            throw new SimKilled();
        }
        me.ready = ready;
        me.deadline = deadline;
        back.release();
        me.go.acquireUninterruptibly();
        me.ready = () -> true;
        me.deadline = Long.MAX_VALUE;
        if (me.killed || me.owner.dead()) {
            throw new SimKilled();
        }
    }

    /** Ends every actor of {@code process} (it was killed): each unwinds through {@link SimKilled}. */
    void kill(SimProcess process) {
        for (Actor a : new ArrayList<>(actors)) {
            if (a.owner == process && !a.finished) {
                a.killed = true;
                resume(a);
            }
        }
        actors.removeIf(a -> a.finished);
    }

    /**
     * One step: the schedule picks one event due now or one actor ready to go on, at random, and
     * runs it; if nothing is ready, time moves to the next event or deadline first.
     *
     * @return false if nothing is left to do
     */
    boolean step() {
        List<Actor> ready = new ArrayList<>();
        for (Actor a : actors) {
            if (a.runnable()) {
                ready.add(a);
            }
        }
        Timed dueEvent = dueEvent();
        if (ready.isEmpty() && dueEvent == null) {
            long next = nextTime();
            if (next == Long.MAX_VALUE) {
                return false;
            }
            now = Math.max(now, next);
            return true;
        }
        steps++;
        int choices = ready.size() + (dueEvent == null ? 0 : 1);
        int pick = random.nextInt(choices);
        if (pick < ready.size()) {
            resume(ready.get(pick));
            if (ready.get(pick).finished) {
                actors.remove(ready.get(pick));
            }
        } else {
            events.remove(dueEvent);
            if (dueEvent.owner() != null && dueEvent.owner().paused()) {
                dueEvent.owner().defer(dueEvent.lane(), dueEvent.action());
            } else if (dueEvent.owner() == null || !dueEvent.owner().dead()) {
                dueEvent.action().run();
            }
        }
        if (uncaught != null) {
            Throwable t = uncaught;
            uncaught = null;
            throw new SimFailure("uncaught in " + uncaughtIn + ": " + t, t);
        }
        for (Runnable check : afterStep) {
            check.run();
        }
        return true;
    }

    /** Runs steps until {@code untilMicros} of simulated time or {@code maxSteps} steps. */
    void run(long untilMicros, long maxSteps) {
        while (now < untilMicros && steps < maxSteps) {
            if (!step()) {
                return;
            }
        }
    }

    /** An event deferred while its process was paused, due again now (call in the order deferred). */
    void redeliver(SimProcess owner, String lane, Runnable action) {
        at(now, owner, lane, action);
    }

    /** Stops every actor left (the run is over): their threads end. */
    void shutdown() {
        for (Actor a : new ArrayList<>(actors)) {
            if (!a.finished) {
                a.killed = true;
                a.go.release();
            }
        }
        actors.clear();
    }

    private Timed dueEvent() {
        Timed first = events.peek();
        if (first == null || first.time() > now) {
            return null;
        }
        // Among the events due now, which one goes is the schedule's choice, but events of one
        // owner and kind keep their order (a connection delivers in order): pick among the firsts.
        List<Timed> due = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        Iterator<Timed> it = events.iterator();
        while (it.hasNext()) {
            Timed t = it.next();
            if (t.time() <= now) {
                due.add(t);
            }
        }
        due.sort((a, b) -> Long.compare(a.seq(), b.seq()));
        List<Timed> firsts = new ArrayList<>();
        for (Timed t : due) {
            String lane = t.lane();
            if (!seen.contains(lane)) {
                seen.add(lane);
                firsts.add(t);
            }
        }
        return firsts.get(random.nextInt(firsts.size()));
    }

    private long nextTime() {
        long next = events.isEmpty() ? Long.MAX_VALUE : events.peek().time();
        for (Actor a : actors) {
            if (!a.finished && !a.owner.paused() && a.deadline < next) {
                next = a.deadline;
            }
        }
        return next;
    }

    private void resume(Actor a) {
        running = a;
        a.go.release();
        try {
            if (!back.tryAcquire(WATCHDOG_SECONDS, TimeUnit.SECONDS)) {
                StringBuilder stack = new StringBuilder();
                for (StackTraceElement e : a.thread.getStackTrace()) {
                    stack.append("\n    at ").append(e);
                }
                throw new SimFailure(
                        "actor " + a.name + " did not hand control back within " + WATCHDOG_SECONDS
                                + " s: it waits outside the simulation" + stack,
                        null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SimFailure("interrupted", e);
        } finally {
            running = null;
        }
    }

    private void uncaught(Actor a, Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        trace.add(now, a.owner.name(), "uncaught in " + a.name + ": " + w);
        if (uncaught == null) {
            uncaught = t;
            uncaughtIn = a.name;
        }
    }
}
