package io.echomq.queue.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A script's text as sent to the server: read from the class path with every
 * {@code -- #include name} line replaced by {@code includes/name.lua}, plus its SHA-1, which
 * is what EVALSHA names it by.
 */
public record ScriptSource(Script script, String text, String sha1) {

    private static final Pattern INCLUDE = Pattern.compile("(?m)^-- #include ([a-z_]+)$");

    public static ScriptSource load(Script script) {
        String text = expandIncludes(read(script.fileName()));
        return new ScriptSource(script, text, sha1(text));
    }

    static String expandIncludes(String text) {
        Matcher include = INCLUDE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (include.find()) {
            String body = read("includes/" + include.group(1) + ".lua").strip();
            include.appendReplacement(out, Matcher.quoteReplacement(body));
        }
        include.appendTail(out);
        return out.toString();
    }

    private static String read(String name) {
        String path = Script.RESOURCE_FOLDER + name;
        try (InputStream in = ScriptSource.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + path + " is not on the class path (is echomq-lua packaged?)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + path, e);
        }
    }

    private static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by every Java platform", e);
        }
    }
}
