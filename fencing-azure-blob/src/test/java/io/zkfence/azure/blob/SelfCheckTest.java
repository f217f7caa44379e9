package io.zkfence.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.sas.AccountSasPermission;
import com.azure.storage.common.sas.AccountSasResourceType;
import com.azure.storage.common.sas.AccountSasService;
import com.azure.storage.common.sas.AccountSasSignatureValues;
import java.io.IOException;
import java.time.OffsetDateTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fail-closed self-check against a service that ignores preconditions: Azurite behind a
 * proxy that drops {@code If-Match} and {@code If-None-Match}. (That Azurite itself passes is
 * shown by every other test, which writes through it.)
 */
class SelfCheckTest {

    private ConditionStrippingProxy proxy;
    private String containerName;
    private BlobContainerClient throughProxy;
    private FencedContainer fenced;

    @BeforeEach
    void startProxy() throws IOException {
        containerName = Azurite.newContainer();
        proxy = new ConditionStrippingProxy(
                "http://127.0.0.1:" + Azurite.server().port());
        String sas = Azurite.service()
                .generateAccountSas(new AccountSasSignatureValues(
                        OffsetDateTime.now().plusHours(1),
                        AccountSasPermission.parse("rwdlac"),
                        AccountSasService.parse("b"),
                        AccountSasResourceType.parse("sco")));
        throughProxy = new BlobServiceClientBuilder()
                .endpoint(proxy.blobEndpoint())
                .sasToken(sas)
                .buildClient()
                .getBlobContainerClient(containerName);
        fenced = FencedContainer.create(throughProxy);
    }

    @AfterEach
    void stopProxy() {
        proxy.close();
    }

    private long requestsFor(String blobName) {
        return proxy.requests().stream()
                .filter(r -> r.endsWith("/" + containerName + "/" + blobName))
                .count();
    }

    @Test
    void theProxyReallyDropsTheConditions() {
        throughProxy.getBlobClient("b").upload(BinaryData.fromString("v1"));

        // A plain upload without overwrite sends If-None-Match: *; through the proxy it overwrites.
        throughProxy.getBlobClient("b").upload(BinaryData.fromString("v2"), false);

        assertThat(Azurite.container(containerName)
                        .getBlobClient("b")
                        .downloadContent()
                        .toString())
                .isEqualTo("v2");
    }

    @Test
    void putIsRefusedAndTheBlobIsNeverWritten() {
        AzureBlobConditionsIgnoredException e = assertThrows(
                AzureBlobConditionsIgnoredException.class,
                () -> fenced.put("orders/1", 5, BinaryData.fromString("unfenced")));

        assertThat(e.container()).isEqualTo(containerName);
        assertThat(e.blobName()).isEqualTo("orders/1");
        assertThat(e.probeBlob()).startsWith(AzureBlobFenceConfig.DEFAULT_SELF_CHECK_PREFIX);
        assertThat(e.getMessage()).contains(containerName, "orders/1", "If-None-Match", "was accepted");
        assertThat(requestsFor("orders/1")).isZero();
        assertThat(Azurite.container(containerName).getBlobClient("orders/1").exists())
                .isFalse();
    }

    @Test
    void theVerdictIsRememberedAndLaterPutsFailWithoutProbing() {
        assertThrows(AzureBlobConditionsIgnoredException.class, () -> fenced.put("a", 5, BinaryData.fromString("x")));
        int afterFirst = proxy.requests().size();

        AzureBlobConditionsIgnoredException again = assertThrows(
                AzureBlobConditionsIgnoredException.class, () -> fenced.put("b", 6, BinaryData.fromString("y")));

        assertThat(again.blobName()).isEqualTo("b");
        assertThat(proxy.requests()).hasSize(afterFirst);
    }

    @Test
    void deleteIsRefusedAndTheBlobStays() {
        Azurite.container(containerName).getBlobClient("orders/1").upload(BinaryData.fromString("kept"));

        AzureBlobConditionsIgnoredException e =
                assertThrows(AzureBlobConditionsIgnoredException.class, () -> fenced.delete("orders/1", 5));

        assertThat(e.getMessage()).contains("Delete Blob", "If-Match", "orders/1");
        assertThat(requestsFor("orders/1")).isZero();
        assertThat(Azurite.container(containerName).getBlobClient("orders/1").exists())
                .isTrue();
    }

    @Test
    void verifyConditionalWritesFailsFastAtStartup() {
        AzureBlobConditionsIgnoredException e =
                assertThrows(AzureBlobConditionsIgnoredException.class, fenced::verifyConditionalWrites);

        assertThat(e.container()).isEqualTo(containerName);
    }

    @Test
    void noProbeBlobIsLeftBehind() {
        assertThrows(AzureBlobConditionsIgnoredException.class, fenced::verifyConditionalWrites);

        assertThat(Azurite.container(containerName).listBlobs()).isEmpty();
    }
}
