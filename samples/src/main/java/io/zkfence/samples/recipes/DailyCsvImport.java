package io.zkfence.samples.recipes;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.files.FilePass;
import io.zkfence.recipes.files.FileProcessor;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Daily CSV files dropped under {@code in/} of a bucket, each summed exactly once into
 * {@code out/<file>} however many import pods run: start it on several machines (or terminals)
 * and each file is imported by one of them; kill or pause one mid-file and another takes the
 * file over, while the paused one's late summary is rejected.
 *
 * <pre>
 * DailyCsvImport &lt;zookeeper&gt; &lt;jdbc-url&gt; &lt;user&gt; &lt;password&gt; &lt;s3-endpoint&gt; &lt;bucket&gt;
 * </pre>
 */
public final class DailyCsvImport {

    private DailyCsvImport() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 6) {
            System.err.println("usage: DailyCsvImport <zookeeper> <jdbc-url> <user> <password> <s3-endpoint> <bucket>");
            System.exit(2);
        }
        DataSource db = SampleDatabase.postgres(args[1], args[2], args[3]);
        S3Client s3 = S3Client.builder()
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .endpointOverride(URI.create(args[4]))
                .credentialsProvider(DefaultCredentialsProvider.builder().build())
                .build();
        try (LockClient client = LockClient.connect(args[0])) {
            FileProcessor importer = importer(client, s3, args[5], db);
            while (!Thread.currentThread().isInterrupted()) {
                FilePass pass = importer.processPending();
                System.out.println("imported " + pass.processed() + ", "
                        + pass.alreadyDone().size() + " done before, "
                        + pass.claimedElsewhere().size() + " being imported elsewhere");
                TimeUnit.SECONDS.sleep(5); // the next look at the prefix
            }
        }
    }

    // snippet:importer
    /** One per pod: files under in/ are summed into out/, each exactly once across the pods. */
    static FileProcessor importer(LockClient client, S3Client s3, String bucket, DataSource db) {
        JdbcFence fence = JdbcFence.create(db);
        fence.createIfMissing();
        FileProcessor importer = FileProcessor.builder(
                        client,
                        s3,
                        FencedBucket.create(s3, S3FenceConfig.of(bucket)),
                        fence,
                        db,
                        (key, csv, token) -> summary(csv))
                .input(bucket, "in/")
                .outputPrefix("out/")
                .build();
        importer.createCompletionTableIfMissing();
        return importer;
    }
    // end:importer

    /** The sum of the second column of a CSV with a header line. */
    static byte[] summary(byte[] csv) {
        long sum = new String(csv, StandardCharsets.UTF_8)
                .lines()
                .skip(1)
                .filter(l -> !l.isBlank())
                .mapToLong(l -> Long.parseLong(l.split(",")[1].strip()))
                .sum();
        return ("total," + sum + "\n").getBytes(StandardCharsets.UTF_8);
    }
}
