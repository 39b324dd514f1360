package io.echomq.bench;

import java.util.HashMap;
import java.util.Map;
import redis.clients.jedis.RedisClient;

/**
 * What Valkey's {@code used_memory} is made of, from {@code INFO}: the data (keys and values),
 * the clients' buffers, the rest of the overhead (mostly the key tables, which grow by doubling
 * and so move in steps), and how many keys there are. A step in the soak's Valkey line names
 * its part.
 */
record ValkeyMemory(long usedBytes, long datasetBytes, long clientBytes, long otherOverheadBytes, long keys) {

    static final String CSV_HEADER = "minute,used_memory,dataset,clients,other_overhead,keys";

    static ValkeyMemory of(RedisClient redis) {
        Map<String, String> memory = fields(redis.info("memory"));
        long keys = 0;
        for (String db : fields(redis.info("keyspace")).values()) {
            // db0:keys=N,expires=M,avg_ttl=T
            keys += Long.parseLong(db.substring("keys=".length(), db.indexOf(',')));
        }
        long clients = number(memory, "mem_clients_normal") + number(memory, "mem_clients_slaves");
        return new ValkeyMemory(number(memory, "used_memory"), number(memory, "used_memory_dataset"), clients,
                number(memory, "used_memory_overhead") - clients, keys);
    }

    /** The used_memory alone, for measurements that need no breakdown. */
    static long used(RedisClient redis) {
        return number(fields(redis.info("memory")), "used_memory");
    }

    String csvLine(int minute) {
        return minute + "," + usedBytes + "," + datasetBytes + "," + clientBytes + "," + otherOverheadBytes + "," + keys;
    }

    private static Map<String, String> fields(String info) {
        Map<String, String> fields = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    private static long number(Map<String, String> fields, String name) {
        String value = fields.get(name);
        if (value == null) {
            throw new IllegalStateException("INFO has no " + name);
        }
        return Long.parseLong(value);
    }
}
