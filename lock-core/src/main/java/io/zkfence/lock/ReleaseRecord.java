package io.zkfence.lock;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * What a holder's release writes on its lock's znode, in the same transaction (a multi) as the
 * delete of its queue node: the name of that node. It says "this node was granted the lock, and
 * it is gone": when it was granted no entry ahead of it existed, and none can appear ahead of it
 * later (a new node sorts after every node that exists), so nothing older is left. A waiter whose
 * predecessor goes reads this record instead of the whole child list (see {@link Ahead}).
 *
 * <p>Only a release of a grant writes it; a waiter that gives up, an expired session, max-hold, a
 * forced release and zkfence versions before it delete without a record, and so does a client
 * whose lock znodes refuse it writes (ACL). The record then names someone else, or nothing, and
 * the waiter looks further (the next entry ahead, then the child list): a missing record costs a
 * read, never exclusion.
 *
 * <p>Encoded as UTF-8 text {@code zkfence-released1|<node name>}, readable in zkCli. Any other data
 * (Curator writes the creating client's address into a znode it creates) decodes as no record.
 */
final class ReleaseRecord {

    private static final String MAGIC = "zkfence-released1|";

    private ReleaseRecord() {}

    static byte[] encode(String nodeName) {
        return (MAGIC + nodeName).getBytes(StandardCharsets.UTF_8);
    }

    /** The released node's name, or empty if {@code data} is not a release record. */
    static Optional<String> decode(byte[] data) {
        if (data == null || data.length <= MAGIC.length()) {
            return Optional.empty();
        }
        String text = new String(data, StandardCharsets.UTF_8);
        return text.startsWith(MAGIC) ? Optional.of(text.substring(MAGIC.length())) : Optional.empty();
    }
}
