package io.zkfence.azure.blob;

import com.azure.core.http.rest.Response;
import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobDownloadContentResponse;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.BlockBlobItem;
import com.azure.storage.blob.models.DeleteSnapshotsOptionType;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import io.zkfence.fencing.internal.Backoff;
import io.zkfence.fencing.internal.ConditionalWriteLoop;
import io.zkfence.fencing.internal.FenceObserver;
import io.zkfence.fencing.internal.ObjectState;
import io.zkfence.fencing.internal.StateCache;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;

/**
 * Fenced writes to one Azure Blob Storage container: every blob carries the fencing token of the
 * lock holder that wrote it, and a write or delete presenting a token lower than the stored one is
 * refused with {@link AzureBlobStaleTokenException}. The same fence as fencing-s3's
 * {@code FencedBucket}, on the same algorithm (fencing-api's conditional-write loop).
 *
 * <h2>Contract</h2>
 * <ul>
 * <li>Tokens are positive {@code long}s from a monotonic source (lock-core's grants); a token
 *     {@code >=} the stored one is accepted, a lower one refused.</li>
 * <li>The token is stored as blob metadata ({@code x-ms-meta-fence_token} by default) in the same
 *     Put Blob as the bytes, so bytes and token change together.</li>
 * <li>Every write is conditional: {@code If-Match: <ETag>} on the state the token was checked
 *     against, {@code If-None-Match: *} when there was no blob. When the blob changed in between
 *     (412, 409 BlobAlreadyExists, 404 on If-Match) the fence reads again and decides again: a
 *     newer token that won is a stale rejection; an equal or lower one is retried, at most
 *     {@link AzureBlobFenceConfig#maxConflictRetries()} times with jittered backoff, then
 *     {@link AzureBlobContentionException}.</li>
 * <li>Azure gives a blob a new ETag on every write, metadata included, so the ETag cannot come back
 *     to one a paused holder holds (fencing-s3's ABA caveat, ETags that digest the bytes, does not
 *     apply). The ETag and token of the last state seen per blob are cached, so a writer rewriting
 *     a blob it wrote last sends one request.</li>
 * <li>Fail closed: before the first request of each kind (put, delete) a self-check sends probes
 *     whose precondition must fail; a service that accepts them gets
 *     {@link AzureBlobConditionsIgnoredException} instead of unfenced writes.</li>
 * <li>Blobs written without the fence are adopted by the first fenced write. Deleting a blob
 *     removes its token with it; this instance remembers the highest token it saw on the name, so
 *     a lower token cannot re-create it here.</li>
 * <li>Every failure is an unchecked {@link io.zkfence.fencing.FencingException} naming container
 *     and blob; a refused request writes nothing; bad input is an
 *     {@link IllegalArgumentException}, before anything is sent.</li>
 * </ul>
 *
 * <p>Thread-safe. Create one per container and share it. The {@link BlobContainerClient} stays the
 * caller's to configure.
 */
public final class FencedContainer {

    private final BlobContainerClient container;
    private final String containerName;
    private final AzureBlobFenceConfig config;
    private final TokenMetadata tokens;
    private final StateCache cache;
    private final BlobStateReader reader;
    private final ConditionalWriteLoop writes;
    private final SelfCheck selfCheck;
    /** Told of every fenced call; empty without observers. */
    final FenceObserver.All observers = new FenceObserver.All(
            (o, e) -> LoggerFactory.getLogger(FencedContainer.class).warn("fence observer {} failed", o, e));

    private FencedContainer(BlobContainerClient container, AzureBlobFenceConfig config) {
        this.container = Objects.requireNonNull(container, "container");
        this.config = Objects.requireNonNull(config, "config");
        this.containerName = container.getBlobContainerName();
        this.tokens = new TokenMetadata(containerName, config.tokenMetadataKey());
        // Azure gives every write a new ETag: none is reproducible.
        this.cache = new StateCache(config.etagCacheSize(), eTag -> false);
        this.reader = new BlobStateReader(container, tokens, cache);
        this.writes = new ConditionalWriteLoop(
                new Store(),
                cache,
                Backoff.exponential(config.backoffBase(), config.backoffMax()),
                config.maxConflictRetries(),
                observers);
        this.selfCheck = new SelfCheck(container, config.selfCheckPrefix(), observers);
    }

    /**
     * Fenced access to {@code container}. Sends no request; the self-check runs before the first
     * fenced request of each kind (or call {@link #verifyConditionalWrites()} at startup).
     *
     * @param container the container's client
     * @param config the settings
     * @return the fenced container
     */
    public static FencedContainer create(BlobContainerClient container, AzureBlobFenceConfig config) {
        return new FencedContainer(container, config);
    }

    /**
     * Fenced access to {@code container} with the default settings.
     *
     * @param container the container's client
     * @return the fenced container
     */
    public static FencedContainer create(BlobContainerClient container) {
        return new FencedContainer(container, AzureBlobFenceConfig.defaults());
    }

