#!/usr/bin/env bash
# End-to-end test of scripts/cassandra-node.sh: a real Cassandra 5.0.9 node (heap 1G) in a temporary
# run directory on free loopback ports. Creates a keyspace and an LZ4-compressed table with 16 KiB
# chunks through cqlsh, writes rows, flushes, reads them back, checks `nodetool info` shows the chunk
# cache, stops the node and checks the process is gone; also checks the launcher's refusals (conf
# already there, node already running, port in use, not initialised), the releases init takes (4.1,
# 5.0, 6.0: the yaml of each) and the Java each runs on. Needs java 17, mvn and python3
# (the first run resolves cassandra-all from Maven Central and installs cqlsh from PyPI). The node runs
# inside a cgroup v1 blkio group the test creates (--blkio-cgroup), and a missing group is refused.
# Ends with "N passed, N failed"; exits non-zero on the first failed check.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
node_sh="$repo/scripts/cassandra-node.sh"
rows=300
passed=0

work="$(mktemp -d /tmp/test-cassandra-node.XXXXXX)"
dir="$work/node"
other="$work/other"
blkio_group="test-cassandra-node-$$"
blkio_dir="/sys/fs/cgroup/blkio/$blkio_group"

cleanup() {
  local rc=$?
  if [ -f "$dir/cassandra.pid" ]; then
    "$node_sh" kill "$dir" >/dev/null 2>&1 || true
  fi
  if [ -f "$other/cassandra.pid" ]; then
    "$node_sh" kill "$other" >/dev/null 2>&1 || true
  fi
  if [ "$rc" -ne 0 ] && [ -d "$dir/logs" ]; then
    echo "---- tail of $dir/logs/system.log" >&2
    tail -n 40 "$dir/logs/system.log" >&2 2>/dev/null || true
  fi
  rm -rf "$work"
  # the kernel lets go of a killed task's cgroup a moment after the task is gone
  for _ in $(seq 50); do
    [ -d "$blkio_dir" ] || break
    rmdir "$blkio_dir" 2>/dev/null || sleep 0.1
  done
  exit "$rc"
}
trap cleanup EXIT

# fail and ok (they count in $passed), free_tcp_ports
# shellcheck source=../lib/common.sh
source "$repo/scripts/lib/common.sh"

# three free TCP ports on 127.0.0.1
read -r native_port storage_port jmx_port < <(free_tcp_ports 3)
echo "# run directory $dir, ports: native $native_port, storage $storage_port, JMX $jmx_port"

# ---- refusals before anything exists
if out="$("$node_sh" start "$dir" 2>&1)"; then fail "start on a missing run directory succeeded"; fi
grep -q "does not exist" <<<"$out" || fail "start on a missing directory: unexpected message: $out"
mkdir -p "$dir"
if out="$("$node_sh" start "$dir" 2>&1)"; then fail "start on an uninitialised run directory succeeded"; fi
grep -q "not initialised" <<<"$out" || fail "start on an uninitialised directory: unexpected message: $out"
ok "start refuses a missing or uninitialised run directory"

# ---- init
"$node_sh" init "$dir" --native-port "$native_port" --storage-port "$storage_port" --jmx-port "$jmx_port" \
  || fail "init"
for sub in conf data commitlog saved_caches hints cdc_raw logs; do
  [ -d "$dir/$sub" ] || fail "init did not create $dir/$sub"
done
for f in cassandra.yaml logback.xml ports.env; do
  [ -s "$dir/conf/$f" ] || fail "init did not write conf/$f"
done
grep -q "^native_transport_port: $native_port\$" "$dir/conf/cassandra.yaml" || fail "yaml lacks the native port"
grep -q "^file_cache_enabled: true\$" "$dir/conf/cassandra.yaml" || fail "yaml lacks file_cache_enabled: true"
grep -q "\"$dir/data\"" "$dir/conf/cassandra.yaml" || fail "yaml lacks the data directory"
if "$node_sh" init "$dir" --native-port "$native_port" >/dev/null 2>&1; then
  fail "a second init without --force succeeded"
fi
ok "init writes the run directory and refuses to overwrite it"

# ---- the Cassandra release: a series the plugin supports; settings a series lacks left out
grep -q "^CASSANDRA_VERSION=5.0.9\$" "$dir/conf/ports.env" || fail "ports.env does not record Cassandra 5.0.9"
grep -q "^storage_compatibility_mode: CASSANDRA_4" "$dir/conf/cassandra.yaml" || fail "the 5.0 yaml lacks storage_compatibility_mode"
for bad in 3.11.4 4.0.19 'x;y'; do
  if out="$("$node_sh" init "$other" --cassandra-version "$bad" 2>&1)"; then fail "init --cassandra-version $bad succeeded"; fi
  grep -q -- "--cassandra-version" <<<"$out" || fail "init --cassandra-version $bad: unexpected message: $out"
  [ ! -e "$other/conf/cassandra.yaml" ] || fail "a refused init wrote $other/conf/cassandra.yaml"
