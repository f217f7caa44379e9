package io.zkfence.azure.blob;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A blob read with {@link FencedContainer#read(String)}: its bytes, ETag, metadata and the fencing
 * token of the holder that wrote it (empty when it was written without the fence). Immutable.
 */
public final class FencedBlob {

    private final String container;
    private final String blobName;
    private final OptionalLong token;
    private final String eTag;
    private final String contentType;
    private final Map<String, String> metadata;
    private final byte[] content;

    FencedBlob(
            String container,
            String blobName,
            OptionalLong token,
            String eTag,
            String contentType,
            Map<String, String> metadata,
            byte[] content) {
        this.container = Objects.requireNonNull(container);
        this.blobName = Objects.requireNonNull(blobName);
        this.token = Objects.requireNonNull(token);
        this.eTag = eTag;
        this.contentType = contentType;
        this.metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        this.content = content.clone();
    }

    /**
     * The container read from.
     *
     * @return the container name
     */
    public String container() {
        return container;
    }

    /**
     * The blob's name.
     *
     * @return the name
     */
    public String blobName() {
        return blobName;
    }

    /**
     * The token stored with the blob.
     *
     * @return the token, empty when it was written without one
     */
    public OptionalLong token() {
        return token;
    }

    /**
     * The blob's ETag, as the service returned it.
     *
     * @return the ETag
     */
    public String eTag() {
        return eTag;
    }

    /**
     * The Content-Type stored with the blob.
     *
     * @return the content type, if any
     */
    public Optional<String> contentType() {
        return Optional.ofNullable(contentType);
    }

    /**
     * All metadata (names without {@code x-ms-meta-}), the token entry included.
     *
     * @return the metadata
     */
    public Map<String, String> metadata() {
        return metadata;
    }

    /**
     * A copy of the blob's bytes.
     *
     * @return the bytes
     */
    public byte[] asByteArray() {
        return content.clone();
    }

    /**
     * The blob's bytes decoded as UTF-8.
     *
     * @return the text
     */
    public String asUtf8String() {
        return new String(content, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "FencedBlob{" + AzureBlobFenceException.location(container, blobName) + ", token=" + token + ", eTag="
                + eTag + ", " + content.length + " bytes}";
    }
}
