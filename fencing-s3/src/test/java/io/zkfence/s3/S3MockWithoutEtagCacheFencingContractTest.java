package io.zkfence.s3;

/**
 * The contract on S3Mock with {@code etagCacheSize(0)}: the fence remembers nothing per key and
 * reads the object before every write.
 */
class S3MockWithoutEtagCacheFencingContractTest extends S3FencingContract {

    @Override
    protected boolean abortLeavesObjects() {
        return false;
    }

    @Override
    protected S3FenceConfig.Builder configure(S3FenceConfig.Builder config) {
        return config.etagCacheSize(0);
    }
}