done
"$node_sh" init "$other" --cassandra-version 4.1.10 >/dev/null || fail "init --cassandra-version 4.1.10"
grep -q "storage_compatibility_mode" "$other/conf/cassandra.yaml" && fail "the 4.1 yaml has 5.0's storage_compatibility_mode"
grep -q "^CASSANDRA_VERSION=4.1.10\$" "$other/conf/ports.env" || fail "ports.env does not record Cassandra 4.1.10"
ok "init records the Cassandra release, leaves out what 4.1 lacks, and refuses 3.11, 4.0 and junk"

# ---- the Java check reads the version line wherever it is (a JVM may warn first) and refuses a Java
# the node's release does not run on
fake_java="$dir/fake-jdk"
mkdir -p "$fake_java/bin"
for v in 1.8.0_392 11.0.2 17.0.9; do
  # the fake notes every run's arguments: a Java taken is one the launcher goes on to run nodetool with
  printf '#!/bin/sh\necho "$*" >>"%s/calls"\necho "[0.004s][warning][perf,memops] Cannot use file /tmp/hsperfdata_root/1 because it is locked by another process (errno = 11)" >&2\necho "openjdk version \\"%s\\" 2023-10-17" >&2\nexit 1\n' "$fake_java" "$v" >"$fake_java/bin/java"
  chmod +x "$fake_java/bin/java"
  rm -f "$fake_java/calls"
  out="$(JAVA_HOME="$fake_java" "$node_sh" nodetool "$dir" version 2>&1)" && fail "nodetool with a fake java $v succeeded"
  if [ "$v" = 1.8.0_392 ]; then
    grep -q "nodetool runs on Java 11 or 17 here, but $fake_java/bin/java is Java 8" <<<"$out" || fail "java 8 behind a warning: unexpected message: $out"
    ! grep -q "NodeTool" "$fake_java/calls" || fail "the launcher ran nodetool on a fake Java 8"
  else
    grep -q "org.apache.cassandra.tools.NodeTool" "$fake_java/calls" || fail "java $v behind a warning was not taken: $out"
  fi
  if [ "$v" = 11.0.2 ]; then
    read -r o_native o_storage o_jmx < <(free_tcp_ports 3)
    "$node_sh" init "$other" --force --cassandra-version 6.0-alpha2 --native-port "$o_native" \
      --storage-port "$o_storage" --jmx-port "$o_jmx" >/dev/null || fail "init --cassandra-version 6.0-alpha2"
    out="$("$node_sh" start "$other" --java "$fake_java/bin/java" 2>&1)" && fail "a 6.0 node started on a fake Java 11"
    grep -q "Cassandra 6.0-alpha2 runs on Java 17 here, but --java $fake_java/bin/java is Java 11" <<<"$out" \
      || fail "a 6.0 node on Java 11: unexpected message: $out"
  fi
done
rm -rf "$fake_java" "$other"
ok "the Java check finds the version behind a JVM warning, refuses Java 8 for nodetool and 11 for a 6.0 node"

# ---- start, inside a blkio cgroup (how the benchmark caps the node's storage)
if out="$("$node_sh" start "$dir" --blkio-cgroup "$blkio_group" 2>&1)"; then
  fail "start with a missing blkio cgroup succeeded"
fi
grep -q "no cgroup /sys/fs/cgroup/blkio/$blkio_group" <<<"$out" || fail "missing blkio cgroup: unexpected message: $out"
mkdir "$blkio_dir" || fail "cannot create $blkio_dir"
start_out="$("$node_sh" start "$dir" --heap 1G --wait-seconds 240 --blkio-cgroup "$blkio_group")" || fail "start: $start_out"
echo "# $start_out"
startup_s="$(sed -n 's/.* in \([0-9.]*\) s .*/\1/p' <<<"$start_out")"
[ -n "$startup_s" ] || fail "start did not report its start-up time: $start_out"
pid="$(cat "$dir/cassandra.pid")"
kill -0 "$pid" 2>/dev/null || fail "no process $pid after start"
grep -q "CassandraDaemon" "/proc/$pid/cmdline" || fail "pid $pid is not CassandraDaemon"
grep -q -- "-Xmx1G" "/proc/$pid/cmdline" || fail "pid $pid does not run with -Xmx1G"
status_out="$("$node_sh" status "$dir")" || fail "status of a running node: $status_out"
grep -q "running pid $pid" <<<"$status_out" || fail "status does not report pid $pid: $status_out"
grep -qx "$pid" "$blkio_dir/cgroup.procs" || fail "pid $pid is not in $blkio_dir/cgroup.procs"
ok "start: pid $pid answers CQL on 127.0.0.1:$native_port after $startup_s s, inside blkio cgroup $blkio_group"

