package io.flashchunk.cache.format;

/**
 * What a record holds of its chunk: the bytes as the file's reader gave them, or those bytes
 * compressed with LZ4 ({@link ChunkCompression}), decompressed on every hit. The code is kept in the
 * record's header ({@link RecordFormat}); a record written before forms existed is {@link #RAW}.
 */
public enum ChunkForm {
    RAW(0),
    LZ4(1);

    private final int code;

    ChunkForm(int code) {
        this.code = code;
    }

    int code() {
        return code;
    }

    /** The form of a header's code, or null for a code no form has (a newer release's record). */
    static ChunkForm of(int code) {
        for (ChunkForm form : values()) {
            if (form.code == code) {
                return form;
            }
        }
        return null;
    }
}
