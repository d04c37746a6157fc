package io.flashchunk.ycsb.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.flashchunk.ycsb.soak.KeyVersions.Verdict;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;

/** The soak workload against a map: what it counts as lost, wrong and fine. */
class SoakWorkloadTest {
    private static final int KEYS = 40;
    private static final int LENGTH = 300;

    @TempDir
    Path dir;
    private MapDb db;

    @BeforeEach
    void measurements() {
        Measurements.setProperties(new Properties());
        db = new MapDb();
    }

    @Test
    void valuesAreAFunctionOfKeyAndVersionAndAnythingElseIsNoVersion() {
        String value = VersionedValue.of("soak7", 3, LENGTH);

        assertEquals(LENGTH, value.length());
        assertEquals(value, VersionedValue.of("soak7", 3, LENGTH));
        assertEquals(3, VersionedValue.versionIn("soak7", value, LENGTH));
        assertEquals(-1, VersionedValue.versionIn("soak8", value, LENGTH), "another key's value");
        assertEquals(-1, VersionedValue.versionIn("soak7", value.substring(0, LENGTH - 1) + "#", LENGTH));
        assertEquals(-1, VersionedValue.versionIn("soak7", VersionedValue.of("soak7", 3, LENGTH + 1), LENGTH));
        assertEquals(-1, VersionedValue.versionIn("soak7", "soak7:x:", LENGTH));
        assertTrue(!value.equals(VersionedValue.of("soak7", 4, LENGTH)), "versions differ in their words");
    }

    @Test
    void aLoadThenReadsOfWhatWasWrittenAreAllOk() throws Exception {
        Path state = dir.resolve("state");
        load(state);
        SoakWorkload run = workload(state, "0.5");
        Object thread = run.initThread(new Properties(), 0, 1);

        for (int i = 0; i < 2_000; i++) {
            assertTrue(run.doTransaction(db, thread));
        }
        run.cleanup();

        assertEquals(0, run.verdicts(Verdict.LOST_WRITE) + run.verdicts(Verdict.WRONG_VALUE));
        assertTrue(run.verdicts(Verdict.OK) > 500, "reads were judged: " + run.verdicts(Verdict.OK));
        KeyVersions versions = KeyVersions.load(state, KEYS);
        for (int key = 0; key < KEYS; key++) {
            assertEquals(versions.sent(key), versions.acknowledged(key), "every write was acknowledged");
            assertEquals(versions.acknowledged(key), VersionedValue.versionIn(SoakWorkload.keyName(key),
                    db.rows.get(SoakWorkload.keyName(key)), LENGTH));
        }
    }

    @Test
    void anOlderAcknowledgedVersionIsALostWriteCountedOnce() throws Exception {
        Path state = dir.resolve("state");
        load(state);
        SoakWorkload run = workload(state, "0");
        Object thread = run.initThread(new Properties(), 0, 1);
        Map<String, String> before = new HashMap<>(db.rows);
        for (int i = 0; i < 200; i++) {
            run.doTransaction(db, thread);
        }
        run.cleanup();

        db.rows.putAll(before); // the node forgot every update
        SoakWorkload verify = readEveryKey(state);
        long lost = verify.verdicts(Verdict.LOST_WRITE);
        assertTrue(lost > 0 && lost <= KEYS, "lost: " + lost);
        assertEquals(KEYS - lost, verify.verdicts(Verdict.OK));
        assertEquals(0, verify.verdicts(Verdict.WRONG_VALUE));

        Object again = verify.initThread(new Properties(), 0, 1);
        while (verify.doTransaction(db, again)) {
            // a loss is counted once: the key now expects what the node holds
        }
        assertEquals(lost, verify.verdicts(Verdict.LOST_WRITE));
        assertEquals(2 * KEYS - lost, verify.verdicts(Verdict.OK));
    }

