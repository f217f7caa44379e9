package io.zkfence.recipes.jobs;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A job that several replicas fire on the same schedule and exactly one of them runs per
 * occurrence. Immutable; built with {@link #builder(String)} and validated in
 * {@link Builder#build()}.
 *
 * <table>
 * <caption>Settings</caption>
 * <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@code name}</td><td>required</td><td>the job's name; each occurrence is held under
 *   the lock {@code <name>@<occurrence>}. Not blank, no control characters.</td></tr>
 * <tr><td>{@code holdAtLeast}</td><td>0</td><td>the winner keeps the occurrence at least this
 *   long after it started (began to try it), even if the task finished sooner, so a replica
 *   whose clock or scheduler is late finds it taken instead of running it again. 0 to 1 day.</td></tr>
 * <tr><td>{@code maxHold}</td><td>none</td><td>a run's lease is lost after this long (from the
 *   grant) unless the task {@linkplain io.zkfence.lock.Lease#renew() extends} it: the occurrence's lock is
 *   released and the task is told through {@code run.lease().checkValid()}. More than 0 and at most
 *   1 day; with a {@code holdAtLeast}, at least 1 s longer than it (see below).</td></tr>
 * <tr><td>{@code misfireThreshold}</td><td>none</td><td>for occurrences given as a scheduled
 *   time: a replica that gets to the occurrence later than this after its scheduled time skips
 *   it ({@link JobOutcome#MISFIRED}), because the winner may already have released it. At most
 *   {@code holdAtLeast}.</td></tr>
 * </table>
 *
 * <h2>When "exactly once per occurrence" holds</h2>
 *
 * <p>With a misfire threshold {@code D}, replicas' clocks within {@code s} of each other, and
 * {@code holdAtLeast >= D + 2s}: every replica that gets to the occurrence does so while the
 * winner still holds it, so exactly one replica starts the task — unless no replica gets to it
 * within {@code D}. Without a misfire threshold, a replica later than {@code holdAtLeast}
 * (plus the task's duration) after the winner may run the occurrence again. Either way a run
 * whose replica is paused past its session loses its lease mid-task and must be fenced at the
 * resource with {@link JobRun#token()}.
 *
 * <h2>Why max-hold must exceed hold-at-least by a margin</h2>
 *
 * <p>A run whose task finishes early is released by a timer when its hold-at-least ends, while
 * max-hold's timer ends the lease as LOST. Both clocks start at about the same moment (the
 * hold-at-least one a little earlier, when the replica begins to try the occurrence; the
 * max-hold one at the grant), and timers fire late on a busy machine. With the two settings
 * equal, or nearly so, max-hold would win the race and every run would end LOST instead of
 * RELEASED, reported as a lease lost while running. {@link Builder#build()} therefore requires
 * {@code maxHold >= holdAtLeast + 1 s} whenever {@code holdAtLeast} is set; without a
 * hold-at-least the release follows the task directly and no margin is needed.
 */
public final class RunOnceJob {

    private static final Duration MAX_HOLD = Duration.ofDays(1);
    /** How much longer than a non-zero hold-at-least max-hold must be; see the class comment. */
    static final Duration MIN_HOLD_MARGIN = Duration.ofSeconds(1);

    private final String name;
    private final Duration holdAtLeast;
    private final Duration maxHold;
    private final Duration misfireThreshold;

    private RunOnceJob(Builder b) {
        this.name = b.name;
        this.holdAtLeast = b.holdAtLeast;
        this.maxHold = b.maxHold;
        this.misfireThreshold = b.misfireThreshold;
    }

    /** A builder for the job called {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    public Duration holdAtLeast() {
        return holdAtLeast;
    }

    public Optional<Duration> maxHold() {
        return Optional.ofNullable(maxHold);
    }

    public Optional<Duration> misfireThreshold() {
        return Optional.ofNullable(misfireThreshold);
    }

    /** The lock an occurrence is held under: {@code <name>@<occurrence>}. */
    public String lockName(String occurrence) {
        return name + "@" + occurrence;
    }

    /** The lock the occurrence scheduled at {@code scheduledAt} is held under (ISO-8601, UTC). */
    public String lockName(Instant scheduledAt) {
        return lockName(scheduledAt.toString());
    }

    @Override
    public String toString() {
        return "RunOnceJob{" + name + ", holdAtLeast=" + holdAtLeast + (maxHold == null ? "" : ", maxHold=" + maxHold)
                + (misfireThreshold == null ? "" : ", misfireThreshold=" + misfireThreshold) + "}";
    }

    /** Builds a {@link RunOnceJob}. Not thread-safe. */
    public static final class Builder {

        private final String name;
        private Duration holdAtLeast = Duration.ZERO;
        private Duration maxHold;
        private Duration misfireThreshold;

        private Builder(String name) {
            this.name = name;
        }

        /** Keep each occurrence at least this long after its run started (began to try it). Default 0. */
        public Builder holdAtLeast(Duration holdAtLeast) {
            this.holdAtLeast = holdAtLeast;
            return this;
        }

        /**
         * Lose a run's lease after this long unless extended. Default: none. With a hold-at-least,
         * at least 1 s longer than it.
         */
        public Builder maxHold(Duration maxHold) {
            this.maxHold = maxHold;
            return this;
        }

        /** Skip a scheduled occurrence reached later than this after its time. Default: none. */
        public Builder misfireThreshold(Duration misfireThreshold) {
            this.misfireThreshold = misfireThreshold;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the setting and the rule it breaks
         */
        public RunOnceJob build() {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("job name must not be null or blank");
            }
            if (name.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException(
                        "job name must not contain control characters: \"" + name.strip() + "\"");
            }
            Objects.requireNonNull(holdAtLeast, "holdAtLeast must not be null");
            if (holdAtLeast.isNegative() || holdAtLeast.compareTo(MAX_HOLD) > 0) {
                throw new IllegalArgumentException(
                        "holdAtLeast must be between 0 and 1 day, was " + holdAtLeast + " (job '" + name + "')");
            }
            if (maxHold != null) {
                if (maxHold.isNegative() || maxHold.isZero() || maxHold.compareTo(MAX_HOLD) > 0) {
                    throw new IllegalArgumentException(
                            "maxHold must be more than 0 and at most 1 day, was " + maxHold + " (job '" + name + "')");
                }
                if (!holdAtLeast.isZero() && maxHold.compareTo(holdAtLeast.plus(MIN_HOLD_MARGIN)) < 0) {
                    throw new IllegalArgumentException("maxHold (" + maxHold + ") must be at least "
                            + MIN_HOLD_MARGIN.toSeconds() + " s longer than holdAtLeast (" + holdAtLeast
                            + "): a run that"
                            + " finishes early is released by a timer when holdAtLeast ends, while maxHold's timer, started"
                            + " at about the same moment, ends the lease as LOST; without a margin maxHold wins that race"
                            + " (timers fire late on a busy machine) and runs end LOST instead of RELEASED (job '"
                            + name
                            + "')");
                }
            }
            if (misfireThreshold != null) {
                if (misfireThreshold.isNegative() || misfireThreshold.isZero()) {
                    throw new IllegalArgumentException(
                            "misfireThreshold must be more than 0, was " + misfireThreshold + " (job '" + name + "')");
                }
                if (misfireThreshold.compareTo(holdAtLeast) > 0) {
                    throw new IllegalArgumentException(
                            "misfireThreshold (" + misfireThreshold + ") must not be longer than"
                                    + " holdAtLeast (" + holdAtLeast
                                    + "): a replica reaching the occurrence that late could find it"
                                    + " already released and run it again; set holdAtLeast >= misfireThreshold + 2 x the clock skew"
                                    + " between replicas (job '" + name + "')");
                }
            }
            return new RunOnceJob(this);
        }
    }
}
