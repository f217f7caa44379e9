package io.zkfence.campaigns.service;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The replicas' clocks: the skews the campaign applied (libfaketime, {@link ServiceFaults.Skew}),
 * each measured from the skewed replica's own answers, and the one allowance the strict checks
 * give for them.
 *
 * <p>Why skew is the only allowance. A replica answers a lease valid for {@code validForMillis}
 * counted from the request's arrival, by its own clock against the entry's {@code expiresAt}: the
 * holder's deadline (send time plus {@code validForMillis}) is at most {@code expiresAt − dY} in
 * true time, where {@code dY} is the answering replica's offset. Any replica J ends the lease when
 * its own clock passes {@code expiresAt}, at {@code expiresAt − dJ}. So a lease can end before its
 * answered validity by at most {@code dJ − dY}: the largest offset of any replica at the time less
 * the answering replica's (docs/server.md: skew moves when a lease ends, by the skew). Without a
 * skewed replica that is 0, and what is left is measurement: millisecond clocks read in separate
 * processes ({@link #MEASUREMENT_MILLIS}).
 *
 * <p>Measured: each 200 a skewed replica answered (a grant or a renewal) carries the lease's end on
 * its clock ({@code expiresAt}) and the validity counted from the request's arrival
 * ({@code validForMillis}): their difference is the arrival on its clock, against the campaign's
 * clock halfway through the call. The median of those is the offset the checks use, with half the
 * median call's duration as its uncertainty (the applied offset when it answered too few calls to
 * measure). Not {@code expiresAt} less the TTL: a renewal keeps a later expiry written by another
 * replica's clock, and a retried acquire answers the lease as it stands, so that measured a clock
 * behind as up to the other clock's offset (a replica 5 s behind measured at +964 ms).
 */
final class Clocks {

    /** Clocks read to the millisecond in separate processes on one machine: what a bound needs beyond the skew. */
    static final long MEASUREMENT_MILLIS = 5;

    /** How many answers a skew needs to be measured rather than taken as applied. */
    static final int MEASURED_FROM = 3;

    /**
     * One skew window.
     *
     * @param applied     the offset libfaketime was given (ms)
     * @param measured    the median of what its answers showed, or null if too few
     * @param samples     how many answers were measured
     * @param low         the lowest measurement (0 if none)
     * @param high        the highest (0 if none)
     * @param uncertainty half the median duration of the measured calls (0 for an applied offset)
     */
    record Window(
            String replica,
            long from,
            long to,
            long applied,
            Long measured,
            int samples,
            long low,
            long high,
            long uncertainty) {

        /** The offset the checks use: measured when it could be, else applied. */
        long offset() {
            return measured != null ? measured : applied;
        }
    }

    private final List<Window> windows;

    private Clocks(List<Window> windows) {
        this.windows = windows;
    }

    /** No skew at all: every replica on the machine's clock. */
    static Clocks none() {
        return new Clocks(List.of());
    }

    /** The skews, each measured from the logged answers of its replica while it ran skewed. */
    static Clocks of(ServiceLog.Logs logs, List<ServiceFaults.Skew> skews) {
        List<Window> out = new ArrayList<>();
        for (ServiceFaults.Skew s : skews) {
            List<ServiceLog.Call> answered = logs.calls().stream()
                    .filter(c -> ("acquire".equals(c.op()) || "renew".equals(c.op()))
                            && c.status() == 200
                            && c.validFor() >= 0
                            && c.replica().equals(s.replica())
                            && c.sentAt() >= s.fromMillis()
                            && c.doneAt() <= s.toMillis()
                            && c.doneAt() - c.sentAt() < 500)
                    .toList();
            List<Long> offsets = answered.stream()
                    .map(c -> arrivalOnReplica(c) - (c.sentAt() + c.doneAt()) / 2)
                    .sorted()
                    .toList();
            List<Long> halfDurations = answered.stream()
                    .map(c -> (c.doneAt() - c.sentAt() + 1) / 2)
                    .sorted()
                    .toList();
            boolean measured = offsets.size() >= MEASURED_FROM;
            out.add(new Window(
                    s.replica(),
                    s.fromMillis(),
                    s.toMillis(),
                    s.offsetMillis(),
                    measured ? offsets.get(offsets.size() / 2) : null,
                    offsets.size(),
                    offsets.isEmpty() ? 0 : offsets.getFirst(),
                    offsets.isEmpty() ? 0 : offsets.getLast(),
                    measured ? Math.max(1, halfDurations.get(halfDurations.size() / 2)) : 0));
        }
        return new Clocks(out);
    }

    /**
     * When the call's request arrived, by the answering replica's clock: a 200 says the lease's end
     * on that clock ({@code expiresAt}) and how long it lasts from the request's arrival
     * ({@code validForMillis}), so their difference is the arrival on that clock, whatever clock
     * wrote the expiry (a renewal keeps a later expiry another replica wrote; a retried acquire
     * answers the lease as it stands).
     */
    private static long arrivalOnReplica(ServiceLog.Call c) {
        return c.expiresAt() - c.validFor();
    }

    List<Window> windows() {
        return windows;
    }

    /** The offset {@code replica} ran with at {@code at} (0 outside its skew windows). */
    long offsetOf(String replica, long at) {
        Window w = windowOf(replica, at);
        return w == null ? 0 : w.offset();
    }

    private Window windowOf(String replica, long at) {
        for (Window w : windows) {
            if (w.replica().equals(replica) && w.from() <= at && at <= w.to()) {
                return w;
            }
        }
        return null;
    }

    /** The largest offset any replica ran with at some moment of [from, to] (0: an unskewed one). */
    long maxOffset(long from, long to) {
        long max = 0;
        for (Window w : windows) {
            if (w.from() <= to && w.to() >= from) {
                max = Math.max(max, w.offset() + w.uncertainty());
            }
        }
        return max;
    }

    /** The smallest offset any replica ran with at some moment of [from, to] (0: an unskewed one). */
    long minOffset(long from, long to) {
        long min = 0;
        for (Window w : windows) {
            if (w.from() <= to && w.to() >= from) {
                min = Math.min(min, w.offset() - w.uncertainty());
            }
        }
        return min;
    }

    /**
     * How much earlier than its answered validity a lease may end because of clock skew: the largest
     * offset any replica ran with in [from, to] (a replica that may have ended it then) less the
     * offset of the clock that answered {@code answered} ({@link #answeredBy}); and the
     * measurement's few milliseconds.
     */
    long allowance(AnsweredLeases.Answer answered, long from, long to) {
        return allowanceBelow(
                answeredBy(answered), Math.min(from, answered.heardAt()), Math.max(to, answered.heardAt()));
    }

    /**
     * {@link #allowance} for a lease whose {@code expiresAt} was written by several replicas (its
     * grant's, then each renewal's): the lowest of their offsets, {@link #lowestOffset}, set how
     * early by true time the lease could end.
     */
    long allowanceBelow(long lowestOffset, long from, long to) {
        return Math.max(0, maxOffset(from, to) - lowestOffset) + MEASUREMENT_MILLIS;
    }

    /**
     * The lowest offset, less its uncertainty, of the clocks that answered {@code writers}
     * ({@link #answeredBy}): the clock that put a lease's {@code expiresAt} earliest in true time. A
     * renewal answered by an unskewed replica after a grant by one running ahead moves
     * {@code expiresAt} to a lower number: by a replica ahead of the renewer, the lease then ends up
     * to the difference before the grant's answered validity.
     */
    long lowestOffset(Collection<AnsweredLeases.Answer> writers) {
        long min = Long.MAX_VALUE;
        for (AnsweredLeases.Answer a : writers) {
            min = Math.min(min, answeredBy(a));
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    /**
     * The lowest offset, less its uncertainty, that {@code replica} ran with at some moment of
     * [{@code from}, {@code to}] (0 if it ran unskewed for part of it): the clock of a call whose
     * answer does not say which clock made it (a cancelled hedged copy, a lost answer), taken, like
     * {@link #lowestOffset}, as the one that puts an expiry it wrote latest in true time.
     */
    long lowestWhileOut(String replica, long from, long to) {
        long min = Long.MAX_VALUE;
        boolean coveredByOne = false;
        for (Window w : windows) {
            if (w.replica().equals(replica) && w.from() <= to && w.to() >= from) {
                min = Math.min(min, w.offset() - w.uncertainty());
                coveredByOne |= w.from() <= from && to <= w.to();
            }
        }
        return coveredByOne ? min : Math.min(min, 0);
    }

    /** The offset of the clock that answered {@code a} ({@link #answeredBy}, without its uncertainty), for the report. */
    long answeringOffset(AnsweredLeases.Answer a) {
        Window w = answeringWindow(a);
        return w == null ? 0 : w.offset();
    }

    /**
     * The offset, less its uncertainty, of the clock that answered {@code a}. Not simply the one
     * its replica ran with when the answer was heard: a skew window starts when the replica is
     * restarted under libfaketime, and an answer the process before made (unskewed) may be heard
     * after that, held by a proxy on its way. So every clock its replica ran with while the call
     * was out is a candidate, and the answer itself says which it was: its {@code expiresAt} less
     * its {@code validForMillis} is the request's arrival on that clock, which lies between the
     * send and the answer shifted by the clock's offset. Of the candidates that fit, the lowest
     * (the one that puts the answered end latest in true time); the clock at the answer when none
     * fits or the answer does not say.
     */
    long answeredBy(AnsweredLeases.Answer a) {
        Window w = answeringWindow(a);
        return w == null ? 0 : w.offset() - w.uncertainty();
    }

    /** The window of the clock that answered {@code a} ({@link #answeredBy}); null for the unskewed clock. */
    private Window answeringWindow(AnsweredLeases.Answer a) {
        Window atAnswer = windowOf(a.replica(), a.heardAt());
        if (a.arrival() == AnsweredLeases.Answer.UNKNOWN) {
            return atAnswer;
        }
        List<Window> candidates = new ArrayList<>();
        boolean coveredByOne = false;
        for (Window w : windows) {
            if (w.replica().equals(a.replica()) && w.from() <= a.heardAt() && w.to() >= a.sentAt()) {
                candidates.add(w);
                coveredByOne |= w.from() <= a.sentAt() && a.heardAt() <= w.to();
            }
        }
        if (!coveredByOne) {
            candidates.add(null); // the replica ran unskewed for part of the call
        }
        Window best = atAnswer;
        long bestLow = Long.MAX_VALUE;
        for (Window w : candidates) {
            long offset = w == null ? 0 : w.offset();
            long uncertainty = w == null ? 0 : w.uncertainty();
            long slack = uncertainty + MEASUREMENT_MILLIS;
            boolean fits = a.sentAt() + offset - slack <= a.arrival() && a.arrival() <= a.heardAt() + offset + slack;
            if (fits && offset - uncertainty < bestLow) {
                best = w;
                bestLow = offset - uncertainty;
            }
        }
        return best;
    }

    /** One line per skew, for the report: what libfaketime was given and what the answers showed. */
    List<String> lines() {
        List<String> out = new ArrayList<>();
        for (Window w : windows) {
            out.add(w.replica() + " run with FAKETIME=" + (w.applied() > 0 ? "+" : "") + w.applied() / 1000 + "s: "
                    + (w.samples() == 0
                            ? "no grant or renewal answered by it while it ran skewed; the checks take "
                                    + signed(w.applied()) + " ms"
                            : "its grants and renewals put its clock at "
                                    + (w.measured() == null ? "about " : "")
                                    + signed(w.measured() == null ? w.low() : w.measured())
                                    + " ms (median of " + w.samples() + ", from " + signed(w.low()) + " to "
                                    + signed(w.high()) + ")"
                                    + (w.measured() == null
                                            ? "; too few to measure, the checks take " + signed(w.applied()) + " ms"
                                            : "; the checks take " + signed(w.offset()) + " ± " + w.uncertainty()
                                                    + " ms")));
        }
        return out;
    }

    private static String signed(long v) {
        return (v > 0 ? "+" : "") + v;
    }
}
