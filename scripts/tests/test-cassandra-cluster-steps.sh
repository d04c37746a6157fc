#!/usr/bin/env bash
# The cache in a real 3-node Cassandra 5.0.9 cluster through the steps that make and remove SSTables
# (scripts/cluster_steps.py; about 10 minutes): nodes 1-3 with the flash cache, RF 3, YCSB's SoakWorkload at QUORUM checking every value while node 3 is
# SIGKILLed and restarted warm, node 4 bootstraps and is rebuilt from node 1 (its SSTables arrive
# whole, zero-copy, and are read through node 4's cache), all are cleaned up, node 2 is decommissioned,
# the table is repaired (full, incremental), upgraded, scrubbed and rewritten at another chunk
# length, and every node is restarted in turn (warm). After each step every row is read at ONE
# through each node alone and served by its own replica, and every file each flash cache may serve
# is on disk. Needs java 17, python3 and the plugin jar (mvn -q -DskipTests package -pl plugin -am).
# Exits non-zero with the failed check (and the nodes' log tails); prints its wall time.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar="$repo/plugin/target/flashchunk-cassandra.jar"
[ -f "$jar" ] || { echo "FAIL: no plugin jar at $jar (build it: mvn -q -DskipTests package -pl plugin -am)" >&2; exit 1; }
t0=$(date +%s)
work="$(mktemp -d /tmp/test-cassandra-cluster-steps.XXXXXX)"
pid=""
cleanup() {
  local rc=$?
  # cluster_steps.py kills its nodes itself on any error; this covers a signal that ends it early
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  for d in "$work"/cluster/node*; do
    [ -f "$d/cassandra.pid" ] && "$repo/scripts/cassandra-node.sh" kill "$d" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# the YCSB client jar is built once here, not by the first of many clients
"$repo/scripts/ycsb.sh" classpath >/dev/null
python3 "$repo/scripts/cluster_steps.py" --self-test
python3 "$repo/scripts/cluster_steps.py" --work "$work" --jar "$jar" "$@" &
pid=$!
wait "$pid"
pid=""
echo "# total $(($(date +%s) - t0)) s"
echo "cluster steps: passed"
