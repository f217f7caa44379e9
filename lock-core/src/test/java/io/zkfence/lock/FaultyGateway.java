package io.zkfence.lock;

import io.zkfence.lock.internal.ZkGateway;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Wraps the real gateway and makes the next queue-node creates fail with CONNECTIONLOSS, in one
 * of the two ways a real connection loss can: the create reached the server and was applied but
 * its answer was lost, or it never reached the server; or hides the children once, as a lagging
 * server's read would. Everything else goes to the real servers.
 */
final class FaultyGateway extends ForwardingGateway {

    enum Mode {
        APPLIED_ANSWER_LOST,
        NEVER_SENT
    }

    private final AtomicInteger failuresLeft = new AtomicInteger();
    private volatile Mode mode = Mode.APPLIED_ANSWER_LOST;
    private final AtomicBoolean hideChildrenOnce = new AtomicBoolean();
    final AtomicInteger createsSent = new AtomicInteger();

    FaultyGateway(ZkGateway real) {
        super(real);
    }

    void failNextCreates(int count, Mode mode) {
        this.mode = mode;
        failuresLeft.set(count);
    }

    @Override
    public CompletableFuture<Created> create(String path, byte[] data, CreateMode createMode) {
        if (createMode == CreateMode.EPHEMERAL_SEQUENTIAL && failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            CompletableFuture<Created> lost = new CompletableFuture<>();
            if (mode == Mode.APPLIED_ANSWER_LOST) {
                createsSent.incrementAndGet();
                real.create(path, data, createMode).whenComplete((c, e) -> {
                    if (e != null) {
                        // Not applied (the lock's container was reaped meanwhile, say): ZooKeeper's
                        // own answer goes through, and the lost answer waits for the next create.
                        createsSent.decrementAndGet();
                        failuresLeft.incrementAndGet();
                        lost.completeExceptionally(e);
                    } else {
                        lost.completeExceptionally(KeeperException.create(KeeperException.Code.CONNECTIONLOSS, path));
                    }
                });
            } else {
                lost.completeExceptionally(KeeperException.create(KeeperException.Code.CONNECTIONLOSS, path));
            }
            return lost;
        }
        if (createMode != CreateMode.EPHEMERAL_SEQUENTIAL) {
            return real.create(path, data, createMode);
        }
        // Counted once applied: a create refused (its container reaped meanwhile) is not a second node.
        return real.create(path, data, createMode).whenComplete((c, e) -> {
            if (e == null) {
                createsSent.incrementAndGet();
            }
        });
    }

    /** The next children read answers "empty", as a read from a server that is behind would. */
    void hideChildrenOnce() {
        hideChildrenOnce.set(true);
    }

    @Override
    public CompletableFuture<List<String>> children(String path) {
        if (hideChildrenOnce.compareAndSet(true, false)) {
            return real.children(path).thenApply(kids -> List.of());
        }
        return real.children(path);
    }
}
