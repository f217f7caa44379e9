package io.zkfence.samples.demo;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import io.zkfence.azure.blob.FencedBlob;
import io.zkfence.azure.blob.FencedContainer;
import io.zkfence.redis.JedisConnector;
import io.zkfence.redis.RedisFence;
import io.zkfence.redis.RedisWrite;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import redis.clients.jedis.RedisClient;

/**
 * The demo's optional stores ({@code ./demo --with-redis --with-azure-blob}): Redis and Azure
 * Blob Storage, each written once fenced and once unfenced, as PostgreSQL and S3 are. Redis holds
 * the stock document at a key per copy, fenced by {@link RedisFence} with the lock's name as its
 * fence key; Azure Blob Storage at a blob per copy, fenced by {@link FencedContainer}. Opened by
 * the demo (reset, final state) and by each pod (the writes). Jedis carries the Redis calls here:
 * Lettuce needs Netty 4.2, and the AWS SDK beside it brings Netty 4.1.
 *
 * @param redisUri {@code redis://host:port}, or null without Redis
 * @param azureConnectionString the storage account's connection string, or null without Azure
 * @param azureContainer the container, or null without Azure
 */
record ExtraStores(String redisUri, String azureConnectionString, String azureContainer) {

    /** Environment variable carrying the Azure connection string to the pods (it holds a key). */
    static final String ENV_AZURE_CONNECTION_STRING = "AZURE_STORAGE_CONNECTION_STRING";

    /** The Redis fence key and the hash tag every demo key shares with it. */
    static final String REDIS_FENCE = "{" + Inventory.LOCK + "}";

    static final ExtraStores NONE = new ExtraStores(null, null, null);

    /** The stores besides PostgreSQL and S3, as the pods' write events name them. */
    List<String> stores() {
        List<String> stores = new ArrayList<>();
        if (redisUri != null) {
            stores.add("redis");
        }
        if (azureContainer != null) {
            stores.add("azure-blob");
        }
        return stores;
    }

    static String label(String store) {
        return switch (store) {
            case "postgres" -> "PostgreSQL";
            case "s3" -> "S3";
            case "redis" -> "Redis";
            case "azure-blob" -> "Azure Blob";
            default -> store;
        };
    }

    static String redisKey(Inventory.Copy copy) {
        return "stock:" + copy.label() + ":" + REDIS_FENCE;
    }

    /** Open clients to the stores; close them when done. */
    Open open() {
        return new Open(this);
    }

    /** The clients of one process. */
    static final class Open implements AutoCloseable {

        private final RedisClient jedis;
        private final RedisFence redis;
        private final BlobContainerClient container;
        private final FencedContainer blobs;

        private Open(ExtraStores s) {
            if (s.redisUri() != null) {
                jedis = RedisClient.create(URI.create(s.redisUri()));
                redis = RedisFence.create(JedisConnector.of(jedis));
            } else {
                jedis = null;
                redis = null;
            }
            if (s.azureContainer() != null) {
                // The Azure SDK sets Content-Length itself; the JDK's client refuses and logs a warning
                // on every request unless the header is allowed (read once, when that client starts).
                if (System.getProperty("jdk.httpclient.allowRestrictedHeaders") == null) {
                    System.setProperty("jdk.httpclient.allowRestrictedHeaders", "content-length");
                }
                container = new BlobServiceClientBuilder()
                        .connectionString(s.azureConnectionString())
                        .buildClient()
                        .getBlobContainerClient(s.azureContainer());
                blobs = FencedContainer.create(container);
            } else {
                container = null;
                blobs = null;
            }
        }

        /** Writes {@code doc} to {@code store}: through its fence for the fenced copy, plainly for the other. */
        void write(String store, Inventory.Copy copy, long token, StockDocument doc) {
            boolean fenced = copy == Inventory.Copy.FENCED;
            switch (store) {
                case "redis" -> {
                    if (fenced) {
                        redis.write(REDIS_FENCE, token, RedisWrite.set(redisKey(copy), doc.toJson()));
                    } else {
                        jedis.set(redisKey(copy), doc.toJson());
                    }
                }
                case "azure-blob" -> {
                    String blob = copy.objectKey;
                    if (fenced) {
                        blobs.put(blob, token, BinaryData.fromString(doc.toJson()));
                    } else {
                        container.getBlobClient(blob).upload(BinaryData.fromString(doc.toJson()), true);
                    }
                }
                default -> throw new IllegalArgumentException("no store " + store);
            }
        }

        /** Back to the start: no documents; Redis's fence floors seeded (a new demo, a new ensemble). */
        void reset(boolean createContainer) {
            if (jedis != null) {
                for (Inventory.Copy copy : Inventory.Copy.values()) {
                    jedis.del(redisKey(copy));
                }
                // Each embedded run starts a new ensemble whose tokens start low again: the fence's
                // record and floors from an earlier run go too, and floor 1 is seeded.
                jedis.del("zkfence:fence:" + REDIS_FENCE);
                redis.seed(1);
            }
            if (container != null) {
                if (createContainer) {
                    container.createIfNotExists();
                }
                for (Inventory.Copy copy : Inventory.Copy.values()) {
                    container.getBlobClient(copy.objectKey).deleteIfExists();
                }
            }
        }

        /** What each store holds for each copy, with the fenced copy's token. */
        Map<String, Held> held() {
            Map<String, Held> held = new LinkedHashMap<>();
            if (redis != null) {
                held.put(
                        "redis",
                        new Held(
                                Optional.ofNullable(jedis.get(redisKey(Inventory.Copy.FENCED)))
                                        .map(StockDocument::parse),
                                Optional.ofNullable(jedis.get(redisKey(Inventory.Copy.UNFENCED)))
                                        .map(StockDocument::parse),
                                redis.token(REDIS_FENCE)));
            }
            if (blobs != null) {
                Optional<FencedBlob> fenced = blobs.read(Inventory.Copy.FENCED.objectKey);
                held.put(
                        "azure-blob",
                        new Held(
                                fenced.map(b -> StockDocument.parse(b.asUtf8String())),
                                blobs.read(Inventory.Copy.UNFENCED.objectKey)
                                        .map(b -> StockDocument.parse(b.asUtf8String())),
                                fenced.map(FencedBlob::token).orElse(OptionalLong.empty())));
            }
            return held;
        }

        @Override
        public void close() {
            if (jedis != null) {
                jedis.close();
            }
        }
    }

    /**
     * One extra store's final state.
     *
     * @param fenced the fenced copy's document
     * @param unfenced the unfenced copy's document
     * @param token the token the fence holds (Redis's fence record, the fenced blob's metadata)
     */
    record Held(Optional<StockDocument> fenced, Optional<StockDocument> unfenced, OptionalLong token) {}
}
