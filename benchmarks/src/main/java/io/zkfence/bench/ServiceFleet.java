package io.zkfence.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/** Leases on the lock service, through its HTTP API. */
final class ServiceFleet extends ScaleFleet {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    /** One lease this driver holds. */
    private static final class Lease extends Held {
        final String key;
        final String owner;
        final int index;
        volatile String token;

        Lease(String key, String owner, int index) {
            this.key = key;
            this.owner = owner;
            this.index = index;
        }
    }

    private final List<Integer> ports;
    private final ExecutorService callbacks = Executors.newFixedThreadPool(2, ScaleDriver.daemon("http-callbacks"));
    private final HttpClient http;
    private final ConcurrentHashMap<String, List<Lease>> byPrefix = new ConcurrentHashMap<>();
    private final List<CompletableFuture<Void>> waiters = new ArrayList<>();
    private volatile boolean draining;
    private final AtomicLong waitersGranted = new AtomicLong();
    private final AtomicLong waitersGrantedEarly = new AtomicLong();
    private final AtomicLong waitersFailed = new AtomicLong();
    /** Holders' releases at a drain that failed (an error status, or no answer): counted, not fatal. */
    private final AtomicLong holderReleasesFailed = new AtomicLong();

    ServiceFleet(List<Integer> ports) {
        this.ports = List.copyOf(ports);
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .executor(callbacks)
                .connectTimeout(Duration.ofSeconds(30))
                .build();
    }

    String hold(String prefix, int count, long ttlMs, long renewMs, long rampMs) {
        return acquireAll(
                prefix, count, ttlMs, rampMs, lease -> keepRenewing(lease, renewMs, () -> renew(lease, ttlMs)));
    }

    /** The owners of the leases, {@code pod-0} … {@code pod-99}: batch-renewed, each renews all its leases together. */
    private static final int OWNERS = 100;

    /** Each owner's batch-renewed leases (the list grows level by level), once its renewals are scheduled. */
    private final List<List<Lease>> owners = new ArrayList<>();

    private final AtomicLong batchCalls = new AtomicLong();

    /**
     * As {@link #hold}, but renewed through {@code POST /v1/leases/renew}: each of the 100 owners
     * renews all the leases it holds (of every prefix held this way) every {@code renewMs}, in
     * batches of at most {@code batchMax}, its owners' schedules spread evenly over the period.
     */
    String holdBatched(String prefix, int count, long ttlMs, long renewMs, long rampMs, int batchMax) {
        synchronized (owners) {
            if (owners.isEmpty()) {
                for (int o = 0; o < OWNERS; o++) {
                    List<Lease> mine = new java.util.concurrent.CopyOnWriteArrayList<>();
                    owners.add(mine);
                    int owner = o;
                    AtomicLong round = new AtomicLong();
                    keepRenewingGroup(
                            renewMs,
                            renewMs * o / OWNERS,
                            () -> renewAll(owner, mine, ttlMs, batchMax, (int) round.getAndIncrement()));
                }
            }
        }
        return acquireAll(prefix, count, ttlMs, rampMs, lease -> {
            holdInGroup(lease);
            owners.get(lease.index % OWNERS).add(lease);
        });
    }

