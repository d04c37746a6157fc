package io.flashchunk.ycsb.it;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The counts in YCSB's final report: "[READ], Operations, 2383" and "[READ], Return=OK, 2383". */
record YcsbReport(Map<String, Long> operations, Map<String, Map<String, Long>> returns) {
    private static final Pattern LINE = Pattern.compile("^\\[([A-Z_-]+)], (Operations|Return=([A-Z_]+)), (\\d+)$",
            Pattern.MULTILINE);

    static YcsbReport parse(String output) {
        Map<String, Long> operations = new TreeMap<>();
        Map<String, Map<String, Long>> returns = new TreeMap<>();
        Matcher m = LINE.matcher(output);
        while (m.find()) {
            long count = Long.parseLong(m.group(4));
            if (m.group(3) == null) {
                operations.put(m.group(1), count);
            } else {
                returns.computeIfAbsent(m.group(1), k -> new HashMap<>()).put(m.group(3), count);
            }
        }
        return new YcsbReport(operations, returns);
    }

    long operations(String operation) {
        return operations.getOrDefault(operation, 0L);
    }

    long ok(String operation) {
        return returns.getOrDefault(operation, Map.of()).getOrDefault("OK", 0L);
    }

    /** Operations YCSB counted as failed ("[READ-FAILED]") or that returned anything but OK. */
    long failures() {
        long failed = operations.entrySet().stream().filter(e -> e.getKey().endsWith("-FAILED"))
                .mapToLong(Map.Entry::getValue).sum();
        long notOk = returns.values().stream().flatMap(r -> r.entrySet().stream())
                .filter(e -> !e.getKey().equals("OK")).mapToLong(Map.Entry::getValue).sum();
        return failed + notOk;
    }
}
