package io.flashchunk.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;

/** YCSB's own CoreWorkload logic drives a recording DB; every value it writes must be ours. */
class CompressibleWorkloadTest {
    private static final int FIELD_LENGTH = 700;

    @BeforeAll
    static void measurements() {
        // CoreWorkload reports to YCSB's measurement singleton, which needs its properties first.
        Measurements.setProperties(new Properties());
    }

    @Test
    void loadWritesCompressibleValuesOfTheConfiguredLength() throws Exception {
        CompressibleWorkload workload = workload(properties());
        RecordingDb db = new RecordingDb();

        for (int i = 0; i < 200; i++) {
            assertTrue(workload.doInsert(db, workload.initThread(new Properties(), 0, 1)));
        }

        assertEquals(200, db.writes.size());
        Lz4Chunks chunks = new Lz4Chunks(16 * 1024);
        for (Write write : db.writes) {
            assertEquals("insert", write.operation());
            assertEquals(10, write.values().size());
            write.values().forEach((field, value) -> {
                assertArrayEquals(workload.generator().valueFor(write.key(), field, FIELD_LENGTH), value,
                        write.key() + "/" + field);
                chunks.add(value);
            });
        }
        assertEquals(0.47, chunks.reduction(), 0.03);
    }

    @Test
    void updatesWriteTheSameKeyedValues() throws Exception {
        Properties p = properties();
        p.setProperty("readproportion", "0");
        p.setProperty("updateproportion", "1");
        CompressibleWorkload workload = workload(p);
        RecordingDb db = new RecordingDb();

        for (int i = 0; i < 100; i++) {
            assertTrue(workload.doTransaction(db, null));
        }

        assertEquals(100, db.writes.size());
        for (Write write : db.writes) {
            assertEquals("update", write.operation());
            assertEquals(1, write.values().size(), "YCSB updates one field unless writeallfields");
            write.values().forEach((field, value) -> assertArrayEquals(
                    workload.generator().valueFor(write.key(), field, FIELD_LENGTH), value));
        }
    }

    @Test
    void readsReachTheBinding() throws Exception {
        Properties p = properties();
        p.setProperty("readproportion", "1");
        p.setProperty("updateproportion", "0");
        CompressibleWorkload workload = workload(p);
        RecordingDb db = new RecordingDb();

        for (int i = 0; i < 20; i++) {
            workload.doTransaction(db, null);
        }

        assertEquals(20, db.reads);
        assertEquals(0, db.writes.size());
    }

    @Test
    void refusesYcsbsDataIntegrityCheck() {
        Properties p = properties();
        p.setProperty("dataintegrity", "true");

        WorkloadException e = assertThrows(WorkloadException.class, () -> workload(p));
        assertTrue(e.getMessage().contains("dataintegrity"), e.getMessage());
    }

    @Test
    void refusesABadReduction() {
        Properties p = properties();
        p.setProperty("flashchunk.compression.reduction", "1.5");

        WorkloadException e = assertThrows(WorkloadException.class, () -> workload(p));
        assertTrue(e.getMessage().contains("flashchunk.compression.reduction"), e.getMessage());
    }

    private static Properties properties() {
        Properties p = new Properties();
        p.setProperty("recordcount", "1000");
        p.setProperty("fieldcount", "10");
        p.setProperty("fieldlength", Integer.toString(FIELD_LENGTH));
        p.setProperty("flashchunk.compression.chunkkb", "16");
        return p;
    }

    private static CompressibleWorkload workload(Properties p) throws WorkloadException {
        CompressibleWorkload workload = new CompressibleWorkload();
        workload.init(p);
        return workload;
    }

    private record Write(String operation, String key, Map<String, byte[]> values) {
    }

    /** Keeps what the workload wrote, as bytes. */
    private static final class RecordingDb extends DB {
        final List<Write> writes = new ArrayList<>();
        int reads;

        @Override
        public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
            reads++;
            return Status.OK;
        }

        @Override
        public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                Vector<HashMap<String, ByteIterator>> result) {
            return Status.OK;
        }

        @Override
        public Status update(String table, String key, Map<String, ByteIterator> values) {
            writes.add(new Write("update", key, bytes(values)));
            return Status.OK;
        }

        @Override
        public Status insert(String table, String key, Map<String, ByteIterator> values) {
            writes.add(new Write("insert", key, bytes(values)));
            return Status.OK;
        }

        @Override
        public Status delete(String table, String key) {
            return Status.OK;
        }

        private static Map<String, byte[]> bytes(Map<String, ByteIterator> values) {
            Map<String, byte[]> bytes = new HashMap<>();
            values.forEach((field, value) -> bytes.put(field, value.toArray()));
            return bytes;
        }
    }
}
