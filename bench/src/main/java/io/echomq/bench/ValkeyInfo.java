package io.echomq.bench;

import java.util.HashMap;
import java.util.Map;

/** The {@code name:value} lines of Valkey's {@code INFO} reply (section headers and blank lines left out). */
final class ValkeyInfo {

    private ValkeyInfo() {
    }

    static Map<String, String> fields(String info) {
        Map<String, String> fields = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
        return fields;
    }
}
