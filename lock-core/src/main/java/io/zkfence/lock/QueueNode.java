package io.zkfence.lock;

import java.util.Comparator;
import java.util.Optional;

/**
 * One entry of a lock's queue: the child znode {@code q-<guid>-<sequence>}, where the GUID is 22
 * URL-safe base64 characters from {@link GuidSource} (short names keep the queue reads of long
 * queues small).
 *
 * <p>The GUID is chosen by the acquirer before the create is sent, so after a connection loss it
 * can find out whether its create was applied (the "protected" create). The 10-digit suffix is
 * the parent's cversion at create time, appended by ZooKeeper.
 *
 * <p>Queue order is the sequence compared in serial-number arithmetic (RFC 1982): the suffix is
 * a signed 32-bit counter that turns negative after 2^31 child changes of one lock znode, and
 * plain numeric order would then put the newest node first. Serial order stays right as long as
 * the live entries of one queue span fewer than 2^31 child changes. The sequence only orders
 * the queue; the fencing token is the node's creation zxid (see {@link Lease#token()}).
 *
 * @param name     child name
 * @param sequence ZooKeeper's sequence suffix
 */
record QueueNode(String name, int sequence) {

    static final String PREFIX = "q-";
    static final int GUID_LENGTH = 22;
    private static final int SEQUENCE_START = PREFIX.length() + GUID_LENGTH + 1;

    /** Queue order; see the class comment. */
    static final Comparator<QueueNode> ORDER = (a, b) -> serialCompare(a.sequence, b.sequence);

    /** The name to pass to an EPHEMERAL_SEQUENTIAL create (ZooKeeper appends the sequence). */
    static String createName(String guid) {
        return PREFIX + guid + "-";
    }

    /** The acquirer's GUID. */
    String guid() {
        return name.substring(PREFIX.length(), PREFIX.length() + GUID_LENGTH);
    }

    /** Parses a child name; foreign children (not created by zkfence) give empty. */
    static Optional<QueueNode> parse(String name) {
        // ZooKeeper formats the suffix with %010d: ten characters, or eleven for a sequence below
        // -999999999 (the counter goes negative after 2^31 child changes).
        int suffix = name.length() - SEQUENCE_START;
        if ((suffix != 10 && suffix != 11) || !name.startsWith(PREFIX) || name.charAt(SEQUENCE_START - 1) != '-') {
            return Optional.empty();
        }
        try {
            int sequence = Integer.parseInt(name, SEQUENCE_START, name.length(), 10);
            return Optional.of(new QueueNode(name, sequence));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Serial-number comparison: {@code a} is before {@code b} when {@code b - a} (mod 2^32) is positive. */
    static int serialCompare(int a, int b) {
        return Integer.signum(a - b);
    }
}
