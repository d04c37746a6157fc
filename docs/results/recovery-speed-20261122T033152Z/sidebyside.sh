#!/bin/bash
# Before (commit 09cf981's main classes) and after (this branch), alternating, same CacheBench (this branch's test classes).
out=$1
cd /tmp/fcbench
for round in 1 2; do
  for entries in 1000000 10000000; do
    for which in before after; do
      line=$(java -Xmx6g -cp "/tmp/fc-$which/classes:/tmp/fc-after/test-classes:$(cat /tmp/fc-before/test-classpath.txt)" io.flashchunk.cache.CacheBench checkpoint --entries $entries --dir /tmp/fcbench 2>>$out/sidebyside.log)
      echo "{\"code\":\"$which\",\"round\":$round,${line#\{}" | tee -a $out/sidebyside.jsonl
    done
  done
done