# ---- refusals while running
if out="$("$node_sh" start "$dir" 2>&1)"; then fail "a second start of a running node succeeded"; fi
grep -q "already running" <<<"$out" || fail "second start: unexpected message: $out"
"$node_sh" init "$other" --native-port "$native_port" --storage-port "$((storage_port + 1))" \
  --jmx-port "$((jmx_port + 1))" >/dev/null || fail "init of a second run directory"
if out="$("$node_sh" start "$other" 2>&1)"; then fail "start on a native port in use succeeded"; fi
grep -q "port $native_port .*in use" <<<"$out" || fail "start on a busy port: unexpected message: $out"
ok "start refuses a running node and a port in use"

# ---- schema through cqlsh
cql() { "$node_sh" cqlsh "$dir" "$@"; }
cql -e "CREATE KEYSPACE fc_test WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
        CREATE TABLE fc_test.kv (k int PRIMARY KEY, v text)
          WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16};" \
  || fail "cqlsh CREATE KEYSPACE/TABLE"
compression="$(cql -e "SELECT compression FROM system_schema.tables WHERE keyspace_name = 'fc_test' AND table_name = 'kv';")" \
  || fail "cqlsh SELECT compression"
grep -q "LZ4Compressor" <<<"$compression" || fail "table is not LZ4-compressed: $compression"
grep -q "'chunk_length_in_kb': '16'" <<<"$compression" || fail "chunk_length_in_kb is not 16: $compression"
ok "cqlsh created an LZ4 table with 16 KiB chunks"

# ---- writes, flush
inserts="$work/inserts.cql"
for ((i = 0; i < rows; i++)); do
  printf "INSERT INTO fc_test.kv (k, v) VALUES (%d, 'value-%d-%s');\n" "$i" "$i" "$(printf 'x%.0s' {1..200})"
done >"$inserts"
cql -f "$inserts" || fail "cqlsh INSERTs"
"$node_sh" nodetool "$dir" flush fc_test kv || fail "nodetool flush"
data_files="$(find "$dir/data/fc_test" -name '*-Data.db' | wc -l)"
[ "$data_files" -ge 1 ] || fail "no SSTable Data.db under $dir/data/fc_test after flush"
ok "$rows rows written and flushed to $data_files SSTable(s)"

# ---- reads
count="$(cql -e "SELECT count(*) FROM fc_test.kv;" | awk '$1 ~ /^[0-9]+$/ { print $1 }')"
[ "$count" = "$rows" ] || fail "SELECT count(*) gave '$count', expected $rows"
row="$(cql -e "SELECT v FROM fc_test.kv WHERE k = 123;")" || fail "cqlsh SELECT k = 123"
grep -q "value-123-xxxx" <<<"$row" || fail "row 123 read back wrong: $row"
ok "rows read back (count $count, row 123 intact)"

# ---- nodetool info shows the chunk cache
info="$("$node_sh" nodetool "$dir" info)" || fail "nodetool info"
chunk_line="$(grep "^Chunk Cache" <<<"$info")" || fail "nodetool info has no 'Chunk Cache' line: $info"
grep -q "requests" <<<"$chunk_line" || fail "unexpected Chunk Cache line: $chunk_line"
echo "# $chunk_line"
ok "nodetool info prints the Chunk Cache line"

# ---- stop
stop_out="$("$node_sh" stop "$dir" --wait-seconds 60)" || fail "stop: $stop_out"
echo "# $stop_out"
grep -q "stopped pid $pid" <<<"$stop_out" || fail "stop did not stop pid $pid: $stop_out"
state="$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)"
case "$state" in
  "" | Z | X) ;; # gone, or a zombie waiting for its (re)parent to reap it
  *) fail "pid $pid still runs after stop (state $state)" ;;
esac
[ ! -e "$dir/cassandra.pid" ] || fail "cassandra.pid left behind after stop"
if "$node_sh" status "$dir" >/dev/null; then fail "status says running after stop"; fi
grep -q "Cassandra shutdown complete" "$dir/logs/system.log" || fail "system.log does not show a clean shutdown"
ok "stop ended pid $pid cleanly"

echo "# start-up to CQL: $startup_s s"
echo "$passed passed, 0 failed"
