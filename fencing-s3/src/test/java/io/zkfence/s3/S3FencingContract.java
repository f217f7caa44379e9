package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.fencing.contract.FencedResource;
import io.zkfence.fencing.contract.FencingContract;
import io.zkfence.testing.S3MockServer;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * fencing-api's {@link FencingContract} on one store mode: a value is an object's bytes, written
 * and deleted through one {@link FencedBucket} (all writers share it, as the threads of one
 * process do) and read back with a plain client. Each test gets a fresh bucket on S3Mock.
 */
@ExtendWith(S3MockServer.class)
abstract class S3FencingContract extends FencingContract {

    private static final AtomicInteger BUCKETS = new AtomicInteger();

    /** Whether the store keeps a committed object when an upload to its key is aborted (AWS does). */
    protected abstract boolean abortLeavesObjects();

    /** This mode's fence settings, on top of the bucket and a quick back-off. */
    protected S3FenceConfig.Builder configure(S3FenceConfig.Builder config) {
        return config;
    }

    /** The mode is what it says: the self-check learns this store's abort semantics. */
    @Test
    void selfCheckLearnsWhetherThisStoresAbortsRemoveObjects() {
        String bucketName = newBucket();
        try (ContractStore store = new ContractStore(TestClients.s3(S3MockServer.endpoint()), abortLeavesObjects())) {
            SelfCheck check = new SelfCheck(store, bucketName, S3FenceConfig.DEFAULT_SELF_CHECK_KEY_PREFIX);

            check.ensure(SelfCheck.Kind.COMPLETE_MULTIPART, "any");

            assertThat(check.abortMayRemoveObjects()).isEqualTo(!abortLeavesObjects());
        }
    }

    private static String newBucket() {
        String bucketName = "contract-" + BUCKETS.incrementAndGet() + "-"
                + ProcessHandle.current().pid();
        try (S3Client plain = TestClients.s3(S3MockServer.endpoint())) {
            plain.createBucket(b -> b.bucket(bucketName));
        }
        return bucketName;
    }

    @Override
    protected FencedResource newResource() {
        String bucketName = newBucket();
        S3Client plain = TestClients.s3(S3MockServer.endpoint());
        RequestLog requests = new RequestLog();
        ContractStore store =
                new ContractStore(TestClients.s3(S3MockServer.endpoint(), requests), abortLeavesObjects());
        FencedBucket bucket = FencedBucket.create(
                store,
                configure(S3FenceConfig.builder(bucketName)
                                .backoffBase(Duration.ofMillis(1))
                                .backoffMax(Duration.ofMillis(20)))
                        .build());
        return new ObjectResource(bucketName, plain, store, requests, bucket);
    }

    static final class ObjectResource implements FencedResource {

        private final String bucketName;
        private final S3Client plain;
        private final ContractStore store;
        private final RequestLog requests;
        private final FencedBucket bucket;

        ObjectResource(
                String bucketName, S3Client plain, ContractStore store, RequestLog requests, FencedBucket bucket) {
            this.bucketName = bucketName;
            this.plain = plain;
            this.store = store;
            this.requests = requests;
            this.bucket = bucket;
        }

        @Override
        public void write(String key, long token, String value, Runnable midway) {
            store.pauseBefore(key, midway);
            try {
                bucket.put(key, token, RequestBody.fromString(value));
            } finally {
                store.noPause();
            }
        }

        @Override
        public boolean delete(String key, long token) {
            return bucket.delete(key, token);
        }

        @Override
        public Optional<String> read(String key) {
            try {
                return Optional.of(
                        plain.getObjectAsBytes(r -> r.bucket(bucketName).key(key))
                                .asUtf8String());
            } catch (NoSuchKeyException e) {
                return Optional.empty();
            }
        }

        @Override
        public OptionalLong storedToken(String key) {
            return bucket.token(key);
        }

        @Override
        public String resourceName(String key) {
            return "s3://" + bucketName + "/" + key;
        }

        @Override
        public long requestsSent() {
            return requests.requests().size();
        }

        @Override
        public Set<String> keysUnder(String prefix) {
            Set<String> keys = new HashSet<>();
            plain.listObjectsV2Paginator(r -> r.bucket(bucketName).prefix(prefix))
                    .contents()
                    .forEach(o -> keys.add(o.key()));
            return keys;
        }

        /**
         * S3Mock answers If-Match / If-None-Match one request at a time but is not an atomic
         * compare-and-set under concurrent PUTs to one key (docs/fencing-s3.md); AWS S3 is.
         */
        @Override
        public boolean atomicUnderConcurrentWrites() {
            return false;
        }

        @Override
        public void close() {
            store.close();
            plain.close();
        }
    }
}
