package io.zkfence.bench;

import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
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

            RequestCounter wireCount = new RequestCounter();
            S3Client wire = closer.add(s3mock.client(wireCount));

            Random random = new Random(42);
            long token = 7;
            // The fenced put's steady-state request sent bare: If-Match on the key's last ETag and the
            // token's metadata, through the plain SDK, no fence code. wire ÷ plain is what the store
            // does with the condition and the metadata; fenced ÷ wire is the fence's own code.
            Map<String, String> tokenMetadata =
                    Map.of(S3FenceConfig.of(bucketName).tokenMetadataKey(), Long.toString(token));
            String[] wireEtag = {
                wire.putObject(b -> b.bucket(bucketName).key("wire-object"), RequestBody.fromBytes(body(random)))
                        .eTag()
            };
            List<Op> ops = List.of(
                    Op.of(
                            "plain_put",
                            () -> plain.putObject(
                                    b -> b.bucket(bucketName).key("plain-object"),
                                    RequestBody.fromBytes(body(random)))),
                    Op.of(
                            "wire_put",
                            () -> wireEtag[0] = wire.putObject(
                                            b -> b.bucket(bucketName)
                                                    .key("wire-object")
                                                    .metadata(tokenMetadata)
                                                    .ifMatch(wireEtag[0]),
                                            RequestBody.fromBytes(body(random)))
                                    .eTag()),
                    Op.of("fenced_put", () -> fenced.put("fenced-object", token, RequestBody.fromBytes(body(random)))));
            ctx.log()
                    .say(
                            "fencing on S3: %d warm-up + %d rounds x %d puts per variant",
                            s.fenceWarmupRounds(), s.fenceRounds(), s.fenceOpsPerRound());
            Map<String, Latency> lat = FenceOverhead.interleave(s, r, "fencing_s3", ops);

            // Per put in the steady state: requests (counted by the SDK), and the calling thread's CPU
            // time and allocation (the SDK sends on the caller's thread, so that is the client's side).
            int n = Math.max(10, s.fenceOpsPerRound() * 4);
            Map<String, RequestCounter> counters =
                    Map.of("plain_put", plainCount, "wire_put", wireCount, "fenced_put", fencedCount);
            Map<String, double[]> costs =
                    ClientCost.perOp(ops, n, op -> counters.get(op).requests.get());
            costs.forEach((variant, c) -> {
                r.figure("fencing_s3." + variant + ".requests_per_put", c[ClientCost.COUNTED]);
                r.figure("fencing_s3." + variant + ".client_cpu_us_per_put", c[ClientCost.CPU_US]);
                r.figure("fencing_s3." + variant + ".client_alloc_kib_per_put", c[ClientCost.ALLOC_KIB]);
            });
            double plainRequests = costs.get("plain_put")[ClientCost.COUNTED];
            double fencedRequests = costs.get("fenced_put")[ClientCost.COUNTED];
            r.figure("fencing_s3.body_bytes", BODY_BYTES);

            Latency base = lat.get("plain_put");
            Latency wireLat = lat.get("wire_put");
            Latency fencedLat = lat.get("fenced_put");
            double ratio = FenceOverhead.ratio(r, "fencing_s3", fencedLat, base);
            double wireRatio = wireLat.p50() / base.p50();
            double codeRatio = fencedLat.p50() / wireLat.p50();
            r.figure("fencing_s3.ratio.wire_vs_plain.p50", wireRatio);
            r.figure("fencing_s3.ratio.fenced_vs_wire.p50", codeRatio);
            r.target(Target.atMost(
                    "s3_steady_put",
                    name(),
                    "fenced S3 put (steady state) p50 ≤ 1.1 × plain PUT",
                    ratio,
                    1.1,
                    "p50 " + Fmt.us(fencedLat.p50()) + " vs " + Fmt.us(base.p50()) + "; the same request bare "
                            + Fmt.us(wireLat.p50()) + " (the store's part " + Fmt.ratio(wireRatio)
                            + ", the fence's code " + Fmt.ratio(codeRatio) + "); requests per put: fenced "
                            + Fmt.num(fencedRequests) + ", plain " + Fmt.num(plainRequests)));

            String plot =
                    FenceOverhead.plot(ctx, "fencing-s3.png", "S3 put of " + BODY_BYTES + " bytes on S3Mock", lat);
            StringBuilder md = new StringBuilder();
            md.append("S3Mock in this JVM, AWS SDK v2 (path-style, default HTTP client), one thread, ")
                    .append(BODY_BYTES)
                    .append("-byte bodies of fresh random bytes. *Plain*: `s3.putObject(...)`. *Fenced*: "
                            + "`FencedBucket.put(key, token, body)` rewriting the key it wrote last (ETag cached: "
                            + "one `PutObject` with `If-Match` and the token in user metadata, plus the body's MD5 "
                            + "computed by the adapter). *Wire* (diagnostic): the fenced put's request sent bare, "
                            + "`If-Match` on the key's last ETag and the token's metadata through the plain SDK, "
                            + "no fence code: wire ÷ plain is the store's work on the condition and the metadata, "
                            + "fenced ÷ wire the fence's own code. Interleaved, ")
                    .append(s.fenceRounds())
                    .append(" rounds of ")
                    .append(s.fenceOpsPerRound())
                    .append(" puts after ")
                    .append(s.fenceWarmupRounds())
                    .append(" warm-up rounds.\n\n");
            FenceOverhead.latencyTable(md, lat);
            FenceOverhead.ratioLine(md, fencedLat, base);
            md.append("; wire ÷ plain ")
                    .append(Fmt.ratio(wireRatio))
                    .append(", fenced ÷ wire ")
                    .append(Fmt.ratio(codeRatio))
                    .append(
                            ".\n\n| variant | HTTP requests per put | calling thread's CPU per put | allocated by it per put |\n"
                                    + "|---|---:|---:|---:|\n");
            costs.forEach((variant, c) -> md.append(Fmt.row(
                    variant,
                    Fmt.num(c[ClientCost.COUNTED]),
                    Fmt.us(c[ClientCost.CPU_US]),
                    Fmt.num(c[ClientCost.ALLOC_KIB]) + " KiB")));
            md.append("\n(")
                    .append(n)
                    .append(" puts of each variant after the timed rounds, in turns of 10; the SDK sends on the"
                            + " calling thread, so its CPU time and allocation are the client's side of a put.)\n\n");
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
