package io.echomq.testkit.services;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** The {@code redis://[user][:password@]host[:port]} form, read and written. */
public record ValkeyAddress(String host, int port, Optional<String> user, Optional<String> password) {

    private static final int DEFAULT_PORT = 6379;

    public static ValkeyAddress parse(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a redis:// URL: " + redact(url), e);
        }
        if (!"redis".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("expected redis://[:password@]host:port (TLS is not supported by the testkit), got " + redact(url));
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("no host in " + redact(url));
        }
        String path = uri.getPath();
        if (path != null && !path.isEmpty() && !path.equals("/") && !path.equals("/0")) {
            // The scripts and keys assume database 0; a silently ignored index would mix test data.
            throw new IllegalArgumentException("database numbers are not supported (use database 0): " + redact(url));
        }
        Optional<String> user = Optional.empty();
        Optional<String> password = Optional.empty();
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            String rawUser = colon < 0 ? "" : userInfo.substring(0, colon);
            String rawPassword = colon < 0 ? userInfo : userInfo.substring(colon + 1);
            user = Optional.of(decode(rawUser)).filter(u -> !u.isEmpty());
            password = Optional.of(decode(rawPassword)).filter(p -> !p.isEmpty());
        }
        return new ValkeyAddress(uri.getHost(), uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort(), user, password);
    }

    public static String format(String host, int port, Optional<String> user, Optional<String> password) {
        StringBuilder url = new StringBuilder("redis://");
        if (password.isPresent()) {
            user.ifPresent(u -> url.append(encode(u)));
            url.append(':').append(encode(password.get())).append('@');
        } else if (user.isPresent()) {
            url.append(encode(user.get())).append('@');
        }
        url.append(host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host).append(':').append(port);
        return url.toString();
    }

    /** The URL without its password, for messages and logs. */
    static String redact(String url) {
        return url.replaceAll("//([^@/]*):[^@/]*@", "//$1:***@");
    }

    private static String decode(String raw) {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static String encode(String value) {
        StringBuilder out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }
}