    /**
     * Acquires {@code count} leases, {@code scale:<prefix>-<i>} owned by {@code pod-<i mod 100>},
     * evenly over {@code rampMs} ({@link #ramp}); {@code granted} takes each lease granted.
     */
    private String acquireAll(String prefix, int count, long ttlMs, long rampMs, Consumer<Lease> granted) {
        List<Lease> leases = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            leases.add(new Lease("scale:" + prefix + "-" + i, "pod-" + (i % OWNERS), i));
        }
        byPrefix.put(prefix, leases);
        return ramp(leases.size(), rampMs, i -> {
            Lease lease = leases.get(i);
            ObjectNode body = ScaleDriver.JSON
                    .createObjectNode()
                    .put("ownerId", lease.owner)
                    .put("ttlMillis", ttlMs)
                    .put("requestId", UUID.randomUUID().toString());
            long sent = System.nanoTime();
            return post(port(i), lease.key, "acquire", body).thenApply(answer -> {
                if (answer.statusCode() != 200) {
                    refused(answer.statusCode());
                    return false;
                }
                acquireLatency.recordValue(System.nanoTime() - sent);
                lease.token = json(answer).path("lockToken").asText();
                granted.accept(lease);
                return true;
            });
        });
    }

    /**
     * One owner's renewal round: its held leases in batches of at most {@code batchMax}, all sent at
     * once to one replica (the next one each round); completes with how many were renewed.
     */
    private CompletableFuture<Long> renewAll(int owner, List<Lease> mine, long ttlMs, int batchMax, int round) {
        List<Lease> held = new ArrayList<>();
        for (Lease l : mine) {
            if (l.holding.get()) {
                held.add(l);
            }
        }
        mine.removeIf(l -> !l.holding.get());
        if (held.isEmpty()) {
            return CompletableFuture.completedFuture(0L);
        }
        int port = port(owner + round);
        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (int from = 0; from < held.size(); from += batchMax) {
            List<Lease> batch = held.subList(from, Math.min(held.size(), from + batchMax));
            calls.add(renewBatch(port, batch, ttlMs));
        }
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                .thenApply(done ->
                        calls.stream().mapToLong(CompletableFuture::join).sum());
    }

    private CompletableFuture<Long> renewBatch(int port, List<Lease> batch, long ttlMs) {
        ObjectNode body = ScaleDriver.JSON.createObjectNode();
        com.fasterxml.jackson.databind.node.ArrayNode leases = body.putArray("leases");
        for (Lease l : batch) {
            leases.addObject()
                    .put("lockKey", l.key)
                    .put("lockToken", l.token)
                    .put("ownerId", l.owner)
                    .put("ttlMillis", ttlMs);
        }
        batchCalls.incrementAndGet();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/leases/renew"))
                .timeout(CALL_TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                .thenApply(answer -> {
                    if (answer.statusCode() != 200) {
                        status(answer.statusCode());
                        String cause = failure(answer);
                        batch.forEach(l -> renewFailed(cause));
                        return 0L;
                    }
                    JsonNode results = json(answer).path("results");
                    long renewed = 0;
                    for (int i = 0; i < batch.size(); i++) {
                        JsonNode r = results.path(i);
                        String code = r.path("error").path("code").asText("");
                        if (code.isEmpty()) {
                            renewed++;
                        } else if (code.equals("LOCK_EXPIRED") || code.equals("NOT_LOCK_OWNER")) {
                            lost(batch.get(i));
                        } else {
                            statusOf(code);
                            renewFailed("lease " + code);
                        }
                    }
                    return renewed;
                })
                .exceptionally(t -> {
                    error(t);
                    String cause = causeOf(t);
                    batch.forEach(l -> renewFailed(cause));
                    return 0L;
                });
    }

    private CompletableFuture<Outcome> renew(Lease lease, long ttlMs) {
        ObjectNode body = ScaleDriver.JSON
                .createObjectNode()
                .put("lockToken", lease.token)
                .put("ownerId", lease.owner)
                .put("ttlMillis", ttlMs);
        // Each renewal of a lease goes to the next replica: a client may call any of them.
        return post(port(lease.index + (int) lease.renewals.getAndIncrement()), lease.key, "renew", body)
                .thenApply(answer -> switch (answer.statusCode()) {
                    case 200 -> Outcome.OK;
                    case 409 -> Outcome.LOST;
                    default -> {
                        status(answer.statusCode());
                        renewFailed(failure(answer));
                        yield Outcome.ERROR;
                    }
                });
    }

    /**
     * Queues {@code perKey} waiting acquires behind each of the first {@code keys} holders of
     * {@code prefix}, sent evenly over {@code rampMs}: each holds a connection of its own, and
     * thousands of connects at once overflow the replicas' accept queues (the kernel drops the
     * SYNs, clients retry them after 1, 3, 7 ... s), which measured the driver's back-off, not the
     * service.
     */
    String queueWaiters(String prefix, int keys, int perKey, long waitMs, long rampMs) {
        List<Lease> holders = holders(prefix, keys);
        long step = TimeUnit.MILLISECONDS.toNanos(rampMs) / Math.max(1, (long) keys * perKey);
        int sent = 0;
        for (int k = 0; k < holders.size(); k++) {
            Lease holder = holders.get(k);
            for (int j = 0; j < perKey; j++) {
                String owner = "waiter-" + j;
                ObjectNode body = ScaleDriver.JSON
                        .createObjectNode()
                        .put("ownerId", owner)
                        .put("ttlMillis", 30_000)
                        .put("wait", true)
                        .put("waitMillis", waitMs)
                        .put("requestId", UUID.randomUUID().toString());
                int port = port(k + j);
                CompletableFuture<Void> done = later(step * sent, () -> post(port, holder.key, "acquire", body))
                        .thenCompose(answer -> {
                            if (answer.statusCode() != 200) {
                                waitersFailed.incrementAndGet();
                                status(answer.statusCode());
                                return CompletableFuture.completedFuture(null);
                            }
                            if (!draining) {
                                waitersGrantedEarly.incrementAndGet(); // its holder lost the lease
                            }
                            String token = json(answer).path("lockToken").asText();
                            ObjectNode release = ScaleDriver.JSON
                                    .createObjectNode()
                                    .put("lockToken", token)
                                    .put("ownerId", owner);
                            return post(port, holder.key, "release", release).thenAccept(r -> {
                                if (r.statusCode() == 200) {
                                    waitersGranted.incrementAndGet();
                                } else {
                                    waitersFailed.incrementAndGet();
                                    status(r.statusCode());
                                }
                            });
                        })
                        .exceptionally(t -> {
                            waitersFailed.incrementAndGet();
                            error(t);
                            return null;
                        });
                synchronized (waiters) {
                    waiters.add(done);
                }
                sent++;
            }
        }
        return "SENT " + sent;
    }

    /** Releases the holders of the first {@code keys} leases of {@code prefix}; waiters release as granted. */
    String drain(String prefix, int keys, long timeoutMs) {
        draining = true;
        long t0 = System.nanoTime();
        List<Lease> holders = holders(prefix, keys);
        List<CompletableFuture<?>> releases = new ArrayList<>();
        for (Lease holder : holders) {
            stopRenewing(holder);
            ObjectNode body = ScaleDriver.JSON
                    .createObjectNode()
                    .put("lockToken", holder.token)
                    .put("ownerId", holder.owner);
            releases.add(post(port(holder.index), holder.key, "release", body).handle((r, t) -> {
                // A lost holder release leaves its lease to expire: its waiters are granted a TTL
                // later, which the drain's time shows; the run goes on, and its log line counts them.
                if (t != null || r.statusCode() != 200) {
                    holderReleasesFailed.incrementAndGet();
                    if (t != null) {
                        error(t);
                    } else {
                        status(r.statusCode());
                    }
                }
                return null;
            }));
        }
        List<CompletableFuture<Void>> all;
        synchronized (waiters) {
            all = new ArrayList<>(waiters);
            waiters.clear();
        }
        try {
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).get(timeoutMs, TimeUnit.MILLISECONDS);
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // Reported: the counts below fall short of the waiters sent.
        } catch (ExecutionException e) {
            // Each future above counts its own failure and completes normally.
            throw new IllegalStateException("a release's accounting failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while draining", e);
        }
        draining = false;
        return "DRAINED " + waitersGranted.get() + " " + waitersFailed.get() + " "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    /** Stops renewing every lease (they expire on their own); how many were still renewed. */
    String stop() {
        long stopped = 0;
        for (List<Lease> leases : byPrefix.values()) {
            for (Lease lease : leases) {
                if (lease.holding.get()) {
                    stopped++;
                }
                stopRenewing(lease);
            }
        }
        return "STOPPED " + stopped;
    }

    @Override
    void extraStats(ObjectNode stats) {
        stats.put("waitersGranted", waitersGranted.get());
        stats.put("waitersGrantedEarly", waitersGrantedEarly.get());
        stats.put("waitersFailed", waitersFailed.get());
        stats.put("holderReleasesFailed", holderReleasesFailed.get());
        stats.put("batchCalls", batchCalls.get());
    }

    private List<Lease> holders(String prefix, int keys) {
        List<Lease> leases = byPrefix.get(prefix);
        if (leases == null || leases.size() < keys) {
            throw new IllegalArgumentException("no " + keys + " leases held under " + prefix);
        }
        return leases.subList(0, keys);
    }

    private int port(int i) {
        return ports.get(Math.floorMod(i, ports.size()));
    }

    private CompletableFuture<HttpResponse<byte[]>> post(int port, String key, String call, ObjectNode body) {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/v1/locks/" + key + "/" + call))
                .timeout(call.equals("acquire") && body.path("wait").asBoolean() ? Duration.ofHours(1) : CALL_TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    /** A failed call's cause: its status and the service's error code ("HTTP 503 UNAVAILABLE"). */
    private static String failure(HttpResponse<byte[]> answer) {
        String code;
        try {
            code = ScaleDriver.JSON.readTree(answer.body()).path("error").asText("");
        } catch (IOException e) {
            code = "(body not JSON)";
        }
        return "HTTP " + answer.statusCode() + (code.isEmpty() ? " (no error code)" : " " + code);
    }

    private static JsonNode json(HttpResponse<byte[]> answer) {
        try {
            return ScaleDriver.JSON.readTree(answer.body());
        } catch (IOException e) {
            throw new IllegalStateException("not JSON: " + new String(answer.body(), StandardCharsets.UTF_8), e);
        }
    }

    @Override
    public void close() {
        super.close();
        http.shutdownNow();
        callbacks.shutdownNow();
    }
}
