package io.zkfence.bench;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of a Prometheus text endpoint (a replica's or etcd's {@code /metrics}), summed by metric name. */
final class PromText {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})? (\\S+)");

    private final String text;

    private PromText(String text) {
        this.text = text;
    }

    /** A scrape's text, as an endpoint answered it. */
    static PromText of(String text) {
        return new PromText(text);
    }

    /** GETs {@code url}; a failed scrape is an IllegalStateException naming the URL. */
    static PromText scrape(String url) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
            c.setConnectTimeout(5_000);
            c.setReadTimeout(30_000);
            try {
                if (c.getResponseCode() != 200) {
                    throw new IllegalStateException(url + " answered " + c.getResponseCode());
                }
                return new PromText(new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot scrape " + url + ": " + e, e);
        }
    }

    /** The sum of every sample of {@code metric} (all label sets); 0 when it has none. */
    double sum(String metric) {
        double sum = 0;
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (m.find() && m.group(1).equals(metric)) {
                sum += PromScrapes.parse(m.group(3));
            }
        }
        return sum;
    }
}
