package io.zkfence.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zkfence.lock.ForcedRelease;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * The service's record of forced releases: one persistent sequential znode per entry under
 * {@code <root>/_audit} (no namespace can be called that), holding lock-core's
 * {@link ForcedRelease} fields as JSON, so the service and {@code LockAdmin} describe a forced
 * release the same way. The oldest entries beyond the retention are deleted on each write.
 */
final class AuditTrail {

    static final int DEFAULT_RETENTION = 1_000;

    private final CuratorFramework zk;
    private final String path;
    private final int retention;
    private final ObjectMapper json = new ObjectMapper();

    AuditTrail(CuratorFramework zk, String root, int retention) {
        if (retention < 1) {
            throw new IllegalArgumentException("audit retention must be at least 1, was " + retention);
        }
        this.zk = zk;
        this.path = ("/".equals(root) ? "" : root) + "/_audit";
        this.retention = retention;
    }

    /** Appends an entry, then trims the trail to its retention. */
    void append(ForcedRelease entry) {
        try {
            zk.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath(path + "/a-", json.writeValueAsBytes(toJson(entry)));
            List<String> children = new ArrayList<>(zk.getChildren().forPath(path));
            children.sort(null);
            for (String old : children.subList(0, Math.max(0, children.size() - retention))) {
                try {
                    zk.delete().forPath(path + "/" + old);
                } catch (KeeperException.NoNodeException trimmedByAnotherReplica) {
                    // another replica's write trimmed it first
                }
            }
        } catch (Exception e) {
            throw new LockServiceException(
                    503,
                    "UNAVAILABLE",
                    "recording the forced release of '" + entry.lockName() + "' in the audit trail failed: " + e);
        }
    }

    /** The newest {@code limit} entries, newest first. */
    List<ForcedRelease> newest(int limit) {
        List<String> children;
        try {
            children = new ArrayList<>(zk.getChildren().forPath(path));
        } catch (KeeperException.NoNodeException none) {
            return List.of();
        } catch (Exception e) {
            throw new LockServiceException(503, "UNAVAILABLE", "reading the audit trail failed: " + e);
        }
        children.sort(null);
        List<ForcedRelease> out = new ArrayList<>();
        for (int i = children.size() - 1; i >= 0 && out.size() < limit; i--) {
            try {
                out.add(fromJson(json.readTree(zk.getData().forPath(path + "/" + children.get(i)))));
            } catch (KeeperException.NoNodeException trimmed) {
                // trimmed by retention since the list was read
            } catch (Exception e) {
                throw new LockServiceException(
                        503, "UNAVAILABLE", "reading audit entry " + children.get(i) + " failed: " + e);
            }
        }
        return out;
    }

    static ObjectNode toJson(ForcedRelease r) {
        ObjectNode o = new ObjectMapper().createObjectNode();
        o.put("lockKey", r.lockName());
        o.put("outcome", r.outcome().name());
        o.put("holderOwnerId", r.holderOwnerId());
        o.put("fencingToken", r.token());
        o.put("reason", r.reason());
        o.put("by", r.by());
        o.put("at", r.at().toString());
        o.put("node", r.node());
        return o;
    }

    private static ForcedRelease fromJson(JsonNode o) throws IOException {
        try {
            return new ForcedRelease(
                    o.get("lockKey").asText(),
                    ForcedRelease.Outcome.valueOf(o.get("outcome").asText()),
                    o.get("node").asText(),
                    o.get("holderOwnerId").asText(),
                    o.get("fencingToken").asLong(),
                    o.get("reason").asText(),
                    o.get("by").asText(),
                    Instant.parse(o.get("at").asText()));
        } catch (RuntimeException malformed) {
            throw new IOException("malformed audit entry " + o, malformed);
        }
    }
}
