package io.zkfence.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * Where one queue node stands among a lock's children: the decision an acquire makes after each
 * read of the queue, as a pure function (Curator's {@code StandardLockInternalsDriver.getsTheLock}
 * plays the same part there).
 *
 * <p>Only the node's place matters: whether anyone is ahead of it, and the nearest entries ahead
 * ({@link Ahead}: the predecessor, the only node it watches, so a release wakes exactly one waiter,
 * and the ones before it, which the waiter checks when the predecessor goes instead of reading the
 * queue again). Children that are not queue entries are ignored; Curator's mutex nodes are entries
 * (see {@link QueueNode}).
 *
 * @param kind  head, waiting, or absent (the node is not among the children)
 * @param ahead the nearest entries ahead, when waiting; else null
 */
record QueuePosition(Kind kind, Ahead ahead) {

    enum Kind {
        /** First in the queue: the lock is ours. */
        HEAD,
        /** Someone is ahead: watch the predecessor. */
        WAITING,
        /** Our node is gone (session expired, or someone deleted it): queue again. */
        ABSENT
    }

    private static final QueuePosition HEAD = new QueuePosition(Kind.HEAD, null);
    private static final QueuePosition ABSENT = new QueuePosition(Kind.ABSENT, null);

    /**
     * The position of {@code own} among {@code children}. One pass, keeping only the nearest
     * {@link Ahead#WINDOW} entries ahead (a bounded heap, no sort of the whole queue): long queues
     * make this the work of every read.
     */
    static QueuePosition of(List<String> children, QueueNode own) {
        boolean found = false;
        int entriesAhead = 0;
        // The nearest entries ahead seen so far; its head is the oldest of them, dropped first.
        PriorityQueue<QueueNode> nearest = new PriorityQueue<>(Ahead.WINDOW + 1, QueueNode.ORDER);
        for (String child : children) {
            QueueNode n = QueueNode.parse(child).orElse(null);
            if (n == null) {
                continue;
            }
            if (n.name().equals(own.name())) {
                found = true;
            } else if (QueueNode.ORDER.compare(n, own) < 0) {
                entriesAhead++;
                nearest.add(n);
                if (nearest.size() > Ahead.WINDOW) {
                    nearest.poll();
                }
            }
        }
        if (!found) {
            return ABSENT;
        }
        if (nearest.isEmpty()) {
            return HEAD;
        }
        List<QueueNode> window = new ArrayList<>(nearest);
        window.sort(QueueNode.ORDER);
        return new QueuePosition(Kind.WAITING, Ahead.of(window, entriesAhead <= Ahead.WINDOW));
    }

    /** The entry right ahead, when waiting; else null. */
    QueueNode predecessor() {
        return ahead == null ? null : ahead.predecessor();
    }

    /** Whether the entry right ahead is the head of the queue, when waiting. */
    boolean predecessorIsHead() {
        return ahead != null && ahead.predecessorIsHead();
    }

    /** The queue entries among {@code children}, in grant order: the holder first. */
    static List<QueueNode> queue(List<String> children) {
        return children.stream()
                .map(QueueNode::parse)
                .flatMap(Optional::stream)
                .sorted(QueueNode.ORDER)
                .toList();
    }

    /** Whether any child is a queue entry (a try-acquire's pre-check: someone holds or waits). */
    static boolean anyEntry(List<String> children) {
        return children.stream().anyMatch(c -> QueueNode.parse(c).isPresent());
    }
}
