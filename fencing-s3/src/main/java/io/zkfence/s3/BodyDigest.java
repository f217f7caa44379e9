package io.zkfence.s3;

import java.io.IOException;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Whether a put's body has the MD5 that is the object's current ETag (same bytes as stored).
 * Computes the MD5 at most once per put, and only when an MD5-shaped ETag is about to be replaced:
 * a multipart or non-MD5 ETag is never the MD5 of a single-part body.
 */
final class BodyDigest {

    private final String bucket;
    private final String key;
    private final RequestBody body;
    private String md5Hex;

    BodyDigest(String bucket, String key, RequestBody body) {
        this.bucket = bucket;
        this.key = key;
        this.body = body;
    }

    boolean matches(String eTag) {
        String current = Etags.normalize(eTag);
        if (current == null || current.length() != 32) {
            return false;
        }
        if (md5Hex == null) {
            try {
                md5Hex = Etags.md5Hex(body);
            } catch (IOException | RuntimeException e) {
                throw new FenceException(bucket, key, "could not read the request body of PutObject on "
                        + FenceException.location(bucket, key) + " (it must be re-readable); nothing was written", e);
            }
        }
        return md5Hex.equals(current);
    }
}
