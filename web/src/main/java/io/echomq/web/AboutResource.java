package io.echomq.web;

import io.echomq.queue.QueueClient;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;

/**
 * What is deployed: the product, its version and the state-machine scripts it ships. Lets a
 * deployment probe an application URL (a failed deployment on Payara still logs success).
 */
@Path("about")
public class AboutResource {

    private static final Properties VERSION = loadVersion();

    public record About(String name, String version, List<String> scripts) {
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public About about() {
        String version = VERSION.getProperty("version", "unknown");
        List<String> scripts = QueueClient.scriptFiles();
        return new About("EchoMQ for Jakarta EE", version, scripts);
    }

    private static Properties loadVersion() {
        Properties properties = new Properties();
        try (InputStream in = AboutResource.class.getResourceAsStream("/echomq-version.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }
}
