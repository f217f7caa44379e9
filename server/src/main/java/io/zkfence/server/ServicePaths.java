package io.zkfence.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where the service keeps things in ZooKeeper, under its root ({@code --root}):
 *
 * <pre>
 * &lt;root&gt;/&lt;namespace&gt;/&lt;lock&gt;/e-…        queue entries of a lock ({@link EntryName}), r-… their requests
 * &lt;root&gt;/_replicas/&lt;session&gt;           one ephemeral marker per live replica ({@link ReplicaRegistry})
 * &lt;root&gt;/_done/&lt;bucket&gt;/&lt;shard&gt;/…      requests that finished ({@link FinishedRequests})
 * &lt;root&gt;/_audit/a-…                     forced releases ({@link AuditTrail})
 * &lt;root&gt;/_key                           the key lockTokens are signed with ({@link LockTokens})
 * </pre>
 *
 * No namespace can be called {@code _replicas}, {@code _done}, {@code _audit} or {@code _key}: a
 * namespace starts with a letter or digit.
 */
record ServicePaths(String root) {

    /** The root without a trailing slash ("" for "/"), to append children to. */
    String base() {
        return "/".equals(root) ? "" : root;
    }

    String namespace(String namespace) {
        return base() + "/" + namespace;
    }

    String lock(LockKey key) {
        return namespace(key.namespace()) + "/" + key.znode();
    }

    String replicas() {
        return base() + "/_replicas";
    }

    String done() {
        return base() + "/_done";
    }

    String audit() {
        return base() + "/_audit";
    }

    String key() {
        return base() + "/_key";
    }

    /** 16 hex digits naming a lock in places that hold many locks' records ({@code _done}). */
    static String digest(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
