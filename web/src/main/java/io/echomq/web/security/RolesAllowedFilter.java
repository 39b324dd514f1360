package io.echomq.web.security;

import jakarta.annotation.Priority;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Enforces {@code @RolesAllowed} on the resources (the method's, else the class's) with the
 * caller's roles from Jakarta Security. Jakarta REST does not require a runtime to honour the
 * annotation on plain resource classes: Payara's and Liberty's do, WildFly's RESTEasy does not
 * unless told by a server-specific switch, and a submitter could pause a queue there. This
 * filter makes the rule the same on every server; a refusal is mapped to the 403 problem.
 */
@Provider
@Priority(Priorities.AUTHORIZATION)
public class RolesAllowedFilter implements ContainerRequestFilter {

    @Context
    ResourceInfo resource;

    @Override
    public void filter(ContainerRequestContext request) {
        RolesAllowed rule = ruleFor(resource.getResourceMethod(), resource.getResourceClass());
        if (rule == null) {
            return;
        }
        SecurityContext caller = request.getSecurityContext();
        if (caller.getUserPrincipal() == null) {
            throw new NotAuthorizedException("Basic realm=\"EchoMQ\"");
        }
        if (Arrays.stream(rule.value()).noneMatch(caller::isUserInRole)) {
            throw new ForbiddenException();
        }
    }

    /** The rule a call of {@code method} is held to: the method's own, else its class's; null when neither has one. */
    static RolesAllowed ruleFor(Method method, Class<?> resourceClass) {
        if (method != null && method.isAnnotationPresent(RolesAllowed.class)) {
            return method.getAnnotation(RolesAllowed.class);
        }
        return resourceClass == null ? null : resourceClass.getAnnotation(RolesAllowed.class);
    }
}
