package io.zkfence.azure.blob;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.ListBlobsOptions;
import io.zkfence.fencing.contract.FencedResource;
import io.zkfence.fencing.contract.FencingContract;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * fencing-api's {@link FencingContract} on Azurite: a value is a blob's bytes, written and deleted
 * through one {@link FencedContainer} (all writers share it, as the threads of one process do) and
 * read back with a plain client. Each test gets a fresh container. Conditional puts are atomic on
 * Azurite ({@link AzuriteBehaviourTest}), so the many-writer race runs here.
 */
class AzuriteFencingContractTest extends FencingContract {

    @Override
    protected FencedResource newResource() {
        String name = Azurite.newContainer();
        Azurite.Requests requests = new Azurite.Requests();
        FencedContainer fenced = FencedContainer.create(
                Azurite.container(name, requests),
                AzureBlobFenceConfig.builder()
                        .backoffBase(Duration.ofMillis(1))
                        .backoffMax(Duration.ofMillis(20))
                        .maxConflictRetries(100)
                        .build());
        return new BlobResource(name, Azurite.container(name), requests, fenced);
    }

    private record BlobResource(
            String name, BlobContainerClient plain, Azurite.Requests requests, FencedContainer fenced)
            implements FencedResource {

        @Override
        public void write(String key, long token, String value, Runnable midway) {
            requests.pauseBefore(key, midway);
            try {
                fenced.put(key, token, BinaryData.fromString(value));
            } finally {
                requests.noPause(key);
            }
        }

        @Override
        public boolean delete(String key, long token) {
            return fenced.delete(key, token);
        }

        @Override
        public Optional<String> read(String key) {
            try {
                return Optional.of(plain.getBlobClient(key).downloadContent().toString());
            } catch (BlobStorageException e) {
                if (e.getStatusCode() == 404) {
                    return Optional.empty();
                }
                throw e;
            }
        }

        @Override
        public OptionalLong storedToken(String key) {
            return fenced.token(key);
        }

        @Override
        public String resourceName(String key) {
            return "azure-blob://" + name + "/" + key;
        }

        @Override
        public long requestsSent() {
            return requests.sent().size();
        }

        @Override
        public Set<String> keysUnder(String prefix) {
            Set<String> keys = new HashSet<>();
            plain.listBlobs(new ListBlobsOptions().setPrefix(prefix), null).forEach(b -> keys.add(b.getName()));
            return keys;
        }
    }
}
