package io.echomq.web.security;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Slows password guessing (login page and HTTP Basic alike): after {@value #MAX_PER_USER}
 * failed sign-ins for one user name, or {@value #MAX_PER_ADDRESS} from one address, within
 * {@link #WINDOW}, further attempts for that name or from that address are refused unchecked
 * until the oldest failure leaves the window. A success clears the user's count, not the
 * address's. Failures are logged with the name and the address, never the password.
 *
 * <p>Memory stays bounded: at most {@value #MAX_TRACKED} names and addresses are tracked; the
 * least recently failed are forgotten first.
 */
@ApplicationScoped
public class SignInThrottle {

    private static final Logger LOG = Logger.getLogger(SignInThrottle.class.getName());
    static final int MAX_PER_USER = 5;
    static final int MAX_PER_ADDRESS = 20;
    static final Duration WINDOW = Duration.ofMinutes(15);
    static final int MAX_TRACKED = 10_000;

    private final Clock clock;
    /** Failure times per "user:name" and "address:ip", oldest first; guarded by this object's lock. */
    private final Map<String, Deque<Instant>> failures = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Deque<Instant>> eldest) {
            return size() > MAX_TRACKED;
        }
    };

    public SignInThrottle() {
        this(Clock.systemUTC());
    }

    SignInThrottle(Clock clock) {
        this.clock = clock;
    }

    /** How long until {@code user} from {@code address} may try again; empty when they may now. */
    public synchronized Optional<Duration> waitBeforeTrying(String user, String address) {
        Instant now = clock.instant();
        return later(blockedUntil("user:" + user, MAX_PER_USER, now), blockedUntil("address:" + address, MAX_PER_ADDRESS, now))
                .map(until -> Duration.between(now, until));
    }

    public synchronized void failed(String user, String address) {
        Instant now = clock.instant();
        int forUser = record("user:" + user, now);
        int fromAddress = record("address:" + address, now);
        LOG.warning("EchoMQ sign-in refused for user '" + printable(user) + "' from " + printable(address) + " ("
                + forUser + " failures for the user, " + fromAddress + " from the address in the last " + WINDOW.toMinutes() + " min)");
    }

    public synchronized void succeeded(String user) {
        failures.remove("user:" + user);
    }

    private int record(String key, Instant now) {
        Deque<Instant> times = failures.computeIfAbsent(key, k -> new ArrayDeque<>());
        forgetOld(times, now);
        times.addLast(now);
        return times.size();
    }

    private Optional<Instant> blockedUntil(String key, int limit, Instant now) {
        Deque<Instant> times = failures.get(key);
        if (times == null) {
            return Optional.empty();
        }
        forgetOld(times, now);
        if (times.size() < limit) {
            return Optional.empty();
        }
        // The attempt that would be allowed again is the one after the (size - limit + 1)-th oldest leaves.
        Iterator<Instant> oldest = times.iterator();
        Instant leaving = oldest.next();
        for (int i = 0; i < times.size() - limit; i++) {
            leaving = oldest.next();
        }
        return Optional.of(leaving.plus(WINDOW));
    }

    private static void forgetOld(Deque<Instant> times, Instant now) {
        Instant cutoff = now.minus(WINDOW);
        while (!times.isEmpty() && !times.peekFirst().isAfter(cutoff)) {
            times.removeFirst();
        }
    }

    private static Optional<Instant> later(Optional<Instant> a, Optional<Instant> b) {
        if (a.isEmpty()) {
            return b;
        }
        return b.isEmpty() || a.get().isAfter(b.get()) ? a : b;
    }

    /** A name as typed can hold anything: log lines get it without control characters, and short. */
    private static String printable(String text) {
        String clean = text == null ? "" : text.replaceAll("[^\\x20-\\x7E]", "?");
        return clean.length() > 64 ? clean.substring(0, 64) + "…" : clean;
    }
}
