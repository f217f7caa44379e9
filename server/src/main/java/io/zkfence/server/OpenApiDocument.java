package io.zkfence.server;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The service's OpenAPI document ({@code GET /v1/openapi.json}), the {@code openapi.json} resource
 * beside this class: read once, served as it is. It lists {@link LockHttpServer#ROUTES}.
 */
final class OpenApiDocument {

    private final byte[] json;

    private OpenApiDocument(byte[] json) {
        this.json = json;
    }

    /** @throws IllegalStateException if the resource is missing from the server's jar */
    static OpenApiDocument load() {
        try (InputStream in = OpenApiDocument.class.getResourceAsStream("openapi.json")) {
            if (in == null) {
                throw new IllegalStateException("openapi.json is missing from the server's resources");
            }
            return new OpenApiDocument(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("reading openapi.json", e);
        }
    }

    void serve(Context ctx) {
        ctx.contentType("application/json").result(json);
    }
}
