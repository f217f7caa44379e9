package io.zkfence.recipes.files;

import io.zkfence.fencing.StaleTokenException;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.s3.FencedBucket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Files processed exactly once by several workers watching one S3 prefix. Each pass lists the
 * prefix and, for every file without a completion record, claims it with a lock named after it
 * ({@code file:process:<key>}, a try: a file another worker holds is skipped, so one slow file
 * never blocks the others), processes it, writes the output object fenced with the claim's token
 * (fencing-s3) and records completion in a fenced unit of work (fencing-jdbc), then releases.
 *
 * <p>A claim whose lease ended mid-file (a pause, a partition) is taken over by another worker;
 * when the paused one wakes up, its output and its completion record carry the older token and
 * the fences reject both: its late result is never mixed in. Output keys are the input key under
 * the output prefix, so each file has one output object, written last by the newest claim, and
 * one completion row.
 *
 * <p>Thread-safe; run one per worker (process), each with its own {@link LockClient}.
 */
public final class FileProcessor {

    private static final Logger log = LoggerFactory.getLogger(FileProcessor.class);
    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
    private static final String LOCK_PREFIX = "file:process:";
    private static final int MAX_LOCK_NAME_BYTES = 256;

    private final LockClient locks;
    private final S3Client s3;
    private final FencedBucket output;
    private final JdbcFence fence;
    private final DataSource database;
    private final String inputBucket;
    private final String inputPrefix;
    private final String outputPrefix;
    private final String table;
    private final Duration maxHold;
    private final FileTask task;

    private FileProcessor(Builder b) {
        this.locks = b.locks;
        this.s3 = b.s3;
        this.output = b.output;
        this.fence = b.fence;
        this.database = b.database;
        this.inputBucket = b.inputBucket;
        this.inputPrefix = b.inputPrefix;
        this.outputPrefix = b.outputPrefix;
        this.table = b.table;
        this.maxHold = b.maxHold;
        this.task = b.task;
    }

    /**
     * A processor. {@code output} writes the outputs (fenced); {@code fence} and {@code database}
     * record completions (the same database; the completion table lives beside the fence table).
     */
    public static Builder builder(
            LockClient locks, S3Client s3, FencedBucket output, JdbcFence fence, DataSource database, FileTask task) {
        return new Builder(locks, s3, output, fence, database, task);
    }

