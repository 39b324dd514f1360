package io.echomq.web;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The JAX-RS API lives under {@code /api} of the WAR's context root. */
@ApplicationPath("api")
public class EchoMqApplication extends Application {
}
