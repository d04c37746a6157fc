package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/** Runs a subcommand with --json and parses its one-line output back, so escaping mistakes show up. */
final class JsonRun {
    private JsonRun() {
    }

    static JsonNode of(int expectedExitCode, String... args) throws IOException {
        String[] withJson = java.util.Arrays.copyOf(args, args.length + 1);
        withJson[args.length] = "--json";
        CommandRun run = CommandRun.of(withJson);
        assertEquals(expectedExitCode, run.exitCode(), run.err() + run.out());
        assertEquals(1, run.out().lines().count(), "one JSON document on one line: " + run.out());
        return new ObjectMapper().readTree(run.out());
    }
}
