package io.flashchunk.checkpoint.tool;

import picocli.CommandLine.IVersionProvider;

/** Reads the version from the jar manifest, so it always matches the build. */
final class ToolVersion implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = CheckpointTool.class.getPackage().getImplementationVersion();
        return new String[] {"flashchunk-checkpoint " + (version != null ? version : "(unpackaged build)")};
    }
}
