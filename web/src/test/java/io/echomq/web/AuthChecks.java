package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.idp.KeycloakServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * Who may call what: each route answered 401 with the problem body to anonymous callers, 403 with
 * it to a submitter where admin is needed, and never 401/403 to an admin. Each check returns how
 * many requests it swept (every one answered as specified, or the check failed).
 */
final class AuthChecks {

    /** One route and whether a submitter may call it. */
    record Route(String method, String path, String body, boolean submitterMay) {
    }

    private static final String JOBS = "/api/queues/payments/jobs";
    private static final String SCHEDULES = "/api/schedules/" + ApiE2eIT.Schedules.QUEUE;

    /** Every route of the API. */
    static final List<Route> ALL = List.of(
            new Route("GET", "/api/queues", null, true),
            new Route("GET", "/api/queues/payments", null, true),
            new Route("POST", "/api/queues/payments/pause", null, false),
            new Route("POST", "/api/queues/payments/resume", null, false),
            new Route("POST", JOBS, ApiE2eIT.charge("auth", 1), true),
            new Route("POST", "/api/queues/payments/jobs:batch", "[" + ApiE2eIT.charge("auth", 1) + "]", true),
            new Route("GET", JOBS + "?state=completed", null, true),
            new Route("GET", JOBS + "/1", null, true),
            new Route("POST", JOBS + "/999999/cancel", null, false),
            new Route("POST", JOBS + "/999999/retry", null, false),
            new Route("POST", JOBS + "/999999/delete", null, false),
            new Route("GET", "/api/demo/ledger", null, true),
            new Route("GET", "/api/session", null, true),
            new Route("GET", "/api/workers", null, true),
            new Route("GET", "/api/stats/history", null, true),
            new Route("GET", "/api/outboxes", null, true),
            new Route("GET", "/api/schedules", null, true),
            new Route("GET", SCHEDULES + "/nightly", null, true),
            new Route("PUT", SCHEDULES + "/auth-sweep", "{\"cron\":\"0 0 1 1 *\"}", false),
            new Route("DELETE", SCHEDULES + "/auth-sweep", null, false),
            new Route("POST", SCHEDULES + "/nightly/pause", null, false),
            new Route("POST", SCHEDULES + "/nightly/resume", null, false),
            new Route("POST", "/api/lab/runs", "{\"mode\":\"effect-store\",\"crashPoint\":\"done\"}", false),
            new Route("POST", JOBS + "/999999/promote", null, false),
            new Route("PUT", JOBS + "/999999/due", "{\"delayMs\":1000}", false),
            new Route("POST", "/api/outboxes/dead/999999/retry?dataSource=jdbc/none", null, false),
            new Route("POST", "/api/outboxes/dead/999999/drop?dataSource=jdbc/none", null, false),
            new Route("POST", "/api/flows", "{\"queue\":\"payments\",\"payload\":{\"account\":\"auth\",\"amountCents\":1},"
                    + "\"children\":[{\"queue\":\"payments\",\"payload\":{\"account\":\"auth\",\"amountCents\":1}}]}", true),
            new Route("GET", "/api/flows/payments/1", null, true));

    /** A few routes covering each answer (reading, submitting, steering): enough to compare servers. */
    static final List<Route> FEW = List.of(ALL.get(0), ALL.get(2), ALL.get(4), ALL.get(8), ALL.get(11));

    private AuthChecks() {
    }

    static int anonymousCallersAreAskedToLogIn(E2eDeployment app, List<Route> routes) {
        for (Route route : routes) {
            E2eHttp.Response answer = app.anonymous.send(route.method(), route.path(), route.body());
            assertThat(answer.status()).as("%s %s", route.method(), route.path()).isEqualTo(401);
            assertThat(answer.header("WWW-Authenticate")).as("%s %s", route.method(), route.path()).isPresent();
            assertThat(answer.header("Content-Type")).hasValue("application/problem+json");
        }
        return routes.size();
    }

    /**
     * The session an anonymous visit to the console begins (the provider sign-in in flight) comes
     * in a cookie scripts cannot read, sent only with this site's own requests: {@code HttpOnly}
     * and {@code SameSite=Lax}, once. Asserted on the Set-Cookie header as the server wrote it,
     * since a browser's store fills in a Lax default for a cookie sent without one.
     */
    static void theSessionCookieIsHttpOnlyAndSameSiteLax(E2eDeployment app) {
        E2eHttp.Response visit = app.anonymous.get("/console/");
        String session = visit.headers().allValues("Set-Cookie").stream().filter(c -> c.toUpperCase().startsWith("JSESSIONID="))
                .findFirst().orElseThrow(() -> new AssertionError("no session cookie begun by " + visit));
        List<String> attributes = java.util.Arrays.stream(session.split(";")).map(String::strip).toList();
        assertThat(attributes).as("Set-Cookie: %s", session).anyMatch(a -> a.equalsIgnoreCase("HttpOnly"));
        assertThat(attributes.stream().filter(a -> a.regionMatches(true, 0, "SameSite=", 0, 9)))
                .as("Set-Cookie: %s", session).singleElement().satisfies(a -> assertThat(a).isEqualToIgnoringCase("SameSite=Lax"));
    }

