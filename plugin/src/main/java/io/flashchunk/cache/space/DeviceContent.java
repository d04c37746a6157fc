package io.flashchunk.cache.space;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Names what a device's first block shows it holds, for the message that refuses to format it: an
 * operator who mistyped a device path should read "an ext2/3/4 file system", not "bad magic".
 */
public final class DeviceContent {
    private DeviceContent() {
    }

    /** Whether a block is all zeros: a device never written, or a block cleared. */
    public static boolean isBlank(ByteBuffer block) {
        for (int i = 0; i + 8 <= block.limit(); i += 8) {
            if (block.getLong(i) != 0) {
                return false;
            }
        }
        return true;
    }

    /** What block 0 (4096 bytes, not all zero and not ours) shows; never null. */
    public static String describe(ByteBuffer block) {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.limit() >= 1082 && Short.toUnsignedInt(b.getShort(1080)) == 0xEF53) {
            return "an ext2/3/4 file system";
        }
        if (text(b, 0, "XFSB")) {
            return "an XFS file system";
        }
        if (text(b, 0, "LUKS") && Byte.toUnsignedInt(b.get(4)) == 0xBA && Byte.toUnsignedInt(b.get(5)) == 0xBE) {
            return "a LUKS encrypted volume";
        }
        if (text(b, 536, "LVM2 001")) {
            return "an LVM2 physical volume";
        }
        if (text(b, 512, "EFI PART")) {
            return "a GPT partition table";
        }
        if (text(b, 4086, "SWAPSPACE2")) {
            return "a swap area";
        }
        if (b.limit() >= 512 && Byte.toUnsignedInt(b.get(510)) == 0x55 && Byte.toUnsignedInt(b.get(511)) == 0xAA) {
            return "a DOS partition table or boot sector";
        }
        StringBuilder first = new StringBuilder();
        for (int i = 0; i < Math.min(16, b.limit()); i++) {
            first.append(String.format("%02x", b.get(i)));
            if (i < 15) {
                first.append(' ');
            }
        }
        return "data that is not a flash cache (its first bytes: " + first + ")";
    }

    private static boolean text(ByteBuffer b, int at, String expected) {
        byte[] bytes = expected.getBytes(StandardCharsets.US_ASCII);
        if (at + bytes.length > b.limit()) {
            return false;
        }
        for (int i = 0; i < bytes.length; i++) {
            if (b.get(at + i) != bytes[i]) {
                return false;
            }
        }
        return true;
    }
}
