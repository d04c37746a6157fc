package io.flashchunk.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;

/** The hot set moves at its time, to the disjoint range above it, and nowhere else. */
class MovingHotspotGeneratorTest {
    private static final long SECOND = 1_000_000_000L;
    private static final int KEYS = 1000;
    private static final int DRAWS = 20_000;

    @BeforeAll
    static void measurements() {
        Measurements.setProperties(new Properties());
    }

    @Test
    void hotSetMovesToTheNextRangeAtItsTime() {
        AtomicLong clock = new AtomicLong(5 * SECOND); // the clock starts at the first draw, not at 0
        Random random = new Random(1);
        MovingHotspotGenerator keys = new MovingHotspotGenerator(0, KEYS - 1, 0.3, 0.8, 10 * SECOND, clock::get,
                () -> random);

        List<Long> before = draw(keys, DRAWS);
        clock.set(15 * SECOND - 1);
        before.addAll(draw(keys, DRAWS));
        clock.set(15 * SECOND);
        List<Long> after = draw(keys, DRAWS);

        // hot: 80% of the operations; the rest spread over the 700 other keys (about 8.6% on any 300 of them)
        assertEquals(0.8, share(before, 0, 300), 0.02, "hot set before the move: YCSB's own, keys 0-299");
        assertEquals(0.086, share(before, 300, 600), 0.02);
        assertEquals(0.8, share(after, 300, 600), 0.02, "hot set after the move: keys 300-599");
        assertEquals(0.086, share(after, 0, 300), 0.02, "the old hot keys are as cold as the rest");
        assertEquals(1.0, share(before, 0, KEYS), 0.0, "every key in the range");
        assertEquals(1.0, share(after, 0, KEYS), 0.0, "every key in the range");
        assertEquals(300, keys.hotStart());
    }

    @Test
    void movedFromTheStartAtZeroNeverAtMaxValue() {
        Random random = new Random(2);
        MovingHotspotGenerator atOnce = new MovingHotspotGenerator(100, 100 + KEYS - 1, 0.3, 0.8, 0, () -> 0,
                () -> random);
        assertEquals(0.8, share(draw(atOnce, DRAWS), 400, 700), 0.02);

        AtomicLong clock = new AtomicLong();
        MovingHotspotGenerator never = new MovingHotspotGenerator(0, KEYS - 1, 0.3, 0.8, Long.MAX_VALUE, clock::get,
                () -> random);
        draw(never, 1);
        clock.set(Long.MAX_VALUE / 2);
        assertFalse(never.moved());
        assertEquals(0.8, share(draw(never, DRAWS), 0, 300), 0.02);
    }

    @Test
    void refusesAHotSetTooLargeToMoveAside() {
        assertThrows(IllegalArgumentException.class,
                () -> new MovingHotspotGenerator(0, KEYS - 1, 0.6, 0.8, SECOND, () -> 0, Random::new));
    }

    @Test
    void workloadReadsTheMovedHotSet() throws Exception {
        KeyRecordingDb moved = new KeyRecordingDb();
        CompressibleWorkload workload = workload("0");
        assertTrue(workload.movingHotspot() != null);
        for (int i = 0; i < 5000; i++) {
            workload.doTransaction(moved, null);
        }
        assertEquals(0.8, share(moved.keys, 300, 600), 0.03, "moved from the start: keys 300-599 hot");

        KeyRecordingDb still = new KeyRecordingDb();
        CompressibleWorkload unmoved = workload("3600");
        for (int i = 0; i < 5000; i++) {
            unmoved.doTransaction(still, null);
        }
        assertEquals(0.8, share(still.keys, 0, 300), 0.03, "before its time: YCSB's hot set");
    }

    @Test
    void workloadWithoutTheSettingKeepsYcsbsKeyChoice() throws Exception {
        Properties p = properties();
        p.remove(CompressibleWorkload.MOVE_AFTER_SECONDS);
        CompressibleWorkload workload = new CompressibleWorkload();
        workload.init(p);
        assertNull(workload.movingHotspot());
    }

    @Test
    void workloadRefusesAMoveWithoutHotspot() {
        Properties p = properties();
        p.setProperty("requestdistribution", "uniform");
        WorkloadException e = assertThrows(WorkloadException.class, () -> new CompressibleWorkload().init(p));
        assertTrue(e.getMessage().contains("hotspot"), e.getMessage());
    }

    private static CompressibleWorkload workload(String moveAfterSeconds) throws WorkloadException {
        Properties p = properties();
        p.setProperty(CompressibleWorkload.MOVE_AFTER_SECONDS, moveAfterSeconds);
        CompressibleWorkload workload = new CompressibleWorkload();
        workload.init(p);
        return workload;
    }

    private static Properties properties() {
        Properties p = new Properties();
        p.setProperty("recordcount", Integer.toString(KEYS));
        p.setProperty("fieldcount", "10");
        p.setProperty("fieldlength", "100");
        p.setProperty("flashchunk.compression.chunkkb", "16");
        p.setProperty("readproportion", "1");
        p.setProperty("updateproportion", "0");
        p.setProperty("requestdistribution", "hotspot");
        p.setProperty("hotspotdatafraction", "0.3");
        p.setProperty("hotspotopnfraction", "0.8");
        p.setProperty("insertorder", "ordered"); // key names carry the key number itself
        p.setProperty(CompressibleWorkload.MOVE_AFTER_SECONDS, "0");
        return p;
    }

    private static List<Long> draw(MovingHotspotGenerator keys, int count) {
        List<Long> drawn = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            drawn.add(keys.nextValue());
        }
        return drawn;
    }

    private static double share(List<Long> keys, long from, long to) {
        return keys.stream().filter(k -> k >= from && k < to).count() / (double) keys.size();
    }

    /** Keeps the key number of every read ("user" + the number, with ordered inserts). */
    private static final class KeyRecordingDb extends DB {
        final List<Long> keys = new ArrayList<>();

        @Override
        public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
            keys.add(Long.parseLong(key.substring("user".length())));
            return Status.OK;
        }

        @Override
        public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                Vector<HashMap<String, ByteIterator>> result) {
            return Status.OK;
        }

        @Override
        public Status update(String table, String key, Map<String, ByteIterator> values) {
            return Status.OK;
        }

        @Override
        public Status insert(String table, String key, Map<String, ByteIterator> values) {
            return Status.OK;
        }

        @Override
        public Status delete(String table, String key) {
            return Status.OK;
        }
    }
}
