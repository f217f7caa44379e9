package io.zkfence.recipes.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * The simplest fenced resource: it remembers the highest token it has accepted and rejects a
 * write with a lower one, like fencing-jdbc does in SQL. Records who wrote what, in order.
 */
public final class TokenCheckedRegister {

    /** A write the register refused because a higher token had been accepted. */
    public static final class StaleWriteException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StaleWriteException(long presented, long highest) {
            super("stale token " + presented + ": " + highest + " already accepted");
        }
    }

    /** One accepted write. */
    public record Write(long token, String value) {}

    private long highest;
    private final List<Write> accepted = new ArrayList<>();

    /** Accepts the write if {@code token} is at least the highest seen, else throws. */
    public synchronized void write(long token, String value) {
        if (token < highest) {
            throw new StaleWriteException(token, highest);
        }
        highest = token;
        accepted.add(new Write(token, value));
    }

    public synchronized long highest() {
        return highest;
    }

    public synchronized List<Write> accepted() {
        return List.copyOf(accepted);
    }
}