    /**
     * Creates the completion table if it does not exist (plain SQL; PostgreSQL, MariaDB and H2).
     * The fence table is the {@link JdbcFence}'s: create it with {@link JdbcFence#createIfMissing()}.
     */
    public void createCompletionTableIfMissing() {
        try (Connection c = database.getConnection();
                Statement s = c.createStatement()) {
            s.execute("create table if not exists " + table
                    + " (file_key varchar(1024) primary key, token bigint not null,"
                    + " output_key varchar(1100) not null, done_at timestamp default current_timestamp not null)");
        } catch (SQLException e) {
            throw new IllegalStateException("creating completion table " + table + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * One pass over the input prefix: every file without a completion record that no other worker
     * holds is processed here. Returns what happened to each file.
     */
    public FilePass processPending() {
        List<String> processed = new ArrayList<>();
        List<String> alreadyDone = new ArrayList<>();
        List<String> elsewhere = new ArrayList<>();
        List<String> lost = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (String key : inputKeys()) {
            if (done(key)) {
                alreadyDone.add(key);
                continue;
            }
            Optional<Lease> claim = lockFor(key).tryAcquire();
            if (claim.isEmpty()) {
                elsewhere.add(key);
                continue;
            }
            try (Lease lease = claim.get()) {
                if (done(key)) { // done by another worker between our check and our claim
                    alreadyDone.add(key);
                    continue;
                }
                byte[] result;
                try {
                    result = task.process(
                            key,
                            s3.getObjectAsBytes(b -> b.bucket(inputBucket).key(key))
                                    .asByteArray(),
                            lease.token());
                } catch (RuntimeException e) {
                    log.warn("processing {} failed; it stays for the next pass", key, e);
                    failed.add(key);
                    continue;
                }
                if (write(key, lease.token(), result)) {
                    processed.add(key);
                } else {
                    lost.add(key);
                }
            }
        }
        return new FilePass(processed, alreadyDone, elsewhere, lost, failed);
    }

    /** Output, then the completion record, both fenced; false if a newer claim's token turned them away. */
    private boolean write(String key, long token, byte[] result) {
        String outputKey = outputPrefix + key;
        try {
            output.put(outputKey, token, RequestBody.fromBytes(result));
            fence.inTransaction(fenceKey(key), token, connection -> {
                // Replaces a record an older claim made in the window before this one's output (the
                // fence admits this token, so it is the newest): the row names the output's token.
                try (PreparedStatement del =
                        connection.prepareStatement("delete from " + table + " where file_key = ?")) {
                    del.setString(1, key);
                    del.executeUpdate();
                }
                try (PreparedStatement ins = connection.prepareStatement(
                        "insert into " + table + " (file_key, token, output_key) values (?, ?, ?)")) {
                    ins.setString(1, key);
                    ins.setLong(2, token);
                    ins.setString(3, outputKey);
                    return ins.executeUpdate();
                }
            });
            return true;
        } catch (StaleTokenException newer) {
            log.warn(
                    "file {}: a newer claim (token {}) got there first; this worker's late result (token {}) was"
                            + " rejected by the fence",
                    key,
                    newer.storedToken(),
                    token);
            return false;
        }
    }

    private boolean done(String key) {
        try (Connection c = database.getConnection();
                PreparedStatement q = c.prepareStatement("select 1 from " + table + " where file_key = ?")) {
            q.setString(1, key);
            try (ResultSet rs = q.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading completion table " + table + " failed: " + e.getMessage(), e);
        }
    }

    private List<String> inputKeys() {
        List<String> keys = new ArrayList<>();
        s3.listObjectsV2Paginator(b -> b.bucket(inputBucket).prefix(inputPrefix)).contents().stream()
                .map(S3Object::key)
                .filter(k -> !k.endsWith("/"))
                .forEach(keys::add);
        return keys;
    }

    private FencedLock lockFor(String key) {
        FencedLock lock =
                locks.lock(shortened(LOCK_PREFIX, key, MAX_LOCK_NAME_BYTES)).nonReentrant();
        return maxHold == null ? lock : lock.withMaxHold(maxHold);
    }

    private static String fenceKey(String key) {
        return shortened("file:", key, JdbcFence.MAX_KEY_LENGTH);
    }

    /** {@code prefix + key}, or {@code prefix + "sha256:" + digest} when that would be too long. */
    static String shortened(String prefix, String key, int maxBytes) {
        String plain = prefix + key;
        if (plain.getBytes(StandardCharsets.UTF_8).length <= maxBytes
                && plain.chars().noneMatch(Character::isISOControl)) {
            return plain;
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return prefix + "sha256:" + HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** Settings of a {@link FileProcessor}. */
    public static final class Builder {
        private final LockClient locks;
        private final S3Client s3;
        private final FencedBucket output;
        private final JdbcFence fence;
        private final DataSource database;
        private final FileTask task;
        private String inputBucket;
        private String inputPrefix = "";
        private String outputPrefix;
        private String table = "zkfence_file_done";
        private Duration maxHold;

        private Builder(
                LockClient locks,
                S3Client s3,
                FencedBucket output,
                JdbcFence fence,
                DataSource database,
                FileTask task) {
            this.locks = Objects.requireNonNull(locks, "locks");
            this.s3 = Objects.requireNonNull(s3, "s3");
            this.output = Objects.requireNonNull(output, "output");
            this.fence = Objects.requireNonNull(fence, "fence");
            this.database = Objects.requireNonNull(database, "database");
            this.task = Objects.requireNonNull(task, "task");
        }

        /** The bucket and prefix to watch (required bucket; prefix default: the whole bucket). */
        public Builder input(String bucket, String prefix) {
            this.inputBucket = bucket;
            this.inputPrefix = prefix;
            return this;
        }

        /** Outputs go to the output bucket under this prefix, at the input's key (required). */
        public Builder outputPrefix(String prefix) {
            this.outputPrefix = prefix;
            return this;
        }

        /** The completion table (default {@code zkfence_file_done}). */
        public Builder completionTable(String table) {
            this.table = table;
            return this;
        }

        /** A max-hold on each claim: a task that hangs longer loses its claim (default: none). */
        public Builder maxHold(Duration maxHold) {
            this.maxHold = maxHold;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the setting that is missing or invalid
         */
        public FileProcessor build() {
            if (inputBucket == null || inputBucket.isBlank()) {
                throw new IllegalArgumentException("input bucket is required (input(bucket, prefix))");
            }
            Objects.requireNonNull(inputPrefix, "input prefix");
            if (outputPrefix == null || outputPrefix.isEmpty()) {
                throw new IllegalArgumentException(
                        "outputPrefix is required and must not be empty (outputs must not" + " land on the inputs)");
            }
            if (output.config().bucket().equals(inputBucket) && outputPrefix.startsWith(inputPrefix)) {
                throw new IllegalArgumentException(
                        "outputPrefix \"" + outputPrefix + "\" lies under the input prefix \"" + inputPrefix
                                + "\" of the same bucket: outputs would be processed as inputs");
            }
            if (table == null || !TABLE.matcher(table).matches()) {
                throw new IllegalArgumentException("completionTable must be a plain SQL identifier (letters, digits,"
                        + " _; at most 63), was " + table);
            }
            if (maxHold != null && (maxHold.isNegative() || maxHold.isZero())) {
                throw new IllegalArgumentException("maxHold must be positive, was " + maxHold);
            }
            return new FileProcessor(this);
        }
    }
}
