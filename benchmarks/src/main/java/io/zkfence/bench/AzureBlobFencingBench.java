package io.zkfence.bench;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import io.zkfence.azure.blob.FencedContainer;
import io.zkfence.testing.AzuriteServer;
import java.util.List;
import java.util.Map;
import java.util.Random;

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
            Map<String, Latency> lat = FenceOverhead.interleave(s, r, "fencing_azure_blob", ops);
            r.figure("fencing_azure_blob.body_bytes", BODY_BYTES);

            Latency base = lat.get("plain_put");
            Latency fencedLat = lat.get("fenced_put");
            double ratio = FenceOverhead.ratio(r, "fencing_azure_blob", fencedLat, base);
            r.target(Target.atMost(
                    "azure_blob_steady_put",
                    name(),
                    "fenced Azure Blob put (steady state) p50 ≤ 1.1 × plain Put Blob",
                    ratio,
                    1.1,
                    "p50 " + Fmt.us(fencedLat.p50()) + " vs " + Fmt.us(base.p50())
                            + "; one Put Blob per put in both variants"));

            String plot = FenceOverhead.plot(
                    ctx, "fencing-azure-blob.png", "Azure Blob put of " + BODY_BYTES + " bytes on Azurite", lat);
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
            FenceOverhead.latencyTable(md, lat);
            FenceOverhead.ratioLine(md, fencedLat, base);
            md.append(".\n\n");
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
