package io.echomq.testkit.dev;

import io.echomq.testkit.appserver.PayaraMicroServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The Payara Micro command line {@code bin/echomq-dev} runs: the one the end-to-end tests' launcher
 * ({@link PayaraMicroServer}) runs, for the WAR on a fixed port, with its preboot commands (HTTP on
 * loopback only, Hazelcast off) written to a file in the folder. The script keeps running the
 * server itself (its log, its readiness check, its stop by pid); only what to run comes from here.
 *
 * <pre>
 * java -cp ... io.echomq.testkit.dev.DevPayara --war web/target/echomq.war --port 8080 --dir .run/payara
 * </pre>
 *
 * Prints the arguments, each ended by a NUL byte ({@code mapfile -d ''} reads them back), so no
 * path needs quoting.
 */
public final class DevPayara {

    static final String USAGE = "Usage: java -cp <testkit class path> io.echomq.testkit.dev.DevPayara --war WAR --port N --dir FOLDER";

    private DevPayara() {
    }

    public static void main(String[] args) {
        List<String> command;
        try {
            command = commandLine(args);
        } catch (IllegalArgumentException e) {
            System.err.println("echomq-dev-payara: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        } catch (IllegalStateException e) {
            System.err.println("echomq-dev-payara: error: " + e.getMessage());
            System.exit(1);
            return;
        }
        StringBuilder out = new StringBuilder();
        command.forEach(argument -> out.append(argument).append('\0'));
        System.out.print(out);
        System.out.flush();
    }

    /** The command line for the arguments {@code --war}, {@code --port} and {@code --dir}, its preboot file written. */
    static List<String> commandLine(String[] args) {
        Path war = null;
        Path folder = null;
        int port = 0;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--war" -> war = Path.of(value);
                case "--dir" -> folder = Path.of(value);
                case "--port" -> port = DevServices.Options.port(value, option);
                default -> throw new IllegalArgumentException("unknown argument: " + option);
            }
        }
        if (war == null || folder == null || port == 0) {
            throw new IllegalArgumentException("--war, --port and --dir are required");
        }
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create " + folder + ": " + e.getMessage(), e);
        }
        return PayaraMicroServer.forWar(war).port(port).commandLine(folder);
    }
}
