package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.server.LockHttpServer.Route;
import io.zkfence.server.ReplicaFixture.Reply;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The OpenAPI document in the repository and the server's routes describe the same API. */
class OpenApiDocumentTest {

    private static JsonNode document() throws Exception {
        try (InputStream in = LockHttpServer.class.getResourceAsStream("openapi.json")) {
            return new ObjectMapper().readTree(in);
        }
    }

    @Test
    void everyRouteIsInTheDocumentAndEveryDocumentedOperationIsARoute() throws Exception {
        Set<Route> documented = new HashSet<>();
        document()
                .get("paths")
                .properties()
                .forEach(p -> p.getValue()
                        .properties()
                        .forEach(op -> documented.add(new Route(op.getKey().toUpperCase(Locale.ROOT), p.getKey()))));
        assertThat(documented).containsExactlyInAnyOrderElementsOf(LockHttpServer.ROUTES);
    }

    @Test
    void everyErrorCodeIsDocumentedAndEveryDocumentedCodeExists() throws Exception {
        List<String> documented = new ArrayList<>();
        document()
                .at("/components/schemas/Problem/properties/error/enum")
                .forEach(code -> documented.add(code.asText()));

        assertThat(documented)
                .containsExactlyInAnyOrderElementsOf(
                        Arrays.stream(ErrorCode.values()).map(Enum::name).toList());
    }

    @Test
    void everyDocumentedRouteIsServedAndTheServerServesTheDocument() throws Exception {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                ReplicaFixture replica = new ReplicaFixture(ensemble.connectString(), "/openapi-check")) {
            for (Route r : LockHttpServer.ROUTES) {
                String path = r.path().replace("{lockKey}", "docs:probe")
                        + (r.path().equals("/v1/locks") ? "?namespace=docs" : "");
                Reply reply = r.path().equals("/metrics")
                        ? replica.text(path)
                        : r.method().equals("GET") ? replica.path(path) : replica.call("POST", path);
                // A route that exists answers with its own status; only a missing route says "no route".
                assertThat(reply.body().path("detail").asText())
                        .as(r.toString())
                        .doesNotStartWith("no route");
                assertThat(reply.status()).as(r.toString()).isNotIn(405, 500);
            }
            assertThat(replica.path("/v1/openapi.json").body()).isEqualTo(document());
        }
    }
}
