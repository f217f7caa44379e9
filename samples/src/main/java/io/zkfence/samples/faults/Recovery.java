package io.zkfence.samples.faults;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Liveness per fault: how long after a fault ended its victim had a write accepted again. For a
 * fault on a worker, that worker's next accepted PostgreSQL write; for a ZooKeeper server kill,
 * the time until every worker had one. A fault after which that never happened is "not recovered".
 * Faults overlap, so a victim may still be paused or cut off by another fault when one ends; the
 * figures include that wait.
 */
final class Recovery {

    /**
     * The recovery of the faults of one kind.
     *
     * @param kind         the fault's kind
     * @param faults       how many were injected
     * @param notRecovered after how many the victim never wrote again
     * @param medianMillis the median time to the next accepted write, over the recovered ones
     * @param maxMillis    the longest
     */
    record Kind(String kind, int faults, int notRecovered, long medianMillis, long maxMillis) {}

    private Recovery() {}

    /** Recovery per fault kind, by kind name. */
    static List<Kind> of(Collection<FaultEvent> events, Collection<Attempt> log, Set<String> workers) {
        Map<String, NavigableSet<Long>> writes = log.stream()
                .filter(a -> Attempt.ACCEPTED.equals(a.jdbc()))
                .collect(Collectors.groupingBy(
                        Attempt::worker,
                        Collectors.mapping(Attempt::acquiredAt, Collectors.toCollection(TreeSet::new))));
        Map<String, List<Long>> recovered = new TreeMap<>();
        Map<String, Integer> lost = new TreeMap<>();
        for (FaultEvent e : events) {
            Collection<String> victims = FaultEvent.ENSEMBLE.equals(e.target()) ? workers : List.of(e.target());
            long worst = 0;
            boolean all = true;
            for (String w : victims) {
                Long next = writes.getOrDefault(w, new TreeSet<>()).ceiling(e.endMillis());
                if (next == null) {
                    all = false;
                } else {
                    worst = Math.max(worst, next - e.endMillis());
                }
            }
            recovered.computeIfAbsent(e.kind(), k -> new ArrayList<>());
            if (all) {
                recovered.get(e.kind()).add(worst);
            } else {
                lost.merge(e.kind(), 1, Integer::sum);
            }
        }
        List<Kind> kinds = new ArrayList<>();
        recovered.forEach((kind, times) -> {
            List<Long> sorted = times.stream().sorted().toList();
            int notRecovered = lost.getOrDefault(kind, 0);
            long median = sorted.isEmpty() ? 0 : sorted.get((sorted.size() - 1) / 2);
            long max = sorted.isEmpty() ? 0 : sorted.getLast();
            kinds.add(new Kind(kind, sorted.size() + notRecovered, notRecovered, median, max));
        });
        return kinds;
    }
}
