package io.flashchunk.checkpoint.tool;

/**
 * The outcome of inspecting a path: a report on a usable device ({@link DeviceReport}), or why the
 * path is unusable ({@link UnusablePath}); nothing else implements it.
 */
interface Inspection {
}
