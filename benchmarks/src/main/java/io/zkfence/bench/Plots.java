package io.zkfence.bench;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/** Bar charts written as PNG next to the report. */
final class Plots {

    private static final Color[] COLORS = {
        new Color(0x9e9e9e),
        new Color(0x1f77b4),
        new Color(0xff7f0e),
        new Color(0x2ca02c),
        new Color(0xd62728),
        new Color(0x9467bd)
    };

    private Plots() {}

    /**
     * Writes {@code out/file}: one group of bars per category, one bar per series.
     *
     * @return the file name, for the report's image link
     */
    static String bars(
            Path out,
            String file,
            String title,
            String xTitle,
            String yTitle,
            List<String> categories,
            Map<String, List<Double>> series) {
        return bars(out, file, title, xTitle, yTitle, categories, series, false);
    }

    /**
     * As {@link #bars}, with a logarithmic y axis when series differ by orders of magnitude (every
     * value must then be positive).
     *
     * @return the file name, for the report's image link
     */
    static String bars(
            Path out,
            String file,
            String title,
            String xTitle,
            String yTitle,
            List<String> categories,
            Map<String, List<Double>> series,
            boolean logarithmicY) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(820)
                .height(440)
                .title(title)
                .xAxisTitle(xTitle)
                .yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setSeriesColors(COLORS);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotGridVerticalLinesVisible(false);
        // No value labels on the bars: they overlap at these widths; the report's tables have the numbers.
        chart.getStyler().setLabelsVisible(false);
        chart.getStyler().setDecimalPattern("#,##0.##");
        if (logarithmicY) {
            double min = series.values().stream()
                    .flatMap(List::stream)
                    .mapToDouble(Double::doubleValue)
                    .min()
                    .orElse(1);
            double max = series.values().stream()
                    .flatMap(List::stream)
                    .mapToDouble(Double::doubleValue)
                    .max()
                    .orElse(10);
            if (!(min > 0)) {
                throw new IllegalArgumentException("plot " + file + ": a logarithmic axis cannot show " + min);
            }
            chart.getStyler().setYAxisLogarithmic(true);
            // XChart's bars start at the axis minimum, which it would otherwise take as 0.
            chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
            // Whole decades at both ends, so the top has a label too.
            chart.getStyler().setYAxisMax(Math.pow(10, Math.ceil(Math.log10(max))));
            // Bars of every height, so no corner of the plot is free for the legend.
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        }
        series.forEach((name, values) -> chart.addSeries(name, categories, values));
        try {
            BitmapEncoder.saveBitmap(chart, out.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write plot " + file, e);
        }
        return file;
    }
}
