package io.zkfence.bench;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The metrics runs' plots: 700 × 400 time series panels, drawn two by two into one PNG. */
final class Charts {

    private static final int WIDTH = 700;
    private static final int HEIGHT = 400;

    private Charts() {}

    /** A panel over "seconds into the run". */
    static XYChart chart(String title, String yTitle) {
        XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(title)
                .xAxisTitle("seconds into the run")
                .yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setMarkerSize(0);
        chart.getStyler().setDecimalPattern("#,##0.##");
        return chart;
    }

    /** A line without markers. */
    static XYSeries series(XYChart chart, String name, double[] x, double[] y) {
        XYSeries series = chart.addSeries(name, x, y);
        series.setMarker(SeriesMarkers.NONE);
        return series;
    }

    /** A log axis takes no zero: windows without an event become gaps (NaN), as Grafana shows them. */
    static double[] positive(double[] v) {
        double[] r = v.clone();
        for (int i = 0; i < r.length; i++) {
            if (!(r[i] > 0)) {
                r[i] = Double.NaN;
            }
        }
        return r;
    }

    /** Writes the panels two per row into {@code png}. */
    static void write(List<XYChart> charts, Path png) {
        int rows = (charts.size() + 1) / 2;
        BufferedImage image = new BufferedImage(2 * WIDTH, rows * HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            for (int i = 0; i < charts.size(); i++) {
                g.drawImage(BitmapEncoder.getBufferedImage(charts.get(i)), (i % 2) * WIDTH, (i / 2) * HEIGHT, null);
            }
        } finally {
            g.dispose();
        }
        try {
            Files.createDirectories(png.toAbsolutePath().getParent());
            ImageIO.write(image, "png", png.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + png, e);
        }
        System.out.println("wrote " + png);
    }
}
