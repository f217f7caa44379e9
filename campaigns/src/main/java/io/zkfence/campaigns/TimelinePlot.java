package io.zkfence.campaigns;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The campaign's timeline as a picture: one row per worker (and one for the ZooKeeper servers),
 * time across. Accepted writes are dots on their worker's row, writes a fence rejected are red
 * crosses, and each fault is a bar under its victim's row, coloured by kind, from its start to its
 * end. A gap in a worker's dots that starts at a fault bar and ends after it is that fault's cost.
 */
public final class TimelinePlot {

    private static final Color[] FAULT_COLORS = {
        new Color(0x1f77b4),
        new Color(0xff7f0e),
        new Color(0x2ca02c),
        new Color(0x9467bd),
        new Color(0x8c564b),
        new Color(0xe377c2),
        new Color(0x17becf),
        new Color(0xbcbd22),
        new Color(0x393b79),
        new Color(0xe7ba52),
        new Color(0x637939),
        new Color(0xad494a),
        new Color(0x7b4173),
        new Color(0x3182bd),
        new Color(0xfd8d3c),
        new Color(0x31a354)
    };

    private TimelinePlot() {}

    /**
     * Writes the plot as PNG to {@code file}: one row per worker, then one for the ZooKeeper servers.
     *
     * @param startMillis the campaign's start (the x axis's zero)
     * @param workers     the workers' names, top row first
     */
    static void write(
            Path file, long startMillis, List<String> workers, Collection<FaultEvent> events, Collection<Attempt> log) {
        List<String> rows = new ArrayList<>(workers);
        rows.add(FaultEvent.ENSEMBLE);
        write(file, "Fault campaign: writes and faults over time", startMillis, rows, events, log);
    }

    /**
     * Writes the plot as PNG to {@code file}.
     *
     * @param title       the chart's title
     * @param startMillis the campaign's start (the x axis's zero)
     * @param rows        the rows, top first: workers (their writes and faults) and other fault targets
     *                    (replicas, the ZooKeeper servers); a fault on a target not listed goes on the last row
     */
    public static void write(
            Path file,
            String title,
            long startMillis,
            List<String> rows,
            Collection<FaultEvent> events,
            Collection<Attempt> log) {
        XYChart chart = new XYChartBuilder()
                .width(1600)
                .height(180 + 90 * rows.size())
                .title(title)
                .xAxisTitle("seconds since start")
                .build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        // One legend row holds every series only in a smaller font (XChart does not wrap it).
        chart.getStyler().setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        chart.getStyler().setMarkerSize(3);
        chart.getStyler().setYAxisMin(-0.6);
        chart.getStyler().setXAxisMin(0.0);
        chart.getStyler().setYAxisMax((double) rows.size() - 0.5);
        chart.setCustomYAxisTickLabelsFormatter(y -> {
            int row = (int) Math.round(y);
            if (Math.abs(y - row) < 1e-9 && row >= 0 && row < rows.size()) {
                return rows.get(rows.size() - 1 - row);
            }
            // Ticks between rows get no text. XChart thins out ticks whose labels repeat, so each
            // blank is a different number of spaces.
            return " ".repeat(1 + (int) Math.round((y + 2) * 4));
        });
        writes(chart, "accepted write", startMillis, rows, log, false, new Color(0x555555));
        writes(chart, "write rejected by a fence", startMillis, rows, log, true, new Color(0xd62728));
        Map<String, List<FaultEvent>> byKind = new TreeMap<>();
        events.forEach(
                e -> byKind.computeIfAbsent(e.kind(), k -> new ArrayList<>()).add(e));
        if (byKind.size() > 8) {
            // XChart does not wrap a legend: more kinds than one row holds go in a column on the right.
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
            chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        }
        int colour = 0;
        for (var kind : byKind.entrySet()) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (FaultEvent e : kind.getValue()) {
                double y = y(rows, e.target()) - 0.3;
                xs.add(seconds(e.startMillis(), startMillis));
                ys.add(y);
                xs.add(seconds(
                        Math.max(e.endMillis(), e.startMillis() + 100), startMillis)); // an instant stays visible
                ys.add(y);
                xs.add(seconds(e.endMillis(), startMillis));
                ys.add(Double.NaN); // a gap: XChart draws no line across NaN
            }
            XYSeries s = chart.addSeries(kind.getKey() + " (" + kind.getValue().size() + ")", xs, ys);
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            s.setMarker(SeriesMarkers.NONE);
            s.setLineColor(FAULT_COLORS[colour++ % FAULT_COLORS.length]);
            s.setLineStyle(new BasicStroke(7f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
        }
        try {
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the timeline plot " + file, e);
        }
    }

    private static void writes(
            XYChart chart,
            String name,
            long startMillis,
            List<String> rows,
            Collection<Attempt> log,
            boolean rejected,
            Color color) {
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (Attempt a : log) {
            boolean stale = Attempt.STALE.equals(a.jdbc()) || Attempt.STALE.equals(a.s3());
            boolean accepted = Attempt.ACCEPTED.equals(a.jdbc());
            if (rejected ? stale : accepted && !stale) {
                xs.add(seconds(a.acquiredAt(), startMillis));
                ys.add(y(rows, a.worker()) + (rejected ? 0.2 : 0.0));
            }
        }
        if (xs.isEmpty()) {
            return; // XChart refuses an empty series; the legend then simply has no such entry
        }
        XYSeries s = chart.addSeries(name + " (" + xs.size() + ")", xs, ys);
        s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        s.setMarker(rejected ? SeriesMarkers.CROSS : SeriesMarkers.CIRCLE);
        s.setMarkerColor(color);
    }

    /** Rows from the top: the first row highest, the last at the bottom (y = 0), where unknown targets go too. */
    private static double y(List<String> rows, String target) {
        int i = rows.indexOf(target);
        return rows.size() - 1 - (i < 0 ? rows.size() - 1 : i);
    }

    private static double seconds(long millis, long startMillis) {
        return (millis - startMillis) / 1000.0;
    }
}
