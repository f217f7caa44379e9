package io.zkfence.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.lock.ForcedRelease;
import io.zkfence.lock.LockInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** How locks and audit entries are printed: one line each for people, JSON for scripts. */
final class Render {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Render() {}

    static String line(LockInfo info) {
        String holder = info.holder()
                .map(h -> h.ownerId() + " (token " + h.token() + ", since " + h.requestedAt() + ")")
                .orElse("free");
        return info.name() + "\t" + holder + "\t" + info.waiters().size() + " waiting"
                + info.waiters().stream()
                        .findFirst()
                        .map(w -> ", oldest since " + w.requestedAt())
                        .orElse("");
    }

    static String details(LockInfo info) {
        StringBuilder sb = new StringBuilder();
        sb.append("lock    ").append(info.name()).append('\n');
        sb.append("znode   ").append(info.path()).append('\n');
        if (info.holder().isEmpty()) {
            sb.append("holder  none\n");
        } else {
            LockInfo.Entry h = info.holder().get();
            sb.append("holder  ")
                    .append(h.ownerId())
                    .append(", token ")
                    .append(h.token())
                    .append(", since ")
                    .append(h.requestedAt())
                    .append(", node ")
                    .append(h.node())
                    .append(h.isCurator() ? " (a Curator mutex: no token, not fenced)" : "")
                    .append('\n');
        }
        int i = 1;
        for (LockInfo.Entry w : info.waiters()) {
            sb.append("waiter ")
                    .append(i++)
                    .append(" ")
                    .append(w.ownerId())
                    .append(", since ")
                    .append(w.requestedAt())
                    .append(", node ")
                    .append(w.node())
                    .append('\n');
        }
        return sb.toString();
    }

    static String line(ForcedRelease r) {
        return r.at() + "\t" + r.lockName() + "\t" + r.outcome() + "\tby " + r.by() + "\tholder "
                + (r.holderOwnerId().isEmpty() ? "-" : r.holderOwnerId() + " (token " + r.token() + ")") + "\treason: "
                + r.reason();
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render " + value, e);
        }
    }

    static Map<String, Object> map(LockInfo info) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", info.name());
        m.put("path", info.path());
        m.put("holder", info.holder().map(Render::map).orElse(null));
        m.put("waiters", info.waiters().stream().map(Render::map).toList());
        return m;
    }

    private static Map<String, Object> map(LockInfo.Entry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ownerId", e.ownerId());
        m.put("token", e.token());
        m.put("since", e.requestedAt().toString());
        m.put("node", e.node());
        m.put("curator", e.isCurator());
        return m;
    }

    static Map<String, Object> map(ForcedRelease r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lock", r.lockName());
        m.put("outcome", r.outcome().name());
        m.put("node", r.node());
        m.put("holder", r.holderOwnerId());
        m.put("token", r.token());
        m.put("reason", r.reason());
        m.put("by", r.by());
        m.put("at", r.at().toString());
        return m;
    }

    static List<Map<String, Object>> maps(List<LockInfo> infos) {
        return infos.stream().map(Render::map).toList();
    }
}
