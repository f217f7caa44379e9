package io.zkfence.samples.demo;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One thing a pod reports on its standard output, one line each:
 * {@code @zkfence <epoch-millis> <kind> key=value&key=value}, values URL-encoded. Any other line a
 * library might print is not an event and is kept in the pod's log.
 *
 * @param at     when the pod saw it happen, by the pod's clock (the same machine as the demo's)
 * @param pod    the pod's name, filled in by the receiving side
 * @param kind   what happened ({@code ready}, {@code acquired}, {@code write}, ...)
 * @param fields details, in the order the pod gave them
 */
record PodEvent(Instant at, String pod, String kind, Map<String, String> fields) {

    private static final String PREFIX = "@zkfence ";

    PodEvent {
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** The field's value; an event without it is a protocol error between demo and pod. */
    String get(String key) {
        String v = fields.get(key);
        if (v == null) {
            throw new IllegalStateException(
                    "event '" + kind + "' from " + pod + " has no field '" + key + "': " + fields);
        }
        return v;
    }

    long getLong(String key) {
        return Long.parseLong(get(key));
    }

    Optional<String> find(String key) {
        return Optional.ofNullable(fields.get(key));
    }

    /** The line a pod prints for {@code kind} with alternating keys and values. */
    static String encode(Instant at, String kind, Object... keyValues) {
        if (keyValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values must alternate: " + keyValues.length + " items");
        }
        StringBuilder line = new StringBuilder(PREFIX)
                .append(at.toEpochMilli())
                .append(' ')
                .append(kind)
                .append(' ');
        for (int i = 0; i < keyValues.length; i += 2) {
            if (i > 0) {
                line.append('&');
            }
            line.append(keyValues[i])
                    .append('=')
                    .append(URLEncoder.encode(String.valueOf(keyValues[i + 1]), StandardCharsets.UTF_8));
        }
        return line.toString();
    }

    /** The event on {@code line}, or empty if the line is not an event. */
    static Optional<PodEvent> decode(String pod, String line) {
        if (!line.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String[] parts = line.substring(PREFIX.length()).split(" ", 3);
        if (parts.length < 2) {
            return Optional.empty();
        }
        Map<String, String> fields = new LinkedHashMap<>();
        if (parts.length == 3 && !parts[2].isEmpty()) {
            for (String pair : parts[2].split("&")) {
                int eq = pair.indexOf('=');
                fields.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return Optional.of(new PodEvent(Instant.ofEpochMilli(Long.parseLong(parts[0])), pod, parts[1], fields));
    }
}
