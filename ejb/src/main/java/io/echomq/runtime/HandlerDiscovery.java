package io.echomq.runtime;

import io.echomq.engine.HandlerBinding;
import io.echomq.handler.HandlesQueue;
import io.echomq.handler.JobHandler;
import jakarta.enterprise.context.spi.CreationalContext;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * Finds the application's handler beans the way a container finds message-driven beans: every
 * CDI bean implementing {@link JobHandler} and annotated {@link HandlesQueue}. Two handlers for
 * one queue fail the deployment; a handler without a queue is reported and ignored, and so is one switched off by its
 * {@link HandlesQueue#enabledBy()} key.
 */
final class HandlerDiscovery {

    private static final Logger LOG = Logger.getLogger(HandlerDiscovery.class.getName());

    private HandlerDiscovery() {
    }

    /** @param switchedOn whether a boolean configuration key is true (for {@link HandlesQueue#enabledBy()}) */
    static List<HandlerBinding> discover(BeanManager beans, Predicate<String> switchedOn) {
        Map<String, HandlerBinding> byQueue = new HashMap<>();
        List<HandlerBinding> bindings = new ArrayList<>();
        for (Bean<?> bean : beans.getBeans(JobHandler.class, Any.Literal.INSTANCE)) {
            Class<?> type = bean.getBeanClass();
            HandlesQueue binding = type.getAnnotation(HandlesQueue.class);
            if (binding == null) {
                LOG.warning("EchoMQ: handler bean " + type.getName() + " has no @HandlesQueue and receives no jobs");
                continue;
            }
            if (!binding.enabledBy().isEmpty() && !switchedOn.test(binding.enabledBy())) {
                LOG.info("EchoMQ: handler bean " + type.getName() + " is off (" + binding.enabledBy() + " is not true)");
                continue;
            }
            JobHandler handler = reference(beans, bean);
            HandlerBinding found = new HandlerBinding(binding.value(), handler, type);
            HandlerBinding clash = byQueue.putIfAbsent(binding.value(), found);
            if (clash != null) {
                throw new ConfigurationException("@HandlesQueue(\"" + binding.value() + "\")", "two handlers are bound to it: "
                        + clash.beanClass().getName() + " and " + type.getName());
            }
            bindings.add(found);
        }
        return List.copyOf(bindings);
    }

    private static JobHandler reference(BeanManager beans, Bean<?> bean) {
        CreationalContext<?> context = beans.createCreationalContext(bean);
        return (JobHandler) beans.getReference(bean, JobHandler.class, context);
    }
}
