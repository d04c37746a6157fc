package io.flashchunk.ycsb;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;

/**
 * Stands between YCSB's {@code CoreWorkload} and the real binding for one operation, and swaps the
 * random values the workload built for compressible ones of the same length. The workload keeps
 * choosing keys, fields, lengths and retries; only the bytes change.
 */
final class CompressibleValuesDb extends DB {
    private final DB target;
    private final CompressibleValueGenerator generator;

    CompressibleValuesDb(DB target, CompressibleValueGenerator generator) {
        this.target = target;
        this.generator = generator;
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        return target.insert(table, key, compressible(key, values));
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        return target.update(table, key, compressible(key, values));
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        return target.read(table, key, fields, result);
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        return target.scan(table, startkey, recordcount, fields, result);
    }

    @Override
    public Status delete(String table, String key) {
        return target.delete(table, key);
    }

    private Map<String, ByteIterator> compressible(String key, Map<String, ByteIterator> values) {
        Map<String, ByteIterator> replaced = new HashMap<>(values.size() * 2);
        for (Map.Entry<String, ByteIterator> entry : values.entrySet()) {
            // bytesLeft() is the length the workload's fieldlength distribution chose.
            int length = Math.toIntExact(entry.getValue().bytesLeft());
            replaced.put(entry.getKey(), new ByteArrayByteIterator(generator.valueFor(key, entry.getKey(), length)));
        }
        return replaced;
    }
}
