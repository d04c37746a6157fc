package io.flashchunk.checkpoint.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * One thing verify found wrong.
 */
final class Problem {
    static final String SUPERBLOCK = "superblock";
    static final String SET = "set";
    static final String AREA = "area";
    static final String CHUNK = "chunk";
    /** A segment's summary that cannot be read, or restored entries no summary names. */
    static final String SEGMENT = "segment";

    private final String kind;
    private final String device;
    private final String area;
    private final String message;

    /**
     * @param kind    what was checked: superblock, set (the devices together), area, segment, chunk
     * @param device  the device's path, or null for a problem of the set
     * @param area    "A" or "B" for an area's problem, else null
     * @param message what is wrong, naming the device (and area or chunk)
     */
    Problem(String kind, String device, String area, String message) {
        this.kind = kind;
        this.device = device;
        this.area = area;
        this.message = message;
    }

    public String kind() {
        return kind;
    }

    public String device() {
        return device;
    }

    public String area() {
        return area;
    }

    public String message() {
        return message;
    }

    ObjectNode json() {
        return Json.object()
                .put("kind", kind)
                .put("device", device)
                .put("area", area)
                .put("message", message);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Problem)) {
            return false;
        }
        Problem other = (Problem) o;
        return Objects.equals(kind, other.kind)
                && Objects.equals(device, other.device)
                && Objects.equals(area, other.area)
                && Objects.equals(message, other.message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, device, area, message);
    }

    @Override
    public String toString() {
        return "Problem[kind=" + kind + ", device=" + device + ", area=" + area + ", message=" + message + "]";
    }
}
