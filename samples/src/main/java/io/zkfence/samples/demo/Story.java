package io.zkfence.samples.demo;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockInfo;
import io.zkfence.testing.Signals;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The paused-holder story, step by step, with two real pods:
 *
 * <ol>
 * <li>pod-A acquires {@code inventory:sku:123} (token tA), claims the fence, reserves order A-1;</li>
 * <li>pod-B asks for the lock and queues behind A;</li>
 * <li>A prepares order A-2, passes {@code checkValid()}, and is frozen with SIGSTOP right there;</li>
 * <li>the ZooKeeper servers hear nothing from A, expire its session and delete its node, which
 *     grants the lock to B (tB &gt; tA) while A is still stopped;</li>
 * <li>B claims the fence and reserves order B-1;</li>
 * <li>A, stopped for longer than its session timeout, is continued and writes A-2 with tA:
 *     fenced writes are rejected, the same writes without the fence go through.</li>
 * </ol>
 *
 * Every step waits for the pod to report it; a step that does not come in time ends the story
 * with a {@link StoryFailedException} (what was seen so far stays in the {@link StoryRecord}).
 */
final class Story {

    private static final Duration STARTUP = Duration.ofSeconds(90);
    private static final Duration STEP = Duration.ofSeconds(60);

    private final Endpoints endpoints;
    private final Timeline timeline;
    private final Narrator narrator;
    private final LockClient observer;
    private final Path workDir;
    private final Duration maxFreeze;
    private final Consumer<PodProcess> register;
    private final StoryRecord record = new StoryRecord();

    Story(
            Endpoints endpoints,
            Timeline timeline,
            LockClient observer,
            Path workDir,
            Duration maxFreeze,
            Consumer<PodProcess> register) {
        this.endpoints = endpoints;
        this.timeline = timeline;
        this.narrator = new Narrator(timeline);
        this.observer = observer;
        this.workDir = workDir;
        this.maxFreeze = maxFreeze;
        this.register = register;
    }

    StoryRecord record() {
        return record;
    }

    /**
     * Plays the story; what happened is in {@link #record()}, also when this throws. The pods
     * have ended when this returns (if one had to be ended, it was continued first).
     */
    void play() {
        PodProcess a = start("pod-A");
        PodProcess b = start("pod-B");
        try {
            play(a, b);
        } catch (StoryFailedException e) {
            timeline.add(Instant.now(), "demo", "STORY STOPPED: " + e.getMessage());
            if (!e.details().isEmpty()) {
                timeline.text(e.details());
            }
            throw e;
        } finally {
            a.close();
            b.close();
        }
    }

