/**
 * A real OpenID Connect provider for sign-in tests: {@link io.echomq.testkit.idp.KeycloakServer},
 * Keycloak in dev mode on loopback with the test's realms imported, one per test JVM.
 */
package io.echomq.testkit.idp;
