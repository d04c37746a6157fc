package io.flashchunk.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Replays chunk-read traces against the per-chunk W-TinyLFU reference and the segment designs at equal
 * flash bytes, and prints each one's hit ratio and flash bytes written (run by scripts/sim-cache.sh).
 */
@Command(name = "sim-cache", mixinStandardHelpOptions = true,
        description = "Hit ratios and flash writes of cache designs at equal flash bytes, on chunk-read traces.")
public final class CacheSimulator implements Callable<Integer> {
    @Option(names = "--chunks", description = "chunks each generated trace reads from (default ${DEFAULT-VALUE})")
    int chunks = 4_000_000;

    @Option(names = "--reads", description = "reads of each generated trace (default ${DEFAULT-VALUE})")
    int reads = 20_000_000;

    @Option(names = "--chunk-bytes", description = "chunk size of generated traces (default ${DEFAULT-VALUE})")
    int chunkBytes = 16 << 10;

    @Option(names = "--fractions", split = ",",
            description = "flash sizes as fractions of the chunks a trace reads from (default ${DEFAULT-VALUE})")
    List<Double> fractions = List.of(0.05, 0.1, 0.2, 0.4);

    @Option(names = "--flash-bytes", split = ",",
            description = "flash sizes in bytes, instead of --fractions (a node's data space, to replay its recording)")
    List<Long> flashBytes = List.of();

    @Option(names = "--segment-mib", description = "segment size (default ${DEFAULT-VALUE})")
    int segmentMib = 16;

    @Option(names = "--warmup", description = "share of each trace that only fills the cache (default ${DEFAULT-VALUE})")
    double warmup = 0.25;

    @Option(names = "--traces", split = ",",
            description = "generated traces: hotspot, zipfian, scans, moving (zipfian in " + MOVING_PHASES
                    + " phases, each with other popular chunks), or none (recorded ones only; default: the first three)")
    List<String> traces = List.of("hotspot", "zipfian", "scans");

    /** Phases of the moving trace, each with other popular chunks. */
    static final int MOVING_PHASES = 8;

    @Option(names = "--recorded", description = "also replay this recorded trace (the adapter's chunk-read recording)")
    List<Path> recorded = List.of();

    @Option(names = "--designs", split = ",",
            description = "only the designs whose names contain one of these (the per-chunk reference is always run; default: all)")
    List<String> designFilter = List.of();

    @Option(names = "--out", required = true, description = "directory for raw.jsonl")
    Path out;

    @Override
    public Integer call() throws IOException {
        if (flashBytes.stream().anyMatch(bytes -> bytes <= 0)) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--flash-bytes: sizes must be positive, got " + flashBytes);
        }
        Files.createDirectories(out);
        ObjectMapper json = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        List<Replay> results = new ArrayList<>();
        try (BufferedWriter raw = Files.newBufferedWriter(out.resolve("raw.jsonl"))) {
            for (ChunkTrace trace : traces()) {
                // sized for the trace's chunks: a recording's mean size, not --chunk-bytes
                List<Design> designs = Design.all((long) segmentMib << 20, trace.chunkBytes()).stream()
                        .filter(design -> design.name().equals(Design.REFERENCE) || designFilter.isEmpty()
                                || designFilter.stream().anyMatch(design.name()::contains))
                        .toList();
                List<Double> sizes = flashBytes.isEmpty() ? fractions
                        : flashBytes.stream().map(bytes -> (double) bytes / trace.universeBytes()).toList();
                for (double fraction : sizes) {
                    for (Design design : designs) {
                        Replay replay = Replay.run(trace, design, fraction, warmup);
                        results.add(replay);
                        raw.write(json.writeValueAsString(replay));
                        raw.newLine();
                        raw.flush();
                        System.err.printf(Locale.ROOT, "%s, flash %.0f%%, %s: hits %.2f%%, written/admitted %.3f%n",
                                trace.name(), 100 * fraction, design.name(), 100 * replay.hitRatio(),
                                replay.writtenPerAdmitted());
                    }
                }
            }
        }
        System.out.print(SimulationTable.markdown(results));
        return 0;
    }

    private List<ChunkTrace> traces() throws IOException {
        List<ChunkTrace> all = new ArrayList<>();
        for (String name : traces) {
            if (name.equals("none")) {
                continue;
            }
            all.add(switch (name) {
                case "hotspot" -> Traces.hotspot(chunks, reads, chunkBytes);
                case "zipfian" -> Traces.zipfian(chunks, reads, chunkBytes);
                case "scans" -> Traces.hotspotWithScans(chunks, reads, chunkBytes, 1);
                case "moving" -> Traces.zipfianMoving(chunks, reads, chunkBytes, MOVING_PHASES);
                default -> throw new CommandLine.ParameterException(new CommandLine(this),
                        "--traces: no trace named '" + name + "' (hotspot, zipfian, scans, moving, none)");
            });
        }
        for (Path file : recorded) {
            all.add(Traces.recorded(file, "recorded " + file.getFileName()));
        }
        return all;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new CacheSimulator()).execute(args));
    }
}
