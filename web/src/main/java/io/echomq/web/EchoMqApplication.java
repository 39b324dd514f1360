package io.echomq.web;

import io.echomq.web.security.Roles;
import jakarta.annotation.security.DeclareRoles;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;

/** The JAX-RS API lives under {@code /api} of the WAR's context root, behind HTTP Basic (see EchoMqIdentityStore). */
@ApplicationPath("api")
@DeclareRoles({Roles.SUBMITTER, Roles.ADMIN})
@OpenAPIDefinition(
        info = @Info(title = "EchoMQ", version = "1",
                description = "Submit, watch and steer jobs. Delivery is at-least-once; each job's effect is applied once."),
        security = @SecurityRequirement(name = "basic"))
@SecurityScheme(securitySchemeName = "basic", type = SecuritySchemeType.HTTP, scheme = "basic")
public class EchoMqApplication extends Application {
}
