#!/bin/bash
# Runs CacheBench hits at 64 KiB, 32 threads, and samples per-thread-group CPU of the JVM every 2 s.
cd /work/main
cp=plugin/bench/target/classes:$(cat /tmp/bench.cp)
java -Xmx6g -cp "$cp" io.flashchunk.bench.CacheBench hits --chunk-bytes 65536 --threads 32 --seconds 8 --repeat 1 --fio none --dir /work/main/target/bench > /tmp/uring-probe.jsonl 2>/tmp/uring-probe.err &
jpid=$!
while kill -0 $jpid 2>/dev/null; do
  /tmp/thrcpu.sh $jpid 2 2>/dev/null | tr '\n' ' ' | sed "s/^/$(date +%T) /"; echo
done > /tmp/uring-probe.threads
wait $jpid