    @Test
    void theVerdictLogNamesTheAcknowledgedWritesALossTookAndWhen() throws Exception {
        Path state = dir.resolve("state");
        load(state);
        Map<String, String> loaded = new HashMap<>(db.rows);
        AtomicLong clock = new AtomicLong(1_000);
        Path log = dir.resolve("verdicts.jsonl");
        Properties p = properties(state);
        p.setProperty("soak.readproportion", "0.5");
        p.setProperty("soak.verdictlog", log.toString());
        SoakWorkload run = new SoakWorkload(clock::get);
        run.init(p);
        Object thread = run.initThread(new Properties(), 0, 1);
        db.failWrites = true; // sent, landed, never acknowledged
        for (int i = 0; i < 100; i++) {
            run.doTransaction(db, thread);
        }
        Map<String, String> unacknowledged = new HashMap<>(db.rows);
        db.failWrites = false;
        clock.set(2_000);
        for (int i = 0; i < 100; i++) {
            run.doTransaction(db, thread);
        }
        String forgotten = db.rows.keySet().stream().filter(k -> !db.rows.get(k).equals(unacknowledged.get(k)))
                .findFirst().orElseThrow();
        db.rows.put(forgotten, loaded.get(forgotten)); // the node lost this key's updates
        db.rejectWrites = true; // from now on nothing lands, so nothing heals the loss
        clock.set(3_000);
        while (run.verdicts(Verdict.LOST_WRITE) == 0) {
            run.doTransaction(db, thread);
        }
        run.cleanup();

        List<String> lines = Files.readAllLines(log);
        assertEquals(1, lines.size(), lines.toString());
        JsonNode line = new ObjectMapper().readTree(lines.get(0));
        assertEquals(forgotten, line.get("key").asText());
        assertEquals("LOST_WRITE", line.get("verdict").asText());
        assertEquals(3_000, line.get("at").asLong());
        assertEquals(1, line.get("read").asLong(), "the loaded version");
        JsonNode lost = line.get("lost_writes");
        assertTrue(lost.size() >= 1, line.toString());
        for (JsonNode write : lost) {
            assertEquals(2_000, write.get(1).asLong(), "only acknowledged writes, with their time: " + line);
        }
        assertEquals(line.get("acknowledged").asLong(), lost.get(lost.size() - 1).get(0).asLong());
        assertTrue(line.get("sent").asLong() >= line.get("acknowledged").asLong(), line.toString());
    }

    @Test
    void theFinalCheckPlacesTheLossesItFindsWithTheRunsAcknowledgements() throws Exception {
        Path state = dir.resolve("state");
        load(state);
        Map<String, String> loaded = new HashMap<>(db.rows);
        SoakWorkload run = new SoakWorkload(() -> 5_000);
        Properties p = properties(state);
        p.setProperty("soak.readproportion", "0");
        run.init(p);
        Object thread = run.initThread(new Properties(), 0, 1);
        for (int i = 0; i < 100; i++) {
            run.doTransaction(db, thread);
        }
        run.cleanup();
        db.rows.putAll(loaded); // the node forgot every update

        Path log = dir.resolve("final.jsonl");
        Properties check = properties(state);
        check.setProperty("soak.verifyall", "true");
        check.setProperty("soak.verdictlog", log.toString());
        SoakWorkload verify = new SoakWorkload(() -> 6_000);
        verify.init(check);
        Object reader = verify.initThread(new Properties(), 0, 1);
        while (verify.doTransaction(db, reader)) {
            // one read per key
        }
        verify.cleanup();

        List<String> lines = Files.readAllLines(log);
        assertEquals(verify.verdicts(Verdict.LOST_WRITE), lines.size());
        assertTrue(lines.size() > 0);
        long lostWrites = 0;
        for (String text : lines) {
            JsonNode line = new ObjectMapper().readTree(text);
            assertEquals(6_000, line.get("at").asLong());
            for (JsonNode write : line.get("lost_writes")) {
                assertEquals(5_000, write.get(1).asLong(), text);
                lostWrites++;
            }
            assertEquals(line.get("acknowledged").asLong() - 1, line.get("lost_writes").size(), text);
        }
        assertEquals(100, lostWrites, "every acknowledged update, each once");
    }

    @Test
    void anotherKeysValueOrAnUnsentVersionIsWrong() throws Exception {
        Path state = dir.resolve("state");
        load(state);
        db.rows.put("soak1", db.rows.get("soak2"));
        db.rows.put("soak3", VersionedValue.of("soak3", 9, LENGTH));
        db.rows.remove("soak4");

        SoakWorkload verify = readEveryKey(state);

        assertEquals(2, verify.verdicts(Verdict.WRONG_VALUE));
        assertEquals(1, verify.verdicts(Verdict.LOST_WRITE), "a missing row that was acknowledged");
        assertEquals(KEYS - 3, verify.verdicts(Verdict.OK));
    }

    @Test
    void failedReadsAreNotJudgedAndFailedWritesMayLandOrNot() throws Exception {
        Path state = dir.resolve("state");
        load(state);
        SoakWorkload run = workload(state, "0");
        Object thread = run.initThread(new Properties(), 0, 1);
        db.failWrites = true; // written, but the client hears an error
        for (int i = 0; i < 100; i++) {
            run.doTransaction(db, thread);
        }
        run.cleanup();
        db.failWrites = false;
        db.failReads = true;
        SoakWorkload failing = readEveryKey(state);
        assertEquals(0, failing.verdicts(Verdict.OK) + failing.verdicts(Verdict.LOST_WRITE)
                + failing.verdicts(Verdict.WRONG_VALUE));

        db.failReads = false;
        SoakWorkload verify = readEveryKey(state);
        assertEquals(KEYS, verify.verdicts(Verdict.OK));
    }

