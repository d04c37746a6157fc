package io.flashchunk.device;

import java.util.Map;

/** Names errno values the way an operator reads them in logs: "EIO (Input/output error)". */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int EACCES = 13;
    public static final int EBUSY = 16;
    public static final int EINVAL = 22;
    public static final int ENOSPC = 28;
    public static final int EROFS = 30;
    public static final int EOPNOTSUPP = 95;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(EPERM, "EPERM"), Map.entry(ENOENT, "ENOENT"), Map.entry(EINTR, "EINTR"),
            Map.entry(EIO, "EIO"), Map.entry(EBADF, "EBADF"), Map.entry(EAGAIN, "EAGAIN"),
            Map.entry(EACCES, "EACCES"), Map.entry(EBUSY, "EBUSY"), Map.entry(EINVAL, "EINVAL"),
            Map.entry(ENOSPC, "ENOSPC"), Map.entry(EROFS, "EROFS"));

    private Errno() {
    }

    public static String describe(int errno) {
        String name = NAMES.getOrDefault(errno, "errno " + errno);
        String text;
        try {
            text = LibC.strerror(errno);
        } catch (UnsatisfiedLinkError e) {
            text = null;
        }
        return text == null ? name : name + " (" + text + ")";
    }

    /** Whether the error means the caller lacks permission (EACCES, EPERM, EROFS). */
    public static boolean isPermissionDenied(int errno) {
        return errno == EACCES || errno == EPERM || errno == EROFS;
    }
}
