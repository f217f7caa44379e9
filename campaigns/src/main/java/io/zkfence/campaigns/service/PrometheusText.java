package io.zkfence.campaigns.service;

import java.util.LinkedHashMap;
import java.util.Map;

/** Prometheus' text format, read as far as the campaign needs: each sample line's name with its labels, and its value. */
final class PrometheusText {

    private PrometheusText() {}

    /** {@code name{labels}} (as written, labels included) → value; comments and malformed lines are left out. */
    static Map<String, Double> parse(String text) {
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            if (space < 1) {
                continue;
            }
            try {
                samples.put(line.substring(0, space).strip(), Double.parseDouble(line.substring(space + 1)));
            } catch (NumberFormatException notASample) {
                // a timestamp or a value this reader does not need
            }
        }
        return samples;
    }
}