    /**
     * This fence's settings.
     *
     * @return the config
     */
    public AzureBlobFenceConfig config() {
        return config;
    }

    /**
     * The container's name.
     *
     * @return the name
     */
    public String containerName() {
        return containerName;
    }

    /**
     * As {@link #put(String, long, BinaryData, Consumer)} without other settings.
     *
     * @param blobName the blob
     * @param token the caller's fencing token, {@code >= 1}
     * @param data the bytes
     * @return the accepted write
     */
    public FencedBlobWrite put(String blobName, long token, BinaryData data) {
        return put(blobName, token, data, options -> {});
    }

    /**
     * Writes {@code data} to {@code blobName} (one Put Blob, up to 5,000 MiB) if no higher token is
     * stored there, storing {@code token} with it.
     *
     * @param blobName the blob
     * @param token the caller's fencing token, {@code >= 1}
     * @param data the bytes; must be replayable ({@code BinaryData.fromBytes/fromString/fromFile}):
     *     a lost race sends it again
     * @param options sets other parts of the Put Blob (headers, metadata, tags, tier); must not set
     *     request conditions or the token metadata
     * @return the accepted write: the new ETag and the stored token
     * @throws AzureBlobStaleTokenException when the blob carries a higher token; nothing was written
     * @throws AzureBlobContentionException when every attempt lost a race to equal or lower tokens
     * @throws AzureBlobConditionsIgnoredException when the service does not enforce conditions
     * @throws AzureBlobFenceException when the service refused or failed the request, or the stored
     *     token is not a number
     * @throws IllegalArgumentException for a token below 1, a blob name outside the name rules, or
     *     options setting what the fence owns; nothing was sent
     */
    public FencedBlobWrite put(
            String blobName, long token, BinaryData data, Consumer<BlockBlobSimpleUploadOptions> options) {
        checkArguments("PutBlob", blobName, token);
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(options, "options");
        if (!data.isReplayable()) {
            throw new IllegalArgumentException(
                    "the data for " + AzureBlobFenceException.location(containerName, blobName)
                            + " must be replayable (BinaryData.fromBytes/fromString/fromFile): a lost race sends it again;"
                            + " nothing was sent");
        }
        BlockBlobSimpleUploadOptions custom = new BlockBlobSimpleUploadOptions(data);
        options.accept(custom);
        if (custom.getRequestConditions() != null) {
            throw new IllegalArgumentException(
                    "the options for " + AzureBlobFenceException.location(containerName, blobName)
                            + " must not set request conditions: the fence sets If-Match / If-None-Match itself");
        }
        var metadata = tokens.with(blobName, custom.getMetadata(), token);

        selfCheck.ensure(SelfCheck.Kind.PUT, blobName);
        return writes.run(blobName, token, "PutBlob", current -> {
            BlockBlobSimpleUploadOptions request = new BlockBlobSimpleUploadOptions(data)
                    .setHeaders(custom.getHeaders())
                    .setMetadata(metadata)
                    .setTags(custom.getTags())
                    .setTier(custom.getTier())
                    .setContentMd5(custom.getContentMd5())
                    .setImmutabilityPolicy(custom.getImmutabilityPolicy())
                    .setLegalHold(custom.isLegalHold())
                    .setRequestConditions(
                            current.exists()
                                    ? new BlobRequestConditions().setIfMatch(current.eTag())
                                    : new BlobRequestConditions().setIfNoneMatch("*"));
            Response<BlockBlobItem> response =
                    container.getBlobClient(blobName).getBlockBlobClient().uploadWithResponse(request, null, null);
            BlockBlobItem item = response.getValue();
            cache.rememberWrite(blobName, item.getETag(), token);
            return new FencedBlobWrite(
                    containerName, blobName, token, item.getETag(), Optional.ofNullable(item.getVersionId()));
        });
    }

    /**
     * Deletes {@code blobName} (with its snapshots) if no higher token is stored there. Afterwards
     * the service keeps no token for the name; this instance remembers {@code token} and refuses
     * lower ones on it.
     *
     * @param blobName the blob
     * @param token the caller's fencing token, {@code >= 1}
     * @return true when this call deleted a blob; false when the fence found none when it last
     *     looked ("absent now")
     * @throws AzureBlobStaleTokenException when the blob carries a higher token; nothing was deleted
     * @throws AzureBlobFenceException for the other failures listed on
     *     {@link #put(String, long, BinaryData, Consumer)}
     * @throws IllegalArgumentException for a token below 1 or a name outside the rules; nothing was sent
     */
    public boolean delete(String blobName, long token) {
        checkArguments("DeleteBlob", blobName, token);
        selfCheck.ensure(SelfCheck.Kind.DELETE, blobName);
        return writes.run(blobName, token, "DeleteBlob", current -> {
            if (!current.exists()) {
                requireContainer(blobName, "DeleteBlob");
                return false;
            }
            container
                    .getBlobClient(blobName)
                    .deleteWithResponse(
                            DeleteSnapshotsOptionType.INCLUDE,
                            new BlobRequestConditions().setIfMatch(current.eTag()),
                            null,
                            null);
            cache.forget(blobName);
            cache.noteToken(blobName, token);
            return true;
        });
    }

