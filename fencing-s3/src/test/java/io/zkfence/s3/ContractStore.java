package io.zkfence.s3;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadBucketResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * The S3 client the fencing contract's store modes write through: S3Mock underneath, the requests
 * {@link FencedBucket} sends passed on, plus two things the contract needs.
 *
 * <ul>
 *   <li>A pause: {@link #pauseBefore} runs an action on the writer's thread just before its next
 *       write request on a key (PutObject, CompleteMultipartUpload, DeleteObject), after the
 *       adapter has read the key.</li>
 *   <li>Optionally AWS's abort semantics. S3Mock 5.2.0's AbortMultipartUpload also deletes the
 *       committed object at the key; AWS discards only the upload. With
 *       {@code abortLeavesObjects} the abort is not sent to S3Mock: the upload is marked gone here
 *       and its later parts and completion fail with {@code NoSuchUpload}, as on AWS, and the
 *       object stays. (The upload's parts stay in S3Mock's store; nothing reads them.)</li>
 * </ul>
 */
final class ContractStore implements S3Client {

    private final S3Client s3;
    private final boolean abortLeavesObjects;
    private final Set<String> aborted = ConcurrentHashMap.newKeySet();
    private final Map<Thread, Pause> pauses = new ConcurrentHashMap<>();

    private record Pause(String key, Runnable action) {}

    ContractStore(S3Client s3, boolean abortLeavesObjects) {
        this.s3 = s3;
        this.abortLeavesObjects = abortLeavesObjects;
    }

    /** Runs {@code action} once, on this thread, just before its next write request on {@code key}. */
    void pauseBefore(String key, Runnable action) {
        pauses.put(Thread.currentThread(), new Pause(key, action));
    }

    /** Drops this thread's pause if no request ran it. */
    void noPause() {
        pauses.remove(Thread.currentThread());
    }

    private void beforeWrite(String key) {
        Pause pause = pauses.get(Thread.currentThread());
        if (pause != null && pause.key().equals(key)) {
            pauses.remove(Thread.currentThread());
            pause.action().run();
        }
    }

    @Override
    public PutObjectResponse putObject(PutObjectRequest request, RequestBody body) {
        beforeWrite(request.key());
        return s3.putObject(request, body);
    }

    @Override
    public DeleteObjectResponse deleteObject(DeleteObjectRequest request) {
        beforeWrite(request.key());
        return s3.deleteObject(request);
    }

    @Override
    public CompleteMultipartUploadResponse completeMultipartUpload(CompleteMultipartUploadRequest request) {
        requireNotAborted(request.uploadId());
        beforeWrite(request.key());
        return s3.completeMultipartUpload(request);
    }

    @Override
    public AbortMultipartUploadResponse abortMultipartUpload(AbortMultipartUploadRequest request) {
        if (!abortLeavesObjects) {
            return s3.abortMultipartUpload(request);
        }
        requireNotAborted(request.uploadId());
        aborted.add(request.uploadId());
        return AbortMultipartUploadResponse.builder().build();
    }

    @Override
    public UploadPartResponse uploadPart(UploadPartRequest request, RequestBody body) {
        requireNotAborted(request.uploadId());
        return s3.uploadPart(request, body);
    }

    private void requireNotAborted(String uploadId) {
        if (aborted.contains(uploadId)) {
            throw NoSuchUploadException.builder()
                    .statusCode(404)
                    .message("The specified upload does not exist (aborted)")
                    .build();
        }
    }

    @Override
    public CreateMultipartUploadResponse createMultipartUpload(CreateMultipartUploadRequest request) {
        return s3.createMultipartUpload(request);
    }

    @Override
    public HeadObjectResponse headObject(HeadObjectRequest request) {
        return s3.headObject(request);
    }

    @Override
    public HeadBucketResponse headBucket(HeadBucketRequest request) {
        return s3.headBucket(request);
    }

    @Override
    public <T> T getObject(GetObjectRequest request, ResponseTransformer<GetObjectResponse, T> transformer) {
        return s3.getObject(request, transformer);
    }

    @Override
    public ResponseInputStream<GetObjectResponse> getObject(GetObjectRequest request) {
        return s3.getObject(request);
    }

    @Override
    public String serviceName() {
        return s3.serviceName();
    }

    @Override
    public void close() {
        s3.close();
    }
}
