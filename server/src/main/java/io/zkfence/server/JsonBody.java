package io.zkfence.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** A request's JSON body and its fields: every problem is a 400 that names the field. */
final class JsonBody {

    static final int MAX_BYTES = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final JsonNode node;
    /** How the fields are named in errors: empty for the body's, {@code leases[3].} for an element's. */
    private final String prefix;

    private JsonBody(JsonNode node, String prefix) {
        this.node = node;
        this.prefix = prefix;
    }

    /** Parses a body that must be a JSON object of at most {@value #MAX_BYTES} bytes, with only {@code allowed} fields. */
    static JsonBody parse(byte[] bytes, String... allowed) {
        return parse(bytes, MAX_BYTES, allowed);
    }

    /** Parses a body that must be a JSON object of at most {@code maxBytes} bytes, with only {@code allowed} fields. */
    static JsonBody parse(byte[] bytes, int maxBytes, String... allowed) {
        if (bytes.length > maxBytes) {
            throw new LockServiceException(
                    ErrorCode.PAYLOAD_TOO_LARGE, "request body is larger than " + maxBytes / 1024 + " KiB");
        }
        JsonNode node;
        try {
            node = bytes.length == 0 ? null : JSON.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw LockServiceException.badRequest("request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw LockServiceException.badRequest("request body cannot be read: " + e.getMessage());
        }
        if (node == null || !node.isObject()) {
            throw LockServiceException.badRequest("request body must be a JSON object");
        }
        return object(node, "", allowed);
    }

    private static JsonBody object(JsonNode node, String prefix, String... allowed) {
        Set<String> known = Set.of(allowed);
        node.fieldNames().forEachRemaining(f -> {
            if (!known.contains(f)) {
                throw LockServiceException.badRequest(
                        "unknown field '" + prefix + f + "'; allowed: " + String.join(", ", allowed));
            }
        });
        return new JsonBody(node, prefix);
    }

    /**
     * The elements of an array field: {@code min} to {@code max} JSON objects, each with only
     * {@code allowed} fields, whose errors name the element ({@code leases[3].ttlMillis ...}).
     */
    List<JsonBody> objects(String field, int min, int max, String... allowed) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            throw LockServiceException.badRequest(prefix + field + " is required");
        }
        if (!v.isArray() || v.size() < min || v.size() > max) {
            throw LockServiceException.badRequest(
                    prefix + field + " must be an array of " + min + " to " + max + " objects, was "
                            + (v.isArray()
                                    ? "an array of " + v.size()
                                    : v.getNodeType().name().toLowerCase(Locale.ROOT)));
        }
        List<JsonBody> out = new ArrayList<>(v.size());
        for (int i = 0; i < v.size(); i++) {
            String at = prefix + field + "[" + i + "]";
            if (!v.get(i).isObject()) {
                throw LockServiceException.badRequest(at + " must be a JSON object");
            }
            out.add(object(v.get(i), at + ".", allowed));
        }
        return out;
    }

    /** How this body's field {@code field} is named in errors. */
    String name(String field) {
        return prefix + field;
    }

    boolean has(String field) {
        return node.has(field) && !node.get(field).isNull();
    }

    /** A non-blank string of at most 256 characters; null if absent and not required. */
    String text(String field, boolean required) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw LockServiceException.badRequest(prefix + field + " is required");
            }
            return null;
        }
        if (!v.isTextual() || v.asText().isBlank() || v.asText().length() > 256) {
            throw LockServiceException.badRequest(
                    prefix + field + " must be a non-blank string of at most 256 characters");
        }
        return v.asText();
    }

    /** A whole number from {@code min} to {@code max}. */
    long number(String field, long min, long max) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            throw LockServiceException.badRequest(prefix + field + " is required");
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
            throw LockServiceException.badRequest(
                    prefix + field + " must be a whole number from " + min + " to " + max + ", was " + v);
        }
        return v.asLong();
    }

    boolean bool(String field) {
        JsonNode v = node.get(field);
        if (v == null || !v.isBoolean()) {
            throw LockServiceException.badRequest(prefix + field + " must be true or false, was " + v);
        }
        return v.asBoolean();
    }
}
