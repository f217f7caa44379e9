package io.zkfence.campaigns;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The campaign's report: seed and settings, faults injected, outcomes, violations (must be none). */
final class CampaignReport {

    /** The timeline plot's file name, next to the report. */
    static final String TIMELINE_PNG = "timeline.png";

    private CampaignReport() {}

    static Path write(
            Path file,
            FaultCampaign.Settings s,
            Instant started,
            Map<String, Integer> faults,
            List<FaultEvent> events,
            Checker.Result check,
            FaultCampaign.S3Summary s3,
            int leftover,
            List<Recovery.Kind> recovery) {
        StringBuilder md = new StringBuilder(
                s.cohort() ? "# Fault campaign report (cohort mode)\n\n" : "# Fault campaign report\n\n");
        md.append("- started ")
                .append(started)
                .append(", ran ")
                .append(Duration.between(started, Instant.now()).toSeconds())
                .append(" s (faults for ")
                .append(s.duration().toSeconds())
                .append(" s)\n");
        md.append("- **seed ")
                .append(s.seed())
                .append("** (replay: `./faults ")
                .append(s.cohort() ? "--cohort " : "")
                .append("--seed ")
                .append(s.seed())
                .append(" --seconds ")
                .append(s.duration().toSeconds())
                .append("`)\n");
        md.append("- ")
                .append(s.workers())
                .append(" worker JVMs × ")
                .append(s.threads())
                .append(" threads, ")
                .append(s.locks())
                .append(
                        s.cohort()
                                ? " locks, **cohort mode** (each process's threads take turns under one queue node per"
                                        + " lock; half of the acquires on the hot lock res-0)"
                                : s.cohortWorkers() > 0
                                        ? " locks, " + s.cohortWorkers() + " of the workers in cohort mode (w0"
                                                + (s.cohortWorkers() > 1 ? "-w" + (s.cohortWorkers() - 1) : "") + ")"
                                        : " locks")
                .append("; 3 ZooKeeper servers (fsync, tickTime 1 s); worker session timeout ")
                .append(FaultCampaign.SESSION.toSeconds())
                .append(" s; PostgreSQL (embedded) and S3Mock\n\n");
        md.append("## Verdict\n\n");
        md.append(
                        check.violations().isEmpty()
                                ? "**0 violations**"
                                : "**" + check.violations().size() + " VIOLATIONS**")
                .append(" in ")
                .append(check.rows())
                .append(" committed PostgreSQL writes (PostgreSQL is the strict"
                        + " checker: token order per resource, no lost or doubled update, logs reconciled; and no two"
                        + " threads of one process inside one grant at once).\n\n");
        check.violations().forEach(v -> md.append("- ").append(v).append('\n'));
        md.append("\n**Overlaps:** ")
                .append(check.overlaps())
                .append(" critical sections were still running when"
                        + " another holder (with a higher token) began one on the same resource: their holder had lost its"
                        + " lease (a pause, a partition, an expired session) without stopping. The fences rejected ")
                .append(check.overlapRejections())
                .append(" of their writes (PostgreSQL and S3); in ")
                .append(check.overlapsStillHeld())
                .append(" of them the holder's client still said HELD after it"
                        + " wrote (it had not noticed its loss yet), which is exactly the case only the resource can"
                        + " catch.\n\n");
        md.append("**Liveness:** ")
                .append(
                        check.stalled().isEmpty()
                                ? "every worker wrote again after the last fault"
                                : "no write after the last fault from " + check.stalled())
                .append("; queue nodes left once every worker" + " exited: ")
                .append(leftover)
                .append(".\n");
        md.append("\n## Faults injected, and how long their victims took to write again\n\n")
                .append(faults.values().stream().mapToInt(Integer::intValue).sum())
                .append(" faults. Recovery: from the"
                        + " fault's end to its victim's next accepted write (for a ZooKeeper server kill, until every"
                        + " worker had one). Faults overlap, so a victim may still have been paused or cut off by"
                        + " another fault; that wait is included.\n\n");
        md.append(
                "| fault | count | recovery, median | recovery, max | never wrote again |\n|---|---:|---:|---:|---:|\n");
        recovery.forEach(k -> md.append("| ")
                .append(k.kind())
                .append(" | ")
                .append(k.faults())
                .append(" | ")
                .append(k.medianMillis())
                .append(" ms | ")
                .append(k.maxMillis())
                .append(" ms | ")
                .append(k.notRecovered())
                .append(" |\n"));
        md.append("\n![Timeline: accepted and rejected writes per worker, faults as bars under their victims](")
                .append(TIMELINE_PNG)
                .append(")\n");
        md.append("\n## Outcomes, as the workers logged them\n\n| resource | outcome | attempts |\n|---|---|---:|\n");
        check.jdbcOutcomes()
                .forEach((k, v) -> md.append("| PostgreSQL | ")
                        .append(k)
                        .append(" | ")
                        .append(v)
                        .append(" |\n"));
        check.s3Outcomes()
                .forEach((k, v) ->
                        md.append("| S3 | ").append(k).append(" | ").append(v).append(" |\n"));
        md.append("\nCommitted writes with no log line (worker killed between commit and log): ")
                .append(check.unloggedCommits())
                .append(".\n\n");
        md.append("## S3, counted apart\n\nAccepted S3 writes logged: ")
                .append(s3.acceptedWrites())
                .append("; sum of the documents' counters: ")
                .append(s3.finalCounters())
                .append(".\n");
        s3.notes().forEach(n -> md.append("- ").append(n).append('\n'));
        md.append("\n## Timeline\n\n<details><summary>Every fault, in the order injected</summary>\n\n```\n");
        events.stream()
                .sorted(Comparator.comparingLong(FaultEvent::startMillis))
                .forEach(e -> md.append(Instant.ofEpochMilli(e.startMillis()))
                        .append("  ")
                        .append(e.what())
                        .append('\n'));
        md.append("```\n\n</details>\n");
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("seed", s.seed());
        json.put("faultSeconds", s.duration().toSeconds());
        json.put("workers", s.workers());
        json.put("threadsPerWorker", s.threads());
        json.put("locks", s.locks());
        json.put("injectors", s.injectors());
        json.put("cohortWorkers", s.cohortWorkers());
        json.put("faults", faults);
        json.put(
                "faultsTotal",
                faults.values().stream().mapToInt(Integer::intValue).sum());
        json.put("recovery", recovery);
        json.put("faultEvents", events); // start and end of each, so the timeline can be drawn again
        json.put("committedWrites", check.rows());
        json.put("violations", check.violations());
        json.put("jdbcOutcomes", check.jdbcOutcomes());
        json.put("s3Outcomes", check.s3Outcomes());
        json.put("overlaps", check.overlaps());
        json.put("overlapWritesRejected", check.overlapRejections());
        json.put("overlapsEarlierStillHeld", check.overlapsStillHeld());
        json.put("stalledWorkers", check.stalled());
        json.put("leftoverQueueNodes", leftover);
        json.put("s3AcceptedWrites", s3.acceptedWrites());
        json.put("s3CounterSum", s3.finalCounters());
        try {
            Files.writeString(
                    file.resolveSibling("report.json"),
                    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(json));
            Files.writeString(file, md.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }
}
