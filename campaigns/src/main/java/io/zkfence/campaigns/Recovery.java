package io.zkfence.campaigns;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Liveness per fault: how long after a fault ended its victim had a write accepted again. For a
 * fault on a worker, that worker's next accepted PostgreSQL write; for a fault on anything else (a
 * ZooKeeper server, a replica of the lock service, a proxy), the time until every worker had one.
 * A fault after which that never happened is "not recovered". Faults overlap, so a victim may still
 * be paused or cut off by another fault when one ends; the figures include that wait.
 */
public final class Recovery {

    /**
     * The recovery of the faults of one kind.
     *
     * @param kind         the fault's kind
     * @param faults       how many were injected
     * @param notRecovered after how many the victim never wrote again
     * @param medianMillis the median time to the next accepted write, over the recovered ones
     * @param maxMillis    the longest
     */
    public record Kind(String kind, int faults, int notRecovered, long medianMillis, long maxMillis) {}

    private Recovery() {}

    /** Recovery per fault kind, by kind name: until the victim worker (or every worker) wrote again. */
    public static List<Kind> of(Collection<FaultEvent> events, Collection<Attempt> log, Set<String> workers) {
        return of(
                events,
                log,
                workers,
                Attempt::worker,
                e -> workers.contains(e.target()) ? Set.of(e.target()) : workers);
    }

    /**
     * Recovery per fault kind, by kind name, counted per resource: until every one of
     * {@code resources} had an accepted write again after the fault, whoever wrote it. A key a dead
     * entry blocks shows here even while the workers write to the other keys.
     */
    public static List<Kind> ofResources(
            Collection<FaultEvent> events, Collection<Attempt> log, Set<String> resources) {
        return of(events, log, resources, Attempt::resource, e -> resources);
    }

    private static List<Kind> of(
            Collection<FaultEvent> events,
            Collection<Attempt> log,
            Set<String> groups,
            Function<Attempt, String> groupOf,
            Function<FaultEvent, Collection<String>> victimsOf) {
        Map<String, NavigableSet<Long>> writes = log.stream()
                .filter(a -> Attempt.ACCEPTED.equals(a.jdbc()) && groups.contains(groupOf.apply(a)))
                .collect(Collectors.groupingBy(
                        groupOf, Collectors.mapping(Attempt::acquiredAt, Collectors.toCollection(TreeSet::new))));
        Map<String, List<Long>> recovered = new TreeMap<>();
        Map<String, Integer> lost = new TreeMap<>();
        for (FaultEvent e : events) {
            long worst = 0;
            boolean all = true;
            for (String victim : victimsOf.apply(e)) {
                Long next = writes.getOrDefault(victim, new TreeSet<>()).ceiling(e.endMillis());
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
