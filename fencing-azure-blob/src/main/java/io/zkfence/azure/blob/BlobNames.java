package io.zkfence.azure.blob;

import java.util.Locale;

/**
 * The blob name rules, checked before any request: a name the fence accepts is kept as it is by
 * the service and names exactly one blob, so exactly one fence.
 * <ul>
 * <li>1 to {@value #MAX_LENGTH} characters (Azure's bound);</li>
 * <li>well-formed Unicode (an unpaired UTF-16 surrogate would be sent as {@code ?}, so two names
 *     would be one blob) and no control characters (U+0000 to U+001F, U+007F), which the service's
 *     documentation says to avoid and which some tools drop;</li>
 * <li>no path segment {@code .} or {@code ..}, no name ending with {@code .} or {@code /}, no
 *     backslash: HTTP stacks and the service may normalise them into another name (Azure's naming
 *     rules say to avoid them).</li>
 * </ul>
 */
final class BlobNames {

    static final int MAX_LENGTH = 1024;

    private BlobNames() {}

    static void check(String name, String operation, String container) {
        if (name == null) {
            throw new IllegalArgumentException("blob name must not be null (" + operation + " in container '"
                    + container + "'); nothing was sent");
        }
        if (name.isEmpty() || name.length() > MAX_LENGTH) {
            throw refused(
                    "must be 1 to " + MAX_LENGTH + " characters but has " + name.length(), name, operation, container);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7F) {
                throw refused(
                        "must not contain control characters (U+" + String.format(Locale.ROOT, "%04X", (int) c)
                                + " at index " + i + ")",
                        name,
                        operation,
                        container);
            }
            if (c == '\\') {
                throw refused("must not contain a backslash (at index " + i + ")", name, operation, container);
            }
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw refused(
                        "must be well-formed Unicode but has an unpaired surrogate U+"
                                + Integer.toHexString(c).toUpperCase(Locale.ROOT) + " at index " + i,
                        name,
                        operation,
                        container);
            }
        }
        if (name.endsWith(".") || name.endsWith("/")) {
            throw refused("must not end with '.' or '/'", name, operation, container);
        }
        for (String segment : name.split("/", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                throw refused("must not have a path segment '" + segment + "'", name, operation, container);
            }
        }
    }

    private static IllegalArgumentException refused(String rule, String name, String operation, String container) {
        String shown = name.length() > 80 ? name.substring(0, 80) + "..." : name;
        StringBuilder printable = new StringBuilder();
        for (char c : shown.toCharArray()) {
            printable.append(
                    c < 0x20 || c == 0x7F ? String.format(Locale.ROOT, "\\u%04X", (int) c) : String.valueOf(c));
        }
        return new IllegalArgumentException("blob name key " + rule + " (key '" + printable + "', " + operation
                + " in container '" + container + "'); nothing was sent");
    }
}
