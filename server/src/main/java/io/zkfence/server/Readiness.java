package io.zkfence.server;

import static io.zkfence.server.HttpAnswers.ok;

import io.javalin.http.Context;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the replica is ready for clients ({@code GET /health/ready}): connected to ZooKeeper and
 * warmed up. Until its warm-up ({@link WarmUp}) has run, the replica answers calls but reports
 * itself not ready, so a load balancer sends it none yet.
 */
final class Readiness {

    /** The longest a warm-up may delay readiness. */
    static final Duration WARM_UP_BUDGET = Duration.ofSeconds(30);

    private static final Logger log = LoggerFactory.getLogger(Readiness.class);

    private final ServerSettings settings;
    private final BooleanSupplier zooKeeperConnected;
    private final Authentication authentication;
    /** False until the warm-up has run (true at once without one). */
    private volatile boolean warmedUp;

    Readiness(ServerSettings settings, BooleanSupplier zooKeeperConnected, Authentication authentication) {
        this.settings = settings;
        this.zooKeeperConnected = zooKeeperConnected;
        this.authentication = authentication;
        this.warmedUp = settings.warmUpCycles() == 0;
    }

    /**
     * Runs the warm-up: {@code warmUpCycles} acquire + release cycles through the replica's own
     * HTTP {@code port}. A failed cycle ends it early; the replica is ready afterwards either way.
     *
     * @return the cycles run (0 if there was none to run, -1 if it stopped early)
     */
    int warmUp(int port) {
        if (warmedUp) {
            return 0;
        }
        String host = settings.bind().equals("0.0.0.0")
                        || settings.bind().equals("::")
                        || settings.bind().isEmpty()
                ? "127.0.0.1"
                : settings.bind();
        try {
            return new WarmUp(
                            host,
                            port,
                            settings.tls() == null ? null : settings.tls().selfTrusting(),
                            authentication.issueWarmUpKey())
                    .run(settings.warmUpCycles(), WARM_UP_BUDGET);
        } catch (IOException | RuntimeException e) {
            log.warn("the warm-up stopped early, the replica is ready without it: {}", e.toString());
            return -1;
        } finally {
            authentication.revokeWarmUpKey();
            warmedUp = true;
        }
    }

    /** {@code GET /health/ready}: 200 {@code UP} when ready, else 503 {@code DOWN}, saying why. */
    void answer(Context ctx) {
        boolean connected = zooKeeperConnected.getAsBoolean();
        boolean up = connected && warmedUp;
        ok(
                ctx,
                Map.of(
                        "status",
                        up ? "UP" : "DOWN",
                        "zookeeper",
                        connected ? "connected" : "not connected",
                        "warmUp",
                        warmedUp ? "done" : "running"),
                up ? 200 : 503);
    }
}
