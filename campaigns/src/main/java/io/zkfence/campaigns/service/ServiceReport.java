package io.zkfence.campaigns.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.campaigns.Attempt;
import io.zkfence.campaigns.FaultEvent;
import io.zkfence.campaigns.Recovery;
import io.zkfence.campaigns.TimelinePlot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The lock service campaign's report: Markdown, JSON and the timeline plot, side by side. */
final class ServiceReport {

    static final String TIMELINE_PNG = "timeline.png";
    private static final int EXAMPLES = 8;

    private ServiceReport() {}

    static ServiceOutcome write(
            Path dir,
            ServiceCampaign.Settings s,
            Instant started,
            String commit,
            Map<String, Integer> faults,
            List<FaultEvent> events,
            ServiceChecker.Findings f,
            ServiceLog.Logs logs,
            Map<String, Map<String, Double>> metrics,
            List<WorkerProcess> workers) {
        List<Attempt> attempts = logs.attempts();
        Map<String, Long> accepted = new TreeMap<>();
        workers.forEach(w -> accepted.put(w.name, 0L));
        attempts.stream()
                .filter(a -> Attempt.ACCEPTED.equals(a.jdbc()))
                .forEach(a -> accepted.merge(a.worker(), 1L, Long::sum));
        int faultTotal = faults.values().stream().mapToInt(Integer::intValue).sum();
        StringBuilder md = new StringBuilder("# Lock service fault campaign report\n\n");
        md.append("- started ")
                .append(started)
                .append(", ran ")
                .append(Duration.between(started, Instant.now()).toSeconds())
                .append(" s (faults for ")
                .append(s.duration().toSeconds())
                .append(" s)\n");
        md.append("- **seed ")
                .append(s.seed())
                .append("** (replay: `./faults --service --seed ")
                .append(s.seed())
                .append(" --seconds ")
                .append(s.duration().toSeconds())
                .append("`)\n");
        md.append("- the service under test: `zkfence-server` of this build")
                .append(commit == null ? "" : " (commit " + commit + ")")
                .append(", ")
                .append(s.replicas())
                .append(" replicas as separate JVMs (`ServerCommand --no-auth`, ZooKeeper session ")
                .append(Replica.SESSION.toSeconds())
                .append(" s) over 3 ZooKeeper servers (fsync, tickTime 1 s)\n");
        md.append("- ")
                .append(s.javaWorkers())
                .append(" Java and ")
                .append(s.pythonWorkers())
                .append(" Python worker processes × ")
                .append(s.threads())
                .append(" threads, reaching the replicas only over HTTP, through a proxy each; ")
                .append(s.locks())
                .append(" lock keys; TTL ")
                .append(ServiceWorker.TTL)
                .append(" ms (one lease in five ")
                .append(ServiceWorker.SHORT_TTL)
                .append(" ms, one in ten ")
                .append(ServiceWorker.LONG_TTL)
                .append(" ms); PostgreSQL (embedded) through fencing-jdbc's fence table\n\n");

        md.append("## Verdict\n\n| promise | findings |\n|---|---:|\n");
        for (ServiceChecker.Promise p : ServiceChecker.Promise.values()) {
            md.append("| ")
                    .append(p.title)
                    .append(" | ")
                    .append(f.count(p) == 0 ? "0" : "**" + f.count(p) + "**")
                    .append(" |\n");
        }
        md.append("| Every granted lease is one a worker knows it holds (orphan leases) | ")
                .append(
                        f.countedOrphans().isEmpty()
                                ? "0"
                                : "**" + f.countedOrphans().size() + "**")
                .append(" |\n");
        md.append("| PostgreSQL: token order, no lost or doubled update, logs reconciled | ")
                .append(
                        f.pg().violations().isEmpty()
                                ? "0"
                                : "**" + f.pg().violations().size() + "**")
                .append(" |\n");
        md.append("| Queue entries left at the end | ")
                .append(f.leftover().isEmpty() ? "0" : "**" + f.leftover().size() + "**")
                .append(" |\n");
        long never =
                f.recovery().stream().mapToLong(Recovery.Kind::notRecovered).sum();
        md.append("| Faults after which a victim never wrote again | ")
                .append(never == 0 ? "0" : "**" + never + "**")
                .append(" |\n\n");
        md.append(
                        f.clean()
                                ? "**Every promise kept.**"
                                : "**Promises broken** (each finding below, under the promise it breaks).")
                .append(" ")
                .append(f.pg().rows())
                .append(" committed PostgreSQL writes, ")
                .append(faultTotal)
                .append(" faults; the service granted ")
                .append(f.grantsSeen())
                .append(" leases (seen confirmed at the head of a queue in ZooKeeper, or in an answer), ")
                .append(f.grantsHeard())
                .append(" of them heard of by a worker.\n\n");
        f.pg().violations().forEach(v -> md.append("- PostgreSQL: ").append(v).append('\n'));

        md.append("\n## Findings, per promise\n\n");
        for (ServiceChecker.Promise p : ServiceChecker.Promise.values()) {
            List<ServiceChecker.Finding> list =
                    f.findings().stream().filter(x -> x.promise() == p).toList();
            md.append("### ").append(p.title).append(": ").append(list.size()).append("\n\n");
            list.stream()
                    .limit(EXAMPLES)
                    .forEach(x -> md.append("- ")
                            .append(Instant.ofEpochMilli(x.at()))
                            .append(" `")
                            .append(x.key())
                            .append("`: ")
                            .append(x.evidence())
                            .append('\n'));
            if (list.size() > EXAMPLES) {
                md.append("- … and ").append(list.size() - EXAMPLES).append(" more (report.json)\n");
            }
            md.append('\n');
        }

        md.append(
                "## Orphan leases\n\nLeases the service granted that no worker heard of, by cause (a lease of a worker killed"
                        + " while its acquire was out is not a broken promise: nobody could hear of it).\n\n| cause | leases |\n|---|---:|\n");
        f.orphans().stream()
                .collect(Collectors.groupingBy(ServiceChecker.Orphan::cause, TreeMap::new, Collectors.counting()))
                .forEach((cause, n) ->
                        md.append("| ").append(cause).append(" | ").append(n).append(" |\n"));
        if (f.orphans().isEmpty()) {
            md.append("| (none) | 0 |\n");
        }

        if (!f.explained().isEmpty()) {
            md.append("\n## Explained, not broken\n\nWhat looked like a broken promise and is the documented cost of a"
                    + " fault (docs/server.md, \"What breaks what\"):\n\n");
            f.explained().forEach(x -> md.append("- ").append(x).append('\n'));
        }

        List<Overlaps.Overlap> beyond =
                f.overlaps().stream().filter(Overlaps.Overlap::finding).toList();
        md.append("\n## Overlaps: two leases of one key answered valid at once\n\n")
                .append(f.overlaps().size())
                .append(" times two leases of one key were answered valid at once (each from when its caller heard the"
                        + " 200 to its send time plus `validForMillis`, extended by renewals, cut at its release), ")
                .append(beyond.size())
                .append(" of them for longer than the replicas' measured clock skew allows (promise 5 above), ")
                .append(f.overlaps().size() - beyond.size())
                .append(" within it. PostgreSQL's fence decided each: ")
                .append(f.overlaps().stream()
                        .mapToInt(Overlaps.Overlap::lowerRejected)
                        .sum())
                .append(" writes of the lower token's holder were rejected, ")
                .append(f.overlaps().stream()
                        .mapToInt(Overlaps.Overlap::lowerAccepted)
                        .sum())
                .append(" accepted (the token order check above holds every one).\n\n");
        f.overlaps().stream()
                .sorted(Comparator.comparing((Overlaps.Overlap o) -> !o.finding())
                        .thenComparing(o -> -(o.millis() - o.allowance())))
                .limit(EXAMPLES)
                .forEach(o -> md.append("- ")
                        .append(o.finding() ? "**beyond the skew** " : "within the skew ")
                        .append("`")
                        .append(o.key())
                        .append("` token ")
                        .append(o.lowerToken())
                        .append(" (")
                        .append(o.lowerOwner())
                        .append(") and ")
                        .append(o.higherToken())
                        .append(" (")
                        .append(o.higherOwner())
                        .append(") for ")
                        .append(o.millis())
                        .append(" ms from ")
                        .append(Instant.ofEpochMilli(o.from()))
                        .append(": ")
                        .append(o.why())
                        .append("; ")
                        .append(o.lowerRejected())
                        .append(" of the lower's writes rejected, ")
                        .append(o.lowerAccepted())
                        .append(" accepted\n"));
        if (f.overlaps().size() > EXAMPLES) {
            md.append("- … and ").append(f.overlaps().size() - EXAMPLES).append(" more (report.json)\n");
        }

        md.append("\n## Blocked keys\n\n")
                .append(f.blocks().size())
                .append(" times a waiter that could act (its acquire out on a replica neither paused, cut off, held nor"
                        + " killed) stood behind entries nobody used; ")
                .append(f.blocks().stream().filter(Blocks.Block::finding).count())
                .append(" of those blocks lasted more than ")
                .append(Blocks.REACTION_MILLIS)
                .append(" ms beyond the end of the entries ahead by the service's own rule (their session's real end,"
                        + " their expiry), ZooKeeper's leader elections not counted (promise 4 above). The longest: ")
                .append(f.blocks().stream()
                        .mapToLong(Blocks.Block::millis)
                        .max()
                        .orElse(0))
                .append(" ms; the longest beyond its chain's end: ")
                .append(f.blocks().stream()
                        .mapToLong(Blocks.Block::unexplained)
                        .max()
                        .orElse(0))
                .append(" ms.\n");

        md.append("\n## Faults, and how long until writes resumed\n\n")
                .append(faultTotal)
                .append(" faults. Recovery: from a"
                        + " fault's end to its victim's next accepted write (a worker fault: that worker; any other: every worker), and"
                        + " until every key had an accepted write again. Faults overlap; that wait is included.\n\n");
        md.append(
                "| fault | count | workers: median | max | never | keys: median | max | never |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        Map<String, Recovery.Kind> byKey =
                f.keyRecovery().stream().collect(Collectors.toMap(Recovery.Kind::kind, Function.identity()));
        for (Recovery.Kind k : f.recovery()) {
            Recovery.Kind kk = byKey.get(k.kind());
            md.append("| ")
                    .append(k.kind())
                    .append(" | ")
                    .append(k.faults())
                    .append(" | ")
                    .append(k.medianMillis())
                    .append(" ms | ")
                    .append(k.maxMillis())
                    .append(" ms | ")
                    .append(k.notRecovered())
                    .append(" | ")
                    .append(kk.medianMillis())
                    .append(" ms | ")
                    .append(kk.maxMillis())
                    .append(" ms | ")
                    .append(kk.notRecovered())
                    .append(" |\n");
        }
        md.append("\n![Timeline: accepted and rejected writes per worker, faults as bars under their targets](")
                .append(TIMELINE_PNG)
                .append(")\n");
        if (!f.pg().stalled().isEmpty()) {
            md.append("\nNo accepted write after the last fault from: ")
                    .append(f.pg().stalled())
                    .append('\n');
        }
        if (!f.clocks().isEmpty()) {
            md.append(
                    "\n## Clocks\n\nA replica's clock is skewed by restarting it under libfaketime (`LD_PRELOAD`, `FAKETIME=±Ns`)."
                            + " What its answers said:\n\n");
            f.clocks().forEach(c -> md.append("- ").append(c).append('\n'));
        }

        List<String> names = workers.stream().map(w -> w.name).toList();
        md.append("\n## Calls, as the workers logged them\n\n| call | answer | ")
                .append(String.join(" | ", names))
                .append(" |\n|---|---|")
                .append("---:|".repeat(names.size()))
                .append('\n');
        Map<String, Map<String, Long>> calls = new TreeMap<>();
        logs.calls().stream()
                .filter(c -> names.contains(c.worker()))
                .forEach(c -> calls.computeIfAbsent(
                                c.op() + " | "
                                        + (c.status() == 0
                                                ? "no answer: " + c.code()
                                                : c.status()
                                                        + (c.code() == null ? "" : " " + c.code())
                                                        + ("release".equals(c.op()) && c.status() == 200
                                                                ? ", wasHeld " + c.wasHeld()
                                                                : "")),
                                k -> new TreeMap<>())
                        .merge(c.worker(), 1L, Long::sum));
        calls.forEach((row, perWorker) -> {
            md.append("| ").append(row);
            names.forEach(n -> md.append(" | ").append(perWorker.getOrDefault(n, 0L)));
            md.append(" |\n");
        });
        Map<String, Long> ended = logs.requests().stream()
                .collect(Collectors.groupingBy(ServiceLog.RequestEnd::result, TreeMap::new, Collectors.counting()));
        md.append("\nRequests, by how they ended: ")
                .append(ended.toString())
                .append(". Hedged acquires (one requestId to two replicas at once): ")
                .append(logs.calls().stream()
                        .filter(ServiceLog.Call::hedge)
                        .map(ServiceLog.Call::request)
                        .distinct()
                        .count())
                .append(". Accepted writes per worker: ")
                .append(accepted)
                .append(".\n");
        Map<String, Double> meters = new TreeMap<>();
        metrics.values()
                .forEach(m -> m.forEach((k, v) -> {
                    if (k.startsWith("zkfence_service_")
                            && (k.endsWith("_total") || k.contains("_total{") || k.contains("acquire_seconds_count"))) {
                        meters.merge(k, v, Double::sum);
                    }
                }));
        md.append(
                "\n## The service's own counters\n\n`/metrics` of every replica incarnation, scraped every 5 s and summed (a"
                        + " replica killed between two scrapes loses what it counted since the last):\n\n| meter | value |\n|---|---:|\n");
        meters.forEach((k, v) ->
                md.append("| `").append(k).append("` | ").append(Math.round(v)).append(" |\n"));
        md.append("\nWorkers received ")
                .append(logs.calls().stream().filter(ServiceLog.Call::granted).count())
                .append(" answers 200 to an acquire.\n");

        md.append("\n## Entries left at the end\n\nRead directly from ZooKeeper under `")
                .append(ServiceCampaign.ROOT)
                .append("`, ")
                .append(Replica.SESSION.plusSeconds(5).toSeconds())
                .append(" s after every worker stopped (they release what they hold when told to stop): ")
                .append(f.leftover().size())
                .append(".\n\n");
        long now = System.currentTimeMillis();
        f.leftover()
                .forEach(e -> md.append("- `")
                        .append(e.path())
                        .append("`: ")
                        .append(e.owner())
                        .append(", ")
                        .append(
                                e.granted()
                                        ? "granted, expiresAt "
                                                + (e.expiresAt() < now
                                                        ? (now - e.expiresAt()) + " ms ago"
                                                        : "in " + (e.expiresAt() - now) + " ms")
                                        : "waiting, waitUntil "
                                                + (e.waitUntil() < now
                                                        ? (now - e.waitUntil()) + " ms ago"
                                                        : "in " + (e.waitUntil() - now) + " ms"))
                        .append('\n'));

        md.append("\n## Every fault\n\n<details><summary>In the order injected</summary>\n\n```\n");
        events.stream()
                .sorted(Comparator.comparingLong(FaultEvent::startMillis))
                .forEach(e -> md.append(Instant.ofEpochMilli(e.startMillis()))
                        .append("  ")
                        .append(e.what())
                        .append('\n'));
        md.append("```\n\n</details>\n");

        List<String> rows = new ArrayList<>(workers.stream().map(w -> w.name).toList());
        rows.add("r*");
        List<String> replicaRows = events.stream()
                .map(FaultEvent::target)
                .filter(t -> t.matches("r\\d+"))
                .distinct()
                .sorted()
                .toList();
        rows.remove("r*");
        rows.addAll(replicaRows.isEmpty() ? List.of() : replicaRows);
        rows.add(FaultEvent.ENSEMBLE);
        TimelinePlot.write(
                dir.resolve(TIMELINE_PNG),
                "Lock service fault campaign: writes and faults over time",
                started.toEpochMilli(),
                rows,
                events,
                attempts);

        Map<String, Object> json = new LinkedHashMap<>();
        json.put("seed", s.seed());
        json.put("commit", commit);
        json.put("faultSeconds", s.duration().toSeconds());
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("javaWorkers", s.javaWorkers());
        settings.put("pythonWorkers", s.pythonWorkers());
        settings.put("threadsPerWorker", s.threads());
        settings.put("replicas", s.replicas());
        settings.put("locks", s.locks());
        settings.put("injectors", s.injectors());
        settings.put("ttlMillis", ServiceWorker.TTL);
        settings.put("shortTtlMillis", ServiceWorker.SHORT_TTL);
        settings.put("longTtlMillis", ServiceWorker.LONG_TTL);
        settings.put("replicaSessionMillis", Replica.SESSION.toMillis());
        json.put("settings", settings);
        json.put("faults", faults);
        json.put("faultsTotal", faultTotal);
        Map<String, Long> perPromise = new LinkedHashMap<>();
        for (ServiceChecker.Promise p : ServiceChecker.Promise.values()) {
            perPromise.put(p.name(), f.count(p));
        }
        json.put("findingsPerPromise", perPromise);
        json.put("findings", f.findings());
        json.put("orphanLeases", f.countedOrphans().size());
        json.put("orphans", f.orphans());
        json.put("pgViolations", f.pg().violations());
        json.put("committedWrites", f.pg().rows());
        json.put("acceptedWritesPerWorker", accepted);
        json.put("overlaps", f.overlaps());
        json.put(
                "blocks",
                f.blocks().stream()
                        .filter(b -> b.finding() || b.millis() > Blocks.REACTION_MILLIS)
                        .toList());
        json.put("blocksSeen", f.blocks().size());
        json.put("recovery", f.recovery());
        json.put("keyRecovery", f.keyRecovery());
        json.put("stalledWorkers", f.pg().stalled());
        json.put("leftoverEntries", f.leftover());
        json.put("grantsSeen", f.grantsSeen());
        json.put("grantsHeard", f.grantsHeard());
        json.put("clocks", f.clocks());
        json.put("explained", f.explained());
        json.put("calls", calls);
        json.put("serviceCounters", meters);
        json.put("faultEvents", events);
        json.put("clean", f.clean());
        Path report = dir.resolve("report.md");
        try {
            Files.writeString(
                    dir.resolve("report.json"),
                    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(json));
            Files.writeString(report, md.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ServiceOutcome(f, faults, accepted, report);
    }

    /**
     * The checkout's commit, when the campaign runs in a git checkout (the report says which service
     * it judged): read when the campaign starts, since the checkout may move on while it runs.
     */
    static String commit() {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "--short=10", "HEAD")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            return p.waitFor() == 0 && out.matches("[0-9a-f]+") ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
