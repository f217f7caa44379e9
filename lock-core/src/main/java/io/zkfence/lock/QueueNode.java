package io.zkfence.lock;

import java.util.Comparator;
import java.util.Optional;

/**
 * One entry of a lock's queue: the child znode {@code q-<guid>-<sequence>}, where the GUID is 22
 * URL-safe base64 characters from {@link GuidSource} (short names keep the queue reads of long
 * queues small), or a node of Curator's {@code InterProcessMutex} on the same path.
 *
 * <p><b>Curator's nodes are queue entries too.</b> A fleet moving from Curator to zkfence runs
 * both on one lock znode for a while; both take their sequence from the same parent counter, so
 * one order exists, and both must follow it. Curator names its nodes {@code [_c_<uuid>-]lock-<seq>}
 * and orders children by the part after the last {@code "lock-"} (its
 * {@code StandardLockInternalsDriver}); zkfence parses those as foreign entries (no GUID) in that
 * order and waits for them like its own. The other way round, new GUIDs end in {@code "lock"}
 * ({@link GuidSource}), so zkfence's names end in {@code lock-<seq>} and Curator orders them by
 * the same sequence, while the name keeps the {@code q-<22 chars>-<seq>} shape that earlier
 * zkfence versions parse. A foreign entry carries no zkfence data and its holder no token.
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
 * @param guid     the acquirer's GUID; empty for a foreign (Curator) entry
 */
record QueueNode(String name, int sequence, String guid) {

    static final String PREFIX = "q-";
    static final int GUID_LENGTH = 22;
    /** What Curator's {@code InterProcessMutex} puts right before the sequence. */
    static final String CURATOR_LOCK_NAME = "lock-";

    private static final int SEQUENCE_START = PREFIX.length() + GUID_LENGTH + 1;

    /** Queue order; see the class comment. */
    static final Comparator<QueueNode> ORDER = (a, b) -> serialCompare(a.sequence, b.sequence);

    /** The name to pass to an EPHEMERAL_SEQUENTIAL create (ZooKeeper appends the sequence). */
    static String createName(String guid) {
        return PREFIX + guid + "-";
    }

    /** Whether this entry was made by Curator's mutex, not by zkfence (it carries no token). */
    boolean foreign() {
        return guid.isEmpty();
    }

    /**
     * Parses a child name: a zkfence node, or a Curator mutex node as a foreign entry; any other
     * child (not a queue entry of either) gives empty.
     */
    static Optional<QueueNode> parse(String name) {
        int suffix = name.length() - SEQUENCE_START;
        if (validSequenceLength(suffix) && name.startsWith(PREFIX) && name.charAt(SEQUENCE_START - 1) == '-') {
            OptionalSequence seq = sequence(name, SEQUENCE_START);
            if (seq.valid) {
                return Optional.of(
                        new QueueNode(name, seq.value, name.substring(PREFIX.length(), PREFIX.length() + GUID_LENGTH)));
            }
        }
        // Curator sorts by what follows the last "lock-": take the same part.
        int at = name.lastIndexOf(CURATOR_LOCK_NAME);
        if (at >= 0 && validSequenceLength(name.length() - at - CURATOR_LOCK_NAME.length())) {
            OptionalSequence seq = sequence(name, at + CURATOR_LOCK_NAME.length());
            if (seq.valid) {
                return Optional.of(new QueueNode(name, seq.value, ""));
            }
        }
        return Optional.empty();
    }

    // ZooKeeper formats the suffix with %010d: ten characters, or eleven for a sequence below
    // -999999999 (the counter goes negative after 2^31 child changes).
    private static boolean validSequenceLength(int length) {
        return length == 10 || length == 11;
    }

    private record OptionalSequence(boolean valid, int value) {}

    private static OptionalSequence sequence(String name, int start) {
        for (int i = start; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= '0' && c <= '9') && !(c == '-' && i == start)) {
                return new OptionalSequence(false, 0);
            }
        }
        try {
            return new OptionalSequence(true, Integer.parseInt(name, start, name.length(), 10));
        } catch (NumberFormatException e) {
            return new OptionalSequence(false, 0); // out of int range: not a ZooKeeper sequence
        }
    }

    /** Serial-number comparison: {@code a} is before {@code b} when {@code b - a} (mod 2^32) is positive. */
    static int serialCompare(int a, int b) {
        return Integer.signum(a - b);
    }
}
