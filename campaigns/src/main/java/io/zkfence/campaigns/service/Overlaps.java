package io.zkfence.campaigns.service;

import io.zkfence.campaigns.Attempt;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Two leases of one key answered valid at once ({@link AnsweredLeases}): their stretches overlap,
 * with different fencing tokens. The service may only cause that through clock skew (docs/server.md,
 * "Clocks decide when a lease ends"), by at most the difference between the clocks of the replicas
 * involved ({@link ExpiryWriters#allowance}); an overlap longer than that allowance is a finding, and one
 * within it is listed with the skew that explains it. Each is shown with what PostgreSQL's fence
 * did with the lower token's writes.
 */
final class Overlaps {

    /**
     * Two leases of one key answered valid at once.
     *
     * @param from          when the later of the two began (its caller heard its 200)
     * @param to            when the first of them ended
     * @param allowance     what the replicas' measured clock skew allows (ms)
     * @param finding       whether the overlap is longer than {@code allowance}
     * @param lowerRejected writes of the lower token's holder rejected by the fence
     * @param lowerAccepted writes of the lower token's holder accepted
     * @param why           the replicas and clocks behind the allowance, in one line
     */
    record Overlap(
            String key,
            long lowerToken,
            String lowerOwner,
            long higherToken,
            String higherOwner,
            long from,
            long to,
            long allowance,
            boolean finding,
            int lowerRejected,
            int lowerAccepted,
            String why) {

        long millis() {
            return to - from;
        }
    }

    private Overlaps() {}

    /** Every pair of differently tokened stretches on one key that overlap, the longest overlap per pair of leases. */
    static List<Overlap> of(
            List<AnsweredLeases.Segment> segments,
            List<ServiceLog.Write> writes,
            Clocks clocks,
            ExpiryWriters writers) {
        Map<Long, List<ServiceLog.Write>> writesByToken =
                writes.stream().collect(Collectors.groupingBy(ServiceLog.Write::fencingToken));
        Map<String, List<AnsweredLeases.Segment>> byKey =
                segments.stream().collect(Collectors.groupingBy(AnsweredLeases.Segment::key));
        Map<String, Overlap> worst = new HashMap<>();
        for (List<AnsweredLeases.Segment> list : byKey.values()) {
            // sorted by start (AnsweredLeases.segments): each one is compared with those that start before it ends
            for (int i = 0; i < list.size(); i++) {
                AnsweredLeases.Segment a = list.get(i);
                for (int j = i + 1; j < list.size() && list.get(j).from() < a.to(); j++) {
                    AnsweredLeases.Segment b = list.get(j);
                    if (a.token() == b.token()) {
                        continue;
                    }
                    Overlap o = overlap(a, b, writesByToken, clocks, writers);
                    if (o != null) {
                        worst.merge(
                                o.lowerToken() + "|" + o.higherToken(),
                                o,
                                (x, y) -> x.millis() - x.allowance() >= y.millis() - y.allowance() ? x : y);
                    }
                }
            }
        }
        List<Overlap> out = new ArrayList<>(worst.values());
        out.sort((x, y) -> Long.compare(x.from(), y.from()));
        return out;
    }

    /**
     * {@code first} began before {@code second} (or with it). The allowance is the skew by which the
     * lower token's lease could have ended before its answered validity: any replica's clock at the
     * time against the lowest that may have written its {@code expiresAt} ({@link ExpiryWriters}:
     * the answering one, or another call's of the lease, such as a hedged copy whose replica ran
     * behind and confirmed the entry). The higher token can only be granted once
     * the lower's entry went or was taken for dead, so it is the lower lease that a clock ahead
     * ended early, whichever stretch began first: usually the lower's, but a replica can answer the
     * lower lease at the head by its clock just after a replica running ahead took it for ended
     * and granted the next (the lower's stretch then begins second).
     */
    private static Overlap overlap(
            AnsweredLeases.Segment first,
            AnsweredLeases.Segment second,
            Map<Long, List<ServiceLog.Write>> writesByToken,
            Clocks clocks,
            ExpiryWriters writers) {
        long from = second.from();
        long to = Math.min(first.to(), second.to());
        if (to <= from) {
            return null;
        }
        AnsweredLeases.Segment lower = first.token() < second.token() ? first : second;
        AnsweredLeases.Segment higher = lower == first ? second : first;
        AnsweredLeases.Answer y = lower.endBy();
        long since = Math.min(y.sentAt(), from);
        long until = Math.max(from, y.heardAt());
        long lowest = writers.lowest(y, from);
        long allowance = clocks.allowanceBelow(lowest, since, until);
        List<ServiceLog.Write> lw = writesByToken.getOrDefault(lower.token(), List.of());
        long dy = clocks.answeringOffset(y);
        long dMax = clocks.maxOffset(since, until);
        String why = "token " + lower.token() + " was answered valid until " + y.validUntil() + " by " + y.replica()
                + " (its clock " + signed(dy) + " ms"
                + (lowest < dy ? "; its expiry may have been written by a clock at " + signed(lowest) + " ms" : "")
                + "), the largest replica clock meanwhile " + signed(dMax) + " ms: allowance " + allowance + " ms"
                + ("validity".equals(lower.endedHow()) ? "" : ", its stretch cut by its " + lower.endedHow());
        return new Overlap(
                lower.key(),
                lower.token(),
                lower.owner(),
                higher.token(),
                higher.owner(),
                from,
                to,
                allowance,
                to - from > allowance,
                (int) lw.stream().filter(w -> Attempt.STALE.equals(w.jdbc())).count(),
                (int) lw.stream().filter(w -> Attempt.ACCEPTED.equals(w.jdbc())).count(),
                why);
    }

    private static String signed(long v) {
        return (v > 0 ? "+" : "") + v;
    }
}
