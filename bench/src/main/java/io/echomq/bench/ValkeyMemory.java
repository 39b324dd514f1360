package io.echomq.bench;

import java.util.Map;
import redis.clients.jedis.RedisClient;

/**
 * What Valkey's {@code used_memory} is made of, from {@code INFO}: the data (keys and values),
 * the clients' buffers, the rest of the overhead (mostly the key tables), and how many keys
 * there are. A step in the soak's Valkey line names its part: the one seen so far was in the
 * data, with the key count unchanged (job hashes turning from compact to full encoding).
 */
record ValkeyMemory(long usedBytes, long datasetBytes, long clientBytes, long otherOverheadBytes, long keys) {

    static final String CSV_HEADER = "minute,used_memory,dataset,clients,other_overhead,keys";

    static ValkeyMemory of(RedisClient redis) {
        Map<String, String> memory = ValkeyInfo.fields(redis.info("memory"));
        long keys = 0;
        for (String db : ValkeyInfo.fields(redis.info("keyspace")).values()) {
            // db0:keys=N,expires=M,avg_ttl=T
            keys += Long.parseLong(db.substring("keys=".length(), db.indexOf(',')));
        }
        long clients = number(memory, "mem_clients_normal") + number(memory, "mem_clients_slaves");
        return new ValkeyMemory(number(memory, "used_memory"), number(memory, "used_memory_dataset"), clients,
                number(memory, "used_memory_overhead") - clients, keys);
    }

    /** The used_memory alone, for measurements that need no breakdown. */
    static long used(RedisClient redis) {
        return number(ValkeyInfo.fields(redis.info("memory")), "used_memory");
    }

    String csvLine(int minute) {
        return minute + "," + usedBytes + "," + datasetBytes + "," + clientBytes + "," + otherOverheadBytes + "," + keys;
    }

    private static long number(Map<String, String> fields, String name) {
        String value = fields.get(name);
        if (value == null) {
            throw new IllegalStateException("INFO has no " + name);
        }
        return Long.parseLong(value);
    }
}