    @Test
    void threadsOwnDisjointKeys() throws Exception {
        Path state = dir.resolve("state");
        load(state);
        SoakWorkload run = workload(state, "0");
        db.recordKeys = ConcurrentHashMap.newKeySet();
        Object first = run.initThread(new Properties(), 0, 3);
        for (int i = 0; i < 300; i++) {
            run.doTransaction(db, first);
        }
        for (String key : db.recordKeys) {
            assertEquals(0, Integer.parseInt(key.substring(4)) % 3, key);
        }
        assertFalse(db.recordKeys.isEmpty());
    }

    @Test
    void aStopFileEndsTheRunWithItsStateSaved() throws Exception {
        Path state = dir.resolve("state");
        load(state);
        Path stop = dir.resolve("stop");
        AtomicLong now = new AtomicLong(1_000);
        Properties p = properties(state);
        p.setProperty("soak.readproportion", "0");
        p.setProperty("soak.stopfile", stop.toString());
        SoakWorkload run = new SoakWorkload(now::get);
        run.init(p);
        Object thread = run.initThread(new Properties(), 0, 1);
        assertTrue(run.doTransaction(db, thread));

        Files.createFile(stop);
        assertTrue(run.doTransaction(db, thread), "looked for at most every 100 ms");
        now.addAndGet(100);
        assertFalse(run.doTransaction(db, thread), "the stop file ends the thread's run");
        assertFalse(run.doTransaction(db, thread), "and it stays ended");
        run.cleanup();

        KeyVersions versions = KeyVersions.load(state, KEYS);
        long written = 0;
        for (int key = 0; key < KEYS; key++) {
            written += versions.acknowledged(key);
        }
        assertEquals(KEYS + 2, written, "the load's versions and the two updates before the stop were saved");
    }

    @Test
    void badSettingsAreNamed() {
        Properties p = properties(null);
        p.setProperty("soak.readproportion", "1.5");
        WorkloadException e = assertThrows(WorkloadException.class, () -> new SoakWorkload().init(p));
        assertTrue(e.getMessage().contains("soak.readproportion"), e.getMessage());
    }

    private void load(Path state) throws Exception {
        SoakWorkload load = workload(state, "0.7");
        Object thread = load.initThread(new Properties(), 0, 1);
        for (int i = 0; i < KEYS; i++) {
            assertTrue(load.doInsert(db, thread));
        }
        assertFalse(load.doInsert(db, thread), "only recordcount keys");
        load.cleanup();
    }

    private static SoakWorkload workload(Path state, String readProportion) throws WorkloadException {
        Properties p = properties(state);
        p.setProperty("soak.readproportion", readProportion);
        SoakWorkload workload = new SoakWorkload();
        workload.init(p);
        return workload;
    }

    /** A new client that reads every key once, as the soak's final check does. */
    private SoakWorkload readEveryKey(Path state) throws WorkloadException {
        SoakWorkload verify = verifier(state);
        Object thread = verify.initThread(new Properties(), 0, 1);
        while (verify.doTransaction(db, thread)) {
            // one read per key
        }
        return verify;
    }

    private SoakWorkload verifier(Path state) throws WorkloadException {
        Properties p = properties(state);
        p.setProperty("soak.verifyall", "true");
        SoakWorkload workload = new SoakWorkload();
        workload.init(p);
        return workload;
    }

    private static Properties properties(Path state) {
        Properties p = new Properties();
        p.setProperty("recordcount", Integer.toString(KEYS));
        p.setProperty("fieldlength", Integer.toString(LENGTH));
        if (state != null) {
            p.setProperty("soak.state", state.toString());
        }
        return p;
    }


    /** A table in a map; it can fail reads, or acknowledge nothing while still writing. */
    private static final class MapDb extends DB {
        final Map<String, String> rows = new HashMap<>();
        boolean failReads;
        boolean failWrites;
        boolean rejectWrites;
        Set<String> recordKeys;

        @Override
        public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
            if (failReads) {
                return Status.ERROR;
            }
            String value = rows.get(key);
            if (value == null) {
                return Status.NOT_FOUND;
            }
            result.put(SoakWorkload.FIELD, new StringByteIterator(value));
            return Status.OK;
        }

        @Override
        public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                Vector<HashMap<String, ByteIterator>> result) {
            return Status.NOT_IMPLEMENTED;
        }

        @Override
        public Status update(String table, String key, Map<String, ByteIterator> values) {
            if (recordKeys != null) {
                recordKeys.add(key);
            }
            if (rejectWrites) {
                return Status.ERROR;
            }
            rows.put(key, values.get(SoakWorkload.FIELD).toString());
            return failWrites ? Status.ERROR : Status.OK;
        }

        @Override
        public Status insert(String table, String key, Map<String, ByteIterator> values) {
            return update(table, key, values);
        }

        @Override
        public Status delete(String table, String key) {
            return Status.NOT_IMPLEMENTED;
        }
    }
}
