package io.echomq.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds a {@link JobHandler} bean to the queue whose jobs it receives. The runtime discovers
 * such beans at deployment and starts workers for their queues.
 *
 * <pre>{@code
 * @ApplicationScoped
 * @HandlesQueue("payments")
 * public class ChargeHandler implements JobHandler { ... }
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface HandlesQueue {

    /** The queue name. */
    String value();

    /**
     * A boolean configuration key that must be true for the binding to count (say
     * {@code orders.handler.enabled}); empty: always bound. A handler switched off this way
     * receives no jobs, and its queue is still known if declared in {@code echomq.queues}.
     */
    String enabledBy() default "";
}
