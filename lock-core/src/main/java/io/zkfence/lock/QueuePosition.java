package io.zkfence.lock;

import java.util.List;
import java.util.Optional;

/**
 * Where one queue node stands among a lock's children: the decision an acquire makes after each
 * read of the queue, as a pure function (Curator's {@code StandardLockInternalsDriver.getsTheLock}
 * plays the same part there).
 *
 * <p>Only the node's place matters: whether anyone is ahead of it, who is right ahead (the
 * predecessor, the only node it watches, so a release wakes exactly one waiter) and whether that
 * one is the head. Children that are not queue entries are ignored; Curator's mutex nodes are
 * entries (see {@link QueueNode}).
 *
 * @param kind              head, waiting, or absent (the node is not among the children)
 * @param predecessor       the entry right ahead, when waiting; else null
 * @param predecessorIsHead whether the predecessor is the head of the queue, when waiting
 */
record QueuePosition(Kind kind, QueueNode predecessor, boolean predecessorIsHead) {

    enum Kind {
        /** First in the queue: the lock is ours. */
        HEAD,
        /** Someone is ahead: watch the predecessor. */
        WAITING,
        /** Our node is gone (session expired, or someone deleted it): queue again. */
        ABSENT
    }

    private static final QueuePosition HEAD = new QueuePosition(Kind.HEAD, null, false);
    private static final QueuePosition ABSENT = new QueuePosition(Kind.ABSENT, null, false);

    /**
     * The position of {@code own} among {@code children}. One pass, no sort: long queues make this
     * every waiter's work on every re-read.
     */
    static QueuePosition of(List<String> children, QueueNode own) {
        boolean found = false;
        QueueNode predecessor = null;
        QueueNode head = null;
        for (String child : children) {
            QueueNode n = QueueNode.parse(child).orElse(null);
            if (n == null) {
                continue;
            }
            if (n.name().equals(own.name())) {
                found = true;
            } else if (QueueNode.ORDER.compare(n, own) < 0) {
                if (predecessor == null || QueueNode.ORDER.compare(n, predecessor) > 0) {
                    predecessor = n;
                }
                if (head == null || QueueNode.ORDER.compare(n, head) < 0) {
                    head = n;
                }
            }
        }
        if (!found) {
            return ABSENT;
        }
        return predecessor == null ? HEAD : new QueuePosition(Kind.WAITING, predecessor, predecessor == head);
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
