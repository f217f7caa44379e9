package io.zkfence.bench;

import io.zkfence.command.CommandLogging;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code ./bench-ab --fencing-s3 REV...}: workload 5b's fenced S3 put from this checkout and from
 * earlier revisions, in one run on one S3Mock, beside the plain put and the fenced put's own
 * request sent bare (the "wire" variants: the same headers through the plain SDK, no fence code),
 * so that a change of the fenced ÷ plain ratio between runs can be put on the code, the requests
 * or the machine. The variants run interleaved (workload 5b's order) in blocks; each block gives
 * its own ratios, and the spread of those over the blocks is the noise the comparison is judged
 * against. A second pass counts, per put, the calling thread's CPU time and allocated bytes (the
 * client side: the SDK runs the request on the caller's thread) and the rest of the process's CPU
 * (S3Mock's side), and the HTTP requests sent.
 */
@Command(
        name = "bench-ab --fencing-s3",
        mixinStandardHelpOptions = true,
        description = "fencing-s3's steady-state put from several builds, same run, same S3Mock.")
public final class S3FenceAb implements Callable<Integer> {

    @Option(
            names = "--build",
            paramLabel = "LABEL=JAR[:JAR...]",
            description = "An earlier build: its fencing-s3 jar and the fencing-api jar built with it (repeatable)")
    Map<String, String> builds = new LinkedHashMap<>();

    @Option(
            names = "--blocks",
            defaultValue = "10",
            description = "Blocks of interleaved rounds, each giving its own ratios. Default: ${DEFAULT-VALUE}")
    int blocks;

    @Option(
            names = "--rounds",
            defaultValue = "10",
            description = "Interleaved rounds per block. Default: ${DEFAULT-VALUE}")
    int rounds;

    @Option(names = "--ops", defaultValue = "50", description = "Puts per variant per round. Default: ${DEFAULT-VALUE}")
    int ops;

    @Option(
            names = "--cost-puts",
            defaultValue = "2000",
            description = "Puts per variant in the CPU and allocation pass. Default: ${DEFAULT-VALUE}")
    int costPuts;

    @Option(
            names = "--out",
            defaultValue = "target/bench-ab",
            description = "Where ab-fencing-s3.md goes. Default: ${DEFAULT-VALUE}")
    Path out;

    private static final String BUCKET = "zkfence-ab";
    private static final long TOKEN = 7;
    private static final String TOKEN_METADATA = "fence-token";
    private static final int WARMUP_ROUNDS = 10;

    /** Runs the comparison and exits with its code. */
    public static void main(String[] args) {
        System.exit(CommandLogging.execute(() -> new CommandLine(new S3FenceAb()), args));
    }

    /** Counts the HTTP requests a client sends. */
    private static final class RequestCounter implements ExecutionInterceptor {
        final AtomicLong requests = new AtomicLong();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            requests.incrementAndGet();
        }
    }

    /** One variant: its put, and the counter of the client it sends through. */
    private record Variant(String name, String what, Op op, RequestCounter requests) {}

    @Override
    public Integer call() {
        if (blocks < 2 || rounds < 1 || ops < 1 || costPuts < 1) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "need --blocks >= 2, --rounds >= 1, --ops >= 1 and --cost-puts >= 1");
        }
        List<ReflectiveFencedBucket> fenceBuilds = new ArrayList<>();
        builds.forEach((label, jars) -> fenceBuilds.add(ReflectiveFencedBucket.fromJars(
                label, Arrays.stream(jars.split(":")).map(Path::of).toList())));
        fenceBuilds.add(ReflectiveFencedBucket.current());

        StringBuilder md = new StringBuilder("# fencing-s3: the steady-state put of several builds, same run\n\n")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores; load average at the start ")
                .append(MachineInfo.loadAverage())
                .append(". S3Mock in this JVM, AWS SDK v2 (default HTTP client), one thread, ")
                .append(S3FencingBench.BODY_BYTES)
                .append("-byte bodies of fresh random bytes, each variant its own client and key.\n\n");
        try (Closer closer = new Closer()) {
            S3MockServer s3mock = closer.add(S3MockServer.start());
            S3Client admin = closer.add(s3mock.client());
            admin.createBucket(b -> b.bucket(BUCKET));
            Random random = new Random(42);
            List<Variant> variants = new ArrayList<>();
            variants.add(plain(closer, s3mock, random));
            variants.add(
                    wire("wire-metadata", "the token's metadata header only", closer, s3mock, random, true, false));
            variants.add(wire("wire-if-match", "`If-Match` only", closer, s3mock, random, false, true));
            variants.add(wire(
                    "wire",
                    "the fenced put's request bare: `If-Match` on its last ETag and the token's metadata",
                    closer,
                    s3mock,
                    random,
                    true,
                    true));
            for (ReflectiveFencedBucket build : fenceBuilds) {
                RequestCounter counter = new RequestCounter();
                ReflectiveFencedBucket.Put put = build.open(closer.add(s3mock.client(counter)), BUCKET);
                String key = "fenced-" + build.label();
                variants.add(new Variant(
                        "fenced@" + build.label(),
                        "`FencedBucket.put` of " + build.label() + " ("
                                + build.bucketClass().getClassLoader() + ")",
                        Op.of(
                                "fenced@" + build.label(),
                                () -> put.put(key, TOKEN, RequestBody.fromBytes(body(random)))),
                        counter));
            }
            timed(variants, md);
            costs(variants, md);
        }
        try {
            Files.createDirectories(out);
            Files.writeString(out.resolve("ab-fencing-s3.md"), md);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println(md);
        return 0;
    }

    private static Variant plain(Closer closer, S3MockServer s3mock, Random random) {
        RequestCounter counter = new RequestCounter();
        S3Client s3 = closer.add(s3mock.client(counter));
        return new Variant(
                "plain",
                "`s3.putObject(...)`",
                Op.of(
                        "plain",
                        () -> s3.putObject(b -> b.bucket(BUCKET).key("plain"), RequestBody.fromBytes(body(random)))),
                counter);
    }

    /** The plain SDK sending what the fence sends in the steady state, or part of it; no fence code. */
    private static Variant wire(
            String name,
            String what,
            Closer closer,
            S3MockServer s3mock,
            Random random,
            boolean metadata,
            boolean ifMatch) {
        RequestCounter counter = new RequestCounter();
        S3Client s3 = closer.add(s3mock.client(counter));
        String key = name;
        String[] eTag = {
            s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(body(random)))
                    .eTag()
        };
        Map<String, String> tokenMetadata = Map.of(TOKEN_METADATA, Long.toString(TOKEN));
        return new Variant(
                name,
                what,
                Op.of(
                        name,
                        () -> eTag[0] = s3.putObject(
                                        b -> {
                                            b.bucket(BUCKET).key(key);
                                            if (metadata) {
                                                b.metadata(tokenMetadata);
                                            }
                                            if (ifMatch) {
                                                b.ifMatch(eTag[0]);
                                            }
                                        },
                                        RequestBody.fromBytes(body(random)))
                                .eTag()),
                counter);
    }

    private void timed(List<Variant> variants, StringBuilder md) {
        List<Op> opsList = variants.stream().map(Variant::op).toList();
        Interleaved.run(opsList, WARMUP_ROUNDS, 0, ops); // JIT, connections, the S3Mock's files
        Map<String, Histogram> pooled = new LinkedHashMap<>();
        Map<String, double[]> blockP50 = new LinkedHashMap<>();
        for (Variant v : variants) {
            pooled.put(v.name(), Latency.newHistogram());
            blockP50.put(v.name(), new double[blocks]);
        }
        for (int b = 0; b < blocks; b++) {
            Map<String, Histogram> h = Interleaved.run(opsList, 0, rounds, ops);
            for (Variant v : variants) {
                pooled.get(v.name()).add(h.get(v.name()));
                blockP50.get(v.name())[b] = h.get(v.name()).getValueAtPercentile(50) / 1_000.0;
            }
        }
        double[] plainBlocks = blockP50.get("plain");
        double plainP50 = pooled.get("plain").getValueAtPercentile(50) / 1_000.0;
        md.append("## Latency\n\n")
                .append(blocks)
                .append(" blocks of ")
                .append(rounds)
                .append(" interleaved rounds of ")
                .append(ops)
                .append(" puts per variant, after ")
                .append(WARMUP_ROUNDS)
                .append(" warm-up rounds. *p50 ÷ plain, per block*: each block's p50 over the same block's plain"
                        + " p50; the median of the blocks and their range.\n\n")
                .append("| variant | what it is | p50 | p99 | p50 ÷ plain (all blocks) | p50 ÷ plain, per block:"
                        + " median | min – max |\n")
                .append("|---|---|---:|---:|---:|---:|---|\n");
        for (Variant v : variants) {
            Histogram h = pooled.get(v.name());
            double[] ratios = ratios(blockP50.get(v.name()), plainBlocks);
            md.append(Fmt.row(
                    v.name(),
                    v.what(),
                    Fmt.us(h.getValueAtPercentile(50) / 1_000.0),
                    Fmt.us(h.getValueAtPercentile(99) / 1_000.0),
                    Fmt.ratio(h.getValueAtPercentile(50) / 1_000.0 / plainP50),
                    Fmt.ratio(median(ratios)),
                    Fmt.ratio(min(ratios)) + " – " + Fmt.ratio(max(ratios))));
        }
        List<Variant> fenced =
                variants.stream().filter(v -> v.name().startsWith("fenced@")).toList();
        Variant current = fenced.getLast();
        md.append("\nEach build against the current one and against the bare request, block by block (a build"
                        + " slower than another in most blocks, by more than the blocks' spread, is a real"
                        + " difference; one that is ahead in about half of them is not):\n\n")
                .append("| variant | ÷ ")
                .append(current.name())
                .append(", per block: median | min – max | blocks slower than ")
                .append(current.name())
                .append(" | ÷ wire, per block: median | min – max |\n")
                .append("|---|---:|---|---:|---:|---|\n");
        double[] currentBlocks = blockP50.get(current.name());
        double[] wireBlocks = blockP50.get("wire");
        for (Variant v : variants) {
            double[] own = blockP50.get(v.name());
            double[] vsCurrent = ratios(own, currentBlocks);
            double[] vsWire = ratios(own, wireBlocks);
            long slower = Arrays.stream(vsCurrent).filter(r -> r > 1).count();
            md.append(Fmt.row(
                    v.name(),
                    Fmt.ratio(median(vsCurrent)),
                    Fmt.ratio(min(vsCurrent)) + " – " + Fmt.ratio(max(vsCurrent)),
                    slower + " of " + blocks,
                    Fmt.ratio(median(vsWire)),
                    Fmt.ratio(min(vsWire)) + " – " + Fmt.ratio(max(vsWire))));
        }
    }

    /**
     * Per put, over {@link #costPuts} puts of each variant in turn (batches of 100, rotating): the
     * calling thread's CPU time and allocated bytes, the rest of the process's CPU time (S3Mock's
     * threads, and the JVM's own), and the client's HTTP requests.
     */
    private void costs(List<Variant> variants, StringBuilder md) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Map<String, long[]> totals = new LinkedHashMap<>(); // {puts, thread cpu, allocated, process cpu, requests}
        variants.forEach(v -> totals.put(v.name(), new long[5]));
        int batch = 100;
        int batches = Math.max(1, costPuts / batch);
        for (int round = 0; round < batches; round++) {
            for (Variant v : Interleaved.order(variants, round)) {
                long cpu0 = threads.getCurrentThreadCpuTime();
                long alloc0 = threads.getCurrentThreadAllocatedBytes();
                long process0 = os.getProcessCpuTime();
                long requests0 = v.requests().requests.get();
                for (int i = 0; i < batch; i++) {
                    v.op().run();
                }
                long[] t = totals.get(v.name());
                t[0] += batch;
                t[1] += threads.getCurrentThreadCpuTime() - cpu0;
                t[2] += threads.getCurrentThreadAllocatedBytes() - alloc0;
                t[3] += os.getProcessCpuTime() - process0;
                t[4] += v.requests().requests.get() - requests0;
            }
        }
        md.append("\n## CPU, allocation and requests per put\n\n")
                .append(batches * batch)
                .append(" puts per variant, in batches of ")
                .append(batch)
                .append(" taking turns. The client's side runs on the calling thread (the SDK sends on it);"
                        + " the rest of the process is S3Mock's threads and the JVM's own (GC, JIT).\n\n")
                .append("| variant | calling thread CPU µs | allocated by it, KiB | rest of the process CPU µs"
                        + " | HTTP requests |\n")
                .append("|---|---:|---:|---:|---:|\n");
        totals.forEach((name, t) -> md.append(Fmt.row(
                name,
                Fmt.num(t[1] / 1e3 / t[0]),
                Fmt.num(t[2] / 1024.0 / t[0]),
                Fmt.num((t[3] - t[1]) / 1e3 / t[0]),
                Fmt.num(t[4] / (double) t[0]))));
    }

    private static double[] ratios(double[] a, double[] b) {
        double[] r = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i] / b[i];
        }
        return r;
    }

    private static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElseThrow();
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElseThrow();
    }

    private static byte[] body(Random random) {
        byte[] b = new byte[S3FencingBench.BODY_BYTES];
        random.nextBytes(b);
        return b;
    }
}
