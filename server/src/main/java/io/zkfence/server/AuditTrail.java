package io.zkfence.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zkfence.lock.ForcedRelease;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's record of forced releases: one persistent sequential znode per entry under
 * {@code <root>/_audit}, holding lock-core's {@link ForcedRelease} fields as JSON, so the service
 * and {@code LockAdmin} describe a forced release the same way. An entry is written by an op in the
 * same multi as the eviction it records ({@link #appendOp}): both happen, or neither. The oldest
 * entries beyond the retention are deleted after each write.
 */
final class AuditTrail {

    static final int DEFAULT_RETENTION = 1_000;
    private static final Logger log = LoggerFactory.getLogger(AuditTrail.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How far back {@link #recorded} looks: forced releases are rare; this covers a burst of them. */
    private static final int RECENT = 200;

    private final ZkWire wire;
    private final String path;
    private final int retention;

    AuditTrail(ZkWire wire, ServicePaths paths, int retention) {
        if (retention < 1) {
            throw new IllegalArgumentException("audit retention must be at least 1, was " + retention);
        }
        this.wire = wire;
        this.path = paths.audit();
        this.retention = retention;
    }

    /** Creates the trail's znode if it is missing (once, at start). */
    void prepare() {
        try {
            wire.call("creating " + path, () -> wire.create(path, new byte[0], CreateMode.PERSISTENT));
        } catch (KeeperException.NodeExistsException exists) {
            // made before
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("creating " + path, e);
        }
    }

    /** The op that appends {@code entry}: put it in the multi that does what it records. */
    Op appendOp(ForcedRelease entry) {
        try {
            return wire.createOp(path + "/a-", JSON.writeValueAsBytes(toJson(entry)), CreateMode.PERSISTENT_SEQUENTIAL);
        } catch (IOException e) {
            throw new IllegalStateException("an audit entry cannot be written as JSON", e);
        }
    }

    /**
     * Deletes the oldest entries beyond the retention. A failure here loses nothing (the entries
     * are kept, and the next trim deletes them): it is logged, and the forced release stands.
     */
    void trim() {
        try {
            List<String> children = new ArrayList<>(wire.call("reading the audit trail", () -> wire.children(path))
                    .names());
            children.sort(null);
            for (String old : children.subList(0, Math.max(0, children.size() - retention))) {
                try {
                    wire.call("trimming the audit trail", () -> wire.delete(path + "/" + old, -1));
                } catch (KeeperException.NoNodeException trimmedByAnotherReplica) {
                    // another replica's trim got it first
                }
            }
        } catch (KeeperException | LockServiceException e) {
            log.warn("trimming the audit trail failed (its oldest entries stay until the next trim): {}", e.toString());
        }
    }

    /**
     * Whether {@code entry} is in the trail (read after a {@code sync}): how a forced release whose
     * answer was lost learns whether it was applied, since its audit entry is written in the same
     * multi as the eviction. Entries are told apart by all their fields, the time to the millisecond
     * included.
     */
    boolean recorded(ForcedRelease entry) {
        try {
            wire.call("syncing the audit trail", () -> wire.sync(path));
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("syncing the audit trail", e);
        }
        return newest(RECENT).contains(entry);
    }

    /** The newest {@code limit} entries, newest first. */
    List<ForcedRelease> newest(int limit) {
        List<String> children;
        try {
            children = new ArrayList<>(wire.call("reading the audit trail", () -> wire.children(path))
                    .names());
        } catch (KeeperException.NoNodeException none) {
            return List.of();
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("reading the audit trail", e);
        }
        children.sort(null);
        List<ForcedRelease> out = new ArrayList<>();
        for (int i = children.size() - 1; i >= 0 && out.size() < limit; i--) {
            String child = children.get(i);
            try {
                out.add(fromJson(JSON.readTree(
                        wire.call("reading the audit trail", () -> wire.data(path + "/" + child, null))
                                .data())));
            } catch (KeeperException.NoNodeException trimmed) {
                // trimmed by retention since the list was read
            } catch (KeeperException e) {
                throw Unavailable.zooKeeperAnswered("reading audit entry " + child, e);
            } catch (IOException e) {
                throw new LockServiceException(ErrorCode.INTERNAL, "audit entry " + child + " is malformed", e);
            }
        }
        return out;
    }

    static ObjectNode toJson(ForcedRelease r) {
        ObjectNode o = JSON.createObjectNode();
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
