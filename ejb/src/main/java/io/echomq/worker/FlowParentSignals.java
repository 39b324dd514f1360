package io.echomq.worker;

import io.echomq.handler.JobSignals;
import io.echomq.queue.FlowChild;
import java.util.List;
import java.util.function.Supplier;

/** A job's signals, plus its flow children as its parent's record shows them, read from Valkey when the handler asks. */
final class FlowParentSignals implements JobSignals {

    private final JobSignals signals;
    private final Supplier<List<FlowChild>> children;

    FlowParentSignals(JobSignals signals, Supplier<List<FlowChild>> children) {
        this.signals = signals;
        this.children = children;
    }

    @Override
    public void progress(int percent, String message) {
        signals.progress(percent, message);
    }

    @Override
    public boolean cancelRequested() {
        return signals.cancelRequested();
    }

    @Override
    public List<FlowChild> flowChildren() {
        return children.get();
    }
}
