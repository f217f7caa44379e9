package io.zkfence.campaigns.service;

import java.nio.file.Path;
import java.util.Map;

/**
 * What a campaign against the lock service found.
 *
 * @param findings        the checks' results ({@link ServiceChecker.Findings#clean()}: nothing broken)
 * @param faults          faults injected, by kind
 * @param acceptedWrites  accepted PostgreSQL writes per worker (the Python worker's among them)
 * @param report          the Markdown report (report.json and timeline.png beside it)
 */
public record ServiceOutcome(
        ServiceChecker.Findings findings, Map<String, Integer> faults, Map<String, Long> acceptedWrites, Path report) {

    /** Faults injected in all. */
    public int faultCount() {
        return faults.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Whether nothing was broken (see {@link ServiceChecker.Findings#clean()}). */
    public boolean clean() {
        return findings.clean();
    }
}
