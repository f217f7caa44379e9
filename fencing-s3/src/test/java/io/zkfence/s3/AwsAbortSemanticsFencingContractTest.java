package io.zkfence.s3;

/**
 * The contract on a store whose AbortMultipartUpload discards only the upload, as AWS S3's does
 * (S3Mock behind {@link ContractStore}): the self-check sees that, and the fence sends its aborts.
 */
class AwsAbortSemanticsFencingContractTest extends S3FencingContract {

    @Override
    protected boolean abortLeavesObjects() {
        return true;
    }
}
