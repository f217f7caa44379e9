package io.zkfence.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one run measured: every figure under a dotted name (e.g.
 * {@code uncontended.zkfence.p50_us}), the targets with their verdicts, and facts about the run
 * and the machine. Written to results.json.
 */
final class Results {

    private final Map<String, Object> run = new LinkedHashMap<>();
    private final Map<String, Object> machine = new LinkedHashMap<>();
    private final Map<String, Double> figures = new LinkedHashMap<>();
    private final Map<String, String> facts = new LinkedHashMap<>();
    private final List<Target> targets = new ArrayList<>();

    Map<String, Object> run() {
        return run;
    }

    Map<String, Object> machine() {
        return machine;
    }

    synchronized void figure(String name, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("figure " + name + " is not a number: " + value);
        }
        figures.put(name, value);
    }

    synchronized double figure(String name) {
        Double v = figures.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no figure named " + name);
        }
        return v;
    }

    /** Records count, p50, p99, p99.9, max and mean (µs) under {@code prefix}. */
    void latency(String prefix, Latency l) {
        figure(prefix + ".count", l.count());
        figure(prefix + ".p50_us", l.p50());
        figure(prefix + ".p99_us", l.p99());
        figure(prefix + ".p999_us", l.p999());
        figure(prefix + ".max_us", l.max());
        figure(prefix + ".mean_us", l.mean());
    }

    synchronized void fact(String name, String value) {
        facts.put(name, value);
    }

    synchronized void target(Target t) {
        targets.add(t);
        figure("target." + t.id() + ".measured", t.measured());
    }

    synchronized List<Target> targets() {
        return List.copyOf(targets);
    }

    synchronized Map<String, Double> figures() {
        return Map.copyOf(figures);
    }

    synchronized Map<String, String> facts() {
        return Map.copyOf(facts);
    }

    synchronized void writeJson(Path file) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("run", run);
        doc.put("machine", machine);
        List<Map<String, Object>> ts = new ArrayList<>();
        for (Target t : targets) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", t.id());
            m.put("workload", t.workload());
            m.put("target", t.what());
            m.put("measured", t.measured());
            m.put("comparator", t.comparator());
            m.put("bound", t.bound());
            m.put("evaluated", t.evaluated());
            m.put("met", t.met());
            m.put("evidence", t.evidence());
            m.put("unit", t.unit());
            ts.add(m);
        }
        doc.put("targets", ts);
        doc.put("figures", figures);
        doc.put("facts", facts);
        try {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), doc);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
