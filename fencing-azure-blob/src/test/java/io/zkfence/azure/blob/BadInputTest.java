package io.zkfence.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.models.BlobRequestConditions;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input gets an exception naming it, before anything is sent; a missing container is named. */
class BadInputTest {

    private final String containerName = Azurite.newContainer();
    private final Azurite.Requests requests = new Azurite.Requests();
    private final FencedContainer fenced = FencedContainer.create(Azurite.container(containerName, requests));

    @ParameterizedTest
    @ValueSource(
            strings = {"", "a/./b", "../up", "a/..", "ends.", "ends/", "back\\slash", "tab\tkey", "nul\0key", "x\uD800"
            })
    void aNameOutsideTheRulesIsRefusedByEveryCall(String name) {
        IllegalArgumentException put =
                assertThrows(IllegalArgumentException.class, () -> fenced.put(name, 1, BinaryData.fromString("x")));
        assertThrows(IllegalArgumentException.class, () -> fenced.delete(name, 1));
        assertThrows(IllegalArgumentException.class, () -> fenced.read(name));
        assertThrows(IllegalArgumentException.class, () -> fenced.token(name));

        assertThat(put.getMessage()).contains("blob name", containerName, "nothing was sent");
        assertThat(requests.sent()).isEmpty();
    }

    @Test
    void aNameOfMoreThan1024CharactersIsRefused() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> fenced.put("x".repeat(1025), 1, BinaryData.fromString("x")));

        assertThat(e.getMessage()).contains("1 to 1024 characters", "1025");
    }

    @Test
    void aTokenBelowOneIsRefused() {
        IllegalArgumentException put =
                assertThrows(IllegalArgumentException.class, () -> fenced.put("b", 0, BinaryData.fromString("x")));
        IllegalArgumentException delete = assertThrows(IllegalArgumentException.class, () -> fenced.delete("b", -3));

        assertThat(put.getMessage()).contains("token must be >= 1 but was 0", containerName, "b");
        assertThat(delete.getMessage()).contains("-3");
        assertThat(requests.sent()).isEmpty();
    }

    @Test
    void optionsSettingWhatTheFenceOwnsAreRefused() {
        IllegalArgumentException conditions = assertThrows(
                IllegalArgumentException.class,
                () -> fenced.put(
                        "b",
                        1,
                        BinaryData.fromString("x"),
                        o -> o.setRequestConditions(new BlobRequestConditions().setIfMatch("*"))));
        IllegalArgumentException token = assertThrows(
                IllegalArgumentException.class,
                () -> fenced.put("b", 1, BinaryData.fromString("x"), o -> o.setMetadata(Map.of("FENCE_TOKEN", "99"))));

        assertThat(conditions.getMessage()).contains("request conditions");
        assertThat(token.getMessage()).contains("fence_token");
        assertThat(requests.sent()).isEmpty();
    }

    @Test
    void dataThatCannotBeSentTwiceIsRefused() {
        InputStream once = new FilterInputStream(new ByteArrayInputStream(new byte[] {1, 2})) {
            @Override
            public boolean markSupported() {
                return false;
            }
        };
        BinaryData stream = BinaryData.fromStream(once, 2L);
        assertThat(stream.isReplayable()).isFalse();

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fenced.put("b", 1, stream));

        assertThat(e.getMessage()).contains("replayable");
        assertThat(requests.sent()).isEmpty();
    }

    @Test
    void aMetadataKeyThatIsNoAzureNameIsRefusedNamingTheKnob() {
        for (String key : new String[] {"fence-token", "1abc", "", "Token"}) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> AzureBlobFenceConfig.builder().tokenMetadataKey(key).build());
            assertThat(e.getMessage()).contains("tokenMetadataKey");
        }
        assertThrows(
                IllegalArgumentException.class,
                () -> AzureBlobFenceConfig.builder()
                        .backoffBase(Duration.ofSeconds(1))
                        .build());
    }

    @Test
    void aMissingContainerIsNamedByPutDeleteAndToken() {
        FencedContainer missing = FencedContainer.create(Azurite.container("no-such-container"));

        AzureBlobFenceException put =
                assertThrows(AzureBlobFenceException.class, () -> missing.put("b", 1, BinaryData.fromString("x")));
        AzureBlobFenceException delete = assertThrows(AzureBlobFenceException.class, () -> missing.delete("b", 1));
        AzureBlobFenceException token = assertThrows(AzureBlobFenceException.class, () -> missing.token("b"));

        assertThat(put.getMessage()).contains("no-such-container", "does not exist");
        assertThat(put.errorCode()).contains("ContainerNotFound");
        assertThat(delete.getMessage()).contains("no-such-container", "does not exist");
        assertThat(token.statusCode()).isEqualTo(404);
    }

    @Test
    void aNonNumericStoredTokenIsRefusedAndTheBlobIsUnchanged() {
        Azurite.container(containerName)
                .getBlobClient("b")
                .getBlockBlobClient()
                .uploadWithResponse(
                        new com.azure.storage.blob.options.BlockBlobSimpleUploadOptions(
                                        BinaryData.fromString("foreign"))
                                .setMetadata(Map.of("fence_token", "abc")),
                        null,
                        null);

        AzureBlobFenceException e =
                assertThrows(AzureBlobFenceException.class, () -> fenced.put("b", 5, BinaryData.fromString("mine")));

        assertThat(e.getMessage()).contains("x-ms-meta-fence_token='abc'", "nothing was written");
        assertThat(Azurite.container(containerName)
                        .getBlobClient("b")
                        .downloadContent()
                        .toString())
                .isEqualTo("foreign");
    }
}
