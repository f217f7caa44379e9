package io.zkfence.lock;

import java.util.List;

/**
 * What a waiter knows of the queue entries ahead of its node: the nearest {@link #WINDOW} of them
 * at its last read of the queue, oldest first, and which of those it has learnt are gone since.
 * Immutable: each thing learnt gives a new value.
 *
 * <p>Why a waiter may skip reading the queue again: entries only leave. A node created later sorts
 * after every node that exists, so no entry can appear ahead of ours; the ones ahead are a subset
 * of those read, and what is known gone stays gone. Two things tell the waiter that entries are
 * gone without a read of the child list:
 *
 * <ul>
 * <li>the deletion of the one it watches, its predecessor ({@link #withoutPredecessor()}); and</li>
 * <li>a {@link ReleaseRecord} naming an entry of the window ({@link #releasedThrough(String)}): that
 *     entry was granted and has released, so it and every entry older than it are gone.</li>
 * </ul>
 *
 * <p>The waiter is the head once nothing ahead can exist ({@link #isClear()}): every entry of the
 * window is known gone, and the window reached the head of the queue when it was read, or a
 * release record proved everything older than a window entry gone. A window that is used up
 * without either ({@link #isEmpty()} but not clear) says nothing about the entries beyond it: the
 * waiter reads the queue again.
 */
final class Ahead {

    /** How many of the entries ahead a waiter remembers (its memory stays small in a long queue). */
    static final int WINDOW = 16;

    /** The nearest entries ahead at the last read, oldest first; the last was the predecessor then. */
    private final List<QueueNode> window;
    /** Nothing older than {@code window} can exist: it held the head when read, or a record proved it. */
    private final boolean bounded;
    /** {@code window[0, cleared)} are known gone (a release record named the last of them). */
    private final int cleared;
    /** {@code window[remaining, size)} are known gone (each was the predecessor and was deleted). */
    private final int remaining;

    private Ahead(List<QueueNode> window, boolean bounded, int cleared, int remaining) {
        this.window = window;
        this.bounded = bounded;
        this.cleared = cleared;
        this.remaining = remaining;
    }

    /**
     * The entries ahead as read: {@code nearest}, oldest first, at most {@link #WINDOW}; {@code
     * reachesHead} when they are all the entries that were ahead.
     */
    static Ahead of(List<QueueNode> nearest, boolean reachesHead) {
        if (nearest.isEmpty() || nearest.size() > WINDOW) {
            throw new IllegalArgumentException("a window of 1 to " + WINDOW + " entries, not " + nearest.size());
        }
        return new Ahead(List.copyOf(nearest), reachesHead, 0, nearest.size());
    }

    /** The entry to watch: the nearest one not known gone. Only while not {@link #isEmpty()}. */
    QueueNode predecessor() {
        if (isEmpty()) {
            throw new IllegalStateException("no entry ahead is left to watch");
        }
        return window.get(remaining - 1);
    }

    /** Whether the predecessor is the oldest entry that can exist: its going makes us the head. */
    boolean predecessorIsHead() {
        return !isEmpty() && remaining - cleared == 1 && bounded;
    }

    /** The predecessor was deleted. */
    Ahead withoutPredecessor() {
        predecessor(); // throws when none is left
        return new Ahead(window, bounded, cleared, remaining - 1);
    }

    /**
     * A release record names {@code releasedNode}: if it is an entry of the window, it and every
     * entry older than it are gone. A name outside the window tells nothing (this is returned).
     */
    Ahead releasedThrough(String releasedNode) {
        for (int i = window.size() - 1; i >= 0; i--) {
            if (window.get(i).name().equals(releasedNode)) {
                return new Ahead(window, true, Math.max(cleared, i + 1), remaining);
            }
        }
        return this;
    }

    /** Every entry of the window is known gone. */
    boolean isEmpty() {
        return cleared >= remaining;
    }

    /** Nothing can be ahead any more: the waiter is the head. */
    boolean isClear() {
        return isEmpty() && bounded;
    }

    @Override
    public String toString() {
        return "Ahead{unknown=" + window.subList(Math.min(cleared, remaining), remaining) + ", bounded=" + bounded
                + "}";
    }
}
