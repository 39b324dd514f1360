package io.echomq.engine;

import io.echomq.handler.JobHandler;

/** A handler bean and the queue it is bound to. */
public record HandlerBinding(String queue, JobHandler handler, Class<?> beanClass) {
}
