package io.zkfence.redis;

/**
 * Where a fence's records live: the fence record of each fence, and the floor of each hash slot,
 * under the configured prefix. A fence record is always in its fence name's slot, so a write to
 * keys of that slot can check and advance it in the same script, on Redis Cluster too.
 *
 * <ul>
 * <li>Fence record: {@code <prefix>fence:<name>} when the name has a hash tag (the record keeps
 *     it), else {@code <prefix>fence:{<name>}} (the whole name becomes the record's tag, which
 *     hashes as the name does). A name without a hash tag that contains {@code }} has no such
 *     form and is refused: give it a hash tag.</li>
 * <li>Floor of slot {@code s}: {@code <prefix>floor:{<tag>}}, with the shortest base-36 counter
 *     value that hashes to {@code s} as its tag, so that every slot has one.</li>
 * </ul>
 */
final class FenceKeys {

    /** For each slot, the shortest base-36 string that hashes to it. */
    private static final String[] SLOT_TAGS = slotTags();

    private final String prefix;

    FenceKeys(String prefix) {
        this.prefix = prefix;
    }

    /**
     * The fence record of the fence named {@code name}; the name follows the key rules.
     *
     * @throws IllegalArgumentException when the name has no hash tag and contains '}'
     */
    String record(String name, String operation) {
        String record;
        if (Slots.hasHashTag(name)) {
            record = prefix + "fence:" + name;
        } else if (name.indexOf('}') < 0) {
            record = prefix + "fence:{" + name + "}";
        } else {
            throw new IllegalArgumentException("fence '" + Keys.shown(name) + "' has no hash tag but contains '}', so"
                    + " its fence record cannot be given the name's hash slot (" + operation
                    + "); put a hash tag in the name ({...}); nothing was sent");
        }
        if (Slots.of(record) != Slots.of(name)) {
            throw new IllegalStateException("fence record '" + record + "' is in slot " + Slots.of(record)
                    + " but fence '" + name + "' in slot " + Slots.of(name) + " (a bug: refusing)");
        }
        return record;
    }

    /** The floor of {@code slot}. */
    String floor(int slot) {
        return prefix + "floor:{" + SLOT_TAGS[slot] + "}";
    }

    private static String[] slotTags() {
        String[] tags = new String[Slots.COUNT];
        int found = 0;
        for (long i = 0; found < Slots.COUNT; i++) {
            String candidate = Long.toString(i, 36);
            int slot = Slots.of(candidate);
            if (tags[slot] == null) {
                tags[slot] = candidate;
                found++;
            }
        }
        return tags;
    }
}
