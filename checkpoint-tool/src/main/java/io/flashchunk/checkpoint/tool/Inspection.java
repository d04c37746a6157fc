package io.flashchunk.checkpoint.tool;

/** The outcome of inspecting a path: a report on a usable device, or why the path is unusable. */
sealed interface Inspection permits DeviceReport, UnusablePath {
}
