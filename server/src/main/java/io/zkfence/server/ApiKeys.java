package io.zkfence.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Who may call: bearer API keys from configuration, each allowed a set of namespaces; admin keys
 * may also force-release and read the audit trail, in every namespace. {@link #open()} lets every
 * caller do everything and must be chosen explicitly ({@code --no-auth}).
 *
 * <p>The file is JSON: {@code {"keys": [{"name": "inventory", "key": "…", "namespaces":
 * ["inventory-service"]}, {"name": "ops", "key": "…", "admin": true}]}}. Keys are compared in
 * constant time.
 */
final class ApiKeys {

    /** One configured key. */
    record ApiKey(String name, byte[] secret, Set<String> namespaces, boolean admin) {}

    /** The caller a request was authenticated as. */
    record Caller(String name, Set<String> namespaces, boolean admin) {}

    private static final Caller ANYONE = new Caller("anonymous", Set.of(), true);
    private static final int MIN_KEY_LENGTH = 16;

    private final List<ApiKey> keys;

    private ApiKeys(List<ApiKey> keys) {
        this.keys = List.copyOf(keys);
    }

    /** No authentication: every caller is an admin in every namespace. */
    static ApiKeys open() {
        return new ApiKeys(List.of());
    }

    boolean enabled() {
        return !keys.isEmpty();
    }

    /**
     * Reads the key file.
     *
     * @throws IllegalArgumentException naming the file and the entry if it is malformed
     */
    static ApiKeys load(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "API key file " + file + " cannot be read as JSON: " + e.getMessage(), e);
        }
        JsonNode array = root == null ? null : root.get("keys");
        if (array == null || !array.isArray() || array.isEmpty()) {
            throw new IllegalArgumentException(
                    "API key file " + file + " must hold {\"keys\": [...]} with at least one key");
        }
        List<ApiKey> keys = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < array.size(); i++) {
            JsonNode k = array.get(i);
            String where = "API key file " + file + ", keys[" + i + "]";
            String name = text(k, "name", where);
            String secret = text(k, "key", where);
            if (secret.length() < MIN_KEY_LENGTH) {
                throw new IllegalArgumentException(where + ": key must be at least " + MIN_KEY_LENGTH + " characters");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException(where + ": name '" + name + "' is used twice");
            }
            boolean admin = k.has("admin") && k.get("admin").asBoolean(false);
            Set<String> namespaces = new LinkedHashSet<>();
            JsonNode ns = k.get("namespaces");
            if (ns != null) {
                if (!ns.isArray()) {
                    throw new IllegalArgumentException(where + ": namespaces must be an array of namespace names");
                }
                for (JsonNode n : ns) {
                    try {
                        namespaces.add(LockKey.checkNamespace(n.asText(), where + ": namespace"));
                    } catch (LockServiceException bad) {
                        throw new IllegalArgumentException(bad.getMessage(), bad);
                    }
                }
            }
            if (namespaces.isEmpty() && !admin) {
                throw new IllegalArgumentException(where + ": a key that is not admin needs at least one namespace");
            }
            keys.add(new ApiKey(name, secret.getBytes(StandardCharsets.UTF_8), Set.copyOf(namespaces), admin));
        }
        return new ApiKeys(keys);
    }

    /**
     * The caller of a request, from its {@code Authorization} header.
     *
     * @throws LockServiceException 401 {@code UNAUTHORIZED} if keys are configured and the header is
     *                              missing or names no configured key
     */
    Caller authenticate(String authorization) {
        if (!enabled()) {
            return ANYONE;
        }
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new LockServiceException(
                    ErrorCode.UNAUTHORIZED, "an API key is required: Authorization: Bearer <key>");
        }
        byte[] presented = authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        ApiKey match = null;
        for (ApiKey k : keys) { // every key compared, in constant time each: timing tells nothing
            if (MessageDigest.isEqual(k.secret(), presented)) {
                match = k;
            }
        }
        if (match == null) {
            throw new LockServiceException(ErrorCode.UNAUTHORIZED, "the API key is not known to this server");
        }
        return new Caller(match.name(), match.namespaces(), match.admin());
    }

    /** @throws LockServiceException 403 {@code NAMESPACE_FORBIDDEN} if the caller may not use {@code namespace} */
    static void requireNamespace(Caller caller, String namespace) {
        if (!caller.admin() && !caller.namespaces().contains(namespace)) {
            throw new LockServiceException(
                    ErrorCode.NAMESPACE_FORBIDDEN,
                    "API key '" + caller.name() + "' is not allowed namespace '" + namespace + "'");
        }
    }

    /** @throws LockServiceException 403 {@code ADMIN_REQUIRED} if the caller is not an admin */
    static void requireAdmin(Caller caller, String what) {
        if (!caller.admin()) {
            throw new LockServiceException(
                    ErrorCode.ADMIN_REQUIRED, what + " needs an admin API key; '" + caller.name() + "' is not one");
        }
    }

    private static String text(JsonNode k, String field, String where) {
        JsonNode v = k == null ? null : k.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw new IllegalArgumentException(where + ": " + field + " is required (a non-blank string)");
        }
        return v.asText();
    }
}
