package io.flashchunk.device;

/** The direction of a transfer. */
public enum IoOp {
    READ,
    WRITE;

    public String verb() {
        return this == READ ? "read" : "write";
    }
}
