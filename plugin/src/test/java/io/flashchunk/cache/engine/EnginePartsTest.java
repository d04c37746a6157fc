package io.flashchunk.cache.engine;

import static io.flashchunk.cache.engine.EngineFixture.device;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.read.FlashReadPolicy;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EnginePartsTest {
    @Test
    void readOnlyPartsHaveNoWriterAndMakeNothingThatWrites() {
        EngineFixture engine = new EngineFixture(device("a", 4));
        EngineParts parts = EngineParts.readOnly(engine.spaces,
                EngineParts.Spec.inspection(engine.index.buckets(), new AlignedBufferPool(1 << 20, 1 << 22),
                        FlashReadPolicy.DEFAULT));
        assertNull(parts.segmentWriter);
        IllegalStateException checkpointer = assertThrows(IllegalStateException.class,
                () -> parts.checkpointer(UUID.randomUUID(), new long[1][2], 0, () -> 0));
        assertTrue(checkpointer.getMessage().contains("read-only"), checkpointer.getMessage());
        assertThrows(IllegalStateException.class, () -> parts.writer(null, null, EngineFixture.NO_FILES, () -> 0));
    }
}
