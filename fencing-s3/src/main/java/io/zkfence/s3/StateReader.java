package io.zkfence.s3;

import io.zkfence.fencing.internal.ObjectState;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/** Reads a key's current ETag and token with one HEAD request, and remembers what it saw. */
final class StateReader {

    private final S3Client s3;
    private final String bucket;
    private final TokenMetadata tokens;
    private final EtagCache cache;

    StateReader(S3Client s3, String bucket, TokenMetadata tokens, EtagCache cache) {
        this.s3 = s3;
        this.bucket = bucket;
        this.tokens = tokens;
        this.cache = cache;
    }

    /**
     * The object's state now. A 404 means absent: HEAD has no body, so a missing bucket looks the
     * same here; the write that follows reports it.
     */
    ObjectState head(String key) {
        HeadObjectResponse response;
        try {
            response = s3.headObject(r -> r.bucket(bucket).key(key));
        } catch (SdkException e) {
            if (S3Errors.hasStatus(e, 404)) {
                cache.forget(key);
                return ObjectState.absent();
            }
            throw S3Errors.translate(e, bucket, key, "HeadObject", false);
        }
        if (response.eTag() == null || response.eTag().isEmpty()) {
            // Without an ETag there is nothing to compare-and-set on: fail closed, never write.
            throw new StoreException(
                    bucket,
                    key,
                    "HeadObject",
                    response.sdkHttpResponse().statusCode(),
                    null,
                    false,
                    "the store answered HeadObject on " + S3FenceException.location(bucket, key)
                            + " without an ETag; conditional writes need one, so the fence cannot work with this"
                            + " store or proxy; nothing was written",
                    null);
        }
        ObjectState state = ObjectState.present(response.eTag(), tokens.parse(key, response.metadata()));
        cache.remember(key, state);
        return state;
    }
}
