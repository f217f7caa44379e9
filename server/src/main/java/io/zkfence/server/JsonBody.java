package io.zkfence.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Set;

/** A request's JSON body and its fields: every problem is a 400 that names the field. */
final class JsonBody {

    static final int MAX_BYTES = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final JsonNode node;

    private JsonBody(JsonNode node) {
        this.node = node;
    }

    /** Parses a body that must be a JSON object of at most {@value #MAX_BYTES} bytes, with only {@code allowed} fields. */
    static JsonBody parse(byte[] bytes, String... allowed) {
        if (bytes.length > MAX_BYTES) {
            throw new LockServiceException(ErrorCode.PAYLOAD_TOO_LARGE, "request body is larger than 64 KiB");
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
        Set<String> known = Set.of(allowed);
        node.fieldNames().forEachRemaining(f -> {
            if (!known.contains(f)) {
                throw LockServiceException.badRequest(
                        "unknown field '" + f + "'; allowed: " + String.join(", ", allowed));
            }
        });
        return new JsonBody(node);
    }

    boolean has(String field) {
        return node.has(field) && !node.get(field).isNull();
    }

    /** A non-blank string of at most 256 characters; null if absent and not required. */
    String text(String field, boolean required) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw LockServiceException.badRequest(field + " is required");
            }
            return null;
        }
        if (!v.isTextual() || v.asText().isBlank() || v.asText().length() > 256) {
            throw LockServiceException.badRequest(field + " must be a non-blank string of at most 256 characters");
        }
        return v.asText();
    }

    /** A whole number from {@code min} to {@code max}. */
    long number(String field, long min, long max) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            throw LockServiceException.badRequest(field + " is required");
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
            throw LockServiceException.badRequest(
                    field + " must be a whole number from " + min + " to " + max + ", was " + v);
        }
        return v.asLong();
    }

    boolean bool(String field) {
        JsonNode v = node.get(field);
        if (v == null || !v.isBoolean()) {
            throw LockServiceException.badRequest(field + " must be true or false, was " + v);
        }
        return v.asBoolean();
    }
}
