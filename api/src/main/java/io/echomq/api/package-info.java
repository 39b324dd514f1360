/**
 * What an application compiles against to use EchoMQ through its resource adapter, and nothing
 * else: the listener its message-driven beans implement ({@link io.echomq.api.JobListener}), the
 * {@link io.echomq.api.Job} they receive, and the connection factory that enqueues jobs
 * ({@link io.echomq.api.JobQueueConnectionFactory}), inside the caller's JTA transaction when
 * there is one. Depends on the Jakarta EE API alone; the adapter carries these classes at run
 * time, so applications use this jar with scope {@code provided}.
 */
package io.echomq.api;
