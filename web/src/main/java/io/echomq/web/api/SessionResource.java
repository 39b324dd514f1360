package io.echomq.web.api;

import io.echomq.web.security.CsrfTokens;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.util.List;
import java.util.stream.Stream;

/** Who is calling, with which roles, and the CSRF token a browser must send on state changes. */
@Path("session")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class SessionResource {

    public record Session(String user, List<String> roles, String csrfToken) {
    }

    @Inject
    CsrfTokens tokens;

    @GET
    public Session session(@Context SecurityContext security) {
        String user = security.getUserPrincipal().getName();
        List<String> roles = Stream.of(Roles.ADMIN, Roles.SUBMITTER).filter(security::isUserInRole).toList();
        return new Session(user, roles, tokens.tokenFor(user));
    }
}
