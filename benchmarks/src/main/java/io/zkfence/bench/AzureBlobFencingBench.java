package io.zkfence.bench;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import io.zkfence.azure.blob.FencedContainer;
import io.zkfence.testing.AzuriteServer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.HdrHistogram.Histogram;

/**
 * Workload 5d: a fenced Azure Blob put in the steady state (the writer rewrites a blob it wrote
 * last, so the ETag cache knows it: one Put Blob with If-Match and the token in metadata) against
 * a plain Put Blob of the same size, on Azurite (npm) in a process of its own.
 */
final class AzureBlobFencingBench implements Workload {

    static final int BODY_BYTES = 1024;

    @Override
    public String name() {
        return "fencing-azure-blob";
    }

    @Override
    public boolean needsZooKeeper() {
        return false;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        ctx.log().say("fencing on Azure Blob: starting Azurite");
        try (AzuriteServer azurite = AzuriteServer.start()) {
            BlobContainerClient container = new BlobServiceClientBuilder()
                    .connectionString(azurite.connectionString())
                    .buildClient()
                    .createBlobContainer("zkfence-bench");
            FencedContainer fenced = FencedContainer.create(container);
            fenced.verifyConditionalWrites(); // the one-off self-check is not part of the steady state
            Random random = new Random(42);
            long token = 7;
            List<Op> ops = List.of(
                    Op.of(
                            "plain_put",
                            () -> container
                                    .getBlobClient("plain-blob")
                                    .upload(BinaryData.fromBytes(body(random)), true)),
                    Op.of("fenced_put", () -> fenced.put("fenced-blob", token, BinaryData.fromBytes(body(random)))));
            ctx.log()
                    .say(
                            "fencing on Azure Blob: %d warm-up + %d rounds x %d puts per variant",
                            s.fenceWarmupRounds(), s.fenceRounds(), s.fenceOpsPerRound());
            Map<String, Histogram> hs =
                    Interleaved.run(ops, s.fenceWarmupRounds(), s.fenceRounds(), s.fenceOpsPerRound());
            Map<String, Latency> lat = new LinkedHashMap<>();
            hs.forEach((n, h) -> {
                lat.put(n, Latency.of(h));
                r.latency("fencing_azure_blob." + n, lat.get(n));
            });
            r.figure("fencing_azure_blob.body_bytes", BODY_BYTES);

            Latency base = lat.get("plain_put");
            Latency fencedLat = lat.get("fenced_put");
            double ratio = fencedLat.p50() / base.p50();
            r.figure("fencing_azure_blob.ratio.fenced_vs_plain.p50", ratio);
            r.figure("fencing_azure_blob.ratio.fenced_vs_plain.mean", fencedLat.mean() / base.mean());
            r.target(Target.atMost(
                    "azure_blob_steady_put",
                    name(),
                    "fenced Azure Blob put (steady state) p50 ≤ 1.1 × plain Put Blob",
                    ratio,
                    1.1,
                    "p50 " + Fmt.us(fencedLat.p50()) + " vs " + Fmt.us(base.p50())
                            + "; one Put Blob per put in both variants"));

            Map<String, List<Double>> series = new LinkedHashMap<>();
            lat.forEach((n, l) -> series.put(n, List.of(l.p50(), l.p99(), l.p999())));
            String plot = Plots.bars(
                    ctx.out(),
                    "fencing-azure-blob.png",
                    "Azure Blob put of " + BODY_BYTES + " bytes on Azurite",
                    "percentile",
                    "latency (µs)",
                    List.of("p50", "p99", "p99.9"),
                    series);
            StringBuilder md = new StringBuilder();
            md.append("Azurite ")
                    .append(AzuriteServer.VERSION)
                    .append(" (npm, in memory) in a process of its own, azure-storage-blob with the JDK's HTTP "
                            + "client, one thread, ")
                    .append(BODY_BYTES)
                    .append("-byte bodies of fresh random bytes. *Plain*: `upload(data, overwrite=true)`. *Fenced*: "
                            + "`FencedContainer.put(blob, token, data)` rewriting the blob it wrote last (ETag cached: "
                            + "one Put Blob with `If-Match` and the token in metadata). Interleaved, ")
                    .append(s.fenceRounds())
                    .append(" rounds of ")
                    .append(s.fenceOpsPerRound())
                    .append(" puts after ")
                    .append(s.fenceWarmupRounds())
                    .append(" warm-up rounds.\n\n");
            md.append(Fmt.LATENCY_HEADER).append('\n');
            lat.forEach((n, l) -> md.append(Fmt.latencyRow(n, l)).append('\n'));
            md.append("\nFenced ÷ plain p50: **")
                    .append(Fmt.ratio(ratio))
                    .append("** (mean ÷ mean ")
                    .append(Fmt.ratio(fencedLat.mean() / base.mean()))
                    .append(").\n\n");
            md.append("![fencing on Azure Blob](").append(plot).append(")\n");
            return new Section("5d. Fencing overhead on Azure Blob Storage (Azurite)", md.toString());
        }
    }

    private static byte[] body(Random random) {
        byte[] b = new byte[BODY_BYTES];
        random.nextBytes(b);
        return b;
    }
}
