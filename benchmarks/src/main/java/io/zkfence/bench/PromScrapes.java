package io.zkfence.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Prometheus text-format scrapes taken over a run, and the few PromQL forms the Grafana dashboard
 * uses evaluated on them ({@code sum}, {@code rate} over a window, {@code histogram_quantile}), so
 * a run can be plotted as the dashboard would show it. Thread-safe for adding while a run goes on.
 */
final class PromScrapes {

    /** One scrape: seconds since the run started, and every sample ({@code name{labels}} → value). */
    record Scrape(double at, Map<String, Double> samples) {}

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})? (\\S+)");
    private static final Pattern LE = Pattern.compile("le=\"([^\"]+)\"");
    private static final Pattern METRIC_IN_QUERY = Pattern.compile("zkfence_[a-z_]+");

    private final List<Scrape> scrapes = Collections.synchronizedList(new ArrayList<>());
    private final int windowSeconds;

    /** @param windowSeconds the range of {@code rate} (scrapes are taken about once a second) */
    PromScrapes(int windowSeconds) {
        this.windowSeconds = windowSeconds;
    }

    /**
     * Adds one scrape taken at {@code at} seconds: each exposition text with the label Prometheus
     * would add for its target ({@code instance="…"}), or none for a key of "".
     */
    void add(double at, Map<String, String> textByInstance) {
        Map<String, Double> samples = new LinkedHashMap<>();
        textByInstance.forEach((instance, text) -> {
            for (String line : text.split("\n")) {
                Matcher m = SAMPLE.matcher(line);
                if (!line.startsWith("#") && m.find()) {
                    List<String> labels = new ArrayList<>();
                    if (!instance.isEmpty()) {
                        labels.add("instance=\"" + instance + "\"");
                    }
                    if (m.group(3) != null && !m.group(3).isEmpty()) {
                        labels.add(m.group(3));
                    }
                    samples.put(m.group(1) + "{" + String.join(",", labels) + "}", parse(m.group(4)));
                }
            }
        });
        scrapes.add(new Scrape(at, samples));
    }

    int size() {
        return scrapes.size();
    }

    Scrape last() {
        return scrapes.get(scrapes.size() - 1);
    }

    /** The scrapes' times, seconds since the start. */
    double[] times() {
        synchronized (scrapes) {
            return scrapes.stream().mapToDouble(Scrape::at).toArray();
        }
    }

    /** {@code sum(metric{filters})} at each scrape; a filter is a {@code key="value"} substring. */
    double[] sum(String metric, String... filters) {
        double[] v = new double[scrapes.size()];
        for (int i = 0; i < v.length; i++) {
            double total = 0;
            for (Map.Entry<String, Double> e : scrapes.get(i).samples().entrySet()) {
                if (e.getKey().startsWith(metric + "{") && matches(e.getKey(), filters)) {
                    total += e.getValue();
                }
            }
            v[i] = total;
        }
        return v;
    }

    /** {@code max(metric)} at each scrape (0 when absent). */
    double[] max(String metric) {
        double[] v = new double[scrapes.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = scrapes.get(i).samples().entrySet().stream()
                    .filter(e -> e.getKey().startsWith(metric + "{"))
                    .mapToDouble(Map.Entry::getValue)
                    .max()
                    .orElse(0);
        }
        return v;
    }

    /** {@code sum(rate(metric{filters}[window]))}: per second over the window ending at each scrape. */
    double[] rate(String metric, String... filters) {
        double[] total = sum(metric, filters);
        double[] r = new double[total.length];
        for (int i = 0; i < r.length; i++) {
            int j = Math.max(0, i - windowSeconds);
            double dt = scrapes.get(i).at() - scrapes.get(j).at();
            r[i] = dt <= 0 ? 0 : Math.max(0, total[i] - total[j]) / dt;
        }
        return r;
    }

    /**
     * {@code histogram_quantile(q, sum by (le) (rate(bucket{filters}[window])))} in ms; NaN where the
     * window saw no event.
     */
    double[] quantileMs(String bucketMetric, double q, String... filters) {
        TreeMap<Double, double[]> byLe = new TreeMap<>();
        synchronized (scrapes) {
            for (Scrape s : scrapes) {
                for (String key : s.samples().keySet()) {
                    if (key.startsWith(bucketMetric + "{") && matches(key, filters)) {
                        Matcher m = LE.matcher(key);
                        if (m.find()) {
                            String bound = m.group(1);
                            byLe.computeIfAbsent(parse(bound), b -> rate(bucketMetric, with(filters, bound)));
                        }
                    }
                }
            }
        }
        double[] result = new double[scrapes.size()];
        for (int i = 0; i < result.length; i++) {
            TreeMap<Double, Double> at = new TreeMap<>();
            for (Map.Entry<Double, double[]> b : byLe.entrySet()) {
                at.put(b.getKey(), b.getValue()[i]);
            }
            result[i] = quantileMs(at, q);
        }
        return result;
    }

    /** The quantile over the whole run, from the last scrape's cumulative buckets, in ms. */
    double wholeRunQuantileMs(String bucketMetric, double q, String... filters) {
        TreeMap<Double, Double> buckets = new TreeMap<>();
        last().samples().forEach((k, v) -> {
            if (k.startsWith(bucketMetric + "{") && matches(k, filters)) {
                Matcher m = LE.matcher(k);
                if (m.find()) {
                    buckets.merge(parse(m.group(1)), v, Double::sum);
                }
            }
        });
        return quantileMs(buckets, q);
    }

    /** Prometheus' interpolation within the bucket that holds the rank; cumulative counts by bound. */
    private static double quantileMs(TreeMap<Double, Double> cumulative, double q) {
        double count = cumulative.isEmpty() ? 0 : cumulative.lastEntry().getValue();
        if (count <= 0) {
            return Double.NaN;
        }
        double rank = q * count;
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> b : cumulative.entrySet()) {
            double c = b.getValue();
            if (c >= rank) {
                if (b.getKey().isInfinite()) {
                    return lowerBound * 1000; // Prometheus answers the highest finite bound
                }
                return (lowerBound + (b.getKey() - lowerBound) * (rank - lowerCount) / Math.max(c - lowerCount, 1e-12))
                        * 1000;
            }
            lowerBound = b.getKey();
            lowerCount = c;
        }
        return Double.NaN;
    }

    /**
     * The {@code zkfence_*} metric names the dashboard's queries use, those {@code which} keeps.
     *
     * @throws IllegalStateException if none is left
     */
    static Set<String> dashboardMetrics(Path dashboard, Predicate<String> which) {
        Set<String> names = new TreeSet<>();
        try {
            JsonNode root = new ObjectMapper().readTree(dashboard.toFile());
            root.findValues("expr").forEach(expr -> {
                Matcher m = METRIC_IN_QUERY.matcher(expr.asText());
                while (m.find()) {
                    if (which.test(m.group())) {
                        names.add(m.group());
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dashboard " + dashboard, e);
        }
        if (names.isEmpty()) {
            throw new IllegalStateException("no such zkfence metric in the dashboard's queries: " + dashboard);
        }
        return names;
    }

    /**
     * Checks that the last scrape has every metric in {@code queried}.
     *
     * @throws IllegalStateException naming the missing ones
     */
    void checkPublished(Set<String> queried) {
        Set<String> scraped = new TreeSet<>();
        last().samples().keySet().forEach(k -> scraped.add(k.substring(0, k.indexOf('{'))));
        List<String> missing =
                queried.stream().filter(n -> !scraped.contains(n)).toList();
        if (!missing.isEmpty()) {
            throw new IllegalStateException(
                    "the dashboard queries metrics the meters do not publish: " + missing + "; published: " + scraped);
        }
        System.out.println("all " + queried.size() + " metrics the dashboard queries are in the scrape");
    }

    private static String[] with(String[] filters, String bound) {
        String[] all = new String[filters.length + 1];
        System.arraycopy(filters, 0, all, 0, filters.length);
        all[filters.length] = "le=\"" + bound + "\"";
        return all;
    }

    private static boolean matches(String key, String... filters) {
        for (String f : filters) {
            if (!key.contains(f)) {
                return false;
            }
        }
        return true;
    }

    static double parse(String value) {
        return switch (value) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(value);
        };
    }
}
