package io.echomq.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Shorthand for {@code @ExtendWith(RealServices.class)}: test methods (and lifecycle methods) of
 * the annotated class may declare {@link ValkeyService} and {@link PostgresService} parameters.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(RealServices.class)
public @interface WithRealServices {
}
