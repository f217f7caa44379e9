package io.zkfence.samples.operations;

import io.micrometer.core.instrument.MeterRegistry;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcFenceMetrics;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientMetrics;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.FencedBucketMetrics;

/** docs/operations.md, "Metrics": zkfence's meters on an application's Micrometer registry. */
public final class Metrics {

    private Metrics() {}

    // snippet:bind
    /** The lock client's meters, and the fences' if the application has them (null: none). */
    public static void bind(MeterRegistry registry, LockClient locks, JdbcFence fence, FencedBucket bucket) {
        LockClientMetrics.of(locks).bindTo(registry); // no lock-name tag: names are unbounded
        if (fence != null) {
            JdbcFenceMetrics.of(fence).bindTo(registry);
        }
        if (bucket != null) {
            FencedBucketMetrics.of(bucket).bindTo(registry);
        }
    }
    // end:bind

    // snippet:lock-tag
    /** Opting in to a lock tag: "inventory:sku:123" is counted under lock="inventory". */
    public static void bindByFamily(MeterRegistry registry, LockClient locks) {
        LockClientMetrics.builder(locks)
                .lockTag(name -> name.contains(":") ? name.substring(0, name.indexOf(':')) : "other")
                .build()
                .bindTo(registry);
    }
    // end:lock-tag
}
