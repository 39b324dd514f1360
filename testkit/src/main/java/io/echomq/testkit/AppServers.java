package io.echomq.testkit;

import java.nio.file.Path;
import java.util.Map;

/**
 * The Jakarta EE servers the end-to-end tests deploy the same WAR to, each started the way its
 * launcher does (free loopback port, context root {@code /echomq}, readiness on {@code /api/about}).
 */
public enum AppServers {

    PAYARA_MICRO {
        @Override
        public AppServer start(Path war, Map<String, String> env) {
            return PayaraMicroServer.forWar(war).env(env).start();
        }
    },
    WILDFLY {
        @Override
        public AppServer start(Path war, Map<String, String> env) {
            return WildFlyServer.start(war, env);
        }
    },
    OPEN_LIBERTY {
        @Override
        public AppServer start(Path war, Map<String, String> env) {
            return OpenLibertyServer.start(war, env);
        }
    };

    /** Deploys {@code war} with {@code env} (MicroProfile Config reads it) and returns once the application answers. */
    public abstract AppServer start(Path war, Map<String, String> env);
}
