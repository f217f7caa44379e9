package io.zkfence.s3;

import java.util.Objects;
import java.util.Optional;

/**
 * A fenced write the store accepted: the object at {@code bucket/key} now carries {@code token}
 * and has ETag {@code eTag}.
 *
 * @param bucket the bucket written to
 * @param key the object key written
 * @param token the fencing token now stored with the object
 * @param eTag the object's new ETag, as the store returned it (quoted)
 * @param versionId the new version's id in a versioned bucket, empty otherwise
 */
public record FencedWrite(String bucket, String key, long token, String eTag, Optional<String> versionId) {

    public FencedWrite {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(versionId, "versionId");
    }
}
