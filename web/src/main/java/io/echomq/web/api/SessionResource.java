package io.echomq.web.api;

import io.echomq.web.security.CsrfTokens;
import io.echomq.web.security.Roles;
import io.echomq.web.security.SignOut;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.util.List;
import java.util.stream.Stream;

/**
 * Who is calling, with which roles, and the CSRF token a browser must send on state changes;
 * {@code DELETE} signs the console out.
 */
@Path("session")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class SessionResource {

    public record Session(String user, List<String> roles, String csrfToken) {
    }

    /** The console's session has ended; {@code next} is where the browser goes (the login page, or the provider's sign-out). */
    public record SignedOut(String next) {
    }

    @Inject
    CsrfTokens tokens;

    @Inject
    SignOut signOut;

    @GET
    public Session session(@Context SecurityContext security) {
        String user = security.getUserPrincipal().getName();
        List<String> roles = Stream.of(Roles.ADMIN, Roles.SUBMITTER).filter(security::isUserInRole).toList();
        return new Session(user, roles, tokens.tokenFor(user));
    }

    @DELETE
    public SignedOut signOut(@Context HttpServletRequest request) {
        return new SignedOut(signOut.end(request));
    }
}
