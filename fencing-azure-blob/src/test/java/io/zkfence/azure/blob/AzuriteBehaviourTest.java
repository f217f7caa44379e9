package io.zkfence.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.DeleteSnapshotsOptionType;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What the fence relies on from the service, checked on Azurite one request at a time: each
 * precondition refused with the status the fence reads as a lost race, and a new ETag on every
 * write (same bytes and metadata-only changes included).
 */
class AzuriteBehaviourTest {

    private final BlobContainerClient container = Azurite.container(Azurite.newContainer());

    private BlockBlobClient blob(String name) {
        return container.getBlobClient(name).getBlockBlobClient();
    }

    private static BlockBlobSimpleUploadOptions upload(String body, BlobRequestConditions conditions) {
        return new BlockBlobSimpleUploadOptions(BinaryData.fromString(body)).setRequestConditions(conditions);
    }

    @Test
    void eachPreconditionIsRefusedWithTheStatusTheFenceReadsAsALostRace() {
        String eTag = blob("b")
                .uploadWithResponse(upload("v1", null), null, null)
                .getValue()
                .getETag();

        BlobStorageException ifMatch = assertThrows(
                BlobStorageException.class,
                () -> blob("b")
                        .uploadWithResponse(
                                upload("v2", new BlobRequestConditions().setIfMatch("\"0x1\"")), null, null));
        BlobStorageException ifNoneMatch = assertThrows(
                BlobStorageException.class,
                () -> blob("b")
                        .uploadWithResponse(upload("v2", new BlobRequestConditions().setIfNoneMatch("*")), null, null));
        BlobStorageException ifMatchOnMissing = assertThrows(
                BlobStorageException.class,
                () -> blob("missing")
                        .uploadWithResponse(upload("v2", new BlobRequestConditions().setIfMatch(eTag)), null, null));
        BlobStorageException delete = assertThrows(
                BlobStorageException.class,
                () -> container
                        .getBlobClient("b")
                        .deleteWithResponse(
                                DeleteSnapshotsOptionType.INCLUDE,
                                new BlobRequestConditions().setIfMatch("\"0x1\""),
                                null,
                                null));

        assertThat(ifMatch.getStatusCode()).isEqualTo(412);
        assertThat(ifNoneMatch.getStatusCode()).isEqualTo(409);
        assertThat(AzureErrors.code(ifNoneMatch)).isEqualTo("BlobAlreadyExists");
        assertThat(List.of(ifMatch, ifNoneMatch, ifMatchOnMissing, delete)).allMatch(AzureErrors::isLostRace);
        assertThat(container.getBlobClient("missing").exists()).isFalse();
        assertThat(container.getBlobClient("b").downloadContent().toString()).isEqualTo("v1");
        assertThat(List.of(ifMatchOnMissing.getStatusCode(), delete.getStatusCode()))
                .containsOnly(412);
    }

    @Test
    void everyWriteGetsANewEtagSameBytesAndMetadataOnlyChangesIncluded() {
        String first = blob("b")
                .uploadWithResponse(upload("same", null), null, null)
                .getValue()
                .getETag();
        String second = blob("b")
                .uploadWithResponse(upload("same", null), null, null)
                .getValue()
                .getETag();
        container.getBlobClient("b").setMetadata(Map.of("k", "v"));
        String third = container.getBlobClient("b").getProperties().getETag();

        assertThat(List.of(first, second, third)).doesNotHaveDuplicates();
    }

    /**
     * Azurite's in-memory store checks a Put Blob's conditions and replaces the blob in one
     * synchronous step of Node's event loop ({@code LokiBlobMetadataStore.createBlob}), so
     * concurrent conditional puts have one winner, as on Azure. The contract's many-writer race
     * runs on Azurite because of this; the test pins it (docs/fencing-azure-blob.md).
     */
    @Test
    void concurrentConditionalPutsAgainstOneEtagHaveExactlyOneWinner() throws Exception {
        int rounds = 30;
        int writers = 16;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int r = 0; r < rounds; r++) {
                String name = "race-" + r;
                String eTag = blob(name)
                        .uploadWithResponse(upload("start", null), null, null)
                        .getValue()
                        .getETag();
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Boolean>> results = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    String body = "writer " + w;
                    results.add(pool.submit(() -> {
                        go.await();
                        try {
                            blob(name)
                                    .uploadWithResponse(
                                            upload(body, new BlobRequestConditions().setIfMatch(eTag)), null, null);
                            return true;
                        } catch (BlobStorageException e) {
                            if (e.getStatusCode() != 412) {
                                throw e;
                            }
                            return false;
                        }
                    }));
                }
                go.countDown();
                int winners = 0;
                for (Future<Boolean> f : results) {
                    if (f.get(60, TimeUnit.SECONDS)) {
                        winners++;
                    }
                }
                assertThat(winners).as("winners of round %d", r).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
