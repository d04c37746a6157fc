#!/bin/bash
# Paired rounds: the engine before (63669cf, batches reclaimed at once) and after (2deb18d, doomed as evicted).
set -euo pipefail
out=/work/main/docs/results/writes-doomed-20261125T2320Z
dep="$(cat /work/main/plugin/target/test-classpath.txt)"
mkdir -p /tmp/wbench
for round in 1 2; do
  for which in before after; do
    if [ $which = before ]; then root=/tmp/wt-before; else root=/work/main; fi
    line=$(cd /work/main && java -Xmx6g -cp "$root/plugin/target/classes:$root/plugin/target/test-classes:$dep" io.flashchunk.cache.CacheBench compact-writes --keys 100000 --requests 1000000 --segment-mib 16 --dir /tmp/wbench 2>/dev/null | grep '^{')
    echo "{\"round\":$round,\"engine\":\"$which\",${line#\{}" | tee -a $out/raw.jsonl
  done
done
