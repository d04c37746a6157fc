package io.flashchunk.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The superblock {@code mdadm --create --metadata=1.2} writes on a member of a two-disk RAID 1, 4 KiB
 * into the device, laid out as the kernel's struct mdp_superblock_1 (include/uapi/linux/raid/md_p.h).
 * Made here because this machine's kernel has no md driver, so mdadm cannot create an array; tests
 * check with {@code mdadm --examine} that mdadm takes it for a member of an array.
 */
public final class MdSuperblock {
    /** Where metadata 1.2 keeps it: 8 sectors in. */
    public static final int OFFSET = 4096;
    private static final int MAX_DEV = 2;

    private MdSuperblock() {
    }

    /** The 1024-byte superblock of member {@code role} of an array on devices of {@code deviceBytes}. */
    public static ByteBuffer block(UUID array, int role, long deviceBytes) {
        return block(array, role, deviceBytes, OFFSET, 2048);
    }

    /**
     * Where metadata 1.0 keeps it on a device of {@code deviceBytes}: at its end, 8 KiB before it
     * rounded down to 4 KiB (the data starts at sector 0).
     */
    public static long endOffset(long deviceBytes) {
        return ((deviceBytes / 512 - 16) & ~7L) * 512;
    }

    /** The superblock {@code mdadm --metadata=1.0} writes at {@link #endOffset}. */
    public static ByteBuffer endBlock(UUID array, int role, long deviceBytes) {
        return block(array, role, deviceBytes, endOffset(deviceBytes), 0);
    }

    private static ByteBuffer block(UUID array, int role, long deviceBytes, long superOffsetBytes,
                                    long dataOffsetSectors) {
        ByteBuffer sb = ByteBuffer.allocate(1024).order(ByteOrder.LITTLE_ENDIAN);
        long dataSectors = (dataOffsetSectors > 0 ? deviceBytes / 512 : superOffsetBytes / 512) - dataOffsetSectors;
        sb.putInt(0, 0xa92b4efc); // magic
        sb.putInt(4, 1); // major_version
        sb.putLong(16, array.getMostSignificantBits()).putLong(24, array.getLeastSignificantBits()); // set_uuid
        sb.put(32, "flashchunk-test:0".getBytes(StandardCharsets.US_ASCII)); // set_name
        sb.putLong(64, 1_700_000_000L); // ctime
        sb.putInt(72, 1); // level: RAID 1
        sb.putLong(80, dataSectors); // size
        sb.putInt(92, 2); // raid_disks
        sb.putLong(128, dataOffsetSectors); // data_offset
        sb.putLong(136, dataSectors); // data_size
        sb.putLong(144, superOffsetBytes / 512); // super_offset
        sb.putLong(152, -1L); // recovery_offset: fully recovered
        sb.putInt(160, role); // dev_number
        sb.putLong(168, role).putLong(176, ~role); // device_uuid
        sb.putLong(192, 1_700_000_000L); // utime
        sb.putLong(200, 1); // events
        sb.putLong(208, -1L); // resync_offset: in sync
        sb.putInt(220, MAX_DEV); // max_dev
        for (int i = 0; i < MAX_DEV; i++) {
            sb.putShort(256 + 2 * i, (short) i); // dev_roles
        }
        sb.putInt(216, checksum(sb));
        return sb;
    }

    /** md's sb_csum: the little-endian 32-bit words of the first 256 + 2 * max_dev bytes, summed and folded. */
    private static int checksum(ByteBuffer sb) {
        int size = 256 + 2 * MAX_DEV;
        long sum = 0;
        for (int i = 0; i + 4 <= size; i += 4) {
            sum += i == 216 ? 0 : Integer.toUnsignedLong(sb.getInt(i));
        }
        if (size % 4 == 2) {
            sum += Short.toUnsignedLong(sb.getShort(size - 2));
        }
        return (int) ((sum & 0xffffffffL) + (sum >>> 32));
    }
}
