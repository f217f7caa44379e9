package io.zkfence.azure.blob;

import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelineNextSyncPolicy;
import com.azure.core.http.HttpPipelinePosition;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import io.zkfence.testing.AzuriteServer;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import reactor.core.publisher.Mono;

/** The test JVM's Azurite as the tests use it: fresh containers, and clients that log or pause their requests. */
final class Azurite {

    private Azurite() {}

    static AzuriteServer server() {
        return AzuriteServer.shared();
    }

    /** A client of the emulator's account, with {@code policies} on every request. */
    static BlobServiceClient service(HttpPipelinePolicy... policies) {
        BlobServiceClientBuilder builder = new BlobServiceClientBuilder().connectionString(server().connectionString());
        for (HttpPipelinePolicy p : policies) {
            builder.addPolicy(p);
        }
        return builder.buildClient();
    }

    /** A new container with a unique name, created through a plain client. */
    static String newContainer() {
        String name = "c" + UUID.randomUUID().toString().replace("-", "");
        service().createBlobContainer(name);
        return name;
    }

    static BlobContainerClient container(String name, HttpPipelinePolicy... policies) {
        return service(policies).getBlobContainerClient(name);
    }

    /**
     * Records every request sent (retries included) as "METHOD blob" (the path after the
     * container, decoded), and runs an action once just before the next write (PUT or DELETE) of
     * a given blob, on the thread that sends it.
     */
    static final class Requests implements HttpPipelinePolicy {

        private final List<String> sent = new CopyOnWriteArrayList<>();
        private final Map<String, Runnable> pauses = new ConcurrentHashMap<>();

        List<String> sent() {
            return List.copyOf(sent);
        }

        void clear() {
            sent.clear();
        }

        void pauseBefore(String blobName, Runnable action) {
            pauses.put(blobName, action);
        }

        void noPause(String blobName) {
            pauses.remove(blobName);
        }

        private void before(HttpPipelineCallContext context) {
            String method = context.getHttpRequest().getHttpMethod().name();
            String path = context.getHttpRequest().getUrl().getPath();
            // /devstoreaccount1/<container>/<blob>
            String[] parts = path.split("/", 4);
            String blob =
                    parts.length == 4 ? URLDecoder.decode(parts[3].replace("+", "%2B"), StandardCharsets.UTF_8) : "";
            sent.add(blob.isEmpty() ? method : method + " " + blob);
            if (method.equals("PUT") || method.equals("DELETE")) {
                Runnable pause = pauses.remove(blob);
                if (pause != null) {
                    pause.run();
                }
            }
        }

        @Override
        public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
            return Mono.fromRunnable(() -> before(context)).then(next.process());
        }

        @Override
        public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
            before(context);
            return next.processSync();
        }

        @Override
        public HttpPipelinePosition getPipelinePosition() {
            return HttpPipelinePosition.PER_RETRY;
        }
    }
}
