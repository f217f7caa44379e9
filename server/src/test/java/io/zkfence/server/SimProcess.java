package io.zkfence.server;

import java.util.ArrayList;
import java.util.List;

/**
 * One process of the simulation (a replica's JVM, a client): what {@code SIGSTOP} pauses and
 * {@code SIGKILL} ends. While paused its actors do not run and the events due to it wait, in
 * order, until it goes on; once dead, nothing of it runs again.
 */
final class SimProcess {

    private record Deferred(String lane, Runnable action) {}

    private final String name;
    private final SimWorld world;
    private final List<Deferred> deferred = new ArrayList<>();
    private final List<Runnable> onResume = new ArrayList<>();
    private boolean paused;
    private boolean dead;
    private long pausedAt;

    SimProcess(String name, SimWorld world) {
        this.name = name;
        this.world = world;
    }

    String name() {
        return name;
    }

    boolean paused() {
        return paused;
    }

    boolean dead() {
        return dead;
    }

    /** True while it runs: neither paused nor dead. */
    boolean running() {
        return !paused && !dead;
    }

    /** When it was paused (µs), if it is. */
    long pausedAt() {
        return pausedAt;
    }

    void pause() {
        if (!dead && !paused) {
            paused = true;
            pausedAt = world.now();
        }
    }

    /** Runs {@code r} first thing each time the process goes on (before the events it missed). */
    void onResume(Runnable r) {
        onResume.add(r);
    }

    /** Goes on: the events it missed are due now, in their order. */
    void resume() {
        if (!paused) {
            return;
        }
        paused = false;
        for (Runnable r : new ArrayList<>(onResume)) {
            r.run();
        }
        List<Deferred> missed = new ArrayList<>(deferred);
        deferred.clear();
        for (Deferred d : missed) {
            world.redeliver(this, d.lane(), d.action());
        }
    }

    /** Ends it: its actors unwind, its events are dropped. */
    void kill() {
        dead = true;
        paused = false;
        deferred.clear();
        world.kill(this);
    }

    void defer(String lane, Runnable action) {
        deferred.add(new Deferred(lane, action));
    }

    @Override
    public String toString() {
        return name;
    }
}
