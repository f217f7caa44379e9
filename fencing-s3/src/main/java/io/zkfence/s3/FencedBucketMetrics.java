package io.zkfence.s3;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.zkfence.fencing.internal.FenceObserver;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Micrometer meters for one {@link FencedBucket}, all tagged {@code adapter=s3} and
 * {@code resource} (the bucket; the tag keys of {@code zkfence.fence.writes} are fencing-jdbc's, as
 * Prometheus requires of one name): {@code zkfence.fence.writes} by {@code operation} (the S3 operation) and
 * {@code outcome} ({@code accepted}, {@code stale}, {@code conflict}: every attempt lost its race,
 * {@link FenceContentionException}); {@code zkfence.fence.races} (conditional requests that lost a
 * race against an equal or lower token and were retried or, past the limit, ended in
 * {@code conflict}); {@code zkfence.fence.selfcheck.failures} by {@code check} (put,
 * complete_multipart, delete: the store ignored that precondition, so requests of that kind are
 * refused). docs/operations.md ("Metrics") lists them. Object keys are never a tag: they are
 * unbounded.
 *
 * <pre>{@code
 * FencedBucketMetrics.of(bucket).bindTo(registry);
 * }</pre>
 *
 * <p>Micrometer is an optional dependency of fencing-s3: only this class refers to it and
 * nothing else loads it. A second bind to a registry already bound (by any binder) is ignored.
 */
public final class FencedBucketMetrics implements MeterBinder {

    private static final List<String> OPERATIONS =
            List.of("PutObject", "DeleteObject", "CompleteMultipartUpload", "CreateMultipartUpload");
    private static final List<String> CHECKS = List.of("put", "complete_multipart", "delete");

    private final FencedBucket bucket;

    private FencedBucketMetrics(FencedBucket bucket) {
        this.bucket = Objects.requireNonNull(bucket, "bucket");
    }

    /** The binder for {@code bucket}. */
    public static FencedBucketMetrics of(FencedBucket bucket) {
        return new FencedBucketMetrics(bucket);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        if (!bucket.observers.bind(registry)) {
            return; // bound to this registry already (by this binder or another)
        }
        Tags base = Tags.of("adapter", "s3", "resource", bucket.config().bucket());
        Recorder recorder = new Recorder(registry, base);
        // Every series from zero, so rate() and alerts see them before the first event.
        for (String operation : OPERATIONS) {
            recorder.writes(operation, "accepted");
            recorder.writes(operation, "stale");
            recorder.writes(operation, "conflict");
            recorder.races(operation);
        }
        for (String check : CHECKS) {
            recorder.selfCheck(check);
        }
        bucket.observers.add(recorder);
    }

    private static final class Recorder implements FenceObserver {
        private final MeterRegistry registry;
        private final Tags base;
        private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();

        Recorder(MeterRegistry registry, Tags base) {
            this.registry = registry;
            this.base = base;
        }

        Counter writes(String operation, String outcome) {
            return counters.computeIfAbsent(
                    "writes/" + operation + "/" + outcome,
                    k -> Counter.builder("zkfence.fence.writes")
                            .description(
                                    "fenced requests by outcome: accepted, stale (token rejected), conflict (retryable)")
                            .tags(base.and("operation", operation, "outcome", outcome))
                            .register(registry));
        }

        Counter races(String operation) {
            return counters.computeIfAbsent(
                    "races/" + operation,
                    k -> Counter.builder("zkfence.fence.races")
                            .description("conditional requests that lost a race against an equal or lower token")
                            .tags(base.and("operation", operation))
                            .register(registry));
        }

        Counter selfCheck(String check) {
            return counters.computeIfAbsent(
                    "selfcheck/" + check,
                    k -> Counter.builder("zkfence.fence.selfcheck.failures")
                            .description("self-checks that found the store ignores a precondition")
                            .tags(base.and("check", check))
                            .register(registry));
        }

        @Override
        public void accepted(String operation) {
            writes(operation, "accepted").increment();
        }

        @Override
        public void rejectedStale(String operation) {
            writes(operation, "stale").increment();
        }

        @Override
        public void lostRace(String operation) {
            races(operation).increment();
        }

        @Override
        public void conflict(String operation) {
            writes(operation, "conflict").increment();
        }

        @Override
        public void selfCheckFailed(String check) {
            selfCheck(check).increment();
        }
    }
}
