#!/usr/bin/env bash
# Test of scripts/install-plugin.sh on a synthetic Cassandra 5.0.9 installation in a temporary
# directory: lib/ holds (symlinks to) the jars of `scripts/cassandra-node.sh classpath`, conf/ holds
# option files written from scripts/cassandra/*.options and a cassandra.yaml from
# scripts/cassandra/cassandra.yaml.template.
#   - install: every changed file is checked line by line, backups equal the originals, status
#   - install again: nothing changes (byte for byte); --dry-run writes nothing; other options rewrite
#     the blocks in place and keep the first backup; a yaml without a final newline round-trips
#   - bad inputs (missing device, bad capacity, unknown engine, a directory as device, no device,
#     a jar that is not the plugin, a 4.0 installation, a yaml or options file already setting our
#     keys, broken markers) each fail with a clear message and change nothing
#   - 4.1 and 6.0 installations (synthetic) take the plugin, show it in status, uninstall cleanly
#   - a device the node's user (--cassandra-user, checked as that user) cannot write is refused;
#   - a loader set in cassandra-env.sh and a concurrent run are refused; a sparse device file is warned
#     of; a symlinked cassandra.yaml stays a symlink; uninstall takes the yaml's keys out first
#   - the node's Java: a Java 8 (a fake java, behind a JVM warning) named by JAVA_HOME, --java or
#     PATH is refused by version and path before anything is written; a JAVA_HOME without bin/java too;
#     a Java 17 named by --java is taken, and a Java 11 in JAVA_HOME
#   - a real node: a cassandra-node.sh run directory gets the installed yaml block and the installed
#     jvm-server.options lines; it must log "flash chunk cache: serving Cassandra's chunk cache" and
#     show a Chunk Cache line in nodetool info
#   - an offline tool (StandaloneVerifier) started like tools/bin/sstableverify (conf + lib/*.jar,
#     the installed jvm-clients.options) loads the yaml with our keys present; without the loader the
#     same run is refused by Cassandra
#   - uninstall gives back the original files byte for byte and removes the jar
# With --no-node the real node and the offline tool are skipped (a few seconds instead of about a minute;
# scripts/test.sh runs it that way).
# Needs java 17 and mvn (builds plugin/target/flashchunk-cassandra.jar when missing) and python3 (free
# ports). Ends with "N passed, N failed"; exits non-zero on the first failed check.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
installer="$repo/scripts/install-plugin.sh"
node_sh="$repo/scripts/cassandra-node.sh"
jar="$repo/plugin/target/flashchunk-cassandra.jar"
passed=0
t_start=$(date +%s)
with_node=1
case "${1:-}" in
  "") ;;
  --no-node) with_node=0 ;;
  *) echo "usage: $0 [--no-node]" >&2; exit 2 ;;
esac

work="$(mktemp -d /tmp/test-install-plugin.XXXXXX)"
home="$work/apache-cassandra-5.0.9"
node="$work/node"

