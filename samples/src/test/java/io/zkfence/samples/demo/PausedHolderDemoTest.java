package io.zkfence.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.CommandRun;
import io.zkfence.testing.EmbeddedServers;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Runs the demo for real: embedded servers, two pod JVMs, SIGSTOP and SIGCONT. The first test runs
 * {@link DemoCommand} on embedded servers in a JVM of its own, as {@code ./demo} does once it has
 * built the classes (the script itself, its JDK choice and its build are not run here); the others
 * run it in this JVM and point the demo's
 * flags at servers this test started, as a user points them at real infrastructure. Temporary
 * folders are checked in folders of this test's own, never in the shared system temporary folder.
 */
class PausedHolderDemoTest {

    private static final Pattern POD_PID = Pattern.compile("started (pod-[AB]) as a separate JVM, pid (\\d+)");
    private static final String GIVEN_BUCKET = "given-bucket";

    private static EmbeddedServers given;

    @TempDir
    static Path givenServersFolder;

    @BeforeAll
    static void startGivenServers() {
        given = EmbeddedServers.start(true, true, true, givenServersFolder);
        try (S3Client s3 = Clients.s3(
                given.s3Endpoint(),
                "us-east-1",
                true,
                StaticCredentialsProvider.create(AwsBasicCredentials.create("given", "given")))) {
            s3.createBucket(b -> b.bucket(GIVEN_BUCKET));
        }
        // The demo takes S3 credentials from the AWS SDK's default chain when pointed at a store.
        System.setProperty("aws.accessKeyId", "given");
        System.setProperty("aws.secretAccessKey", "given");
    }

    @AfterAll
    static void stopGivenServers() {
        given.close();
    }

    /**
     * As a user runs {@code ./demo}: {@link DemoCommand} in a JVM of its own, with no logging
     * configuration given, its standard output and error in the order a terminal shows them.
     * Nothing but the demo's own lines is printed, and the RESULT line is the last of them (Spring's
     * and Tomcat's shutdown lines of the embedded S3Mock used to follow it).
     */
    @Test
    void demoOnEmbeddedServersRejectsBothStaleWritesEndsWithItsResultAndExitsZero(@TempDir Path work)
            throws IOException {
        CommandRun run = CommandRun.merged(DemoCommand.class, List.of(), Duration.ofMinutes(5), "--work-dir=" + work);
        String output = String.join("\n", run.out());

        assertThat(run.exitCode()).as(output).isZero();
        assertStoryTold(output);
        assertThat(output)
                .contains("starting in this process: a 3-server ZooKeeper ensemble, PostgreSQL, S3Mock")
                .containsPattern("work folder " + Pattern.quote(work.toString()) + "/zkfence-demo\\d+ \\(pods' logs,"
                        + " S3Mock's objects\\), deleted at the end");
        assertThat(run.out().getLast()).as(output).startsWith("RESULT: ");
        for (String level : List.of("DEBUG", "INFO", "WARN", "ERROR")) {
            assertThat(run.outAt(level)).as("log lines at " + level).isEmpty();
        }
        assertPodsGone(output);
        assertFolderEmpty(work);
    }

