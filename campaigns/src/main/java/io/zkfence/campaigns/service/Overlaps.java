package io.zkfence.campaigns.service;

import io.zkfence.campaigns.Attempt;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Two workers believing they held one key at once: their belief intervals (from the grant's answer
 * to the local deadline, the release or a refused renewal) overlap on one key with different
 * tokens. Each is reported with what PostgreSQL's fence did with the lower token's writes and why
 * its holder still believed. Overlaps break no promise by themselves (a lease that ended early by a
 * skewed replica's clock is one); writes accepted out of token order would, and the PostgreSQL
 * check counts those.
 */
final class Overlaps {

    /**
     * Two workers that believed they held one key at once.
     *
     * @param lowerRejected writes of the lower token's holder rejected by the fence
     * @param lowerAccepted writes of the lower token's holder accepted (all of them before the higher token's first)
     * @param cause         why the lower holder still believed: its grant was a dead lease (promise 1), a
     *                      replica's clock was skewed, or another fault (a pause, a cut-off)
     */
    record Overlap(
            String key,
            long lowerToken,
            String lowerOwner,
            long higherToken,
            String higherOwner,
            long from,
            long to,
            int lowerRejected,
            int lowerAccepted,
            String cause) {}

    private Overlaps() {}

    /** Holds of different tokens on one key that overlapped in time, with what the fence did with the lower one's writes. */
    static List<Overlap> of(
            List<ServiceLog.Hold> holds,
            List<ServiceLog.Write> writes,
            Set<Long> deadGrants,
            List<ServiceFaults.Skew> skews) {
        Map<Long, List<ServiceLog.Write>> writesByToken =
                writes.stream().collect(Collectors.groupingBy(ServiceLog.Write::fencingToken));
        Map<String, List<ServiceLog.Hold>> byKey =
                holds.stream().filter(h -> h.fencingToken() > 0).collect(Collectors.groupingBy(ServiceLog.Hold::key));
        List<Overlap> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (List<ServiceLog.Hold> list : byKey.values()) {
            list.sort(Comparator.comparingLong(ServiceLog.Hold::fromAt));
            for (int i = 0; i < list.size(); i++) {
                ServiceLog.Hold a = list.get(i);
                for (int j = i + 1; j < list.size() && list.get(j).fromAt() < a.toAt(); j++) {
                    ServiceLog.Hold b = list.get(j);
                    if (a.fencingToken() == b.fencingToken()) {
                        continue;
                    }
                    ServiceLog.Hold lower = a.fencingToken() < b.fencingToken() ? a : b;
                    ServiceLog.Hold higher = lower == a ? b : a;
                    if (!seen.add(lower.fencingToken() + "|" + higher.fencingToken())) {
                        continue;
                    }
                    long from = Math.max(a.fromAt(), b.fromAt());
                    long to = Math.min(a.toAt(), b.toAt());
                    if (to <= from) {
                        continue;
                    }
                    List<ServiceLog.Write> lw = writesByToken.getOrDefault(lower.fencingToken(), List.of());
                    int rejected = (int) lw.stream()
                            .filter(w -> Attempt.STALE.equals(w.jdbc()))
                            .count();
                    int accepted = (int) lw.stream()
                            .filter(w -> Attempt.ACCEPTED.equals(w.jdbc()))
                            .count();
                    String cause = deadGrants.contains(lower.fencingToken())
                            ? "its grant was a dead lease (promise 1)"
                            : skews.stream().anyMatch(s -> s.fromMillis() <= to && s.toMillis() >= from)
                                    ? "a replica's clock was skewed"
                                    : "another fault (a pause, a cut-off, a lost answer)";
                    out.add(new Overlap(
                            lower.key(),
                            lower.fencingToken(),
                            lower.owner(),
                            higher.fencingToken(),
                            higher.owner(),
                            from,
                            to,
                            rejected,
                            accepted,
                            cause));
                }
            }
        }
        return out;
    }
}
