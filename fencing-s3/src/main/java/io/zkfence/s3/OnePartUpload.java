package io.zkfence.s3;

import io.zkfence.fencing.internal.ObjectState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * Sends a put whose bytes already are the object's bytes as a one-part multipart upload.
 *
 * <p>Why: on MD5-ETag stores the same bytes can have only two ETags, {@code md5} (plain PUT) and
 * {@code md5(md5)-1} (one-part upload); metadata, and so the token, enters neither. A plain PUT
 * of the stored bytes under a newer token would keep a plain ETag, or bring back the plain ETag a
 * paused holder may still hold. Every same-bytes rewrite therefore takes the one-part form: the
 * object's plain ETag is replaced by the one-part one and never comes back through such rewrites,
 * and the one-part ETag, which a later same-bytes rewrite reproduces, is never cached (see
 * {@link EtagCache}). Costs three requests instead of one, only in this case.
 */
final class OnePartUpload {

    private static final Logger log = LoggerFactory.getLogger(OnePartUpload.class);

    private final S3Client s3;
    private final String bucket;
    private final SelfCheck selfCheck;

    OnePartUpload(S3Client s3, String bucket, SelfCheck selfCheck) {
        this.s3 = s3;
        this.bucket = bucket;
        this.selfCheck = selfCheck;
    }

    /**
     * Creates the upload with {@code put}'s headers, uploads {@code body} as part 1 and completes it
     * with If-Match on {@code current}'s ETag. If anything fails the upload is aborted (except on a
     * store whose abort removes the object at the key: there it is left for a lifecycle rule, since
     * the object may by now be a newer holder's) and the SDK failure propagates, so the write loop can tell a lost race (412) from other errors.
     */
    CompleteMultipartUploadResponse send(
            String key, long token, PutObjectRequest put, RequestBody body, ObjectState current) {
        CreateMultipartUploadRequest.Builder create = CreateMultipartUploadRequest.builder();
        RequestFields.copy(put, create);
        String uploadId =
                s3.createMultipartUpload(create.bucket(bucket).key(key).build()).uploadId();
        boolean completed = false;
        try {
            UploadPartRequest.Builder part = UploadPartRequest.builder();
            RequestFields.copy(put, part);
            String partEtag = s3.uploadPart(
                            part.bucket(bucket)
                                    .key(key)
                                    .uploadId(uploadId)
                                    .partNumber(1)
                                    .build(),
                            body)
                    .eTag();
            CompletedMultipartUpload parts = CompletedMultipartUpload.builder()
                    .parts(CompletedPart.builder().partNumber(1).eTag(partEtag).build())
                    .build();
            CompleteMultipartUploadResponse done = s3.completeMultipartUpload(r -> r.bucket(bucket)
                    .key(key)
                    .uploadId(uploadId)
                    .multipartUpload(parts)
                    .ifMatch(current.eTag()));
            completed = true;
            // From a one-part ETag to the same one is expected (same bytes, same form); from a plain
            // ETag the store should have moved to another: if it did not, it breaks the ETag arithmetic.
            if (!Etags.isOnePart(current.eTag()) && Etags.same(done.eTag(), current.eTag())) {
                log.warn(
                        "{}: the store kept ETag {} across a rewrite with token {}; a stale writer holding that"
                                + " ETag could overwrite it (see docs/fencing-s3.md)",
                        S3FenceException.location(bucket, key),
                        done.eTag(),
                        token);
            }
            return done;
        } finally {
            if (!completed) {
                abortQuietly(key, uploadId);
            }
        }
    }

    private void abortQuietly(String key, String uploadId) {
        if (selfCheck.abortMayRemoveObjects()) {
            log.warn(
                    "left multipart upload {} of {} open: on this store an abort removes the object at the key,"
                            + " which may be a newer holder's",
                    uploadId,
                    S3FenceException.location(bucket, key));
            return;
        }
        try {
            s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
        } catch (SdkException e) {
            // The write's own failure is what the caller needs; the stray upload only costs storage
            // until a lifecycle rule removes it.
            log.warn("could not abort multipart upload {} of {}", uploadId, S3FenceException.location(bucket, key), e);
        }
    }
}