    private void play(PodProcess a, PodProcess b) {
        a.await("ready", STARTUP);
        b.await("ready", STARTUP);

        a.send("acquire");
        PodEvent grantA = a.await("acquired", STEP);
        record.tokenA = grantA.getLong("token");
        record.ttlA = Duration.ofMillis(grantA.getLong("ttl"));
        a.send("claim");
        a.await("claimed", STEP);
        a.send("order A-1 1");
        a.await("order-done", STEP);
        a.events().stream()
                .filter(e -> e.kind().equals("write"))
                .map(StoryRecord.Write::of)
                .forEach(record.firstWritesOfA::add);

        b.send("acquire");
        b.await("asking", STEP);
        LockInfo queue = Poll.until(
                () -> Optional.of(observer.inspect(Inventory.LOCK))
                        .filter(q -> q.entries().size() >= 2),
                STEP,
                "pod-B's queue node to appear behind pod-A's");
        timeline.add(Instant.now(), "zk", "queue of " + Inventory.LOCK + ": " + describe(queue));

        a.send("order A-2 3 pause");
        a.await("pause-point", STEP);
        record.frozenAt = Instant.now();
        a.freeze();
        timeline.add(
                record.frozenAt,
                "demo",
                "kill -STOP " + a.pid() + ": pod-A is frozen between its check and its" + " write" + proc(a));

        PodEvent grantB;
        try {
            grantB = b.await("acquired", maxFreeze);
        } catch (StoryFailedException e) {
            throw new StoryFailedException(
                    "pod-B was not granted the lock while pod-A was frozen for "
                            + maxFreeze.toSeconds()
                            + " s: the servers did not expire pod-A's session (its session timeout is "
                            + record.ttlA.toMillis() + " ms)",
                    e.details(),
                    e);
        }
        record.grantedToBAt = grantB.at();
        record.tokenB = grantB.getLong("token");
        record.procStateAtGrant = Signals.state(a.pid());
        record.queueAtGrant = observer.inspect(Inventory.LOCK);
        timeline.add(
                Instant.now(),
                "zk",
                "pod-A's queue node is gone: the servers expired its session "
                        + seconds(Duration.between(record.frozenAt, grantB.at())) + " after the freeze; queue now: "
                        + describe(record.queueAtGrant) + proc(a));

        b.send("claim");
        b.await("claimed", STEP);
        b.send("order B-1 2");
        b.await("order-done", STEP);
        b.events().stream()
                .filter(e -> e.kind().equals("write"))
                .map(StoryRecord.Write::of)
                .forEach(record.writesOfB::add);

        // The pause must outlast the session timeout. B may be granted a little sooner than that
        // after the freeze, because the servers count from A's last heartbeat, which came before it.
        Instant earliest = record.frozenAt.plus(record.ttlA).plusMillis(500);
        Poll.pauseUntil(earliest);

        record.resumedAt = Instant.now();
        timeline.add(
                record.resumedAt,
                "demo",
                "kill -CONT " + a.pid() + ": pod-A resumes after "
                        + seconds(Duration.between(record.frozenAt, record.resumedAt)) + " frozen (session timeout "
                        + seconds(record.ttlA) + "), still sure it holds token " + record.tokenA);
        a.send("go"); // waits in the pipe: the first thing A does when it runs again is read it and write
        a.thaw();
        a.await("order-done", STEP);
        List<PodEvent> writesOfA =
                a.events().stream().filter(e -> e.kind().equals("write")).toList();
        writesOfA.subList(record.firstWritesOfA.size(), writesOfA.size()).stream()
                .map(StoryRecord.Write::of)
                .forEach(record.staleWritesOfA::add);

        try {
            PodEvent lost = a.await(
                    "lease",
                    e -> e.get("to").equals("LOST"),
                    record.ttlA.multipliedBy(2).plusSeconds(10));
            record.leaseLostSeenByAAt = lost.at();
        } catch (StoryFailedException e) {
            timeline.add(Instant.now(), "demo", "pod-A has not noticed yet that its lease is lost: " + e.getMessage());
        }

        b.send("release");
        b.await("released", STEP);
        a.send("exit");
        b.send("exit");
        a.await("bye", STEP);
        b.await("bye", STEP);
        a.awaitExit(STEP);
        b.awaitExit(STEP);
    }

    private PodProcess start(String name) {
        PodProcess pod = PodProcess.start(name, endpoints, workDir, narrator);
        register.accept(pod);
        timeline.add(Instant.now(), "demo", "started " + name + " as a separate JVM, pid " + pod.pid());
        return pod;
    }

    private static String describe(LockInfo queue) {
        if (queue.entries().isEmpty()) {
            return "empty";
        }
        LockInfo.Entry holder = queue.entries().get(0);
        String waiters = queue.waiters().stream()
                .map(w -> w.ownerId() + " (its node's token " + w.token() + ")")
                .collect(Collectors.joining(", "));
        return holder.ownerId() + " holds (token " + holder.token() + ")"
                + (waiters.isEmpty() ? "" : "; waiting: " + waiters);
    }

    private static String proc(PodProcess pod) {
        String state = Signals.state(pod.pid());
        return state.isEmpty() ? "" : " [/proc: pod-A " + state + "]";
    }

    static String seconds(Duration d) {
        return String.format("%.1f s", d.toMillis() / 1000.0);
    }
}
