package io.zkfence.azure.blob.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import io.zkfence.azure.blob.FencedContainer;
import io.zkfence.testing.AzuriteServer;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The documented examples do what docs/fencing-azure-blob.md says, on Azurite. */
class FencedBlobExampleTest {

    @Test
    void aStaleHolderIsToldAndTheNewerReportStays() {
        BlobServiceClient blobs = new BlobServiceClientBuilder()
                .connectionString(AzuriteServer.shared().connectionString())
                .buildClient();
        String container = "reports-" + UUID.randomUUID();
        blobs.createBlobContainer(container);
        FencedContainer reports = FencedBlobExample.open(blobs, container);

        assertThat(FencedBlobExample.whoWrote(reports)).isEqualTo("not written yet");
        assertThat(FencedBlobExample.publish(reports, 7, "{\"day\":1}")).isTrue();
        assertThat(FencedBlobExample.publish(reports, 8, "{\"day\":2}")).isTrue();
        assertThat(FencedBlobExample.publish(reports, 7, "{\"day\":\"late\"}")).isFalse();

        assertThat(FencedBlobExample.whoWrote(reports)).isEqualTo("written under token 8: {\"day\":2}");
    }
}
