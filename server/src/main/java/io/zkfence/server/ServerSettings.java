package io.zkfence.server;

/**
 * What one replica's HTTP side is configured with.
 *
 * @param bind              address to listen on
 * @param port              HTTP port (0: any free port)
 * @param maxTtlMillis      the longest lease TTL a request may ask for
 * @param maxWaitMillis     the longest wait an acquire may ask for (its connection stays open that long)
 * @param idleTimeoutMillis how long a connection may sit idle between requests before it is closed
 * @param apiKeys           who may call ({@link ApiKeys#open()} only when chosen explicitly)
 * @param tls               the HTTPS identity, or null for plain HTTP
 * @param warmUpCycles      acquire + release cycles the replica runs through its own port before it
 *                          reports ready ({@link WarmUp}); 0: none
 */
record ServerSettings(
        String bind,
        int port,
        long maxTtlMillis,
        long maxWaitMillis,
        long idleTimeoutMillis,
        ApiKeys apiKeys,
        HttpTls tls,
        int warmUpCycles) {

    static final long DEFAULT_MAX_TTL_MILLIS = 3_600_000;
    static final long DEFAULT_MAX_WAIT_MILLIS = 300_000;
    static final long DEFAULT_IDLE_TIMEOUT_MILLIS = 30_000;
    static final int MAX_WARM_UP_CYCLES = 100_000;

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
        if (idleTimeoutMillis < 1_000) {
            throw new IllegalArgumentException(
                    "--idle-timeout-ms (ZKFENCE_IDLE_TIMEOUT_MS) must be at least 1000, was " + idleTimeoutMillis);
        }
        if (warmUpCycles < 0 || warmUpCycles > MAX_WARM_UP_CYCLES) {
            throw new IllegalArgumentException("--warm-up-cycles (ZKFENCE_WARM_UP_CYCLES) must be from 0 to "
                    + MAX_WARM_UP_CYCLES + ", was " + warmUpCycles);
        }
    }

    /** Local defaults: for tests and the embedded server (no warm-up). */
    static ServerSettings local(ApiKeys keys) {
        return new ServerSettings(
                "127.0.0.1",
                0,
                DEFAULT_MAX_TTL_MILLIS,
                DEFAULT_MAX_WAIT_MILLIS,
                DEFAULT_IDLE_TIMEOUT_MILLIS,
                keys,
                null,
                0);
    }

    /** The same settings served over HTTPS. */
    ServerSettings withTls(HttpTls identity) {
        return new ServerSettings(
                bind, port, maxTtlMillis, maxWaitMillis, idleTimeoutMillis, apiKeys, identity, warmUpCycles);
    }

    /** The same settings with {@code cycles} of warm-up before readiness. */
    ServerSettings withWarmUp(int cycles) {
        return new ServerSettings(bind, port, maxTtlMillis, maxWaitMillis, idleTimeoutMillis, apiKeys, tls, cycles);
    }
}
