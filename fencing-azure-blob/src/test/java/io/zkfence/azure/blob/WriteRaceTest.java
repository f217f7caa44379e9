package io.zkfence.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The conditional write step by step, each race ordered by the test (a write slipped in between a
 * writer's read and its conditional request), and the request counts of the steady state.
 */
class WriteRaceTest {

    private final String containerName = Azurite.newContainer();
    private final BlobContainerClient plain = Azurite.container(containerName);
    private final Azurite.Requests requests = new Azurite.Requests();

    private FencedContainer fenced() {
        return FencedContainer.create(
                Azurite.container(containerName, requests),
                AzureBlobFenceConfig.builder()
                        .backoffBase(Duration.ofMillis(1))
                        .backoffMax(Duration.ofMillis(20))
                        .build());
    }

    /** Another process: its own client and cache. */
    private FencedContainer otherProcess() {
        return FencedContainer.create(plain);
    }

    private String content(String blob) {
        return plain.getBlobClient(blob).downloadContent().toString();
    }

    private String storedToken(String blob) {
        return plain.getBlobClient(blob).getProperties().getMetadata().get("fence_token");
    }

    @Test
    void aRewriteOfABlobThisFenceWroteLastIsOneRequest() {
        FencedContainer writer = fenced();
        writer.verifyConditionalWrites();
        writer.put("manifest", 5, BinaryData.fromString("v1"));
        requests.clear();

        writer.put("manifest", 5, BinaryData.fromString("v2"));

        assertThat(requests.sent()).containsExactly("PUT manifest");
    }

    @Test
    void aStaleWriterHoldingAnOldEtagIsRefusedAfterOneReRead() {
        FencedContainer paused = fenced();
        paused.put("manifest", 5, BinaryData.fromString("by 5"));
        otherProcess().put("manifest", 7, BinaryData.fromString("by 7"));
        requests.clear();

        AzureBlobStaleTokenException e = assertThrows(
                AzureBlobStaleTokenException.class, () -> paused.put("manifest", 5, BinaryData.fromString("late")));

        assertThat(e.presentedToken()).isEqualTo(5);
        assertThat(e.storedToken()).isEqualTo(7);
        assertThat(e.resource()).isEqualTo("azure-blob://" + containerName + "/manifest");
        assertThat(requests.sent()).containsExactly("PUT manifest", "HEAD manifest");
        assertThat(content("manifest")).isEqualTo("by 7");
        assertThat(storedToken("manifest")).isEqualTo("7");
    }

    /** Azure gives every write a new ETag: the same bytes written again do not hand a paused holder its ETag back. */
    @Test
    void aNewerHolderRewritingTheSameBytesStillRefusesThePausedOne() {
        FencedContainer paused = fenced();
        paused.put("status", 5, BinaryData.fromString("state=ok"));
        FencedContainer newer = otherProcess();
        newer.put("status", 7, BinaryData.fromString("state=degraded"));
        newer.put("status", 7, BinaryData.fromString("state=ok"));

        assertThrows(
                AzureBlobStaleTokenException.class,
                () -> paused.put("status", 5, BinaryData.fromString("state=failed")));

        assertThat(content("status")).isEqualTo("state=ok");
    }

    @Test
    void aNewerTokenLandingBetweenReadAndConditionalPutMakesTheWriteStale() {
        plain.getBlobClient("manifest")
                .getBlockBlobClient()
                .uploadWithResponse(
                        new BlockBlobSimpleUploadOptions(BinaryData.fromString("v5"))
                                .setMetadata(Map.of("fence_token", "5")),
                        null,
                        null);
        FencedContainer writer = fenced();
        writer.verifyConditionalWrites();
        requests.pauseBefore("manifest", () -> otherProcess().put("manifest", 9, BinaryData.fromString("v9")));

        AzureBlobStaleTokenException e = assertThrows(
                AzureBlobStaleTokenException.class, () -> writer.put("manifest", 6, BinaryData.fromString("v6")));

        assertThat(e.storedToken()).isEqualTo(9);
        assertThat(content("manifest")).isEqualTo("v9");
    }

    @Test
    void aCreationRaceLostToALowerTokenIsRetriedAgainstTheNewBlob() {
        FencedContainer writer = fenced();
        writer.verifyConditionalWrites();
        requests.pauseBefore("manifest", () -> otherProcess().put("manifest", 4, BinaryData.fromString("v4")));
        requests.clear();

        writer.put("manifest", 6, BinaryData.fromString("v6"));

        assertThat(requests.sent()).containsExactly("HEAD manifest", "PUT manifest", "HEAD manifest", "PUT manifest");
        assertThat(content("manifest")).isEqualTo("v6");
        assertThat(storedToken("manifest")).isEqualTo("6");
    }

    @Test
    void contentionIsBoundedWhenEveryAttemptLosesToAnEqualToken() {
        AtomicInteger rivals = new AtomicInteger();
        FencedContainer writer = FencedContainer.create(
                Azurite.container(containerName, requests),
                AzureBlobFenceConfig.builder()
                        .maxConflictRetries(3)
                        .backoffBase(Duration.ZERO)
                        .build());
        writer.verifyConditionalWrites();
        Runnable rival = new Runnable() {
            @Override
            public void run() {
                plain.getBlobClient("manifest")
                        .getBlockBlobClient()
                        .uploadWithResponse(
                                new BlockBlobSimpleUploadOptions(
                                                BinaryData.fromString("rival " + rivals.incrementAndGet()))
                                        .setMetadata(Map.of("fence_token", "5")),
                                null,
                                null);
                requests.pauseBefore("manifest", this);
            }
        };
        requests.pauseBefore("manifest", rival);

        AzureBlobContentionException e = assertThrows(
                AzureBlobContentionException.class, () -> writer.put("manifest", 5, BinaryData.fromString("mine")));

        requests.noPause("manifest");
        assertThat(e.attempts()).isEqualTo(4);
        assertThat(e.getMessage()).contains(containerName, "manifest", "maxConflictRetries=3");
        assertThat(content("manifest")).isEqualTo("rival 4");
    }

    @Test
    void aDeletedBlobIsNotRecreatedByALowerTokenThroughTheFenceThatSawIt() {
        FencedContainer fence = fenced();
        fence.put("b", 7, BinaryData.fromString("v7"));
        assertThat(fence.delete("b", 7)).isTrue();

        AzureBlobStaleTokenException e =
                assertThrows(AzureBlobStaleTokenException.class, () -> fence.put("b", 5, BinaryData.fromString("v5")));

        assertThat(e.getMessage()).contains("gone");
        assertThat(plain.getBlobClient("b").exists()).isFalse();
        assertThat(fence.delete("b", 7)).isFalse();
    }

    @Test
    void aReadReturnsBytesTokenAndMetadata() {
        FencedContainer fence = fenced();
        fence.put("b", 3, BinaryData.fromString("hello"), o -> o.setMetadata(Map.of("owner", "billing")));

        FencedBlob blob = fence.read("b").orElseThrow();

        assertThat(blob.asUtf8String()).isEqualTo("hello");
        assertThat(blob.token()).hasValue(3);
        assertThat(blob.metadata()).containsEntry("owner", "billing");
        assertThat(fence.read("absent")).isEmpty();
        assertThat(fence.token("absent")).isEmpty();
    }
}
