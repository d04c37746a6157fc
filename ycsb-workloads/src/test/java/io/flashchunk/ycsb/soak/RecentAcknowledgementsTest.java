package io.flashchunk.ycsb.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.flashchunk.ycsb.soak.RecentAcknowledgements.Write;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecentAcknowledgementsTest {

    @Test
    void theWritesNewerThanARead() {
        RecentAcknowledgements recent = new RecentAcknowledgements(3);
        recent.acknowledged(1, 2, 200);
        recent.acknowledged(1, 5, 500); // 3 and 4 were sent and never acknowledged
        recent.acknowledged(2, 7, 700);

        assertEquals(List.of(new Write(5, 500)), recent.takeNewerThan(1, 2));
        assertTrue(recent.takeNewerThan(1, 2).isEmpty(), "a loss is taken once");
        assertEquals(List.of(new Write(7, 700)), recent.takeNewerThan(2, 0), "keys are apart");
        assertTrue(recent.takeNewerThan(0, 0).isEmpty());
    }

    @Test
    void onlyTheLastDepthWritesOldestFirst() {
        RecentAcknowledgements recent = new RecentAcknowledgements(1);
        int writes = RecentAcknowledgements.DEPTH + 3;
        for (int version = 1; version <= writes; version++) {
            recent.acknowledged(0, version, 10L * version);
        }

        List<Write> lost = recent.takeNewerThan(0, 0);

        assertEquals(RecentAcknowledgements.DEPTH, lost.size());
        assertEquals(new Write(4, 40), lost.get(0));
        assertEquals(new Write(writes, 10L * writes), lost.get(lost.size() - 1));
    }

    @Test
    void savedAndLoadedWithTheRingsPosition(@TempDir Path dir) throws IOException {
        RecentAcknowledgements recent = new RecentAcknowledgements(2);
        for (int version = 1; version <= RecentAcknowledgements.DEPTH + 2; version++) {
            recent.acknowledged(1, version, 100L * version);
        }
        Path file = dir.resolve("acks");
        recent.save(file);

        RecentAcknowledgements loaded = RecentAcknowledgements.load(file, 2);
        loaded.acknowledged(1, 99, 9_900); // overwrites the oldest, as it would have before the save

        List<Write> lost = loaded.takeNewerThan(1, 0);
        assertEquals(new Write(4, 400), lost.get(0));
        assertEquals(new Write(99, 9_900), lost.get(lost.size() - 1));
        assertTrue(loaded.takeNewerThan(0, 0).isEmpty());
        IOException e = assertThrows(IOException.class, () -> RecentAcknowledgements.load(file, 3));
        assertTrue(e.getMessage().contains("for 2 keys"), e.getMessage());
    }
}
