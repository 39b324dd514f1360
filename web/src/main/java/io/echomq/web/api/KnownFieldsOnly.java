package io.echomq.web.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A request record whose body may hold only its own fields: {@link BodyBinding} refuses any other,
 * naming it. For bodies where a field read as absent changes what the request does, so that a
 * misspelt field must not pass unnoticed (a misspelt limit would clear the limit it meant to set).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface KnownFieldsOnly {
}
