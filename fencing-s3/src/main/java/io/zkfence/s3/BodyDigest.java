package io.zkfence.s3;

import java.io.IOException;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Whether a put's body is the object's current content, judged from the current ETag: on
 * MD5-ETag stores a single-part upload of the body has ETag {@code md5(body)} and a one-part
 * multipart upload of it {@code md5(md5(body))-1}; either means "same bytes as stored".
 * Computes the MD5 at most once per put, and only when the current ETag has one of those shapes.
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

    /** True when {@code eTag} is what a plain or a one-part upload of this body gets. */
    boolean sameBytesAs(String eTag) {
        String current = Etags.normalize(eTag);
        if (current == null) {
            return false;
        }
        if (Etags.isMd5(current)) {
            return md5Hex().equals(current);
        }
        if (Etags.isOnePart(current)) {
            return Etags.onePartEtag(md5Hex()).equals(current);
        }
        return false;
    }

    private String md5Hex() {
        if (md5Hex == null) {
            try {
                md5Hex = Etags.md5Hex(body);
            } catch (IOException | RuntimeException e) {
                throw new S3FenceException(
                        bucket,
                        key,
                        "could not read the request body of PutObject on " + S3FenceException.location(bucket, key)
                                + " (it must be re-readable); nothing was written",
                        e);
            }
        }
        return md5Hex;
    }
}
