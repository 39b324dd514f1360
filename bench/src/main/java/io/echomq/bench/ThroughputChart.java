package io.echomq.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.text.DecimalFormat;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The one plot: jobs/s against worker concurrency, log-log, one line per contestant and ceiling. */
final class ThroughputChart {

    private ThroughputChart() {
    }

    /** @param lines contestant name -> jobs/s at each of {@code concurrencies}, in order */
    static void write(Path png, List<Integer> concurrencies, Map<String, List<Double>> lines) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        lines.forEach((name, rates) -> {
            XYSeries series = new XYSeries(name);
            for (int i = 0; i < concurrencies.size(); i++) {
                series.add(concurrencies.get(i).doubleValue(), rates.get(i).doubleValue());
            }
            data.addSeries(series);
        });
        LogAxis x = new LogAxis("worker concurrency");
        x.setBase(2);
        x.setTickUnit(new NumberTickUnit(2));   // 1, 4, 16, 64: ticks every second power of two
        x.setNumberFormatOverride(new DecimalFormat("0"));
        LogAxis y = new LogAxis("jobs/s (median of rounds)");
        y.setTickUnit(new NumberTickUnit(0.25));
        y.setNumberFormatOverride(new DecimalFormat("#,##0"));
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            String name = (String) data.getSeriesKey(i);
            if (name.startsWith("ceiling")) {
                renderer.setSeriesStroke(i, new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
            } else {
                renderer.setSeriesStroke(i, new BasicStroke(2.5f));
            }
        }
        XYPlot plot = new XYPlot(data, x, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart("Exactly-once throughput: EchoMQ vs BullMQ vs the machine's ceilings",
                JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 1100, 700);
    }
}