    /**
     * Against the servers its flags name, with {@code --with-redis --with-azure-blob}: Debian's
     * redis-server and Azurite, embedded, join the story. (One run for both: each demo run freezes
     * a pod past its session timeout, and the story on given servers is the same with or without the
     * two extra stores.)
     */
    @Test
    void demoRunsAgainstTheServersNamedByItsFlagsAndRejectsStaleWritesAtRedisAndAzureBlobToo() {
        List<String> args = new ArrayList<>(List.of(givenServerFlags()));
        args.addAll(List.of("--with-redis", "--with-azure-blob"));

        Run run = run(args.toArray(String[]::new));

        assertThat(run.exitCode).as(run.output).isZero();
        assertThat(run.output)
                .contains("kill -STOP", "kill -CONT")
                .doesNotContain("starting in this process")
                .contains("ZooKeeper   " + given.zookeeperConnectString())
                .contains("S3          " + given.s3Endpoint() + ", bucket " + GIVEN_BUCKET)
                .containsPattern("pod-A    fenced    PostgreSQL  REJECTED: JdbcStaleTokenException")
                .containsPattern("pod-A    fenced    S3          REJECTED: S3StaleTokenException")
                .containsPattern("pod-A    fenced    Redis       REJECTED: RedisStaleTokenException")
                .containsPattern("pod-A    fenced    Azure Blob  REJECTED: AzureBlobStaleTokenException")
                .containsPattern("pod-A    unfenced  Redis       accepted   <-- a stale write went through")
                .containsPattern("pod-A    unfenced  Azure Blob  accepted   <-- a stale write went through")
                .containsPattern("PostgreSQL  fenced\\s+7  B-1\\s+pod-B")
                .containsPattern("Redis       fenced\\s+7  B-1\\s+pod-B")
                .contains("pod-B's order was accepted by all 8 paths")
                .contains(
                        "RESULT: the paused holder's stale writes were rejected by PostgreSQL, S3, Redis and Azure Blob"
                                + " (exit 0)")
                .doesNotContain("[FAIL]");
        assertThat(run.output
                        .lines()
                        .filter(l -> l.contains("pod-A    unfenced") && l.contains("a stale write went through")))
                .as("pod-A's unfenced writes, one per store")
                .hasSize(4);
        assertPodsGone(run.output);
    }

    @Test
    void demoFailsWithExitThreeWhenTheSessionDoesNotExpireDuringTheFreeze() {
        List<String> args = new ArrayList<>(List.of(givenServerFlags()));
        args.addAll(List.of("--session-timeout=20s", "--max-freeze=3s")); // the servers cannot expire it in time

        Run run = run(args.toArray(String[]::new));

        assertThat(run.exitCode).as(run.output).isEqualTo(Verdict.STORY_NOT_AS_TOLD);
        assertThat(run.output)
                .contains("pod-B was not granted the lock while pod-A was frozen for 3 s: the servers did not expire"
                        + " pod-A's session")
                .contains("[FAIL] the story stopped early")
                .contains("RESULT: the story did not happen as told (exit 3)")
                .doesNotContain("STALE WRITE WAS ACCEPTED");
        assertPodsGone(run.output); // pod-A was stopped when the demo gave up: continued, then ended
    }

