package io.echomq.web.security;

import com.nimbusds.jwt.JWTClaimsSet;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.HttpAuthenticationMechanism;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStoreHandler;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The application's one authentication mechanism: it decides, request by request and by
 * configuration, how a caller is known.
 * <ul>
 * <li>{@code Authorization: Bearer} — a JWT access token of the configured OpenID Connect
 *     provider ({@link OidcProvider}); refused with {@code error="invalid_token"} when it does
 *     not verify or no provider is configured.</li>
 * <li>{@code Authorization: Basic} — a configured user ({@link EchoMqIdentityStore}), for
 *     scripts.</li>
 * <li>The console's session ({@link ConsoleSession}), begun by the login page
 *     ({@value #LOGIN_FORM}) when no provider is configured, or by the provider's sign-in
 *     ({@link OidcSignIn}) when one is.</li>
 * </ul>
 * A protected console page asked for without any of these sends the browser to sign in; any
 * other protected request is answered 401 with the problem body and a challenge per way in.
 * Failed password sign-ins (form and Basic) are throttled per user and per address
 * ({@link SignInThrottle}).
 *
 * <p>Why one mechanism and not {@code @OpenIdAuthenticationMechanismDefinition} beside it:
 * Jakarta Security 3 (EE 10) allows one {@link HttpAuthenticationMechanism} per application (the
 * qualifiers that let several coexist come with EE 11), so the built-in OpenID mechanism would
 * take every request, API and Basic included; and its settings are annotation attributes and EL
 * that each server resolves in its own way. The code flow here is a few dozen lines on the same
 * token validator that checks API bearer tokens, configured by MicroProfile Config alike on
 * every server.
 *
 * <p>Why not {@code @BasicAuthenticationMechanismDefinition} for Basic: its mechanism ends a
 * refused login with {@code SEND_FAILURE} and leaves the answer to the server, and servers
 * differ (Payara and WildFly 401, Open Liberty 403 with an empty body). Every refusal here is
 * written whole by {@link Answers} and returned as {@code SEND_CONTINUE}, which every server
 * sends as written.
 */
@ApplicationScoped
public class EchoMqAuthentication implements HttpAuthenticationMechanism {

    private static final Logger LOG = Logger.getLogger(EchoMqAuthentication.class.getName());
    static final String REALM = "EchoMQ";
    /** The console's login page (static, public) and the path its form posts to. */
    public static final String LOGIN_PAGE = "/console/login.html";
    public static final String LOGIN_FORM = "/console/login";
    static final String CONSOLE = "/console/";
    /** The header, and its value, by which the console marks its own API calls. */
    static final String REQUESTED_WITH = "X-Requested-With";
    static final String CONSOLE_CALL = "echomq-console";

    @Inject
    IdentityStoreHandler identityStores;

    @Inject
    SignInThrottle throttle;

    @Inject
    OidcProvider provider;

    @Inject
    OidcSignIn oidc;

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
                                                HttpMessageContext context) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        String authorization = request.getHeader("Authorization");
        if (hasScheme(authorization, "Bearer")) {
            return bearer(authorization.substring(7).strip(), request, response, context);
        }
        Optional<UsernamePasswordCredential> basic = basicCredential(authorization);
        if (basic.isPresent()) {
            return basic(basic.get(), request, response, context);
        }
        if (path.equals(LOGIN_FORM) && "POST".equals(request.getMethod()) && !provider.configured()) {
            return loginForm(request, response);
        }
        if (provider.configured() && path.equals(OidcSignIn.CALLBACK)) {
            return providerCallback(request, response);
        }
        if (provider.configured() && (path.equals(LOGIN_PAGE) || path.equals(LOGIN_FORM))) {
            return signInAtProvider(request, response);
        }
        Optional<SignedIn> session = ConsoleSession.current(request);
        if (session.isPresent()) {
            return context.notifyContainerAboutLogin(session.get().name(), session.get().roles());
        }
        if (!context.isProtected()) {
            return context.doNothing();
        }
        if (path.startsWith(CONSOLE) && "GET".equals(request.getMethod())) {
            return provider.configured() ? signInAtProvider(request, response)
                    : Answers.seeOther(request, response, request.getContextPath() + LOGIN_PAGE);
        }
        return Answers.unauthorized(request, response, challenges(request));
    }

    private AuthenticationStatus bearer(String token, HttpServletRequest request, HttpServletResponse response,
                                        HttpMessageContext context) {
        if (!provider.configured()) {
            return Answers.invalidToken(request, response, "this server accepts no bearer tokens: no identity provider is configured");
        }
        try {
            JWTClaimsSet claims = provider.metadata().accessTokens().validate(token);
            return context.notifyContainerAboutLogin(OidcSignIn.callerName(claims, provider.settings()),
                    RoleClaim.rolesOf(claims, provider.settings()));
        } catch (InvalidTokenException e) {
            LOG.fine(() -> "EchoMQ bearer token refused from " + request.getRemoteAddr() + ": " + e.getMessage());
            return Answers.invalidToken(request, response, e.getMessage());
        }
    }

    private AuthenticationStatus basic(UsernamePasswordCredential credential, HttpServletRequest request,
                                       HttpServletResponse response, HttpMessageContext context) {
        Optional<Duration> wait = throttle.waitBeforeTrying(credential.getCaller(), request.getRemoteAddr());
        if (wait.isPresent()) {
            return Answers.tooManyFailures(request, response, wait.get());
        }
        CredentialValidationResult result = identityStores.validate(credential);
        if (result.getStatus() == CredentialValidationResult.Status.VALID) {
            throttle.succeeded(credential.getCaller());
            return context.notifyContainerAboutLogin(result);
        }
        throttle.failed(credential.getCaller(), request.getRemoteAddr());
        return Answers.unauthorized(request, response, challenges(request));
    }

    /**
     * The login page's form: a good password begins the console session, a wrong one says so
     * (not which half). A form posted from another site is refused unread (login CSRF).
     */
    private AuthenticationStatus loginForm(HttpServletRequest request, HttpServletResponse response) {
        String user = Optional.ofNullable(request.getParameter("username")).orElse("").strip();
        String password = Optional.ofNullable(request.getParameter("password")).orElse("");
        String page = request.getContextPath() + LOGIN_PAGE;
        if (!CsrfFilter.fromThisSite(request.getHeader("Origin"), request.getHeader("Sec-Fetch-Site"),
                URI.create(request.getRequestURL().toString()))) {
            return Answers.seeOther(request, response, page + "?error=cross-site");
        }
        if (throttle.waitBeforeTrying(user, request.getRemoteAddr()).isPresent()) {
            return Answers.seeOther(request, response, page + "?error=throttled");
        }
        CredentialValidationResult result = identityStores.validate(new UsernamePasswordCredential(user, password));
        if (result.getStatus() != CredentialValidationResult.Status.VALID) {
            throttle.failed(user, request.getRemoteAddr());
            return Answers.seeOther(request, response, page + "?error=wrong");
        }
        throttle.succeeded(user);
        ConsoleSession.begin(request, new SignedIn(result.getCallerPrincipal().getName(), result.getCallerGroups(), null));
        return Answers.seeOther(request, response, request.getContextPath() + CONSOLE);
    }

    private AuthenticationStatus signInAtProvider(HttpServletRequest request, HttpServletResponse response) {
        try {
            return Answers.seeOther(request, response, oidc.start(request));
        } catch (InvalidTokenException e) {
            return Answers.unauthorized(request, response, challenges(request));
        }
    }

    private AuthenticationStatus providerCallback(HttpServletRequest request, HttpServletResponse response) {
        try {
            SignedIn caller = oidc.finish(request);
            if (caller.roles().isEmpty()) {
                LOG.warning("EchoMQ sign-in: '" + caller.name() + "' signed in at the provider, but the claim "
                        + provider.settings().rolesClaim() + " gives no EchoMQ role");
                return Answers.invalidToken(request, response, "signed in, but the identity provider grants no EchoMQ role");
            }
            ConsoleSession.begin(request, caller);
            LOG.fine(() -> "EchoMQ sign-in at the provider: " + caller);
            return Answers.seeOther(request, response, request.getContextPath() + CONSOLE);
        } catch (InvalidTokenException e) {
            LOG.warning("EchoMQ sign-in at the provider failed from " + request.getRemoteAddr() + ": " + e.getMessage());
            return Answers.invalidToken(request, response, e.getMessage());
        }
    }

    /**
     * One challenge per way in. A page's script (the console's own calls, or any fetch a
     * browser marks {@code Sec-Fetch-Dest: empty}) is not offered Basic: a browser answers a
     * Basic challenge to a script with its own password dialog, which would hide the console's
     * login page from someone whose session just ended. It gets the console's session scheme
     * instead, which no browser prompts for.
     */
    private List<String> challenges(HttpServletRequest request) {
        List<String> challenges = new ArrayList<>();
        challenges.add(fromAPagesScript(request) ? "Session realm=\"" + REALM + "\"" : "Basic realm=\"" + REALM + "\"");
        if (provider.configured()) {
            challenges.add("Bearer realm=\"" + REALM + "\"");
        }
        return challenges;
    }

    /**
     * Whether a page's script sent the request: the console marks its calls (a browser sends
     * the {@code Sec-Fetch-*} headers only to secure or loopback origins, so they cannot be the
     * only sign).
     */
    static boolean fromAPagesScript(HttpServletRequest request) {
        return CONSOLE_CALL.equals(request.getHeader(REQUESTED_WITH)) || "empty".equals(request.getHeader("Sec-Fetch-Dest"));
    }

    private static boolean hasScheme(String authorization, String scheme) {
        return authorization != null && authorization.regionMatches(true, 0, scheme + " ", 0, scheme.length() + 1);
    }

    /** The user and password of an {@code Authorization: Basic ...} header; empty when absent or malformed. */
    static Optional<UsernamePasswordCredential> basicCredential(String authorization) {
        if (!hasScheme(authorization, "Basic")) {
            return Optional.empty();
        }
        try {
            String pair = new String(Base64.getDecoder().decode(authorization.substring(6).strip()), StandardCharsets.UTF_8);
            int colon = pair.indexOf(':');
            return colon < 0 ? Optional.empty()
                    : Optional.of(new UsernamePasswordCredential(pair.substring(0, colon), pair.substring(colon + 1)));
        } catch (IllegalArgumentException notBase64) {
            return Optional.empty();
        }
    }
}
