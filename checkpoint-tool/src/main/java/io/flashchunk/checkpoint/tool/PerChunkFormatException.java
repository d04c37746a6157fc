package io.flashchunk.checkpoint.tool;

import java.util.List;

/** Devices given to the tool that hold the removed per-chunk engine's format: one message per device. */
final class PerChunkFormatException extends Exception {
    private final List<String> messages;

    /** @param messages one per device, each naming its path ({@link PerChunkFormat#problem}); not empty */
    PerChunkFormatException(List<String> messages) {
        super(String.join("; ", messages));
        this.messages = List.copyOf(messages);
    }

    List<String> messages() {
        return messages;
    }
}
