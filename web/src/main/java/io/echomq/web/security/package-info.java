/**
 * Who may call what: HTTP Basic through Jakarta Security (the authentication mechanism and the
 * identity store over the configured users and their PBKDF2 hashes), the roles
 * ({@code submitter}, {@code admin}) enforced on every route, the CSRF token that a browser's
 * state changes need, and the security headers of every answer. A refusal is a 401 (with a
 * challenge) or 403 problem on every server.
 *
 * <p>Must not: let a route through without a role check, or answer a refusal without a
 * problem body.
 */
package io.echomq.web.security;