    static int wrongPasswordsAreRefused(E2eDeployment app) {
        for (E2eHttp wrong : List.of(app.anonymous.as(E2eUsers.ADMIN, "not-the-password"), app.anonymous.as("nobody", "x"))) {
            E2eHttp.Response answer = wrong.get("/api/queues");
            assertThat(answer.status()).as("%s", answer).isEqualTo(401);
            assertThat(answer.header("Content-Type")).hasValue("application/problem+json");
        }
        return 2;
    }

    static int submittersAreRefusedOnlyWhereAdminIsNeeded(E2eDeployment app, List<Route> routes) {
        return submittersAreRefusedOnlyWhereAdminIsNeeded(app.submitter, routes);
    }

    /** As above for a submitter who comes in another way (a provider's token, a console session). */
    static int submittersAreRefusedOnlyWhereAdminIsNeeded(E2eHttp submitter, List<Route> routes) {
        for (Route route : routes) {
            E2eHttp.Response answer = submitter.send(route.method(), route.path(), route.body());
            if (route.submitterMay()) {
                assertThat(answer.status()).as("%s %s: %s", route.method(), route.path(), answer).isNotIn(401, 403);
            } else {
                assertThat(answer.status()).as("%s %s", route.method(), route.path()).isEqualTo(403);
                assertThat(answer.header("Content-Type")).hasValue("application/problem+json");
            }
        }
        return routes.size();
    }

    /** Leaves the demo queue and the configured schedule resumed (the sweep may pause them). */
    static int adminsMayCallEveryRoute(E2eDeployment app, List<Route> routes) {
        return adminsMayCallEveryRoute(app, app.admin, routes);
    }

    /** As above for an admin who comes in another way (a provider's token, a console session). */
    static int adminsMayCallEveryRoute(E2eDeployment app, E2eHttp admin, List<Route> routes) {
        for (Route route : routes) {
            E2eHttp.Response answer = admin.send(route.method(), route.path(), route.body());
            assertThat(answer.status()).as("%s %s: %s", route.method(), route.path(), answer).isNotIn(401, 403, 500);
        }
        app.admin.post("/api/queues/payments/resume", null);
        if (routes.stream().anyMatch(r -> r.path().startsWith(SCHEDULES))) {
            app.admin.post(SCHEDULES + "/nightly/resume", null);
        }
        return routes.size();
    }

    /**
     * The identity provider's access tokens on the API (the deployment is configured with
     * {@link E2eProvider#environment}): a machine client's token is accepted with the roles its
     * claim gives, submitter or admin, on every route; an expired token, a token of another realm
     * (another issuer and keys) and a forged one are answered 401 with the problem body and
     * {@code WWW-Authenticate: Bearer error="invalid_token"}; an anonymous caller is told that
     * bearer tokens are accepted.
     */
    static int bearerTokensAreCheckedAsTheProviderIssuedThem(E2eDeployment app, KeycloakServer keycloak, List<Route> routes) {
        String submitterToken = E2eProvider.clientCredentialsToken(keycloak, E2eProvider.REALM, E2eProvider.MACHINE);
        int swept = submittersAreRefusedOnlyWhereAdminIsNeeded(app.anonymous.withBearer(submitterToken), routes);
        String adminToken = E2eProvider.clientCredentialsToken(keycloak, E2eProvider.REALM, E2eProvider.MACHINE_ADMIN);
        swept += adminsMayCallEveryRoute(app, app.anonymous.withBearer(adminToken), routes);

        String shortLived = E2eProvider.clientCredentialsToken(keycloak, E2eProvider.REALM, E2eProvider.SHORT_LIVED);
        long expiry = E2eProvider.expiresAtEpochSecond(shortLived);
        Awaitility.await("the short-lived token's expiry").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> Instant.now().getEpochSecond() > expiry);
        Map<String, String> refused = Map.of(
                "expired", shortLived,
                "of another realm", E2eProvider.clientCredentialsToken(keycloak, E2eProvider.FOREIGN_REALM, E2eProvider.MACHINE),
                "claiming admin in a forged payload", forgedPayload(submitterToken),
                "not a JWT", "not-a-jwt");
        for (Map.Entry<String, String> token : refused.entrySet()) {
            E2eHttp.Response answer = app.anonymous.withBearer(token.getValue()).get("/api/queues");
            assertThat(answer.status()).as("a token %s: %s", token.getKey(), answer).isEqualTo(401);
            assertThat(answer.header("WWW-Authenticate")).as("a token %s", token.getKey())
                    .hasValueSatisfying(challenge -> assertThat(challenge).startsWith("Bearer ").contains("error=\"invalid_token\""));
            assertThat(answer.header("Content-Type")).as("a token %s", token.getKey()).hasValue("application/problem+json");
        }
        assertThat(app.anonymous.get("/api/queues").headers().allValues("WWW-Authenticate"))
                .as("an anonymous caller is offered both ways in").anyMatch(challenge -> challenge.startsWith("Bearer "))
                .anyMatch(challenge -> challenge.startsWith("Basic "));
        return swept + refused.size() + 1;
    }

    /** The token with its payload swapped for one that claims the admin role too, its signature left as it was. */
    private static String forgedPayload(String jwt) {
        String[] parts = jwt.split("\\.");
        String payload = new String(java.util.Base64.getUrlDecoder().decode(parts[1]), java.nio.charset.StandardCharsets.UTF_8);
        String claimed = payload.replaceFirst("\"roles\":\\[", "\"roles\":[\"admin\",");
        return parts[0] + "." + java.util.Base64.getUrlEncoder().withoutPadding()
                .encodeToString(claimed.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "." + parts[2];
    }
}
