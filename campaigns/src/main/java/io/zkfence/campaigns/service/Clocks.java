package io.zkfence.campaigns.service;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** The replicas' clocks as the campaign skewed them, and as their answers showed them. */
final class Clocks {

    private Clocks() {}

    /** The clock offset {@code replica} ran with at {@code at} (0 outside its skew windows). */
    static long offsetOf(List<ServiceFaults.Skew> skews, String replica, long at) {
        return skews.stream()
                .filter(s -> s.replica().equals(replica) && s.fromMillis() <= at && s.toMillis() >= at)
                .mapToLong(ServiceFaults.Skew::offsetMillis)
                .findFirst()
                .orElse(0);
    }

    /**
     * What each skewed replica's answers say its clock was: the {@code expiresAt} of a renewal, or of
     * a grant to a first attempt that did not wait, is the replica's clock plus the TTL when it
     * answered, against the campaign's clock halfway through the call.
     */
    static List<String> measured(ServiceLog.Logs logs, List<ServiceFaults.Skew> skews) {
        Map<String, Long> ttlOf = new HashMap<>();
        logs.requests().forEach(r -> ttlOf.put(r.owner(), r.ttl()));
        Set<String> waited = logs.requests().stream()
                .filter(ServiceLog.RequestEnd::waiting)
                .map(ServiceLog.RequestEnd::owner)
                .collect(Collectors.toSet());
        List<String> out = new ArrayList<>();
        for (ServiceFaults.Skew s : skews) {
            Set<String> firstAttempts = new HashSet<>();
            List<Long> offsets = logs.calls().stream()
                    // A grant answered to a request's first attempt that did not wait was made by this replica
                    // just then; a renewal always is.
                    .filter(c -> !"acquire".equals(c.op()) || firstAttempts.add(c.owner()))
                    .filter(c -> ("renew".equals(c.op()) || (c.granted() && !waited.contains(c.owner())))
                            && c.status() == 200
                            && c.replica().equals(s.replica())
                            && c.sentAt() >= s.fromMillis()
                            && c.doneAt() <= s.toMillis()
                            && c.doneAt() - c.sentAt() < 500
                            && ttlOf.containsKey(c.owner()))
                    .map(c -> c.expiresAt() - ttlOf.get(c.owner()) - (c.sentAt() + c.doneAt()) / 2)
                    .sorted()
                    .toList();
            out.add(s.replica() + " run with FAKETIME=" + (s.offsetMillis() > 0 ? "+" : "") + s.offsetMillis() / 1000
                    + "s: "
                    + (offsets.isEmpty()
                            ? "no fresh grant or renewal answered by it while it ran skewed"
                            : "its fresh grants and renewals put its clock at "
                                    + signed(offsets.get(offsets.size() / 2))
                                    + " ms (median of " + offsets.size() + ", from " + signed(offsets.get(0)) + " to "
                                    + signed(offsets.getLast()) + ")"));
        }
        return out;
    }

    private static String signed(long v) {
        return (v > 0 ? "+" : "") + v;
    }
}
