package io.echomq.web;

import io.echomq.web.security.Roles;
import jakarta.annotation.security.DeclareRoles;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/**
 * The JAX-RS API lives under {@code /api} of the WAR's context root, behind HTTP Basic (see
 * EchoMqIdentityStore). Its contract is {@code META-INF/openapi.yaml}, served as {@code /openapi}.
 */
@ApplicationPath("api")
@DeclareRoles({Roles.SUBMITTER, Roles.ADMIN})
public class EchoMqApplication extends Application {
}
