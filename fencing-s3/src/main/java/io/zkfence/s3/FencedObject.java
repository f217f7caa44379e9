package io.zkfence.s3;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An object read with {@link FencedBucket#read(String)}: its bytes, ETag, user metadata and the
 * fencing token of the holder that wrote it (empty when it was written without the fence).
 * Immutable.
 */
public final class FencedObject {

    private final String bucket;
    private final String key;
    private final OptionalLong token;
    private final String eTag;
    private final String contentType;
    private final Map<String, String> metadata;
    private final String versionId;
    private final byte[] content;

    FencedObject(
            String bucket,
            String key,
            OptionalLong token,
            String eTag,
            String contentType,
            Map<String, String> metadata,
            String versionId,
            byte[] content) {
        this.bucket = Objects.requireNonNull(bucket);
        this.key = Objects.requireNonNull(key);
        this.token = Objects.requireNonNull(token);
        this.eTag = eTag;
        this.contentType = contentType;
        this.metadata = Map.copyOf(metadata);
        this.versionId = versionId;
        this.content = content.clone();
    }

    /** The bucket read from. */
    public String bucket() {
        return bucket;
    }

    /** The object key. */
    public String key() {
        return key;
    }

    /** The token stored with the object, or empty when it was written without one. */
    public OptionalLong token() {
        return token;
    }

    /** The object's ETag as the store returned it (quoted). */
    public String eTag() {
        return eTag;
    }

    /** The Content-Type stored with the object, if any. */
    public Optional<String> contentType() {
        return Optional.ofNullable(contentType);
    }

    /** All user metadata (names without {@code x-amz-meta-}), the token entry included. */
    public Map<String, String> metadata() {
        return metadata;
    }

    /** The version read, in a versioned bucket. */
    public Optional<String> versionId() {
        return Optional.ofNullable(versionId);
    }

    /** The object's size in bytes. */
    public int contentLength() {
        return content.length;
    }

    /** A copy of the object's bytes. */
    public byte[] asByteArray() {
        return content.clone();
    }

    /** The object's bytes decoded as UTF-8. */
    public String asUtf8String() {
        return new String(content, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "FencedObject{" + S3FenceException.location(bucket, key) + ", token=" + token + ", eTag=" + eTag + ", "
                + content.length + " bytes}";
    }
}
