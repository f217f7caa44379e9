package io.zkfence.lock;

import io.zkfence.fencing.internal.Backoff;
import io.zkfence.lock.internal.Failures;
import io.zkfence.lock.internal.ZkGateway;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes this client's own queue nodes, retrying through connection loss.
 *
 * <p>Every path handed to it contains a GUID this client generated, so a delete can never hit
 * another client's node. Retries stop on success, on NONODE (already gone), on an error waiting
 * will not fix, or after the give-up time: by then the servers have expired the session that
 * owned the ephemeral node, which removes it anyway. Every future it hands out completes: a retry
 * that cannot be scheduled because the client is shutting down gives up at once (false).
 */
final class NodeReaper {

    private static final Logger log = LoggerFactory.getLogger(NodeReaper.class);
    private static final OptionalLong NEVER = OptionalLong.empty();
    /** Each retry of one delete runs after the previous one's answer, never at once. */
    private static final Backoff BACKOFF = Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(1));

    private final ZkGateway zk;
    private final ScheduledExecutorService scheduler;

    NodeReaper(ZkGateway zk, ScheduledExecutorService scheduler) {
        this.zk = zk;
        this.scheduler = scheduler;
    }

    /**
     * Deletes {@code path}; the future completes with true once the node is confirmed gone, or
     * false if the reaper gave up (the node then goes with its session).
     */
    CompletableFuture<Boolean> delete(String path) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        attemptDelete(path, done, 1, giveUpAt());
        return done;
    }

    /**
     * Deletes whatever node {@code guid} created under {@code lockPath}, for a create whose outcome
     * is unknown (its answer was lost, or the waiter gave up while it was in flight).
     */
    CompletableFuture<Boolean> deleteCreatedBy(String lockPath, String guid) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        attemptFind(lockPath, guid, done, 1, giveUpAt());
        return done;
    }

    private void attemptDelete(String path, CompletableFuture<Boolean> done, int retry, long giveUpAt) {
        zk.delete(path, -1).whenComplete((v, e) -> {
            OptionalLong delay = retryable(e) ? BACKOFF.delayNanosWithin(retry, giveUpAt - System.nanoTime()) : NEVER;
            if (e == null || Failures.is(e, KeeperException.Code.NONODE)) {
                done.complete(true);
            } else if (delay.isPresent()) {
                retryLater(() -> attemptDelete(path, done, retry + 1, giveUpAt), delay.getAsLong(), done, path);
            } else {
                log.warn("gave up deleting queue node {}; it goes when its session expires", path, Failures.unwrap(e));
                done.complete(false);
            }
        });
    }

    private void attemptFind(String lockPath, String guid, CompletableFuture<Boolean> done, int retry, long giveUpAt) {
        zk.children(lockPath).whenComplete((kids, e) -> {
            OptionalLong delay = retryable(e) ? BACKOFF.delayNanosWithin(retry, giveUpAt - System.nanoTime()) : NEVER;
            if (e == null) {
                List<CompletableFuture<Boolean>> deletes = kids.stream()
                        .map(QueueNode::parse)
                        .flatMap(Optional::stream)
                        .filter(n -> n.guid().equals(guid))
                        .map(n -> delete(lockPath + "/" + n.name()))
                        .toList();
                CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new))
                        .thenRun(() -> done.complete(deletes.stream().allMatch(CompletableFuture::join)));
            } else if (Failures.is(e, KeeperException.Code.NONODE)) {
                done.complete(true);
            } else if (delay.isPresent()) {
                retryLater(
                        () -> attemptFind(lockPath, guid, done, retry + 1, giveUpAt),
                        delay.getAsLong(),
                        done,
                        "the queue node of " + guid + " under " + lockPath);
            } else {
                log.warn("gave up looking for the queue node of {} under {}", guid, lockPath, Failures.unwrap(e));
                done.complete(false);
            }
        });
    }

    private static boolean retryable(Throwable e) {
        return e != null && (Failures.isConnectionProblem(e) || Failures.isSessionGone(e));
    }

    private long giveUpAt() {
        // Twice the session timeout (plus slack) is past any server-side expiry of the owner.
        long ttlMs = Math.max(zk.sessionTimeoutMs(), 1_000);
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * ttlMs + 10_000);
    }

    /**
     * Runs {@code retry} after {@code delayNanos}; if the client's timer is shut down (the client
     * is closing), gives up on {@code what} now, so that whoever waits on {@code done} hears it.
     */
    private void retryLater(Runnable retry, long delayNanos, CompletableFuture<Boolean> done, String what) {
        try {
            scheduler.schedule(retry, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            log.warn("gave up deleting {}: the lock client is closed; it goes when its session expires", what);
            done.complete(false);
        }
    }
}
