package io.echomq.web.security;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Signing out of the console: the session ends here, and where the browser goes next is the
 * provider's end-session endpoint (so the sign-in there ends too) when the caller signed in at
 * a provider that has one, else the login page.
 */
@ApplicationScoped
public class SignOut {

    @Inject
    OidcSignIn oidc;

    @Inject
    OidcProvider provider;

    /** Ends the caller's console session; returns the URL the browser should open next. */
    public String end(HttpServletRequest request) {
        String loginPage = request.getContextPath() + EchoMqAuthentication.LOGIN_PAGE;
        return ConsoleSession.end(request)
                .filter(caller -> caller.idToken() != null && provider.configured())
                .flatMap(caller -> oidc.endSessionUrl(request, caller))
                .orElse(provider.configured() ? request.getContextPath() + EchoMqAuthentication.CONSOLE : loginPage + "?signed-out");
    }
}