    @Test
    void interruptedDemoEndsItsPodsEvenAFrozenOneAndDeletesItsTemporaryFolder(@TempDir Path tmp) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-Djava.io.tmpdir=" + tmp,
                "-Daws.accessKeyId=given",
                "-Daws.secretAccessKey=given",
                DemoCommand.class.getName()));
        command.addAll(List.of(givenServerFlags()));
        command.add("--session-timeout=20s"); // pod-A stays frozen until the interrupt
        Process demo = new ProcessBuilder(command).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        CompletableFuture<Void> frozen = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = demo.inputReader(StandardCharsets.UTF_8)) {
                String line;
                while ((line = lines.readLine()) != null) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    if (line.contains("kill -STOP")) {
                        frozen.complete(null);
                    }
                }
            } catch (IOException e) {
                frozen.completeExceptionally(e);
            }
            frozen.completeExceptionally(new IllegalStateException("the demo ended before freezing pod-A"));
        });
        reader.start();
        try {
            frozen.get(3, TimeUnit.MINUTES);
        } finally {
            demo.destroy(); // SIGTERM: like Ctrl-C (SIGINT), the JVM runs its shutdown hooks
        }

        assertThat(demo.waitFor(2, TimeUnit.MINUTES)).as("the demo exits").isTrue();
        reader.join(TimeUnit.MINUTES.toMillis(1));
        String text;
        synchronized (output) {
            text = output.toString();
        }
        assertThat(text).contains("work folder " + tmp + "/zkfence-demo"); // the default: java.io.tmpdir
        assertPodsGone(text);
        assertFolderEmpty(tmp);
    }

    @Test
    void badFlagsExitWithTwoAndSayWhy() {
        Run run = run("--s3-endpoint=http://localhost:9000");

        assertThat(run.exitCode).isEqualTo(2);
        assertThat(run.errors).contains("--s3-endpoint needs --s3-bucket");
        Run both = run("--with-redis", "--redis-uri=redis://localhost:6379");
        assertThat(both.exitCode).isEqualTo(2);
        assertThat(both.errors).contains("--with-redis and --redis-uri");
    }

    @Test
    void aWorkDirThatDoesNotExistExitsWithTwoAndSaysWhich(@TempDir Path tmp) {
        Path missing = tmp.resolve("missing");

        Run run = run("--work-dir=" + missing);

        assertThat(run.exitCode).isEqualTo(2);
        assertThat(run.errors).contains("--work-dir must be an existing folder, was " + missing);
        assertThat(missing).doesNotExist();
    }

    private static String[] givenServerFlags() {
        return new String[] {
            "--zookeeper=" + given.zookeeperConnectString(),
            "--jdbc-url=" + given.jdbcUrl(),
            "--jdbc-user=postgres",
            "--s3-endpoint=" + given.s3Endpoint(),
            "--s3-bucket=" + GIVEN_BUCKET,
            "--s3-path-style"
        };
    }

    private static void assertStoryTold(String output) {
        assertThat(output).contains("kill -STOP", "kill -CONT");
        assertThat(output.lines()
                        .filter(l -> l.matches(".*pod-A    fenced    PostgreSQL  REJECTED: JdbcStaleTokenException.*")
                                || l.matches(".*pod-A    fenced    S3          REJECTED: S3StaleTokenException.*")))
                .as("pod-A's rejected fenced writes")
                .hasSize(2);
        assertThat(output.lines()
                        .filter(l -> l.contains("pod-A    unfenced") && l.contains("a stale write went through")))
                .as("pod-A's unfenced writes")
                .hasSize(2);
        assertThat(output)
                .contains("an update was lost")
                .contains("RESULT: the paused holder's stale writes were rejected by PostgreSQL and S3 (exit 0)")
                .doesNotContain("[FAIL]");
        Matcher fenced =
                Pattern.compile("PostgreSQL  fenced\\s+7  B-1\\s+pod-B").matcher(output);
        assertThat(fenced.find()).as("fenced PostgreSQL row in the final table").isTrue();
        Matcher unfenced =
                Pattern.compile("PostgreSQL  unfenced\\s+6  A-2\\s+pod-A").matcher(output);
        assertThat(unfenced.find())
                .as("unfenced PostgreSQL row in the final table")
                .isTrue();
    }

    private static void assertPodsGone(String output) {
        Matcher m = POD_PID.matcher(output);
        int pods = 0;
        while (m.find()) {
            long pid = Long.parseLong(m.group(2));
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
                    .as(m.group(1) + " (pid " + pid + ")")
                    .isEmpty();
            pods++;
        }
        assertThat(pods).as("pods started").isEqualTo(2);
    }

    private static void assertFolderEmpty(Path folder) throws IOException {
        try (Stream<Path> left = Files.list(folder)) {
            assertThat(left.map(Path::getFileName).map(Path::toString))
                    .as("left behind in " + folder)
                    .isEmpty();
        }
    }

    private record Run(int exitCode, String output, String errors) {}

    /** Runs the demo in this JVM (its pods are JVMs of their own), echoing its output to the test log. */
    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(new Tee(out, System.out), true, StandardCharsets.UTF_8);
        PrintStream originalErr = System.err;
        System.setErr(new PrintStream(new Tee(err, originalErr), true, StandardCharsets.UTF_8));
        try {
            int code = DemoCommand.run(tee, args);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(originalErr);
        }
    }

    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }
    }
}
