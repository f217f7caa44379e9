package io.zkfence.server;

/**
 * What one replica is configured with.
 *
 * @param bind           address to listen on
 * @param port           HTTP port (0: any free port)
 * @param maxTtlMillis   the longest lease TTL a request may ask for
 * @param maxWaitMillis  the longest wait an acquire may ask for (the HTTP request stays open that long)
 * @param apiKeys        who may call ({@link ApiKeys#open()} only when chosen explicitly)
 * @param tls            the HTTPS identity, or null for plain HTTP
 */
record ServerSettings(String bind, int port, long maxTtlMillis, long maxWaitMillis, ApiKeys apiKeys, HttpTls tls) {

    static final long DEFAULT_MAX_TTL_MILLIS = 3_600_000;
    static final long DEFAULT_MAX_WAIT_MILLIS = 300_000;

    /**
     * @throws IllegalArgumentException naming the setting as the command line and the environment
     *                                  spell it, if a value is out of range
     */
    ServerSettings {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port (ZKFENCE_PORT) must be from 0 to 65535, was " + port);
        }
        if (maxTtlMillis < 1) {
            throw new IllegalArgumentException(
                    "--max-ttl-ms (ZKFENCE_MAX_TTL_MS) must be at least 1, was " + maxTtlMillis);
        }
        if (maxWaitMillis < 0) {
            throw new IllegalArgumentException(
                    "--max-wait-ms (ZKFENCE_MAX_WAIT_MS) must not be negative, was " + maxWaitMillis);
        }
    }

    /** Local defaults, no authentication: for tests. */
    static ServerSettings local(ApiKeys keys) {
        return new ServerSettings("127.0.0.1", 0, DEFAULT_MAX_TTL_MILLIS, DEFAULT_MAX_WAIT_MILLIS, keys, null);
    }

    /** The same settings served over HTTPS. */
    ServerSettings withTls(HttpTls identity) {
        return new ServerSettings(bind, port, maxTtlMillis, maxWaitMillis, apiKeys, identity);
    }
}
