package io.zkfence.lock;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * An audit entry's znode data: {@code zkfence-audit1} then one {@code key=value} line per field,
 * values URL-encoded so a reason may hold any text. Unknown keys are ignored and a malformed
 * entry reads as empty, so a newer writer never breaks an older reader.
 */
final class AuditCodec {

    private static final String MAGIC = "zkfence-audit1";

    private AuditCodec() {}

    static byte[] encode(ForcedRelease r) {
        StringBuilder sb = new StringBuilder(MAGIC).append('\n');
        line(sb, "lock", r.lockName());
        line(sb, "outcome", r.outcome().name());
        line(sb, "node", r.node());
        line(sb, "holder", r.holderOwnerId());
        line(sb, "token", Long.toString(r.token()));
        line(sb, "reason", r.reason());
        line(sb, "by", r.by());
        line(sb, "at", Long.toString(r.at().toEpochMilli()));
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static Optional<ForcedRelease> decode(byte[] data) {
        if (data == null) {
            return Optional.empty();
        }
        String[] lines = new String(data, StandardCharsets.UTF_8).split("\n");
        if (lines.length == 0 || !MAGIC.equals(lines[0])) {
            return Optional.empty();
        }
        Map<String, String> fields = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int eq = lines[i].indexOf('=');
            if (eq > 0) {
                fields.put(
                        lines[i].substring(0, eq),
                        URLDecoder.decode(lines[i].substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        try {
            return Optional.of(new ForcedRelease(
                    fields.get("lock"),
                    ForcedRelease.Outcome.valueOf(fields.get("outcome")),
                    fields.get("node"),
                    fields.get("holder"),
                    Long.parseLong(fields.get("token")),
                    fields.get("reason"),
                    fields.get("by"),
                    Instant.ofEpochMilli(Long.parseLong(fields.get("at")))));
        } catch (RuntimeException malformed) {
            return Optional.empty();
        }
    }

    private static void line(StringBuilder sb, String key, String value) {
        sb.append(key)
                .append('=')
                .append(URLEncoder.encode(value, StandardCharsets.UTF_8))
                .append('\n');
    }
}
