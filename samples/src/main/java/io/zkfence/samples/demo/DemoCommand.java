package io.zkfence.samples.demo;

import io.zkfence.command.CommandLogging;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The demo's command line: {@code ./demo [flags]}. See {@code docs/demo.md}. */
@Command(
        name = "demo",
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "The paused-holder demo: two pods (separate JVMs) compete for the lock inventory:sku:123. pod-A is frozen"
                    + " with SIGSTOP between its lease check and its write, for longer than its ZooKeeper session;"
                    + " pod-B gets the lock and writes; pod-A resumes and writes with its old token. PostgreSQL and S3"
                    + " reject that write through zkfence's fences; the same write without a fence shows the lost update.",
            "",
            "Without flags everything runs embedded in this process: a 3-server ZooKeeper ensemble, PostgreSQL and"
                    + " S3Mock. Each group of flags below points the demo at a real service instead. On real services the"
                    + " demo drops and re-creates its own tables (zkfence_demo_*) and overwrites its own objects"
                    + " (zkfence-demo/...); it touches nothing else.",
            ""
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the stale writes were rejected and the story happened as told",
            "1:a fenced store accepted a stale write",
            "2:bad command line",
            "3:the story did not happen as told (e.g. the session did not expire), or a service failed"
        })
public final class DemoCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    private boolean help;

    @Option(
            names = "--zookeeper",
            paramLabel = "<host:port,...>",
            description = "ZooKeeper connect string. Default: a 3-server ensemble in this process.")
    private String zookeeper;

    @Option(
            names = "--zk-root",
            paramLabel = "<path>",
            defaultValue = "/zkfence-demo",
            description = "Znode under which the demo's lock lives (default: ${DEFAULT-VALUE}).")
    private String zkRoot;

    @Option(
            names = "--session-timeout",
            paramLabel = "<duration>",
            defaultValue = "4s",
            converter = DurationConverter.class,
            description = "Session timeout the pods ask for, i.e. the lease TTL, e.g. 4s or 4000ms (default:"
                    + " ${DEFAULT-VALUE}). The servers clamp it to [2, 20] x tickTime.")
    private Duration sessionTimeout;

    @Option(
            names = "--max-freeze",
            paramLabel = "<duration>",
            converter = DurationConverter.class,
            description = "How long pod-A may stay frozen waiting for the servers to expire its session before the demo"
                    + " gives up (default: 3 x session timeout + 15s).")
    private Duration maxFreeze;

    @Option(
            names = "--jdbc-url",
            paramLabel = "<url>",
            description = "PostgreSQL JDBC URL, e.g. jdbc:postgresql://db:5432/app. Default: an embedded PostgreSQL.")
    private String jdbcUrl;

    @Option(names = "--jdbc-user", paramLabel = "<user>", description = "Database user.")
    private String jdbcUser;

    @Option(
            names = "--jdbc-password",
            paramLabel = "<password>",
            arity = "0..1",
            interactive = true,
            defaultValue = "${env:" + Endpoints.ENV_JDBC_PASSWORD + "}",
            description = "Database password; without a value it is asked for. Default: $" + Endpoints.ENV_JDBC_PASSWORD
                    + ".")
    private String jdbcPassword;

    @Option(
            names = "--s3-bucket",
            paramLabel = "<bucket>",
            description = "An existing bucket. Alone it means AWS S3 (credentials from the AWS SDK's default chain:"
                    + " environment, profile, ...). Default: a bucket in an embedded S3Mock.")
    private String s3Bucket;

    @Option(
            names = "--s3-endpoint",
            paramLabel = "<url>",
            description = "Endpoint of an S3-compatible store (MinIO, R2, ...); needs --s3-bucket.")
    private URI s3Endpoint;

    @Option(
            names = "--s3-region",
            paramLabel = "<region>",
            defaultValue = "us-east-1",
            description = "Region to sign S3 requests for (default: ${DEFAULT-VALUE}).")
    private String s3Region;

    @Option(names = "--s3-path-style", description = "Address the bucket in the path, not the host name (MinIO).")
    private boolean s3PathStyle;

    @Option(
            names = "--with-redis",
            description = "Also write to Redis, fenced by fencing-redis: an embedded redis-server (Debian's"
                    + " redis-server package must be installed).")
    private boolean withRedis;

    @Option(
            names = "--redis-uri",
            paramLabel = "<uri>",
            description = "Also write to this Redis, e.g. redis://cache:6379 (the demo deletes its own keys there).")
    private String redisUri;

    @Option(
            names = "--with-azure-blob",
            description = "Also write to Azure Blob Storage, fenced by fencing-azure-blob: an embedded Azurite"
                    + " (npm's azurite, installed into ~/.cache/zkfence on first use; needs Node.js and npm).")
    private boolean withAzureBlob;

    @Option(
            names = "--azure-blob-container",
            paramLabel = "<container>",
            description = "Also write to this existing container, the account from $"
                    + ExtraStores.ENV_AZURE_CONNECTION_STRING + ".")
    private String azureContainer;

    @Option(
            names = "--work-dir",
            paramLabel = "<dir>",
            description =
                    "An existing folder in which the demo makes its temporary folder (the pods' logs and temporary"
                            + " files, S3Mock's objects), deleted when the demo ends. Default: the system's temporary folder"
                            + " (java.io.tmpdir).")
    private Path workDir;

    private final PrintStream out;

    DemoCommand(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(CommandLogging.execute(() -> new CommandLine(new DemoCommand(System.out)), args));
    }

    /** Runs the demo with {@code args} in this JVM, printing to {@code out}; returns the exit code. */
    static int run(PrintStream out, String... args) {
        return CommandLogging.withVerbose(new CommandLine(new DemoCommand(out))).execute(args);
    }

    @Override
    public Integer call() {
        if (s3Endpoint != null && s3Bucket == null) {
            throw new ParameterException(spec.commandLine(), "--s3-endpoint needs --s3-bucket (an existing bucket)");
        }
        if (jdbcUrl != null && !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--jdbc-url must be a PostgreSQL URL (jdbc:postgresql:...)," + " was " + jdbcUrl);
        }
        if (jdbcUrl == null && (jdbcUser != null || jdbcPassword != null && !jdbcPassword.isEmpty())) {
            throw new ParameterException(spec.commandLine(), "--jdbc-user and --jdbc-password need --jdbc-url");
        }
        if (sessionTimeout.compareTo(Duration.ofSeconds(1)) < 0
                || sessionTimeout.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--session-timeout must be between 1s and 60s, was " + sessionTimeout.toMillis() + "ms");
        }
        if (withRedis && redisUri != null || withAzureBlob && azureContainer != null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--with-redis and --redis-uri, or --with-azure-blob and --azure-blob-container,"
                            + " are two answers to one question: give one of each");
        }
        if (azureContainer != null && System.getenv(ExtraStores.ENV_AZURE_CONNECTION_STRING) == null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--azure-blob-container needs the account's connection string in $"
                            + ExtraStores.ENV_AZURE_CONNECTION_STRING);
        }
        if (workDir != null && !Files.isDirectory(workDir)) {
            throw new ParameterException(spec.commandLine(), "--work-dir must be an existing folder, was " + workDir);
        }
        Duration freeze =
                maxFreeze != null ? maxFreeze : sessionTimeout.multipliedBy(3).plusSeconds(15);
        DemoOptions options = new DemoOptions(
                zookeeper,
                zkRoot,
                sessionTimeout,
                freeze,
                jdbcUrl,
                jdbcUser,
                jdbcPassword == null || jdbcPassword.isEmpty() ? null : jdbcPassword,
                s3Bucket,
                s3Endpoint,
                s3Region,
                s3PathStyle,
                withRedis,
                redisUri,
                withAzureBlob,
                azureContainer,
                workDir != null ? workDir : Path.of(System.getProperty("java.io.tmpdir")));
        return new PausedHolderDemo(options, out).run();
    }

    /** Accepts {@code 4s}, {@code 4000ms}, {@code 1m} or ISO-8601 ({@code PT4S}). */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.strip().toLowerCase();
            try {
                if (v.endsWith("ms")) {
                    return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
                }
                if (v.endsWith("s")) {
                    return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
                }
                if (v.endsWith("m")) {
                    return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
                }
                return Duration.parse(value.strip());
            } catch (RuntimeException e) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a duration (try 4s, 4000ms or PT4S)");
            }
        }
    }
}
