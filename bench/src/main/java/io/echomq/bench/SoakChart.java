package io.echomq.bench;

import io.echomq.bench.Soak.Sample;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToDoubleFunction;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The soak's plot: one panel per sampled quantity, minute by minute, on one time axis. */
final class SoakChart {

    private SoakChart() {
    }

    static void write(Path png, String title, List<Sample> samples) throws IOException {
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(new NumberAxis("minute"));
        plot.add(panel("Valkey MB", samples, s -> s.valkeyBytes() / 1e6));
        plot.add(panel("completed kept", samples, Sample::completedKept));
        plot.add(panel("effect rows", samples, Sample::effectRows));
        plot.add(panel("effect table MB", samples, s -> s.effectTableBytes() / 1e6));
        plot.add(panel("heap after GC MB", samples, s -> s.heapAfterGcBytes() / 1e6));
        plot.add(panel("p99 ms", samples, Sample::p99Millis));
        JFreeChart chart = new JFreeChart("Soak: " + title, JFreeChart.DEFAULT_TITLE_FONT, plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 1300);
    }

    private static XYPlot panel(String name, List<Sample> samples, ToDoubleFunction<Sample> metric) {
        XYSeries series = new XYSeries(name);
        samples.forEach(s -> series.add(s.minute(), metric.applyAsDouble(s)));
        NumberAxis y = new NumberAxis(name);
        y.setAutoRangeIncludesZero(true);
        XYPlot panel = new XYPlot(new XYSeriesCollection(series), null, y, new XYLineAndShapeRenderer(true, true));
        panel.setBackgroundPaint(Color.WHITE);
        panel.setRangeGridlinePaint(Color.LIGHT_GRAY);
        return panel;
    }
}
