package io.zkfence.s3;

/**
 * The contract on S3Mock as it is: its AbortMultipartUpload also deletes the object at the key, the
 * self-check sees that, and the fence sends no aborts.
 */
class S3MockFencingContractTest extends S3FencingContract {

    @Override
    protected boolean abortLeavesObjects() {
        return false;
    }
}
