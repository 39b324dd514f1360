package io.echomq.effect;

import org.jdbi.v3.core.Handle;

/**
 * A job's effect: writes made through the given handle, inside the transaction that also
 * records the effect. Throwing rolls all of it back.
 */
@FunctionalInterface
public interface Effect {

    void apply(Handle transaction) throws Exception;
}
