/**
 * Every error the API answers, as an RFC 9457 problem ({@code application/problem+json}): the
 * exception mappers that turn the engine's and JAX-RS's exceptions into a status with a detail
 * saying what to do, and the field at fault for bad input.
 *
 * <p>Must not: leak stack traces or internals into a body; an unexpected failure is a 500 with
 * a generic detail and the cause in the server log.
 */
package io.echomq.web.problem;