loops=()
cleanup() {
  local rc=$?
  local loop
  for loop in ${loops[@]+"${loops[@]}"}; do
    losetup -d "$loop" 2>/dev/null || true
  done
  if [ -f "$node/cassandra.pid" ]; then
    "$node_sh" kill "$node" >/dev/null 2>&1 || true
  fi
  if [ "$rc" -ne 0 ] && [ -f "$node/logs/system.log" ]; then
    echo "---- tail of $node/logs/system.log" >&2
    tail -n 40 "$node/logs/system.log" >&2 || true
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT

# fail and ok (they count in $passed), free_tcp_ports
# shellcheck source=../lib/common.sh
source "$repo/scripts/lib/common.sh"

# copies stdin to stdout as comment lines
show() {
  sed 's/^/#   /'
}

# a fingerprint of an installation: every file of conf/ (content) and of lib/ (names, link targets,
# sizes; the content of regular files)
state() {
  local dir=$1
  (
    cd "$dir"
    find conf -type f -print0 | sort -z | xargs -0 -r sha256sum
    find lib -printf '%p %y %s %l\n' | sort
    find lib -type f -print0 | sort -z | xargs -0 -r sha256sum
  )
}

# runs the installer, expecting failure with a message matching the regex and no change to DIR
expect_refusal() {
  local what=$1 dir=$2 regex=$3
  shift 3
  local before after out
  before="$(state "$dir")"
  if out="$("$installer" "$@" 2>&1)"; then
    fail "$what: the installer succeeded: $out"
  fi
  grep -qE -- "$regex" <<<"$out" || fail "$what: expected a message matching '$regex', got: $out"
  after="$(state "$dir")"
  [ "$before" = "$after" ] || fail "$what: the installation changed: $(diff <(echo "$before") <(echo "$after") || true)"
  echo "#   $what -> $(grep -m1 -E -- "$regex" <<<"$out")"
}

# every line between the markers of an installed file
block_lines_of() {
  awk '/^# BEGIN flashchunk/ { p = 1; next } /^# END flashchunk$/ { p = 0 } p' "$1"
}

# the lines between the markers of an installed file, without the markers and comments
block_options() {
  awk '/^# BEGIN flashchunk/ { inside = 1; next } /^# END flashchunk$/ { inside = 0 } inside && !/^#/ { print }' "$1"
}

# ---------------------------------------------------------------- the synthetic installation

if [ ! -f "$jar" ]; then
  echo "# building $jar"
  (cd "$repo" && mvn -B -q -pl plugin package -DskipTests) || fail "could not build the plugin jar"
fi
classpath="$("$node_sh" classpath)" || fail "cassandra-node.sh classpath"

# make_installation DIR VERSION [CLASSPATH]
# shellcheck source=lib/cassandra-layout.sh
source "$repo/scripts/tests/lib/cassandra-layout.sh"

make_installation "$home" 5.0.9 "$classpath"
cp -a "$home/conf" "$work/original-conf"
original_state="$(state "$home")"
device="$work/flash.img"
truncate -s 512M "$device"
ok "synthetic Cassandra 5.0.9 installation in $home ($(find "$home/lib" -name '*.jar' | wc -l) jars)"

# ---------------------------------------------------------------- install

install_args=(install --cassandra-home "$home" --device "$device:384MiB:auto" --strict)
out="$("$installer" "${install_args[@]}" 2>&1)" || fail "install: $out"
head -n 12 <<<"$out" | show
grep -q "warning: --device $device is a sparse file" <<<"$out" || fail "install did not warn of the sparse device file: $out"
cmp -s "$jar" "$home/lib/flashchunk-cassandra.jar" || fail "lib/flashchunk-cassandra.jar is not a copy of $jar"
[ "$(stat -c %a "$home/lib/flashchunk-cassandra.jar")" = 644 ] || fail "the installed jar is not mode 644"
grep -q "Next steps" <<<"$out" || fail "install did not print the next steps: $out"
grep -q "io.flashchunk:type=FlashChunkCache" <<<"$out" || fail "the next steps do not name the JMX bean"
grep -q "nodetool info" <<<"$out" || fail "the next steps do not mention nodetool info"
for f in jvm-server.options jvm-clients.options cassandra.yaml; do
  grep -q "changed: $home/conf/$f" <<<"$out" || fail "install did not report changing $f: $out"
  cmp -s "$work/original-conf/$f" "$home/conf/$f.flashchunk-backup" || fail "$f.flashchunk-backup differs from the original"
done
for f in jvm17-server.options jvm17-clients.options cassandra-env.sh logback-tools.xml; do
  cmp -s "$work/original-conf/$f" "$home/conf/$f" || fail "install changed $f"
  [ ! -e "$home/conf/$f.flashchunk-backup" ] || fail "install backed up $f, which it did not change"
done
ok "install copied the jar and backed up exactly the three files it changed"

# added lines, exactly: diff of original and installed file, '>' lines only, no '<' lines
for f in jvm-server.options jvm-clients.options cassandra.yaml; do
  ! diff "$work/original-conf/$f" "$home/conf/$f" | grep -q '^<' || fail "install removed or changed lines of $f"
done
added() {
  local f=$1
  { diff "$work/original-conf/$f" "$home/conf/$f" || true; } | sed -n 's/^> //p'
}
expected_server="# BEGIN flashchunk (added by install-plugin.sh; 'install-plugin.sh uninstall' removes it)
-javaagent:$home/lib/flashchunk-cassandra.jar
-Dcassandra.config.loader=io.flashchunk.cassandra.config.FlashChunkConfigurationLoader
# END flashchunk"
[ "$(added jvm-server.options)" = "$expected_server" ] \
  || fail "jvm-server.options: unexpected added lines: $(added jvm-server.options)"
[ "$(added jvm-clients.options | grep -v '^#')" = "-Dcassandra.config.loader=io.flashchunk.cassandra.config.FlashChunkConfigurationLoader" ] \
  || fail "jvm-clients.options: unexpected added options: $(added jvm-clients.options)"
[ "$(added jvm-clients.options | head -n 1)" = "$(head -n 1 <<<"$expected_server")" ] \
  || fail "jvm-clients.options: the block does not start with the BEGIN marker"
[ "$(added jvm-clients.options | tail -n 1)" = "# END flashchunk" ] || fail "jvm-clients.options: no END marker"
yaml_added="$(added cassandra.yaml)"
expected_yaml="chunk_cache_class: io.flashchunk.cassandra.CassandraFlashCache
flash_chunk_cache:
  devices:
    - path: '$device'
      capacity: 384MiB
      engine: auto
  strict: true"
[ "$(grep -v '^#' <<<"$yaml_added")" = "$expected_yaml" ] || fail "cassandra.yaml: unexpected added settings: $yaml_added"
[ "$(head -n 1 <<<"$yaml_added")" = "$(head -n 1 <<<"$expected_server")" ] || fail "cassandra.yaml: no BEGIN marker first"
[ "$(tail -n 1 <<<"$yaml_added")" = "# END flashchunk" ] || fail "cassandra.yaml: no END marker last"
ok "jvm-server.options got the agent and the loader, jvm-clients.options the loader, cassandra.yaml the cache block"

status_out="$("$installer" status --cassandra-home "$home" 2>&1)" || fail "status after install exited $?: $status_out"
grep -q "Cassandra 5.0.9" <<<"$status_out" || fail "status does not name Cassandra 5.0.9: $status_out"
grep -qE "version [0-9]+\.[0-9]+\.[0-9]" <<<"$status_out" || fail "status does not show the jar version: $status_out"
grep -q "$device (regular file" <<<"$status_out" || fail "status does not list the device: $status_out"
grep -q "FlashChunk is installed" <<<"$status_out" || fail "status does not say installed: $status_out"
show <<<"$status_out"
ok "status: installed, jar version and device shown"

# ---------------------------------------------------------------- idempotence, dry run

installed_state="$(state "$home")"
cp -a "$home/conf" "$work/installed-conf"
out="$("$installer" "${install_args[@]}" 2>&1)" || fail "second install: $out"
grep -q "nothing changed" <<<"$out" || fail "second install did not say nothing changed: $out"
diff -r "$work/installed-conf" "$home/conf" || fail "second install changed conf/"
[ "$installed_state" = "$(state "$home")" ] || fail "second install changed the installation"
out="$("$installer" install --cassandra-home "$home" --device "$device:256MiB:threadpool" --dry-run 2>&1)" \
  || fail "dry run: $out"
grep -q "^+      capacity: 256MiB" <<<"$out" || fail "dry run does not show the new capacity: $out"
grep -q "dry run" <<<"$out" || fail "dry run does not say so: $out"
[ "$installed_state" = "$(state "$home")" ] || fail "the dry run changed the installation"
out="$("$installer" install --cassandra-home "$home" --device "$device" --format-force "$device" --dry-run 2>&1)" \
  || fail "dry run with --format-force: $out"
grep -q "^+      format: force" <<<"$out" || fail "--format-force does not put format: force in the device entry: $out"
ok "install is idempotent (second run: same bytes), --dry-run writes nothing, --format-force writes format: force"

# ---------------------------------------------------------------- bad inputs

expect_refusal "missing device" "$home" "no such file or block device" \
  install --cassandra-home "$home" --device "$work/no-such.img"
expect_refusal "bad capacity syntax" "$home" "capacity '12XB' is not a size" \
  install --cassandra-home "$home" --device "$device:12XB"
expect_refusal "capacity not a multiple of 4096" "$home" "not a multiple of 4096" \
  install --cassandra-home "$home" --device "$device:1000"
expect_refusal "capacity larger than the device" "$home" "larger than the regular file" \
  install --cassandra-home "$home" --device "$device:1TiB"
expect_refusal "unknown engine" "$home" "unknown engine 'spdk'" \
  install --cassandra-home "$home" --device "$device:64MiB:spdk"
expect_refusal "a directory as device" "$home" "not a block device or a regular file" \
  install --cassandra-home "$home" --device "$work"
expect_refusal "no device" "$home" "needs at least one --device" \
  install --cassandra-home "$home"
expect_refusal "--format-force of a path that is no --device" "$home" "names no --device" \
  install --cassandra-home "$home" --device "$device" --format-force "$work"
expect_refusal "the same device twice" "$home" "given twice" \
  install --cassandra-home "$home" --device "$device" --device "$device"
expect_refusal "a device the node's user cannot write" "$home" "not readable and writable by nobody, the user Cassandra runs as" \
  install --cassandra-home "$home" --device "$device" --cassandra-user nobody
expect_refusal "an unknown node user" "$home" "--cassandra-user no-such-user-here: no such user" \
  install --cassandra-home "$home" --device "$device" --cassandra-user no-such-user-here
expect_refusal "a jar that is not the plugin" "$home" "is not the FlashChunk Cassandra plugin" \
  install --cassandra-home "$home" --device "$device" --jar "$home/lib/apache-cassandra-5.0.9.jar"
expect_refusal "not a Cassandra home" "$home" "no configuration directory .*/conf" \
  install --cassandra-home "$work/original-conf" --device "$device"

old="$work/apache-cassandra-4.0.19"
make_installation "$old" 4.0.19
expect_refusal "a Cassandra 4.0 installation" "$old" \
  "this is Cassandra 4\.0\.19 .*supports Cassandra 4\.1\.x, 5\.0\.x and 6\.0\.x only" \
  install --cassandra-home "$old" --device "$device"

clash="$work/clash"
make_installation "$clash" 5.0.9
cp -a "$clash/conf" "$work/clash-pristine"
printf '\nchunk_cache_class: io.flashchunk.cassandra.CassandraFlashCache\n' >>"$clash/conf/cassandra.yaml"
expect_refusal "a yaml already having chunk_cache_class" "$clash" "already sets the flash cache outside the flashchunk markers" \
  install --cassandra-home "$clash" --device "$device"
cp "$work/clash-pristine/cassandra.yaml" "$clash/conf/cassandra.yaml"
echo "-Dcassandra.config.loader=com.example.OtherLoader" >>"$clash/conf/jvm-server.options"
expect_refusal "an options file with another config loader" "$clash" "already has a configuration loader" \
  install --cassandra-home "$clash" --device "$device"
cp "$work/clash-pristine/jvm-server.options" "$clash/conf/jvm-server.options"
printf '# BEGIN flashchunk\n-Dfoo=1\n' >>"$clash/conf/jvm-clients.options"
expect_refusal "a BEGIN marker without END" "$clash" "broken flashchunk markers" \
  install --cassandra-home "$clash" --device "$device"
cp "$work/clash-pristine/jvm-clients.options" "$clash/conf/jvm-clients.options"
echo 'JVM_OPTS="$JVM_OPTS -Dcassandra.config.loader=com.example.OtherLoader"' >>"$clash/conf/cassandra-env.sh"
expect_refusal "cassandra-env.sh with another config loader" "$clash" "cassandra-env.sh already sets a configuration loader" \
  install --cassandra-home "$clash" --device "$device"
cp "$work/clash-pristine/cassandra-env.sh" "$clash/conf/cassandra-env.sh"
# a second run while one holds the configuration directory (this shell holds its lock)
exec 8<"$clash/conf"
flock -n 8 || fail "cannot take the lock of $clash/conf"
expect_refusal "a concurrent run" "$clash" "another install-plugin.sh run is changing $clash/conf now" \
  install --cassandra-home "$clash" --device "$device"
exec 8<&-
ok "bad inputs are refused with a clear message and change nothing"

# configuration files that are symlinks (configuration management links them) stay symlinks
linked="$work/linked"
make_installation "$linked" 5.0.9
mkdir -p "$work/etc-linked"
mv "$linked/conf/cassandra.yaml" "$work/etc-linked/cassandra.yaml"
ln -s "$work/etc-linked/cassandra.yaml" "$linked/conf/cassandra.yaml"
cp "$work/etc-linked/cassandra.yaml" "$work/linked-original.yaml"
"$installer" install --cassandra-home "$linked" --device "$device" >/dev/null 2>&1 || fail "install into $linked"
[ -L "$linked/conf/cassandra.yaml" ] || fail "install replaced the symlink conf/cassandra.yaml with a file"
grep -q "^flash_chunk_cache:" "$work/etc-linked/cassandra.yaml" || fail "install did not write the symlink's target"
out="$("$installer" uninstall --cassandra-home "$linked" --dry-run 2>&1)"
yaml_at="$(grep -n "would change (dry run): $linked/conf/cassandra.yaml" <<<"$out" | cut -d: -f1)"
server_at="$(grep -n "would change (dry run): $linked/conf/jvm-server.options" <<<"$out" | cut -d: -f1)"
[ -n "$yaml_at" ] && [ -n "$server_at" ] && [ "$yaml_at" -lt "$server_at" ] \
  || fail "uninstall does not take the keys out of cassandra.yaml before the loader out of the options: $out"
"$installer" uninstall --cassandra-home "$linked" >/dev/null 2>&1 || fail "uninstall from $linked"
[ -L "$linked/conf/cassandra.yaml" ] || fail "uninstall replaced the symlink conf/cassandra.yaml with a file"
cmp -s "$work/linked-original.yaml" "$work/etc-linked/cassandra.yaml" || fail "uninstall did not restore the symlink's target"
ok "a symlinked cassandra.yaml stays a symlink (install and uninstall write its target); uninstall edits the yaml before the options"

# settings the operator added inside the block survive a repeated install that does not set them
kept="$work/kept"
make_installation "$kept" 5.0.9
"$installer" install --cassandra-home "$kept" --device "$device" --strict >/dev/null 2>&1 || fail "install into $kept"
# by hand: a comment at column 0, a quoted key, a value after a blank line, a comment among the settings
added='  strict: true\n# tuned by hand\n  segment_size: 8MiB\n  "checkpoint_interval": 60s\n  read_timeout:\n\n    150ms\n  # sketch\n  admission_sketch_counters: auto'
sed -i "s/^  strict: true\$/$added/" "$kept/conf/cassandra.yaml"
"$installer" install --cassandra-home "$kept" --device "$device:256MiB" >/dev/null 2>&1 || fail "second install into $kept"
settings="$(block_lines_of "$kept/conf/cassandra.yaml")"
for line in "      capacity: 256MiB" "  strict: true" "# tuned by hand" "  segment_size: 8MiB" '  "checkpoint_interval": 60s' \
    "  read_timeout:" "    150ms" "  # sketch" "  admission_sketch_counters: auto"; do
  grep -qxF -- "$line" <<<"$settings" || fail "a repeated install lost '$line' from the block: $settings"
done
"$installer" install --cassandra-home "$kept" --device "$device:256MiB" --no-strict >/dev/null 2>&1 || fail "install --no-strict into $kept"
settings="$(block_lines_of "$kept/conf/cassandra.yaml")"
! grep -q "strict" <<<"$settings" || fail "--no-strict left strict in the block: $settings"
grep -qxF "  admission_sketch_counters: auto" <<<"$settings" || fail "--no-strict lost another setting: $settings"
ok "a repeated install keeps the settings the operator added inside the block (comments, quoted keys, nested values, strict: true) and takes the new devices; --no-strict takes strict out"

# the node's Java: found as bin/cassandra finds it (JAVA_HOME, else PATH) or named by --java
fake_jdk() {
  local dir=$1 version=$2
  mkdir -p "$dir/bin"
  # a JVM may warn before its version line (a locked hsperfdata file did in CI)
  printf '#!/bin/sh\necho "[0.004s][warning][perf,memops] Cannot use file /tmp/hsperfdata_root/1 because it is locked by another process (errno = 11)" >&2\necho "openjdk version \\"%s\\" 2021-10-19" >&2\necho "OpenJDK Runtime Environment Temurin-%s" >&2\n' \
    "$version" "$version" >"$dir/bin/java"
  chmod +x "$dir/bin/java"
}
fake_jdk "$work/jdk8" 1.8.0_392
fake_jdk "$work/jdk11" 11.0.13
fake_jdk "$work/jdk17" 17.0.9
# the other series the plugin hooks: 4.1 and 6.0 install, show in status and uninstall cleanly
for version in 4.1.10 6.0-alpha2; do
  other="$work/apache-cassandra-$version"
  make_installation "$other" "$version"
  other_state="$(state "$other")"
  java_for=()
  [ "$version" = 4.1.10 ] && java_for=(--java "$work/jdk11/bin/java")
  out="$("$installer" install --cassandra-home "$other" --device "$device" "${java_for[@]}" 2>&1)" || fail "install into $version: $out"
  grep -q "Cassandra $version in $other" <<<"$out" || fail "install does not name Cassandra $version: $out"
  status_out="$("$installer" status --cassandra-home "$other" 2>&1)" || fail "status of $version exited $?: $status_out"
  grep -q "Cassandra $version" <<<"$status_out" || fail "status does not name Cassandra $version: $status_out"
  grep -q "FlashChunk is installed" <<<"$status_out" || fail "status of $version does not say installed: $status_out"
  "$installer" uninstall --cassandra-home "$other" >/dev/null 2>&1 || fail "uninstall from $version"
  [ "$other_state" = "$(state "$other")" ] || fail "uninstall did not restore the $version installation"
done
expect_refusal "Cassandra 4.1 on Java 17" "$work/apache-cassandra-4.1.10" \
  "but FlashChunk runs Cassandra 4\.1\.10 on Java 11 " \
  install --cassandra-home "$work/apache-cassandra-4.1.10" --device "$device" --java "$work/jdk17/bin/java"
expect_refusal "Cassandra 6.0 on Java 11" "$work/apache-cassandra-6.0-alpha2" \
  "but FlashChunk runs Cassandra 6\.0-alpha2 on Java 17 " \
  install --cassandra-home "$work/apache-cassandra-6.0-alpha2" --device "$device" --java "$work/jdk11/bin/java"
ok "Cassandra 4.1.10 (Java 11) and 6.0-alpha2 (Java 17) installations take the plugin, show it in status and give it back; each refuses the other's Java"

JAVA_HOME="$work/jdk8" expect_refusal "a Java 8 in JAVA_HOME" "$home" \
  "the node runs Java 1\.8\.0_392 \($work/jdk8/bin/java, from JAVA_HOME\); the flash cache needs Java 11 or later" \
  install --cassandra-home "$home" --device "$device"
expect_refusal "a Java 8 named by --java" "$home" \
  "the node runs Java 1\.8\.0_392 \($work/jdk8/bin/java, from --java\); the flash cache needs Java 11 or later" \
  install --cassandra-home "$home" --device "$device" --java "$work/jdk8/bin/java"
(
  unset JAVA_HOME
  PATH="$work/jdk8/bin:$PATH" expect_refusal "a Java 8 on PATH, no JAVA_HOME" "$home" \
    "the node runs Java 1\.8\.0_392 \($work/jdk8/bin/java, from PATH\)" \
    install --cassandra-home "$home" --device "$device"
)
JAVA_HOME="$work/no-jdk" expect_refusal "a JAVA_HOME without bin/java" "$home" \
  "JAVA_HOME is $work/no-jdk, but $work/no-jdk/bin/java is not an executable" \
  install --cassandra-home "$home" --device "$device"
expect_refusal "--java naming nothing" "$home" "--java $work/no-jdk/bin/java: no such executable" \
  install --cassandra-home "$home" --device "$device" --java "$work/no-jdk/bin/java"
before_java17="$(state "$home")"
out="$(JAVA_HOME="$work/jdk8" "$installer" install --cassandra-home "$home" --device "$device:384MiB:auto" --strict \
  --java "$work/jdk17/bin/java" --dry-run 2>&1)" || fail "a Java 17 named by --java was refused: $out"
grep -q "on Java 17.0.9 ($work/jdk17/bin/java)" <<<"$out" || fail "install does not name the node's Java: $out"
out="$(JAVA_HOME="$work/jdk11" "$installer" install --cassandra-home "$home" --device "$device:384MiB:auto" --strict \
  --dry-run 2>&1)" || fail "a Java 11 in JAVA_HOME was refused: $out"
grep -q "on Java 11.0.13 ($work/jdk11/bin/java)" <<<"$out" || fail "install does not name the node's Java 11: $out"
[ "$before_java17" = "$(state "$home")" ] || fail "the dry runs on Java 17 and 11 changed the installation"
ok "a node Java below 11 (JAVA_HOME, --java, PATH) is refused by version and path; --java 17 and a Java 11 are taken"

# a yaml without a final newline comes back byte for byte
cp "$work/clash-pristine/jvm-clients.options" "$clash/conf/jvm-clients.options"
printf 'cluster_name: x\nnum_tokens: 16' >"$clash/conf/cassandra.yaml"
cp -a "$clash/conf" "$work/clash-conf"
"$installer" install --cassandra-home "$clash" --device "$device" >/dev/null || fail "install into $clash"
grep -q "^chunk_cache_class: " "$clash/conf/cassandra.yaml" || fail "install into a yaml without a final newline"
grep -q "^num_tokens: 16\$" "$clash/conf/cassandra.yaml" || fail "the last line of a yaml without a final newline was damaged"
"$installer" uninstall --cassandra-home "$clash" >/dev/null || fail "uninstall from $clash"
diff -r "$work/clash-conf" "$clash/conf" || fail "uninstall did not restore a yaml without a final newline"
ok "a yaml without a final newline: install, then uninstall restores it byte for byte"

# other options: the blocks are rewritten in place (a line the operator added after the block stays
# after it), the backup from before FlashChunk is kept
"$installer" install --cassandra-home "$clash" --device "$device" >/dev/null || fail "install into $clash"
echo "# operator line after the block" >>"$clash/conf/cassandra.yaml"
"$installer" install --cassandra-home "$clash" --device "$device:64MiB:threadpool" >/dev/null || fail "reconfigure $clash"
grep -q "^      capacity: 64MiB\$" "$clash/conf/cassandra.yaml" || fail "reconfigure did not write the new capacity"
grep -q "^      engine: threadpool\$" "$clash/conf/cassandra.yaml" || fail "reconfigure did not write the new engine"
[ "$(grep -c "^chunk_cache_class:" "$clash/conf/cassandra.yaml")" = 1 ] || fail "reconfigure left two chunk_cache_class lines"
[ "$(tail -n 1 "$clash/conf/cassandra.yaml")" = "# operator line after the block" ] || fail "reconfigure moved the block"
cmp -s "$work/clash-conf/cassandra.yaml" "$clash/conf/cassandra.yaml.flashchunk-backup" \
  || fail "reconfigure replaced the backup from before FlashChunk"
mv "$clash/lib/flashchunk-cassandra.jar" "$work/moved.jar"
rc=0
status_out="$("$installer" status --cassandra-home "$clash" 2>&1)" || rc=$?
[ "$rc" = 4 ] || fail "status of an installation without the jar exited $rc, not 4: $status_out"
grep -q "PARTLY installed" <<<"$status_out" || fail "status without the jar: $status_out"
mv "$work/moved.jar" "$clash/lib/flashchunk-cassandra.jar"
out="$("$installer" uninstall --cassandra-home "$clash" 2>&1)" || fail "uninstall from $clash: $out"
# the operator's line now follows the last original line, which got its newline back
[ "$(cat "$clash/conf/cassandra.yaml")" = "$(printf 'cluster_name: x\nnum_tokens: 16\n# operator line after the block')" ] \
  || fail "uninstall after an operator's edit: $(cat "$clash/conf/cassandra.yaml")"
grep -q "kept: $clash/conf/cassandra.yaml.flashchunk-backup" <<<"$out" || fail "uninstall did not keep the backup of an edited file: $out"
ok "reconfigure rewrites the blocks in place and keeps the first backup; status sees a missing jar"

if [ "$with_node" = 1 ]; then

# ---------------------------------------------------------------- a real node from the installed configuration

read -r native_port storage_port jmx_port < <(free_tcp_ports 3)
"$node_sh" init "$node" --native-port "$native_port" --storage-port "$storage_port" --jmx-port "$jmx_port" >/dev/null \
  || fail "cassandra-node.sh init"
# the installed yaml block (markers included, so the block is exactly what the installer wrote)
awk '/^# BEGIN flashchunk/ { p = 1 } p { print } /^# END flashchunk$/ { p = 0 }' "$home/conf/cassandra.yaml" \
  >>"$node/conf/cassandra.yaml"
block_options "$home/conf/jvm-server.options" >"$node/conf/jvm-extra.options"
grep -q "^-javaagent:$home/lib/flashchunk-cassandra.jar\$" "$node/conf/jvm-extra.options" \
  || fail "jvm-extra.options lacks the installed agent: $(cat "$node/conf/jvm-extra.options")"
t_node=$(date +%s)
start_out="$("$node_sh" start "$node" --heap 640M --wait-seconds 240 2>&1)" || fail "start of the node: $start_out"
echo "# $start_out"
grep -q "flash chunk cache: serving Cassandra's chunk cache" "$node/logs/system.log" \
  || fail "system.log does not say the flash cache serves: $(grep -i flash "$node/logs/system.log" | head -n 5)"
serving="$(grep -m1 "flash chunk cache: serving" "$node/logs/system.log" | sed 's/.*flash chunk cache: //')"
info="$("$node_sh" nodetool "$node" info 2>&1)" || fail "nodetool info: $info"
chunk_line="$(grep "^Chunk Cache" <<<"$info")" || fail "nodetool info has no Chunk Cache line: $info"
echo "#   system.log: $serving"
echo "#   nodetool info: $chunk_line"
log_mib="$(sed -n 's/.*capacity \([0-9]*\) MiB.*/\1/p' <<<"$serving")"
grep -q "capacity ${log_mib}" <<<"$chunk_line" \
  || fail "nodetool's Chunk Cache capacity is not the flash cache's $log_mib MiB: $chunk_line"
"$node_sh" stop "$node" >/dev/null || fail "stop of the node"
ok "a real node with the installed configuration serves from the flash cache ($(($(date +%s) - t_node)) s)"

# ---------------------------------------------------------------- an offline tool with the installed client options

# as tools/bin/sstableverify would run it: conf/ and lib/*.jar on the class path, the '-' lines of
# jvm-clients.options and jvm17-clients.options; the node's yaml (with our block) as the configuration
tool_cp="$home/conf"
for j in "$home"/lib/*.jar; do tool_cp="$tool_cp:$j"; done
tool_opts=()
mapfile -t tool_opts < <(grep -h '^-' "$home/conf/jvm-clients.options" "$home/conf/jvm17-clients.options")
tool_opts+=("-Dcassandra.config=file://$node/conf/cassandra.yaml" "-Dcassandra.storagedir=$node/data"
  "-Dcassandra.logdir=$node/logs" "-Dlogback.configurationFile=$node/conf/logback-tools.xml")
java_bin="java"
[ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && java_bin="$JAVA_HOME/bin/java"
tool_out="$("$java_bin" "${tool_opts[@]}" -cp "$tool_cp" org.apache.cassandra.tools.StandaloneVerifier --force system_schema tables 2>&1)" \
  || fail "StandaloneVerifier with the installed client options failed: $(tail -n 20 <<<"$tool_out")"
! grep -q "Invalid yaml" <<<"$tool_out" || fail "the tool did not load the yaml: $tool_out"
! grep -q "serving Cassandra's chunk cache" <<<"$tool_out" || fail "the tool started the flash cache: $tool_out"
# the control: without the loader, Cassandra itself refuses the same yaml
no_loader=()
for o in "${tool_opts[@]}"; do
  [[ $o == -Dcassandra.config.loader=* ]] || no_loader+=("$o")
done
[ "${#no_loader[@]}" -eq $((${#tool_opts[@]} - 1)) ] || fail "jvm-clients.options did not give the tool exactly one loader option"
if control_out="$("$java_bin" "${no_loader[@]}" -cp "$tool_cp" org.apache.cassandra.tools.StandaloneVerifier --force system_schema tables 2>&1)"; then
  fail "StandaloneVerifier without the loader accepted a yaml with the flash cache keys: $control_out"
fi
refusal="$(grep -m1 "Please remove properties \[" <<<"$control_out")" \
  || fail "without the loader the tool failed for another reason: $(tail -n 20 <<<"$control_out")"
if ! grep -q "chunk_cache_class" <<<"$refusal" || ! grep -q "flash_chunk_cache" <<<"$refusal"; then
  fail "without the loader Cassandra did not name both of our keys: $refusal"
fi
echo "#   with the installed client options: $(grep -c . <<<"$tool_out") lines of output, exit 0; last: $(tail -n 1 <<<"$tool_out")"
echo "#   without the loader: $refusal"
ok "StandaloneVerifier loads the yaml with the installed client options (and is refused without the loader)"
else
  echo "# --no-node: the real node and the offline tool are skipped"
fi

# ---------------------------------------------------------------- package layouts, --discard-devices

# every path under a package root, its type and link target, and the content of every regular file
tree_state() {
  (
    cd "$1"
    find . -printf '%p %y %l\n' | sort
    find . -type f -print0 | sort -z | xargs -0 -r sha256sum
  )
}

# the first 8 bytes of a FlashChunk superblock (docs/checkpoint-format.md): what uninstall
# --discard-devices looks for before it discards anything
mark_as_cache() {
  printf '1_BSHCLF' | dd of="$1" conv=notrunc status=none
}

for kind in deb rpm; do
  root="$work/pkg-$kind"
  make_package_installation "$root" 5.0.9 "$kind"
  pkg_home="$root/usr/share/cassandra"
  conf="$root/etc/cassandra"
  [ "$kind" = deb ] || conf="$root/etc/cassandra/conf"
  pkg_device="$work/pkg-$kind.img"
  truncate -s 64M "$pkg_device"
  if [ "$kind" = deb ]; then
    # a device path that is a symlink to the file (discarding removes both)
    mkdir -p "$work/flash"
    mv "$pkg_device" "$work/flash/pkg-deb.img"
    ln -s "$work/flash/pkg-deb.img" "$pkg_device"
  fi
  before="$(tree_state "$root")"
  out="$("$installer" install --cassandra-home "$pkg_home" --device "$pkg_device" 2>&1)" && fail "$kind: install without --conf-dir succeeded"
  grep -q "no configuration directory $pkg_home/conf (Debian packages keep it in /etc/cassandra, RPM packages in /etc/cassandra/conf" <<<"$out" \
    || fail "$kind: install without --conf-dir: unexpected message: $out"
  out="$("$installer" install --cassandra-home "$pkg_home" --conf-dir "$conf" --device "$pkg_device" 2>&1)" \
    || fail "$kind: install into the package layout: $out"
  [ -f "$pkg_home/lib/flashchunk-cassandra.jar" ] || fail "$kind: the jar is not in $pkg_home/lib"
  grep -qx -- "-javaagent:$pkg_home/lib/flashchunk-cassandra.jar" "$conf/jvm-server.options" \
    || fail "$kind: jvm-server.options lacks the agent: $(cat "$conf/jvm-server.options")"
  grep -q "^flash_chunk_cache:" "$conf/cassandra.yaml" || fail "$kind: cassandra.yaml lacks the block"
  if [ "$kind" = rpm ]; then
    [ "$(readlink "$conf")" = "$root/etc/alternatives/cassandra" ] && [ -L "$root/etc/alternatives/cassandra" ] \
      || fail "rpm: the alternatives links were replaced"
    grep -q "^flash_chunk_cache:" "$root/etc/cassandra/default.conf/cassandra.yaml" || fail "rpm: default.conf was not the one edited"
  fi
  status_out="$("$installer" status --cassandra-home "$pkg_home" --conf-dir "$conf" 2>&1)" || fail "$kind: status: $status_out"
  grep -q "Cassandra 5.0.9" <<<"$status_out" || fail "$kind: status does not find Cassandra's jar in CASSANDRA_HOME: $status_out"

  # --discard-devices refuses, before anything changes, a device that is not the cache's and one in use
  installed="$(tree_state "$root")"
  out="$("$installer" uninstall --cassandra-home "$pkg_home" --conf-dir "$conf" --discard-devices 2>&1)" \
    && fail "$kind: --discard-devices on a device with no FlashChunk superblock succeeded"
  grep -q "$pkg_device does not begin with a FlashChunk superblock" <<<"$out" || fail "$kind: not the cache's: unexpected message: $out"
  [ "$installed" = "$(tree_state "$root")" ] && [ -e "$pkg_device" ] || fail "$kind: a refused --discard-devices changed something"
  mark_as_cache "$pkg_device"
  rm -f "$work/held" "$work/release"
  flock -x "$pkg_device" bash -c "touch '$work/held'; while [ ! -e '$work/release' ]; do sleep 0.05; done" &
  holder=$!
  until [ -e "$work/held" ]; do sleep 0.05; done
  out="$("$installer" uninstall --cassandra-home "$pkg_home" --conf-dir "$conf" --discard-devices 2>&1)" \
    && fail "$kind: --discard-devices on a device a process holds succeeded"
  touch "$work/release"
  wait "$holder"
  grep -q "$pkg_device is in use (a running node's cache holds it): stop Cassandra on this node first" <<<"$out" \
    || fail "$kind: device in use: unexpected message: $out"
  [ "$(tree_state "$root")" = "$installed" ] || fail "$kind: a refused --discard-devices changed something"
  out="$("$installer" uninstall --cassandra-home "$pkg_home" --conf-dir "$conf" --discard-devices --dry-run 2>&1)" \
    || fail "$kind: --discard-devices --dry-run: $out"
  grep -q "would discard (dry run): $pkg_device" <<<"$out" && [ -e "$pkg_device" ] || fail "$kind: dry run: $out"

  if [ "$kind" = deb ]; then
    # a comment after the path (valid yaml, the node still starts) is not part of it
    sed -i "s|^\(    - path: '$pkg_device'\)\$|\1   # the file on the second NVMe|" "$conf/cassandra.yaml"
    grep -q "# the file on the second NVMe" "$conf/cassandra.yaml" || fail "deb: the test could not add a comment to the path line"
    # a device that is missing (a drive not attached) is refused, not taken as discarded
    mv "$work/flash/pkg-deb.img" "$work/flash/away.img"
    commented="$(tree_state "$root")"
    out="$("$installer" uninstall --cassandra-home "$pkg_home" --conf-dir "$conf" --discard-devices 2>&1)" \
      && fail "deb: --discard-devices with the device missing succeeded"
    grep -q "$pkg_device, named in cassandra.yaml, does not exist" <<<"$out" || fail "deb: missing device: unexpected message: $out"
    [ "$(tree_state "$root")" = "$commented" ] || fail "deb: a refused --discard-devices changed something"
    mv "$work/flash/away.img" "$work/flash/pkg-deb.img"
    out="$("$installer" uninstall --cassandra-home "$pkg_home" --conf-dir "$conf" --discard-devices 2>&1)" \
      || fail "deb: uninstall --discard-devices: $out"
    grep -q "discarded: $pkg_device (removed, and the file it linked to, $work/flash/pkg-deb.img;" <<<"$out" \
      && [ ! -e "$pkg_device" ] && [ ! -L "$pkg_device" ] && [ ! -e "$work/flash/pkg-deb.img" ] \
      || fail "deb: the device file and its link were not both removed: $out"
    out="$("$installer" uninstall --cassandra-home "$pkg_home" --conf-dir "$conf" --discard-devices 2>&1)" \
      || fail "deb: a second uninstall --discard-devices failed: $out"
    grep -q "not installed" <<<"$out" || fail "deb: a second uninstall --discard-devices: $out"
  else
    # a block device (a loop device over the file): blkdiscard, and the blocks read back as zeros
    # a block device (a loop device over the file) given 32 MiB of its 64: blkdiscard of those 32 MiB
    "$installer" uninstall --cassandra-home "$pkg_home" --conf-dir "$conf" >/dev/null || fail "rpm: uninstall"
    printf 'NOT THE CACHE' | dd of="$pkg_device" bs=1M seek=40 conv=notrunc status=none
    loop="$(losetup -f --show "$pkg_device")" || fail "rpm: cannot attach a loop device to $pkg_device"
    loops+=("$loop")
    out="$("$installer" install --cassandra-home "$pkg_home" --conf-dir "$conf" --device "$loop:32MiB" 2>&1)" \
      || fail "rpm: install with $loop: $out"
    out="$("$installer" uninstall --cassandra-home "$pkg_home" --conf-dir "$conf" --discard-devices 2>&1)" \
      || fail "rpm: uninstall --discard-devices with $loop: $out"
    grep -q "discarded: $loop (blkdiscard of its first $((32 << 20)) bytes" <<<"$out" || fail "rpm: $loop was not discarded: $out"
    [ "$(head -c 4096 "$pkg_device" | tr -d '\0' | wc -c)" = 0 ] || fail "rpm: the superblock survived blkdiscard"
    [ "$(dd if="$pkg_device" bs=1M skip=40 count=1 status=none | head -c 13)" = "NOT THE CACHE" ] \
      || fail "rpm: blkdiscard went past the cache's capacity"
    losetup -d "$loop"
    loops=()
  fi
  [ "$(tree_state "$root")" = "$before" ] || fail "$kind: uninstall did not restore the package layout: $(diff <(echo "$before") <(tree_state "$root") || true)"
done
ok "Debian and RPM package layouts (configuration in /etc/cassandra, or /etc/cassandra/conf through alternatives links kept as links) take the plugin and give it back; uninstall --discard-devices removes a device file (and the file a symlink names), blkdiscards a block device's capacity and no more, and refuses, changing nothing, a device without a FlashChunk superblock, one a process holds, and one missing"

# ---------------------------------------------------------------- uninstall

out="$("$installer" uninstall --cassandra-home "$home" 2>&1)" || fail "uninstall: $out"
grep -v '^[-+@ ]' <<<"$out" | show
grep -q "left alone: the cache device $device" <<<"$out" || fail "uninstall does not say it left the device alone: $out"
diff -r "$work/original-conf" "$home/conf" || fail "uninstall did not restore conf/ byte for byte"
[ "$original_state" = "$(state "$home")" ] || fail "uninstall did not restore the installation: $(diff <(echo "$original_state") <(state "$home") || true)"
[ "$(stat -c %s "$device")" = $((512 << 20)) ] || fail "uninstall touched the device"
rc=0
status_out="$("$installer" status --cassandra-home "$home" 2>&1)" || rc=$?
[ "$rc" = 3 ] || fail "status after uninstall exited $rc, not 3: $status_out"
grep -q "FlashChunk is not installed" <<<"$status_out" || fail "status after uninstall: $status_out"
out="$("$installer" uninstall --cassandra-home "$home" 2>&1)" || fail "second uninstall: $out"
grep -q "not installed" <<<"$out" || fail "second uninstall: $out"
[ "$original_state" = "$(state "$home")" ] || fail "a second uninstall changed the installation"
ok "uninstall restores the original files byte for byte, removes the jar, leaves the device"

echo "# total $(($(date +%s) - t_start)) s"
echo "$passed passed, 0 failed"
