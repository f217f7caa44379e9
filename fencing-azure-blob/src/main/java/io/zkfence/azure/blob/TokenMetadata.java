package io.zkfence.azure.blob;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/** Reads and writes the token in a blob's metadata; Azure keeps a name's case but matches it ignoring case. */
final class TokenMetadata {

    private final String container;
    private final String metadataKey;

    TokenMetadata(String container, String metadataKey) {
        this.container = container;
        this.metadataKey = metadataKey;
    }

    /**
     * The token in {@code metadata}, empty when the blob has none.
     *
     * @throws AzureBlobFenceException when the value is not a non-negative decimal long
     */
    OptionalLong parse(String blobName, Map<String, String> metadata) {
        String raw = lookup(metadata);
        if (raw == null) {
            return OptionalLong.empty();
        }
        try {
            long token = Long.parseLong(raw.trim());
            if (token >= 0) {
                return OptionalLong.of(token);
            }
        } catch (NumberFormatException e) {
            throw invalid(blobName, raw, e);
        }
        throw invalid(blobName, raw, null);
    }

    /** {@code userMetadata} plus the token; refuses metadata that names the token already. */
    Map<String, String> with(String blobName, Map<String, String> userMetadata, long token) {
        Map<String, String> merged = new HashMap<>();
        if (userMetadata != null) {
            for (String name : userMetadata.keySet()) {
                if (name.equalsIgnoreCase(metadataKey)) {
                    throw new IllegalArgumentException("metadata for "
                            + AzureBlobFenceException.location(container, blobName) + " must not set '" + metadataKey
                            + "': the fence writes the token there itself");
                }
            }
            merged.putAll(userMetadata);
        }
        merged.put(metadataKey, Long.toString(token));
        return merged;
    }

    private AzureBlobFenceException invalid(String blobName, String raw, Throwable cause) {
        return new AzureBlobFenceException(
                container,
                blobName,
                0,
                null,
                false,
                AzureBlobFenceException.location(container, blobName) + " carries metadata x-ms-meta-" + metadataKey
                        + "='" + raw + "', which is not a non-negative long fencing token; refusing to act on it,"
                        + " nothing was written",
                cause);
    }

    private String lookup(Map<String, String> metadata) {
        if (metadata == null) {
            return null;
        }
        String exact = metadata.get(metadataKey);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            if (e.getKey().equalsIgnoreCase(metadataKey)) {
                return e.getValue();
            }
        }
        return null;
    }
}
