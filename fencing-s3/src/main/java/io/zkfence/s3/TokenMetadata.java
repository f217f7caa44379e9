package io.zkfence.s3;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/** Reads and writes the token in an object's user metadata. */
final class TokenMetadata {

    private final String bucket;
    private final String metadataKey;

    TokenMetadata(String bucket, String metadataKey) {
        this.bucket = bucket;
        this.metadataKey = metadataKey;
    }

    String metadataKey() {
        return metadataKey;
    }

    /**
     * The token in {@code metadata} (as returned by HEAD/GET), empty when the object has none.
     *
     * @throws InvalidStoredTokenException when the value is not a non-negative decimal long
     */
    OptionalLong parse(String key, Map<String, String> metadata) {
        String raw = lookup(metadata);
        if (raw == null) {
            return OptionalLong.empty();
        }
        try {
            long token = Long.parseLong(raw.trim());
            if (token < 0) {
                throw new InvalidStoredTokenException(bucket, key, metadataKey, raw, null);
            }
            return OptionalLong.of(token);
        } catch (NumberFormatException e) {
            throw new InvalidStoredTokenException(bucket, key, metadataKey, raw, e);
        }
    }

    /** {@code userMetadata} plus the token; refuses metadata that already names the token key. */
    Map<String, String> with(String key, Map<String, String> userMetadata, long token) {
        Map<String, String> merged = new HashMap<>();
        if (userMetadata != null) {
            for (String name : userMetadata.keySet()) {
                if (name.equalsIgnoreCase(metadataKey)) {
                    throw new IllegalArgumentException("metadata for " + S3FenceException.location(bucket, key)
                            + " must not set '" + metadataKey + "': the fence writes the token there itself");
                }
            }
            merged.putAll(userMetadata);
        }
        merged.put(metadataKey, Long.toString(token));
        return merged;
    }

    private String lookup(Map<String, String> metadata) {
        if (metadata == null) {
            return null;
        }
        String exact = metadata.get(metadataKey);
        if (exact != null) {
            return exact;
        }
        // S3 lower-cases metadata names, other stores and proxies may not.
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            if (e.getKey().equalsIgnoreCase(metadataKey)) {
                return e.getValue();
            }
        }
        return null;
    }
}