    /**
     * Reads {@code blobName} with the token of the holder that wrote it.
     *
     * @param blobName the blob
     * @return the blob, or empty when there is none
     * @throws AzureBlobFenceException when the service fails or the stored token is not a number
     */
    public Optional<FencedBlob> read(String blobName) {
        checkName("GetBlob", blobName);
        BlobDownloadContentResponse response;
        try {
            response = container.getBlobClient(blobName).downloadContentWithResponse(null, null, null, null);
        } catch (RuntimeException e) {
            if (e instanceof BlobStorageException s && "BlobNotFound".equals(AzureErrors.code(s))) {
                return Optional.empty();
            }
            if (!AzureErrors.isStoreFailure(e)) {
                throw e;
            }
            throw AzureErrors.translate(e, containerName, blobName, "GetBlob", false);
        }
        var headers = response.getDeserializedHeaders();
        return Optional.of(new FencedBlob(
                containerName,
                blobName,
                tokens.parse(blobName, headers.getMetadata()),
                headers.getETag(),
                headers.getContentType(),
                headers.getMetadata(),
                response.getValue().toBytes()));
    }

    /**
     * The token stored with {@code blobName}, read with one Get Blob Properties.
     *
     * @param blobName the blob
     * @return the token; empty when there is no blob or it carries no token
     * @throws AzureBlobFenceException when the service fails, the container does not exist, or the
     *     stored token is not a number
     */
    public OptionalLong token(String blobName) {
        checkName("GetBlobProperties", blobName);
        return reader.read(blobName).token();
    }

    /**
     * Runs every self-check now (conditional put and delete) instead of before the first request
     * of each kind: call it at startup to fail fast. Probes at most once per kind for the life of
     * this instance.
     *
     * @throws AzureBlobConditionsIgnoredException when the service ignores a precondition
     * @throws AzureBlobFenceException when a probe fails for another reason
     */
    public void verifyConditionalWrites() {
        String forBlob = config.selfCheckPrefix();
        selfCheck.ensure(SelfCheck.Kind.PUT, forBlob);
        selfCheck.ensure(SelfCheck.Kind.DELETE, forBlob);
    }

    /** Get Blob Properties answers 404 for a missing container too: before "nothing to delete", make sure. */
    private void requireContainer(String blobName, String operation) {
        boolean exists;
        try {
            exists = container.exists();
        } catch (RuntimeException e) {
            throw AzureErrors.translate(e, containerName, blobName, "GetContainerProperties", false);
        }
        if (!exists) {
            throw new AzureBlobFenceException(
                    containerName,
                    blobName,
                    404,
                    "ContainerNotFound",
                    false,
                    "container '" + containerName + "' does not exist (" + operation + " on "
                            + AzureBlobFenceException.location(containerName, blobName) + "); nothing was deleted",
                    null);
        }
    }

    private void checkArguments(String operation, String blobName, long token) {
        checkName(operation, blobName);
        if (token < 1) {
            throw new IllegalArgumentException("token must be >= 1 but was " + token + " (" + operation + " on "
                    + AzureBlobFenceException.location(containerName, blobName) + "); nothing was sent");
        }
    }

    private void checkName(String operation, String blobName) {
        BlobNames.check(blobName, operation, containerName);
    }

    /** Azure's side of the shared loop. */
    private final class Store implements ConditionalWriteLoop.Store {

        @Override
        public ObjectState read(String key) {
            return reader.read(key);
        }

        @Override
        public boolean isStoreFailure(RuntimeException failure) {
            return AzureErrors.isStoreFailure(failure);
        }

        @Override
        public boolean isLostRace(RuntimeException failure) {
            return AzureErrors.isLostRace(failure);
        }

        @Override
        public RuntimeException failed(RuntimeException failure, String key, String operation) {
            return AzureErrors.translate(failure, containerName, key, operation, true);
        }

        @Override
        public RuntimeException stale(String key, String operation, long presented, long stored, boolean objectGone) {
            return new AzureBlobStaleTokenException(containerName, key, operation, presented, stored, objectGone);
        }

        @Override
        public RuntimeException contention(
                String key, String operation, long token, int attempts, String detail, RuntimeException lastLoss) {
            return new AzureBlobContentionException(containerName, key, operation, token, attempts, detail, lastLoss);
        }

        @Override
        public RuntimeException interrupted(String key, int retry, InterruptedException cause) {
            return new AzureBlobFenceException(
                    containerName,
                    key,
                    0,
                    null,
                    false,
                    "interrupted while backing off before retry " + retry + " on "
                            + AzureBlobFenceException.location(containerName, key)
                            + "; nothing was written by this attempt",
                    cause);
        }

        @Override
        public String location(String key) {
            return AzureBlobFenceException.location(containerName, key);
        }
    }
}
