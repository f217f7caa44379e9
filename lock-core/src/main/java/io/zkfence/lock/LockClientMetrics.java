package io.zkfence.lock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for one {@link LockClient}: acquire latency, wait and hold times, grants,
 * timeouts, leases lost by cause, SUSPECT moves, wake-ups, waiters and queue depth, forced
 * releases. docs/operations.md ("Metrics") lists every meter with its type, tags and meaning.
 *
 * <pre>{@code
 * LockClientMetrics.of(client).bindTo(registry);                       // no lock-name tag
 * LockClientMetrics.builder(client)
 *         .lockTag(name -> name.substring(0, name.indexOf(':')))       // "inventory:sku:123" -> "inventory"
 *         .build().bindTo(registry);
 * }</pre>
 *
 * <p><b>Micrometer is optional.</b> lock-core declares it optional: only this class refers to it,
 * and nothing in lock-core loads this class, so an application without Micrometer never does.
 * Events reach the meters through an internal observer the client calls where the event
 * happens; a client without a binder pays one empty-list check per event.
 *
 * <p><b>Cardinality.</b> Every meter carries {@code owner} (the client's
 * {@link LockClientConfig#ownerId() ownerId}, one value per client). Lock names are unbounded
 * (one per SKU, per tenant, per job run), so by default no meter carries them. A
 * {@linkplain Builder#lockTag lock tag} is opt-in and takes a function: map names to a bounded
 * set of groups (a prefix, a job type), never the whole name of an unbounded family. Gauges
 * ({@code zkfence.lock.held}, {@code .waiters}, {@code .queue.depth}) are per client only.
 *
 * <p><b>Cohort mode.</b> The meters count ZooKeeper grants: one cohort node is one grant, one
 * hold and one acquire latency however many threads take turns under it (unlike
 * {@link LockStats#grants()}, which also counts the turns).
 *
 * <p>Bind it to as many registries as you like. A client is bound to one registry once: a second
 * bind to the same registry (by this binder or another, whatever its settings) is ignored.
 */
public final class LockClientMetrics implements MeterBinder {

    private final LockClient client;
    private final Function<String, String> lockTag;
    private final boolean percentileHistogram;

    private LockClientMetrics(Builder b) {
        this.client = b.client;
        this.lockTag = b.lockTag;
        this.percentileHistogram = b.percentileHistogram;
    }

    /** The meters with defaults: no lock-name tag, percentile histograms on the timers. */
    public static LockClientMetrics of(LockClient client) {
        return builder(client).build();
    }

    /** A builder for {@code client}'s meters. */
    public static Builder builder(LockClient client) {
        return new Builder(client);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        if (!client.runtime().observers.bind(registry)) {
            return; // bound to this registry already (by this binder or another)
        }
        Tags owner = Tags.of("owner", client.config().ownerId());
        LockRuntime rt = client.runtime();
        gauge(
                registry,
                owner,
                "zkfence.lock.held",
                "leases this client holds now",
                c -> c.runtime().registry.grants().size());
        gauge(
                registry,
                owner,
                "zkfence.lock.waiters",
                "acquire calls of this client queued behind another holder now",
                c -> c.runtime().registry.acquisitions().stream()
                        .filter(Acquisition::isWaiting)
                        .count());
        gauge(
                registry,
                owner,
                "zkfence.lock.queue.depth",
                "the longest queue (holder and waiters) among the locks this client waits on, as last read; 0 when"
                        + " it waits on none",
                c -> c.runtime().registry.acquisitions().stream()
                        .filter(Acquisition::isWaiting)
                        .mapToInt(Acquisition::queueLength)
                        .max()
                        .orElse(0));
        statsCounter(
                registry, owner, "zkfence.lock.releases", "grants released by their holder", rt, s -> s.releases.sum());
        statsCounter(
                registry,
                owner,
                "zkfence.zk.creates",
                "queue-node creates sent, retries included",
                rt,
                s -> s.creates.sum());
        statsCounter(
                registry,
                owner,
                "zkfence.zk.children.reads",
                "reads of a lock's child list",
                rt,
                s -> s.childrenReads.sum());
        statsCounter(
                registry,
                owner,
                "zkfence.zk.queue.checks",
                "single-znode reads woken waiters of long queues sent instead of a child list",
                rt,
                s -> s.queueChecks.sum());
        rt.observers.add(new Recorder(registry, owner));
    }

    private void gauge(
            MeterRegistry registry, Tags owner, String name, String description, ToDoubleFunction<LockClient> value) {
        Gauge.builder(name, client, value).description(description).tags(owner).register(registry);
    }

    private static void statsCounter(
            MeterRegistry registry,
            Tags owner,
            String name,
            String description,
            LockRuntime rt,
            ToDoubleFunction<StatsRecorder> value) {
        FunctionCounter.builder(name, rt.stats, value)
                .description(description)
                .tags(owner)
                .register(registry);
    }

    /** The event meters of one (registry, lock tag value). */
    private final class Meters {
        final Timer acquire;
        final Timer wait;
        final Timer holdReleased;
        final Timer holdLost;
        final Counter grants;
        final Counter timeouts;
        final Counter suspect;
        final Counter wakeUps;
        final Map<LockObserver.LossCause, Counter> lost = new EnumMap<>(LockObserver.LossCause.class);
        final Map<ForcedRelease.Outcome, Counter> forced = new EnumMap<>(ForcedRelease.Outcome.class);

        Meters(MeterRegistry registry, Tags tags) {
            acquire = timer(
                    registry,
                    tags,
                    "zkfence.lock.acquire",
                    "from the acquire call's first request to the grant",
                    Duration.ofMinutes(1));
            wait = timer(
                    registry,
                    tags,
                    "zkfence.lock.wait",
                    "time queued behind another holder, for grants that waited",
                    Duration.ofMinutes(1));
            holdReleased = timer(
                    registry,
                    tags.and("end", "released"),
                    "zkfence.lock.hold",
                    "from the grant to its end",
                    Duration.ofMinutes(10));
            holdLost = timer(
                    registry,
                    tags.and("end", "lost"),
                    "zkfence.lock.hold",
                    "from the grant to its end",
                    Duration.ofMinutes(10));
            grants =
                    counter(registry, tags, "zkfence.lock.grants", "locks granted (queue nodes that reached the head)");
            timeouts = counter(registry, tags, "zkfence.lock.timeouts", "acquire calls that timed out");
            suspect = counter(
                    registry, tags, "zkfence.lease.suspect", "leases moved HELD -> SUSPECT (connection suspended)");
            wakeUps = counter(
                    registry,
                    tags,
                    "zkfence.lock.wakeups",
                    "watch events on a predecessor delivered to this client's waiters");
            for (LockObserver.LossCause cause : LockObserver.LossCause.values()) {
                lost.put(
                        cause,
                        counter(
                                registry,
                                tags.and("cause", cause.tag),
                                "zkfence.lease.lost",
                                "leases that ended LOST, by cause"));
            }
            for (ForcedRelease.Outcome outcome : ForcedRelease.Outcome.values()) {
                forced.put(
                        outcome,
                        counter(
                                registry,
                                tags.and("outcome", outcome.name().toLowerCase(Locale.ROOT)),
                                "zkfence.admin.force.releases",
                                "forced releases through this client's LockAdmin, by outcome"));
            }
        }

        private Timer timer(MeterRegistry registry, Tags tags, String name, String description, Duration max) {
            return Timer.builder(name)
                    .description(description)
                    .tags(tags)
                    .publishPercentileHistogram(percentileHistogram)
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(max)
                    .register(registry);
        }

        private static Counter counter(MeterRegistry registry, Tags tags, String name, String description) {
            return Counter.builder(name).description(description).tags(tags).register(registry);
        }
    }

    /** Turns the client's events into meter updates for one registry. */
    private final class Recorder implements LockObserver {

        private final MeterRegistry registry;
        private final Tags owner;
        /** Without a lock tag: registered up front, so every series exists from zero. */
        private final Meters untagged;

        private final ConcurrentHashMap<String, Meters> byLock = new ConcurrentHashMap<>();

        Recorder(MeterRegistry registry, Tags owner) {
            this.registry = registry;
            this.owner = owner;
            this.untagged = lockTag == null ? new Meters(registry, owner) : null;
        }

        private Meters meters(String lockName) {
            if (untagged != null) {
                return untagged;
            }
            String group = Objects.requireNonNull(
                    lockTag.apply(lockName), () -> "the lock tag function returned null for lock '" + lockName + "'");
            Meters m = byLock.get(group);
            return m != null ? m : byLock.computeIfAbsent(group, g -> new Meters(registry, owner.and("lock", g)));
        }

        @Override
        public void granted(String lockName, long acquireNanos, long waitNanos) {
            Meters m = meters(lockName);
            m.grants.increment();
            m.acquire.record(acquireNanos, TimeUnit.NANOSECONDS);
            if (waitNanos >= 0) {
                m.wait.record(waitNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void timedOut(String lockName, long waitedNanos) {
            meters(lockName).timeouts.increment();
        }

        @Override
        public void suspected(String lockName) {
            meters(lockName).suspect.increment();
        }

        @Override
        public void ended(String lockName, long heldNanos, LeaseState end, LossCause cause) {
            Meters m = meters(lockName);
            if (end == LeaseState.LOST) {
                m.holdLost.record(heldNanos, TimeUnit.NANOSECONDS);
                m.lost.get(cause == null ? LossCause.OTHER : cause).increment();
            } else {
                m.holdReleased.record(heldNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void wokeUp(String lockName) {
            meters(lockName).wakeUps.increment();
        }

        @Override
        public void forceReleased(String lockName, ForcedRelease.Outcome outcome) {
            meters(lockName).forced.get(outcome).increment();
        }
    }

    /** Settings of {@link LockClientMetrics}. */
    public static final class Builder {
        private final LockClient client;
        private Function<String, String> lockTag;
        private boolean percentileHistogram = true;

        private Builder(LockClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /**
         * Tags every event meter with {@code lock} = {@code group.apply(lockName)}. Default: no
         * lock tag. Each distinct value is a set of time series in your monitoring system for as
         * long as it keeps them, so return a small, bounded set of values: a prefix, a job type.
         * Returning the name itself is only safe for a fixed, small set of lock names.
         *
         * @param group maps a lock name to its tag value; must not return null
         */
        public Builder lockTag(Function<String, String> group) {
            this.lockTag = Objects.requireNonNull(group, "group");
            return this;
        }

        /**
         * Whether the timers publish a percentile histogram (for Prometheus's
         * {@code histogram_quantile}; about 70 buckets per timer series). Default: true.
         */
        public Builder percentileHistogram(boolean publish) {
            this.percentileHistogram = publish;
            return this;
        }

        /** The binder; bind it with {@link LockClientMetrics#bindTo(MeterRegistry)}. */
        public LockClientMetrics build() {
            return new LockClientMetrics(this);
        }
    }
}
