package io.zkfence.lock;

import io.zkfence.lock.internal.Failures;
import io.zkfence.lock.internal.ZkGateway;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.zookeeper.KeeperException;

/** Reads a lock's queue for {@link LockClient#inspect(String)}: one children read, then the nodes in parallel. */
final class QueueInspector {

    private final ZkGateway zk;

    QueueInspector(ZkGateway zk) {
        this.zk = zk;
    }

    CompletableFuture<LockInfo> inspect(String name, String lockPath) {
        return zk.children(lockPath)
                .handle((kids, e) -> {
                    if (e != null) {
                        if (Failures.is(e, KeeperException.Code.NONODE)) {
                            return List.<String>of();
                        }
                        throw new CompletionException(Failures.unwrap(e));
                    }
                    return kids;
                })
                .thenCompose(kids -> {
                    List<QueueNode> queue = QueuePosition.queue(kids);
                    List<CompletableFuture<Optional<LockInfo.Entry>>> reads = new ArrayList<>();
                    for (QueueNode node : queue) {
                        reads.add(zk.getData(lockPath + "/" + node.name()).handle((content, e) -> {
                            if (e != null) {
                                if (Failures.is(e, KeeperException.Code.NONODE)) {
                                    return Optional.empty(); // left the queue since the children read
                                }
                                throw new CompletionException(Failures.unwrap(e));
                            }
                            // A Curator mutex node's data is Curator's (the client's address), not ours.
                            Optional<NodeData> data =
                                    node.foreign() ? Optional.empty() : NodeData.decode(content.data());
                            return Optional.of(new LockInfo.Entry(
                                    node.foreign()
                                            ? LockInfo.Entry.CURATOR
                                            : data.map(NodeData::ownerId).orElse("?"),
                                    content.stat().getCzxid(),
                                    node.sequence(),
                                    data.map(NodeData::requestedAt)
                                            .orElse(Instant.ofEpochMilli(
                                                    content.stat().getCtime())),
                                    node.name()));
                        }));
                    }
                    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                            .thenApply(v -> new LockInfo(
                                    name,
                                    lockPath,
                                    reads.stream()
                                            .map(CompletableFuture::join)
                                            .flatMap(Optional::stream)
                                            .toList()));
                });
    }
}
