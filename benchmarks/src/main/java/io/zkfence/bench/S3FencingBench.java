package io.zkfence.bench;

import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Workload 5b: a fenced S3 put in the steady state (the writer rewrites a key it wrote last, so
 * the ETag cache knows it: one conditional PUT) against a plain PUT of the same size, on S3Mock
 * in this JVM. Bodies are fresh random bytes each time (a put of unchanged bytes takes the
 * one-part-upload path, which is not the steady state).
 */
final class S3FencingBench implements Workload {

    static final int BODY_BYTES = 1024;

    /** Counts the HTTP requests a client sends. */
    private static final class RequestCounter implements ExecutionInterceptor {
        final AtomicLong requests = new AtomicLong();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            requests.incrementAndGet();
        }
    }

    @Override
    public String name() {
        return "fencing-s3";
    }

    @Override
    public boolean needsZooKeeper() {
        return false;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        ctx.log().say("fencing on S3: starting S3Mock");
        try (Closer closer = new Closer()) {
            S3MockServer s3mock = closer.add(S3MockServer.start());
            RequestCounter plainCount = new RequestCounter();
            RequestCounter fencedCount = new RequestCounter();
            S3Client plain = closer.add(s3mock.client(plainCount));
            S3Client fencedClient = closer.add(s3mock.client(fencedCount));
            String bucketName = "zkfence-bench";
            plain.createBucket(b -> b.bucket(bucketName));
            FencedBucket fenced = FencedBucket.create(fencedClient, S3FenceConfig.of(bucketName));
            fenced.verifyConditionalWrites(); // the one-off self-check is not part of the steady state

            Random random = new Random(42);
            long token = 7;
            List<Op> ops = List.of(
                    Op.of(
                            "plain_put",
                            () -> plain.putObject(
                                    b -> b.bucket(bucketName).key("plain-object"),
                                    RequestBody.fromBytes(body(random)))),
                    Op.of("fenced_put", () -> fenced.put("fenced-object", token, RequestBody.fromBytes(body(random)))));
            ctx.log()
                    .say(
                            "fencing on S3: %d warm-up + %d rounds x %d puts per variant",
                            s.fenceWarmupRounds(), s.fenceRounds(), s.fenceOpsPerRound());
            Map<String, Histogram> hs =
                    Interleaved.run(ops, s.fenceWarmupRounds(), s.fenceRounds(), s.fenceOpsPerRound());
            Map<String, Latency> lat = new LinkedHashMap<>();
            hs.forEach((n, h) -> {
                lat.put(n, Latency.of(h));
                r.latency("fencing_s3." + n, lat.get(n));
            });

            // Requests per put in the steady state, counted by the SDK.
            int n = Math.max(10, s.fenceOpsPerRound());
            long p0 = plainCount.requests.get();
            long f0 = fencedCount.requests.get();
            for (int i = 0; i < n; i++) {
                ops.get(0).run();
                ops.get(1).run();
            }
            double plainRequests = (plainCount.requests.get() - p0) / (double) n;
            double fencedRequests = (fencedCount.requests.get() - f0) / (double) n;
            r.figure("fencing_s3.plain_put.requests_per_put", plainRequests);
            r.figure("fencing_s3.fenced_put.requests_per_put", fencedRequests);
            r.figure("fencing_s3.body_bytes", BODY_BYTES);

            Latency base = lat.get("plain_put");
            Latency fencedLat = lat.get("fenced_put");
            double ratio = fencedLat.p50() / base.p50();
            r.figure("fencing_s3.ratio.fenced_vs_plain.p50", ratio);
            r.figure("fencing_s3.ratio.fenced_vs_plain.mean", fencedLat.mean() / base.mean());
            r.target(Target.atMost(
                    "s3_steady_put",
                    name(),
                    "fenced S3 put (steady state) p50 ≤ 1.1 × plain PUT",
                    ratio,
                    1.1,
                    "p50 " + Fmt.us(fencedLat.p50()) + " vs " + Fmt.us(base.p50()) + "; requests per put: fenced "
                            + Fmt.num(fencedRequests) + ", plain " + Fmt.num(plainRequests)));

            Map<String, List<Double>> series = new LinkedHashMap<>();
            lat.forEach((name, l) -> series.put(name, List.of(l.p50(), l.p99(), l.p999())));
            String plot = Plots.bars(
                    ctx.out(),
                    "fencing-s3.png",
                    "S3 put of " + BODY_BYTES + " bytes on S3Mock",
                    "percentile",
                    "latency (µs)",
                    List.of("p50", "p99", "p99.9"),
                    series);
            StringBuilder md = new StringBuilder();
            md.append("S3Mock in this JVM, AWS SDK v2 (path-style, default HTTP client), one thread, ")
                    .append(BODY_BYTES)
                    .append("-byte bodies of fresh random bytes. *Plain*: `s3.putObject(...)`. *Fenced*: "
                            + "`FencedBucket.put(key, token, body)` rewriting the key it wrote last (ETag cached: "
                            + "one `PutObject` with `If-Match` and the token in user metadata, plus the body's MD5 "
                            + "computed by the adapter). Interleaved, ")
                    .append(s.fenceRounds())
                    .append(" rounds of ")
                    .append(s.fenceOpsPerRound())
                    .append(" puts after ")
                    .append(s.fenceWarmupRounds())
                    .append(" warm-up rounds.\n\n");
            md.append(Fmt.LATENCY_HEADER).append('\n');
            lat.forEach((name, l) -> md.append(Fmt.latencyRow(name, l)).append('\n'));
            md.append("\nFenced ÷ plain p50: **")
                    .append(Fmt.ratio(ratio))
                    .append("** (mean ÷ mean ")
                    .append(Fmt.ratio(fencedLat.mean() / base.mean()))
                    .append("). HTTP requests per put: fenced ")
                    .append(Fmt.num(fencedRequests))
                    .append(", plain ")
                    .append(Fmt.num(plainRequests))
                    .append(".\n\n");
            md.append("![fencing on S3](").append(plot).append(")\n");
            return new Section("5b. Fencing overhead on S3 (S3Mock)", md.toString());
        }
    }

    private static byte[] body(Random random) {
        byte[] b = new byte[BODY_BYTES];
        random.nextBytes(b);
        return b;
    }
}
