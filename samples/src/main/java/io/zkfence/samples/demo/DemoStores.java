package io.zkfence.samples.demo;

import io.zkfence.jdbc.JdbcFence;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Puts the demo's data back to its starting point before the story: stock 10, no objects, no fence. */
final class DemoStores {

    private DemoStores() {}

    static void reset(DataSource pool, JdbcFence fence, S3Client s3, String bucket, boolean createBucket) {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            Inventory.reset(c);
            // Tokens of an earlier run may come from another ensemble (each embedded run starts a new
            // one, whose zxids start low again), so the demo's fence starts empty every time.
            s.execute("drop table if exists " + Inventory.FENCE_TABLE);
        } catch (SQLException e) {
            throw new StoryFailedException("cannot set up the demo's tables in PostgreSQL: " + e.getMessage(), e);
        }
        fence.createIfMissing();
        try {
            if (createBucket) {
                s3.createBucket(b -> b.bucket(bucket));
            } else {
                s3.headBucket(b -> b.bucket(bucket));
            }
            for (Inventory.Copy copy : Inventory.Copy.values()) {
                s3.deleteObject(b -> b.bucket(bucket).key(copy.objectKey));
            }
        } catch (NoSuchBucketException e) {
            throw new StoryFailedException(
                    "bucket '" + bucket + "' does not exist; the demo does not create buckets on"
                            + " real infrastructure",
                    e);
        } catch (S3Exception e) {
            throw new StoryFailedException(
                    "cannot set up the demo's objects in bucket '" + bucket + "': HTTP " + e.statusCode() + " "
                            + e.getMessage(),
                    e);
        }
    }
}
