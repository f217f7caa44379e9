package io.zkfence.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The name of one queue entry of a lock: {@code e-<id>-<request>-<sequence>}, a persistent
 * sequential znode under the lock's znode.
 *
 * <ul>
 *   <li>{@code id}: 12 random hex digits, so that names never repeat;
 *   <li>{@code request}: which request the entry is for, {@code q} and 16 hex digits of a digest
 *       of owner and requestId, or {@code n} and 16 random hex digits for a request without a
 *       requestId. A companion znode {@code r-<request>} beside the entries exists exactly while
 *       the entry does (both are created and deleted in one multi), so one request never has two
 *       entries;
 *   <li>{@code sequence}: ZooKeeper's suffix, the queue order.
 * </ul>
 *
 * <p>Entries written by the protocol before this one ({@link #legacy()}) are named
 * {@code [_c_<uuid>-]e-<lockToken>-<requestKey>-<sequence>}, with 16 hex digits as request key and
 * the old lockToken (a bearer credential) inside the name; they are read, ordered and reaped
 * alike during a rolling upgrade. Names of this protocol hold no credential: a lockToken is the
 * name plus a MAC ({@link LockTokens}).
 *
 * @param node     the znode name
 * @param id       the random part (legacy: the old lockToken)
 * @param request  the request part
 * @param sequence ZooKeeper's sequence suffix
 */
record EntryName(String node, String id, String request, int sequence) {

    /** Curator's protected-create prefix of legacy entries: {@code _c_}, a 36-character UUID and a dash. */
    private static final String PROTECTED_PREFIX = "_c_";

    private static final int PROTECTED_LENGTH = PROTECTED_PREFIX.length() + 36 + 1;

    /** The prefix of a request's companion znode. */
    static final String REQUEST_PREFIX = "r-";

    /** The name a create with {@code id} and {@code request} asks for (ZooKeeper appends the sequence). */
    static String prefix(String id, String request) {
        return "e-" + id + "-" + request + "-";
    }

    /** The companion znode of {@code request}. */
    static String requestNode(String request) {
        return REQUEST_PREFIX + request;
    }

    /** The entry named {@code node}, if it is an entry's name (either protocol). */
    static Optional<EntryName> parse(String node) {
        String bare = node.startsWith(PROTECTED_PREFIX)
                        && node.length() > PROTECTED_LENGTH
                        && node.charAt(PROTECTED_LENGTH - 1) == '-'
                ? node.substring(PROTECTED_LENGTH)
                : node;
        String[] parts = bare.split("-", 4);
        if (parts.length != 4 || !parts[0].equals("e") || parts[1].isEmpty() || parts[2].isEmpty()) {
            return Optional.empty();
        }
        // Not the text after the last dash alone: past 2^31 the suffix is negative, "-2147483648".
        if (parts[3].length() < 10) {
            return Optional.empty();
        }
        try {
            return Optional.of(new EntryName(node, parts[1], parts[2], Integer.parseInt(parts[3])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Rebuilds an entry's name from its parts (the inverse of {@link #parse} for this protocol's names). */
    static EntryName of(String id, String request, int sequence) {
        return new EntryName(
                prefix(id, request) + String.format(Locale.ROOT, "%010d", sequence), id, request, sequence);
    }

    /**
     * The entries among {@code children} (names {@link #parse} accepts; companions and anything
     * else are left out), in queue order: their sequence suffixes compared in serial-number
     * arithmetic, as lock-core orders its queue. The suffix is a signed 32-bit counter that turns
     * negative after 2^31 child changes of one lock znode; the difference of two suffixes keeps the
     * right order as long as the live entries span fewer.
     */
    static List<EntryName> inQueueOrder(List<String> children) {
        List<EntryName> entries = new ArrayList<>(children.size());
        for (String node : children) {
            parse(node).ifPresent(entries::add);
        }
        entries.sort((a, b) -> Integer.signum(a.sequence() - b.sequence()));
        return entries;
    }

    /** The name without a protected-create mark: what a lockToken signs. */
    String prefixAndSequence() {
        return prefix(id, request) + String.format(Locale.ROOT, "%010d", sequence);
    }

    /** True for an entry written by the previous protocol (its request part is 16 bare hex digits). */
    boolean legacy() {
        char c = request.charAt(0);
        return c != 'q' && c != 'n';
    }

    /** True if the entry's request came with a requestId: its end is remembered ({@link FinishedRequests}). */
    boolean hasRequestId() {
        return request.charAt(0) == 'q';
    }

    /** The request's companion znode, or null for a legacy entry (which has none). */
    String requestNode() {
        return legacy() ? null : requestNode(request);
    }
}
