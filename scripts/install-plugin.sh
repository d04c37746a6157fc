#!/usr/bin/env bash
# Installs the FlashChunk plugin into an existing Apache Cassandra 4.1.x, 5.0.x or 6.0.x installation
# (tarball or package), removes it again, or reports what is installed.
#
#   install-plugin.sh install   --cassandra-home DIR [--conf-dir DIR] [--lib-dir DIR]
#                               --device PATH[:CAPACITY[:ENGINE]] [--device ...]
#                               [--capi-library PATH] [--strict] [--jar PATH] [--java PATH] [--dry-run]
#   install-plugin.sh uninstall --cassandra-home DIR [--conf-dir DIR] [--lib-dir DIR] [--dry-run]
#   install-plugin.sh status    --cassandra-home DIR [--conf-dir DIR] [--lib-dir DIR]
#
# What install changes (each text file is backed up to FILE.flashchunk-backup first, and every added
# line sits between "# BEGIN flashchunk" and "# END flashchunk"):
#   LIB/flashchunk-cassandra.jar     the plugin jar (on Cassandra's class path, as every lib/*.jar)
#   CONF/jvm-server.options          -javaagent:LIB/flashchunk-cassandra.jar and the config loader
#   CONF/jvm-clients.options         the config loader (offline tools read cassandra.yaml too)
#   CONF/cassandra.yaml              chunk_cache_class and the flash_chunk_cache block
# Every input is checked before anything is written; a refused run changes nothing. That includes the
# Java the node will run (the flash cache needs 11 or later; on an older Java the plugin would only step
# aside): found as Cassandra's bin/cassandra finds it, or named by --java.
set -euo pipefail

PROG="install-plugin.sh"
SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# a release keeps the jar in lib/ beside bin/; a checkout builds it in plugin/target/
DEFAULT_JAR="$SCRIPTS_DIR/../lib/flashchunk-cassandra.jar"
[ -f "$DEFAULT_JAR" ] || DEFAULT_JAR="$SCRIPTS_DIR/../plugin/target/flashchunk-cassandra.jar"
JAR_NAME="flashchunk-cassandra.jar"
LOADER="io.flashchunk.cassandra.config.FlashChunkConfigurationLoader"
CACHE_CLASS="io.flashchunk.cassandra.CassandraFlashCache"
AGENT_CLASS="io.flashchunk.cassandra.agent.FlashChunkAgent"
BEGIN_MARK="# BEGIN flashchunk"
END_MARK="# END flashchunk"
BACKUP_SUFFIX=".flashchunk-backup"
ENGINES="auto libaio threadpool capi"

# die, note, size_bytes (the script runs from a checkout: scripts/lib/ beside it)
# shellcheck source=lib/common.sh
source "$SCRIPTS_DIR/lib/common.sh"

usage() {
  cat <<'EOF'
usage: install-plugin.sh COMMAND --cassandra-home DIR [options]

  install --cassandra-home DIR --device PATH[:CAPACITY[:ENGINE]] [--device ...]
          [--format-force PATH ...] [--conf-dir DIR] [--lib-dir DIR] [--capi-library PATH]
          [--strict | --no-strict] [--jar PATH] [--java PATH] [--cassandra-user USER] [--dry-run]
      copy the plugin jar into the lib directory and switch the flash cache on in jvm-server.options
      (agent + config loader), jvm-clients.options (config loader) and cassandra.yaml
      (chunk_cache_class + flash_chunk_cache). Running it again with the same options changes nothing;
      with other options it rewrites its own blocks, keeping the settings added by hand inside the
      cache's block unless this run sets them (--capi-library, --strict, --no-strict).
        PATH      a block device or a regular file (no ':' in it)
        CAPACITY  bytes of it to use: a number with B, KiB, MiB, GiB or TiB (e.g. 64GiB), a multiple
                  of 4096; empty or 0 means the whole device
        ENGINE    auto (default), libaio, threadpool or capi
      --format-force  a --device PATH the cache may format whatever it holds (format: force): a device that
                      held a filesystem, a RAID member or another cache is otherwise never written. Its
                      contents are destroyed at the node's next start. Give it again at the next install
                      to keep it (without it the device entry says format: auto)
      --capi-library  the libcflsh_block.so for the capi engine (a path, or a name for the linker)
      --strict        refuse to start Cassandra (instead of running without the flash cache) when
                      the cache is misconfigured or cannot recover its devices; --no-strict takes a
                      strict: true out of the block (without either, the block's own is kept)
      --jar           the plugin jar (default: lib/flashchunk-cassandra.jar of this release, or
                      plugin/target/flashchunk-cassandra.jar of this checkout)
      --java          the java the node runs, which must be Java 11 or later (default: as Cassandra's
                      bin/cassandra picks it, JAVA_HOME/bin/java if JAVA_HOME is set, else java on PATH;
                      give it when the node's service sets another JAVA_HOME)
      --cassandra-user  the user Cassandra runs as, who must read and write the devices (default:
                      cassandra where that user exists, as the packages make it, else the owner of
                      --cassandra-home)
      --dry-run       check everything and print the changes, write nothing
  uninstall --cassandra-home DIR [--conf-dir DIR] [--lib-dir DIR] [--discard-devices] [--dry-run]
      remove exactly what install added, and the jar; the cache devices are left alone unless
      --discard-devices: then each device the block names, once the configuration is removed, is
      discarded (a block device with blkdiscard, a file removed), as it holds SSTable chunks
      decompressed, outside whatever encrypts the data volume. Only a device that holds a FlashChunk
      superblock and that no running cache holds (stop Cassandra first) is discarded; any other is
      refused before anything changes.
  status --cassandra-home DIR [--conf-dir DIR] [--lib-dir DIR]
      installed or not (exit 0 installed, 3 not installed, 4 partly installed), the jar's version,
      the configured devices.

  --conf-dir defaults to DIR/conf and --lib-dir to DIR/lib (tarball layout). Packages:
  --cassandra-home /usr/share/cassandra --conf-dir /etc/cassandra (Debian) or /etc/cassandra/conf (RPM)
EOF
}

# ---------------------------------------------------------------- arguments

COMMAND=""
CASSANDRA_HOME=""
CONF_DIR=""
LIB_DIR=""
JAR=""
JAVA_OPTION=""
CASSANDRA_USER=""
CAPI_LIBRARY=""
STRICT=0
DISCARD=0
DRY_RUN=0
DEVICES=()
FORCE_FORMAT=()

need_value() {
  [ "$2" -ge 2 ] || die "$1 needs a value"
}

parse_args() {
  local allowed=$1
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --cassandra-home | --conf-dir | --lib-dir | --device | --format-force | --capi-library | --jar | --java | --cassandra-user | --strict | --no-strict | --discard-devices | --dry-run) ;;
      -h | --help) usage; exit 0 ;;
      *) die "$COMMAND: unknown argument '$1' (see $PROG --help)" ;;
    esac
    [[ " $allowed " == *" $1 "* ]] || die "$COMMAND does not take $1 (see $PROG --help)"
    case "$1" in
      --cassandra-home) need_value "$1" $#; CASSANDRA_HOME=$2; shift 2 ;;
      --conf-dir) need_value "$1" $#; CONF_DIR=$2; shift 2 ;;
      --lib-dir) need_value "$1" $#; LIB_DIR=$2; shift 2 ;;
      --device) need_value "$1" $#; DEVICES+=("$2"); shift 2 ;;
      --format-force) need_value "$1" $#; FORCE_FORMAT+=("$2"); shift 2 ;;
      --capi-library) need_value "$1" $#; CAPI_LIBRARY=$2; shift 2 ;;
      --jar) need_value "$1" $#; JAR=$2; shift 2 ;;
      --java) need_value "$1" $#; JAVA_OPTION=$2; shift 2 ;;
      --cassandra-user) need_value "$1" $#; CASSANDRA_USER=$2; shift 2 ;;
      --strict) STRICT=1; shift ;;
      --no-strict) STRICT=-1; shift ;;
      --discard-devices) DISCARD=1; shift ;;
      --dry-run) DRY_RUN=1; shift ;;
    esac
  done
  [ -n "$CASSANDRA_HOME" ] || die "$COMMAND needs --cassandra-home DIR (the directory with Cassandra's bin/, conf/ and lib/)"
}

# Cassandra's launch scripts split option lines on whitespace and expand globs: a path that would be
# written into an options file must not contain either.
check_option_safe() {
  local what=$1 path=$2
  case "$path" in
    *[[:space:]]* | *[\*\?\[]*) die "$what '$path' contains whitespace or a glob character; Cassandra's start scripts cannot pass such a path to the JVM" ;;
  esac
}

resolve_layout() {
  [ -d "$CASSANDRA_HOME" ] || die "--cassandra-home $CASSANDRA_HOME is not a directory"
  CASSANDRA_HOME="$(realpath -- "$CASSANDRA_HOME")"
  CONF_DIR="${CONF_DIR:-$CASSANDRA_HOME/conf}"
  LIB_DIR="${LIB_DIR:-$CASSANDRA_HOME/lib}"
  [ -d "$CONF_DIR" ] || die "no configuration directory $CONF_DIR (Debian packages keep it in /etc/cassandra, RPM packages in /etc/cassandra/conf: add --conf-dir)"
  [ -d "$LIB_DIR" ] || die "no library directory $LIB_DIR (packages keep the jars in /usr/share/cassandra/lib: add --lib-dir)"
  CONF_DIR="$(realpath -- "$CONF_DIR")"
  LIB_DIR="$(realpath -- "$LIB_DIR")"
  check_option_safe "the library directory" "$LIB_DIR"
  YAML="$CONF_DIR/cassandra.yaml"
  SERVER_OPTS="$CONF_DIR/jvm-server.options"
  CLIENT_OPTS="$CONF_DIR/jvm-clients.options"
  INSTALLED_JAR="$LIB_DIR/$JAR_NAME"
  local f
  for f in "$YAML" "$SERVER_OPTS" "$CLIENT_OPTS"; do
    [ -f "$f" ] || die "$f is missing: $CONF_DIR does not look like a Cassandra 4.1, 5.0 or 6.0 configuration directory (wrong --conf-dir?)"
  done
}

# ---------------------------------------------------------------- Cassandra's version

# Sets CASSANDRA_VERSION and CASSANDRA_JAR from the name of Cassandra's own jar
# (apache-cassandra-X.Y.Z.jar in tarballs and packages, cassandra-all-X.Y.Z.jar from Maven), found
# in the lib directory, CASSANDRA_HOME (packages) or CASSANDRA_HOME/build (source builds).
detect_cassandra_version() {
  local dir file name real version found=() where=()
  for dir in "$LIB_DIR" "$CASSANDRA_HOME" "$CASSANDRA_HOME/build"; do
    [ -d "$dir" ] || continue
    for file in "$dir"/apache-cassandra*.jar "$dir"/cassandra-all-*.jar; do
      [ -e "$file" ] || continue
      real="$(realpath -- "$file" 2>/dev/null || echo "$file")"
      name="$(basename -- "$real")"
      case "$name" in *-sources.jar | *-javadoc.jar | *-tests.jar) continue ;; esac
      if [[ $name =~ ^(apache-cassandra|cassandra-all)-([0-9]+\.[0-9]+(\.[0-9]+)?([.-][A-Za-z0-9.-]*)?)\.jar$ ]]; then
        version=${BASH_REMATCH[2]}
        if [[ " ${found[*]-} " != *" $version "* ]]; then
          found+=("$version")
          where+=("$file")
        fi
      fi
    done
  done
  if [ "${#found[@]}" -eq 0 ]; then
    die "no Cassandra jar (apache-cassandra-X.Y.Z.jar or cassandra-all-X.Y.Z.jar) in $LIB_DIR or $CASSANDRA_HOME: is this a Cassandra installation? (wrong --cassandra-home or --lib-dir?)"
  fi
  if [ "${#found[@]}" -gt 1 ]; then
    die "jars of several Cassandra versions (${found[*]}: ${where[*]}): cannot tell which one runs; clean up the installation first"
  fi
  CASSANDRA_VERSION=${found[0]}
  CASSANDRA_JAR=${where[0]}
}

# the series whose ChunkCache the plugin hooks: 4.1, 5.0 and 6.0 (their wrap, invalidate and close
# hooks were checked one by one; an older or newer series may differ)
require_supported_cassandra() {
  detect_cassandra_version
  case "$CASSANDRA_VERSION" in
    4.1 | 4.1.* | 4.1-* | 5.0 | 5.0.* | 5.0-* | 6.0 | 6.0.* | 6.0-*) ;;
    *) die "this is Cassandra $CASSANDRA_VERSION ($CASSANDRA_JAR); FlashChunk supports Cassandra 4.1.x, 5.0.x and 6.0.x only (it hooks their ChunkCache)" ;;
  esac
}

# ---------------------------------------------------------------- the node's Java

REQUIRED_JAVA=11

# Sets NODE_JAVA (a path) and NODE_JAVA_FROM (how it was chosen) to the java the node will run: --java,
# else as Cassandra's cassandra.in.sh picks it (JAVA_HOME/bin/java when JAVA_HOME is set, else java on PATH).
find_node_java() {
  if [ -n "$JAVA_OPTION" ]; then
    NODE_JAVA=$JAVA_OPTION NODE_JAVA_FROM="--java"
    [ -f "$NODE_JAVA" ] && [ -x "$NODE_JAVA" ] || die "--java $NODE_JAVA: no such executable"
  elif [ -n "${JAVA_HOME:-}" ]; then
    NODE_JAVA="$JAVA_HOME/bin/java" NODE_JAVA_FROM="JAVA_HOME"
    [ -x "$NODE_JAVA" ] || die "JAVA_HOME is $JAVA_HOME, but $NODE_JAVA is not an executable: Cassandra could not start with it; fix JAVA_HOME or give --java PATH (the java the node runs)"
  else
    NODE_JAVA="$(command -v java || true)" NODE_JAVA_FROM="PATH"
    [ -n "$NODE_JAVA" ] || die "no java on PATH and no JAVA_HOME: cannot tell which Java the node runs; give --java PATH (the java the node runs, Java $REQUIRED_JAVA or later)"
  fi
}

# Refuses a node Java older than the plugin needs: the plugin would only step aside there.
require_node_java() {
  find_node_java
  local output line version major
  # the version line wherever it is (a JVM may print a warning first), no perf-data file for the probe
  output="$("$NODE_JAVA" -XX:-UsePerfData -version 2>&1 || true)"
  line="$(grep -m 1 'version "' <<<"$output" || true)"
  version="$(sed -n 's/.*version "\([^"]*\)".*/\1/p' <<<"$line")"
  [ -n "$version" ] || die "$NODE_JAVA ($NODE_JAVA_FROM) printed no Java version: $(head -n 3 <<<"$output" | tr '\n' ' ')"
  major="${version%%[.+-]*}"
  [ "$major" = "1" ] && major="$(cut -d. -f2 <<<"$version")"
  [[ $major =~ ^[0-9]+$ ]] || die "$NODE_JAVA ($NODE_JAVA_FROM): cannot read the Java version '$version'"
  if [ "$major" -lt "$REQUIRED_JAVA" ]; then
    die "the node runs Java $version ($NODE_JAVA, from $NODE_JAVA_FROM); the flash cache needs Java $REQUIRED_JAVA or later (on it the plugin would only step aside). Run Cassandra on Java $REQUIRED_JAVA (JAVA_HOME), or name the node's java with --java PATH"
  fi
  # each series starts only on the Javas it was released for (4.1 refuses 17, 6.0 refuses 11)
  local runs_on
  case "$CASSANDRA_VERSION" in
    4.1*) runs_on="11" ;;
    5.0*) runs_on="11 17" ;;
    *) runs_on="17" ;;
  esac
  if [[ " $runs_on " != *" $major "* ]]; then
    die "the node runs Java $version ($NODE_JAVA, from $NODE_JAVA_FROM), but FlashChunk runs Cassandra $CASSANDRA_VERSION on Java ${runs_on// / or } (what that release supports and the cache is tested on): run the node on that Java (JAVA_HOME), or name the node's java with --java PATH"
  fi
  NODE_JAVA_VERSION=$version
}

# ---------------------------------------------------------------- jars

# prints one entry of a jar (zip) file, or fails
jar_entry() {
  local jar=$1 entry=$2
  if command -v unzip >/dev/null; then
    unzip -p -- "$jar" "$entry" 2>/dev/null
  elif command -v python3 >/dev/null; then
    python3 -c 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode("utf-8", "replace"))' \
      "$jar" "$entry" 2>/dev/null
  else
    die "cannot look inside $jar: install unzip (apt-get install unzip) or python3"
  fi
}

# the plugin version of a jar: its manifest's Implementation-Version, else its pom.properties
jar_version() {
  local jar=$1 version
  version="$(jar_entry "$jar" META-INF/MANIFEST.MF | tr -d '\r' | sed -n 's/^Implementation-Version: *//p' | head -n 1 || true)"
  if [ -z "$version" ]; then
    version="$(jar_entry "$jar" META-INF/maven/io.flashchunk/flashchunk-plugin/pom.properties | tr -d '\r' \
      | sed -n 's/^version=//p' | head -n 1 || true)"
  fi
  echo "${version:-unknown}"
}

check_plugin_jar() {
  local jar=$1
  [ -f "$jar" ] || die "the plugin jar $jar does not exist (build it: mvn -q -pl plugin package -DskipTests, or give --jar PATH)"
  [ -r "$jar" ] || die "the plugin jar $jar is not readable"
  jar_has "$jar" "io/flashchunk/cassandra/agent/FlashChunkAgent.class" \
    || die "$jar is not the FlashChunk Cassandra plugin (no io/flashchunk/cassandra/agent/FlashChunkAgent.class; the shaded jar is plugin/target/$JAR_NAME)"
  jar_entry "$jar" META-INF/MANIFEST.MF | tr -d '\r' | grep -qx "Premain-Class: $AGENT_CLASS" \
    || die "$jar has no 'Premain-Class: $AGENT_CLASS' in its manifest: it cannot be a -javaagent (use the shaded plugin/target/$JAR_NAME)"
}

# other copies of the plugin in the lib directory would put two versions on the class path
check_no_stray_jars() {
  local file
  for file in "$LIB_DIR"/flashchunk*.jar; do
    [ -e "$file" ] || continue
    [ "$file" = "$INSTALLED_JAR" ] && continue
    die "$file is another copy of FlashChunk in $LIB_DIR: two copies on Cassandra's class path cannot work; remove it first"
  done
}

# ---------------------------------------------------------------- marked blocks

# Marked-block editor. Reads FILE and writes to stdout:
#   mode=strip    FILE without our block
#   mode=replace  FILE with our block replaced by the lines of BLOCK_FILE, in place
# A block that was appended to a file without a final newline has "[noeol]" on its BEGIN line; strip
# then gives the file back without that newline, byte for byte. Exit status 2 with a message on
# stderr when the markers are broken (BEGIN without END, END without BEGIN, two blocks).
edit_block() {
  local mode=$1 file=$2 block_file=${3:-/dev/null}
  LC_ALL=C awk -v mode="$mode" -v block_file="$block_file" -v begin="$BEGIN_MARK" -v end="$END_MARK" -v file="$file" \
    -v backup="$file$BACKUP_SUFFIX" '
    function is_begin(line) { return line == begin || index(line, begin " ") == 1 }
    {
      if (err != "") next
      if (is_begin($0)) {
        if (inside) { err = "line " NR ": a second \"" begin "\" before \"" end "\""; next }
        if (seen) { err = "line " NR ": a second flashchunk block (the first ends at line " end_line ")"; next }
        inside = 1; seen = 1; begin_line = NR; noeol = index($0, "[noeol]") > 0
        if (mode == "replace") {
          first = 1
          while ((getline line < block_file) > 0) {
            if (first && noeol) line = line " [noeol]"
            first = 0
            out = out line "\n"
          }
          close(block_file)
        }
        next
      }
      if ($0 == end) {
        if (!inside) { err = "line " NR ": \"" end "\" without \"" begin "\""; next }
        inside = 0; end_line = NR; after = 0; next
      }
      if (inside) next
      out = out $0 "\n"
      if (seen) after = 1
    }
    END {
      if (err == "" && inside) err = "line " begin_line ": \"" begin "\" without \"" end "\""
      if (err != "") {
        printf "%s: broken flashchunk markers, %s; fix the file by hand (%s may hold its version before FlashChunk)\n", file, err, backup > "/dev/stderr"
        exit 2
      }
      if (mode == "strip" && seen && noeol && !after) out = substr(out, 1, length(out) - 1)
      printf "%s", out
    }' "$file"
}

# true if FILE has our BEGIN marker
has_block() {
  LC_ALL=C grep -qE "^$BEGIN_MARK( |\$)" -- "$1"
}

# prints the lines between our markers (without them)
block_lines() {
  LC_ALL=C awk -v begin="$BEGIN_MARK" -v end="$END_MARK" '
    $0 == begin || index($0, begin " ") == 1 { inside = 1; next }
    $0 == end { inside = 0; next }
    inside { print }' "$1"
}

# The settings of the flash_chunk_cache block in our yaml block that this run does not set, every line
# of each kept as it is (nested lines, comments, blank lines, quoted keys): what the operator added by
# hand (queue_size, strict: true, ...), kept by a repeated install. devices is always this run's;
# capi_library and strict are when this run sets them (--capi-library, --strict or --no-strict). A
# block written as one {...} value cannot be split: a warning, and nothing kept.
kept_settings() {
  has_block "$YAML" || return 0
  local rc=0
  block_lines "$YAML" | LC_ALL=C awk -v capi="$CAPI_LIBRARY" -v strict="$STRICT" '
    function indent(line) { match(line, /^ */); return RLENGTH }
    state == 0 {
      if ($0 ~ /^["'"'"']?flash_chunk_cache["'"'"']?[ \t]*:/) {
        rest = $0; sub(/^["'"'"']?flash_chunk_cache["'"'"']?[ \t]*:[ \t]*/, "", rest)
        if (rest != "" && rest !~ /^#/) { flow = 1; state = 2 } else { state = 1; base = -1 }
      }
      next
    }
    state == 1 {
      if ($0 ~ /^[ \t]*$/ || $0 ~ /^[ \t]*#/) { if (keep) print; next }
      ind = indent($0)
      if (base < 0) base = ind
      if (ind == 0 || ind < base) { state = 2; next }
      if (ind == base) {
        key = substr($0, ind + 1); sub(/[ \t]*:.*/, "", key); gsub(/^["'"'"']|["'"'"']$/, "", key)
        keep = key != "devices" && !(key == "capi_library" && capi != "") && !(key == "strict" && strict != 0)
      }
      if (keep) print
    }
    END { if (flow) exit 3 }' || rc=$?
  if [ "$rc" = 3 ]; then
    note "warning: the flash_chunk_cache block in $YAML is one {...} value: settings added to it by hand are not kept; write them as key: value lines"
  elif [ "$rc" != 0 ]; then
    die "cannot read the flash_chunk_cache block of $YAML"
  fi
}

# prints the lines of FILE outside our block that match the extended regex
outside_block_matching() {
  local file=$1 regex=$2
  LC_ALL=C awk -v begin="$BEGIN_MARK" -v end="$END_MARK" -v re="$regex" '
    $0 == begin || index($0, begin " ") == 1 { inside = 1; next }
    $0 == end { inside = 0; next }
    !inside && $0 ~ re { print FILENAME ":" NR ": " $0 }' "$1"
}

# Writes the new version of FILE to OUT: our block replaced, or appended when FILE has none.
render_with_block() {
  local file=$1 block=$2 out=$3
  if has_block "$file"; then
    edit_block replace "$file" "$block" >"$out" || exit 1
  else
    # (awk ends every line it prints, also a last line without a newline; strip checks for stray END markers)
    edit_block strip "$file" >"$out" || exit 1
    if [ -s "$file" ] && [ -n "$(tail -c 1 -- "$file")" ]; then
      # no newline at the end: the last line got one, remember that in the marker
      sed "1s/\$/ [noeol]/" "$block" >>"$out"
    else
      cat "$block" >>"$out"
    fi
  fi
}

# ---------------------------------------------------------------- devices

# size of a block device or regular file in bytes
device_bytes() {
  local path=$1
  if [ -b "$path" ]; then
    blockdev --getsize64 "$path" 2>/dev/null || echo ""
  else
    stat -Lc %s -- "$path"
  fi
}

yaml_quote() {
  local value=$1
  printf "'%s'" "${value//\'/\'\'}"
}

# Checks every --device and writes the yaml device entries to DEVICE_YAML (a file).
# The user Cassandra runs as: --cassandra-user, else cassandra where that user exists (the Debian and RPM
# packages run the node as it), else the owner of CASSANDRA_HOME (a tarball runs as who unpacked it).
node_user() {
  if [ -n "$CASSANDRA_USER" ]; then
    id -u -- "$CASSANDRA_USER" >/dev/null 2>&1 || die "--cassandra-user $CASSANDRA_USER: no such user"
    echo "$CASSANDRA_USER"
  elif id -u cassandra >/dev/null 2>&1; then
    echo cassandra
  else
    stat -c %U -- "$CASSANDRA_HOME"
  fi
}

# true if USER may read and write PATH: checked as that user (root switches to it with runuser), so
# the answer is the node's, groups included, not the installer's
user_can_read_write() {
  local user=$1 path=$2
  if [ "$(id -un)" = "$user" ]; then
    [ -r "$path" ] && [ -w "$path" ]
  elif [ "$(id -u)" = 0 ] && command -v runuser >/dev/null; then
    runuser -u "$user" -- test -r "$path" -a -w "$path"
  else
    note "warning: cannot check --device $path as $user (run as root or as $user); checked as $(id -un)"
    [ -r "$path" ] && [ -w "$path" ]
  fi
}

check_devices() {
  [ "${#DEVICES[@]}" -gt 0 ] || die "install needs at least one --device PATH[:CAPACITY[:ENGINE]] (the flash block device or file to cache on)"
  local spec path capacity engine rest bytes size kind seen=() forced=() out=$1 user
  user="$(node_user)"
  : >"$out"
  for path in "${FORCE_FORMAT[@]}"; do
    [ -e "$path" ] || die "--format-force $path: no such file or block device"
    forced+=("$(realpath -- "$path")")
  done
  for spec in "${DEVICES[@]}"; do
    case "$spec" in
      *$'\n'*) die "--device '$spec' contains a newline" ;;
    esac
    path=${spec%%:*}
    rest=""
    [ "$path" != "$spec" ] && rest=${spec#*:}
    capacity=${rest%%:*}
    engine=""
    [ "$capacity" != "$rest" ] && engine=${rest#*:}
    [ -n "$path" ] || die "--device '$spec': the path is empty (write --device /dev/nvme1n1:64GiB)"
    [[ $engine != *:* ]] || die "--device '$spec': too many ':' (PATH[:CAPACITY[:ENGINE]]; the path may not contain ':')"
    [[ $path == /* ]] || die "--device '$spec': the path must be absolute (Cassandra does not run from this directory)"
    if [ ! -e "$path" ]; then
      die "--device $path: no such file or block device (create the file first, e.g. fallocate -l 64G $path, or name an existing device)"
    fi
    if [ -b "$path" ]; then
      kind="block device"
    elif [ -f "$path" ]; then
      kind="regular file"
    else
      die "--device $path: not a block device or a regular file ($(stat -Lc %F -- "$path" 2>/dev/null || echo unknown))"
    fi
    if ! user_can_read_write "$user" "$path"; then
      die "--device $path: not readable and writable by $user, the user Cassandra runs as (give it access: chown $user $path, or a group; or name the node's user with --cassandra-user)"
    fi
    if [[ " ${seen[*]-} " == *" $(realpath -- "$path") "* ]]; then
      die "--device $path is given twice: each device is one address space"
    fi
    seen+=("$(realpath -- "$path")")
    size="$(device_bytes "$path")"
    if [ -n "$capacity" ]; then
      bytes="$(size_bytes "$capacity")" \
        || die "--device $spec: capacity '$capacity' is not a size; write bytes or a number with B, KiB, MiB, GiB or TiB (e.g. 64GiB)"
      [ $((bytes % 4096)) -eq 0 ] || die "--device $spec: capacity '$capacity' ($bytes bytes) is not a multiple of 4096"
      if [ -n "$size" ] && [ "$bytes" -gt "$size" ]; then
        die "--device $spec: capacity '$capacity' ($bytes bytes) is larger than the $kind ($size bytes)"
      fi
      [ "$bytes" -gt 0 ] || capacity=""
    elif [ "$kind" = "regular file" ] && [ "${size:-0}" -lt 4096 ]; then
      die "--device $path: the file is empty or smaller than one 4096-byte block; give it a size (fallocate -l 64G $path) or a capacity"
    fi
    if [ "$kind" = "regular file" ]; then
      local allocated
      allocated=$(( $(stat -Lc %b -- "$path") * $(stat -Lc %B -- "$path") ))
      if [ "$allocated" -lt "$size" ]; then
        note "warning: --device $path is a sparse file ($allocated of its $size bytes allocated): the cache's writes allocate the rest on $(df --output=target -- "$path" | tail -n 1) as they go, and can fill it; preallocate it first (fallocate -l $size $path)"
      fi
    fi
    if [ -n "$engine" ] && [[ " $ENGINES " != *" $engine "* ]]; then
      die "--device $spec: unknown engine '$engine'; expected one of: $ENGINES"
    fi
    {
      echo "    - path: $(yaml_quote "$path")"
      [ -z "$capacity" ] || echo "      capacity: $capacity"
      [ -z "$engine" ] || echo "      engine: $engine"
      [[ " ${forced[*]-} " != *" $(realpath -- "$path") "* ]] || echo "      format: force"
    } >>"$out"
  done
  for path in "${forced[@]}"; do
    [[ " ${seen[*]-} " == *" $path "* ]] || die "--format-force $path names no --device: give the device too"
  done
  if [ -n "$CAPI_LIBRARY" ]; then
    case "$CAPI_LIBRARY" in
      *$'\n'*) die "--capi-library contains a newline" ;;
      */*) [ -f "$CAPI_LIBRARY" ] || die "--capi-library $CAPI_LIBRARY: no such file" ;;
    esac
  fi
}

# ---------------------------------------------------------------- staging and applying changes

STAGE=""
cleanup_stage() {
  [ -z "$STAGE" ] || rm -rf -- "$STAGE"
}

# true if two files have the same bytes
same_file() {
  cmp -s -- "$1" "$2"
}

# Replaces FILE with NEW (same mode and owner), through a temporary file in the same directory. A FILE
# that is a symlink (configuration management often links conf/ files) stays one: its target is
# replaced.
replace_file() {
  local file=$1 new=$2 target tmp
  target="$(realpath -e -- "$file")" || die "cannot resolve $file"
  tmp="$target.flashchunk-tmp"
  cp -p -- "$target" "$tmp" || die "cannot write $tmp (run as root or as the owner of $(dirname -- "$target"))"
  cat -- "$new" >"$tmp" || { rm -f -- "$tmp"; die "cannot write $tmp"; }
  mv -f -- "$tmp" "$target" || { rm -f -- "$tmp"; die "cannot replace $target"; }
}

# One run at a time on a configuration directory: two would stage from the same files and the second
# would undo the first. The lock is on the directory itself (nothing is created for it).
lock_conf_dir() {
  command -v flock >/dev/null || die "flock not found (util-linux): it keeps two runs from changing $CONF_DIR at once"
  exec 9<"$CONF_DIR" || die "cannot open $CONF_DIR"
  flock -n 9 || die "another install-plugin.sh run is changing $CONF_DIR now; run this one when it has finished"
}

print_diff() {
  local file=$1 new=$2
  diff -u --label "$file" --label "$file (new)" -- "$file" "$new" || true
}

check_writable() {
  local path
  for path in "$@"; do
    [ -w "$path" ] || die "cannot write $path (run as root or as the owner of the Cassandra installation)"
  done
}

# Each file to change, followed through a symlink, and the directory its temporary copy goes in must be
# writable before anything is written: a refused run changes nothing.
check_targets_writable() {
  local file target
  for file in "$@"; do
    target="$(realpath -e -- "$file")" || die "cannot resolve $file"
    [ -w "$target" ] && [ -w "$(dirname -- "$target")" ] \
      || die "cannot write $target (the file $file is) or its directory; nothing was changed"
  done
}

# ---------------------------------------------------------------- install

cmd_install() {
  parse_args "--cassandra-home --conf-dir --lib-dir --device --format-force --capi-library --strict --no-strict --jar --java --cassandra-user --dry-run" "$@"
  resolve_layout
  require_supported_cassandra
  require_node_java
  JAR="${JAR:-$DEFAULT_JAR}"
  [ -e "$JAR" ] && JAR="$(realpath -- "$JAR")"
  check_plugin_jar "$JAR"
  check_no_stray_jars
  local version
  version="$(jar_version "$JAR")"

  lock_conf_dir
  STAGE="$(mktemp -d "${TMPDIR:-/tmp}/flashchunk-install.XXXXXX")"
  trap cleanup_stage EXIT
  check_devices "$STAGE/devices.yaml"

  # keys or options of ours outside our blocks: the operator set them by hand; refuse to guess
  local clash
  clash="$(outside_block_matching "$YAML" "^[\"']?(chunk_cache_class|flash_chunk_cache)[\"']?[ \\t]*:")"
  [ -z "$clash" ] || die "cassandra.yaml already sets the flash cache outside the flashchunk markers; remove these lines (or uninstall what set them) first:
$clash"
  # the other files Cassandra's scripts take JVM options from: a loader set there would win or clash
  local env_file
  for env_file in "$CONF_DIR/cassandra-env.sh" "$CONF_DIR"/jvm[0-9]*-server.options "$CONF_DIR"/jvm[0-9]*-clients.options \
      /etc/default/cassandra; do
    [ -f "$env_file" ] || continue
    clash="$(grep -nE "cassandra\.config\.loader=|-javaagent:[^ \"']*flashchunk" "$env_file" | grep -vE '^[0-9]+:[ \t]*#' || true)"
    [ -z "$clash" ] || die "$env_file already sets a configuration loader or a FlashChunk agent; Cassandra can use only one loader. Remove these lines first:
$clash"
  done
  local opts
  for opts in "$SERVER_OPTS" "$CLIENT_OPTS"; do
    clash="$(outside_block_matching "$opts" "^[ \\t]*(-Dcassandra\\.config\\.loader=|-javaagent:.*flashchunk)")"
    [ -z "$clash" ] || die "$(basename -- "$opts") already has a configuration loader or FlashChunk agent outside the flashchunk markers; Cassandra can use only one loader. Remove these lines first:
$clash"
  done

  local header="$BEGIN_MARK (added by $PROG; '$PROG uninstall' removes it)"
  {
    echo "$header"
    echo "-javaagent:$INSTALLED_JAR"
    echo "-Dcassandra.config.loader=$LOADER"
    echo "$END_MARK"
  } >"$STAGE/server.block"
  {
    echo "$header"
    echo "# offline tools (sstable*) read cassandra.yaml too: the loader takes the flash cache's keys out"
    echo "-Dcassandra.config.loader=$LOADER"
    echo "$END_MARK"
  } >"$STAGE/clients.block"
  {
    echo "$header"
    echo "# FlashChunk $version: Cassandra's chunk cache on flash. Cassandra itself does not know these"
    echo "# keys: the -Dcassandra.config.loader of jvm-server.options and jvm-clients.options takes them out."
    echo "chunk_cache_class: $CACHE_CLASS"
    echo "flash_chunk_cache:"
    echo "  devices:"
    cat "$STAGE/devices.yaml"
    [ -z "$CAPI_LIBRARY" ] || echo "  capi_library: $(yaml_quote "$CAPI_LIBRARY")"
    [ "$STRICT" != 1 ] || echo "  strict: true"
    kept_settings
    echo "$END_MARK"
  } >"$STAGE/yaml.block"

  render_with_block "$SERVER_OPTS" "$STAGE/server.block" "$STAGE/jvm-server.options"
  render_with_block "$CLIENT_OPTS" "$STAGE/clients.block" "$STAGE/jvm-clients.options"
  render_with_block "$YAML" "$STAGE/yaml.block" "$STAGE/cassandra.yaml"

  local changed=() file new
  for file in "$SERVER_OPTS" "$CLIENT_OPTS" "$YAML"; do
    new="$STAGE/$(basename -- "$file")"
    same_file "$file" "$new" || changed+=("$file")
  done
  local jar_action=""
  if [ ! -e "$INSTALLED_JAR" ]; then
    jar_action="copy"
  elif ! same_file "$JAR" "$INSTALLED_JAR"; then
    jar_action="replace"
  fi

  note "Cassandra $CASSANDRA_VERSION in $CASSANDRA_HOME (conf $CONF_DIR, lib $LIB_DIR) on Java $NODE_JAVA_VERSION ($NODE_JAVA); plugin $JAR_NAME $version"
  if [ "$DRY_RUN" = 0 ]; then
    check_writable "$LIB_DIR" "$CONF_DIR"
    check_targets_writable ${changed[@]+"${changed[@]}"}
  fi
  if [ "${#changed[@]}" -eq 0 ] && [ -z "$jar_action" ]; then
    note "already installed with these settings: nothing changed"
    print_next_steps
    return 0
  fi
  local verb="changed"
  [ "$DRY_RUN" = 0 ] || verb="would change (dry run, nothing written)"
  case "$jar_action" in
    copy) note "$verb: $INSTALLED_JAR: copied from $JAR (version $version)" ;;
    replace) note "$verb: $INSTALLED_JAR: replaced (version $(jar_version "$INSTALLED_JAR") -> $version) by $JAR" ;;
  esac
  for file in "${changed[@]}"; do
    new="$STAGE/$(basename -- "$file")"
    if has_block "$file" && [ -f "$file$BACKUP_SUFFIX" ]; then
      note "$verb: $file (its backup from before FlashChunk, $file$BACKUP_SUFFIX, is kept)"
    else
      note "$verb: $file (backup: $file$BACKUP_SUFFIX)"
    fi
    print_diff "$file" "$new"
  done
  if [ "$DRY_RUN" = 1 ]; then
    return 0
  fi

  if [ -n "$jar_action" ]; then
    cp -- "$JAR" "$INSTALLED_JAR.flashchunk-tmp" || die "cannot write $INSTALLED_JAR.flashchunk-tmp"
    chmod 0644 "$INSTALLED_JAR.flashchunk-tmp"
    mv -f -- "$INSTALLED_JAR.flashchunk-tmp" "$INSTALLED_JAR" || die "cannot write $INSTALLED_JAR"
  fi
  for file in "${changed[@]}"; do
    # the backup keeps the file as it was before FlashChunk: written once, while the file has no block
    if ! has_block "$file" || [ ! -f "$file$BACKUP_SUFFIX" ]; then
      cp -p -- "$file" "$file$BACKUP_SUFFIX" || die "cannot write the backup $file$BACKUP_SUFFIX"
    fi
    replace_file "$file" "$STAGE/$(basename -- "$file")"
  done
  note "installed."
  print_next_steps
}

print_next_steps() {
  [ "$DRY_RUN" = 0 ] || return 0
  cat <<EOF

Next steps:
  1. Restart Cassandra on this node (e.g. nodetool drain, then systemctl restart cassandra, or stop
     and start bin/cassandra). The devices must be readable and writable by the user Cassandra runs as.
  2. Check its log (system.log) for "flash chunk cache: serving Cassandra's chunk cache"; a problem
     with the settings is one ERROR line naming the setting (the node then runs without the flash cache
     unless --strict was given).
  3. nodetool info: the "Chunk Cache" line shows the flash cache's entries, size, capacity and hit rate.
  4. JMX: the bean io.flashchunk:type=FlashChunkCache has the flash cache's own counters.
  Offline tools (sstable*) read cassandra.yaml too: jvm-clients.options now gives them the loader.
  A tool started another way needs -Dcassandra.config.loader=$LOADER
  and $INSTALLED_JAR on its class path (never the -javaagent).
EOF
}

# ---------------------------------------------------------------- uninstall

# The devices the yaml block names, one "PATH<TAB>CAPACITY" line each (CAPACITY empty when not set):
# a value plain, 'single' or "double" quoted, with a comment after it or not.
configured_devices() {
  block_lines "$1" | LC_ALL=C awk '
    function scalar(v,   out, i, c, q) {
      sub(/^[ \t]+/, "", v)
      q = substr(v, 1, 1)
      if (q == "\047" || q == "\"") {
        out = ""
        for (i = 2; i <= length(v); i++) {
          c = substr(v, i, 1)
          if (q == "\047" && c == q && substr(v, i + 1, 1) == q) { out = out q; i++; continue }
          if (q == "\"" && c == "\\") { out = out substr(v, i + 1, 1); i++; continue }
          if (c == q) return out
          out = out c
        }
        return out
      }
      sub(/[ \t]+#.*$/, "", v)
      sub(/[ \t]+$/, "", v)
      return v
    }
    function flush() { if (inentry && path != "") print path "\t" capacity; inentry = 0; path = ""; capacity = "" }
    /^[ \t]*devices:/ { flush(); indevices = 1; next }
    indevices && /^[ \t]*-[ \t]/ { flush(); inentry = 1; sub(/^[ \t]*-[ \t]+/, "") }
    indevices && inentry && /^[ \t]*path:/ { v = $0; sub(/^[ \t]*path:/, "", v); path = scalar(v); next }
    indevices && inentry && /^[ \t]*capacity:/ { v = $0; sub(/^[ \t]*capacity:/, "", v); capacity = scalar(v); next }
    END { flush() }'
}

# Whether $1 begins with a FlashChunk superblock: its magic, the long 0x464C434853425F31 stored
# little-endian ("1_BSHCLF"; docs/checkpoint-format.md).
holds_cache_superblock() {
  [ "$(head -c 8 -- "$1" 2>/dev/null | tr -d '\0')" = "1_BSHCLF" ]
}

# Refuses, before anything changes, a device uninstall --discard-devices must not or cannot discard:
# missing, not the cache's (no FlashChunk superblock: the path may name another device now), held by
# a running cache (its exclusive flock), or a block device without discard. Takes the device's flock
# and keeps it (an fd left open) until the script ends, so no node's cache opens it before the discard.
check_discardable() {
  local device=$1 target max fd
  [ -e "$device" ] || die "--discard-devices: $device, named in cassandra.yaml, does not exist (a drive not attached?): not discarded; nothing changed. Uninstall without --discard-devices, and wipe the device where it is"
  target="$(realpath -e -- "$device")"
  [ -b "$target" ] || [ -f "$target" ] || die "--discard-devices: $device is neither a block device nor a regular file; nothing changed"
  [ -r "$target" ] && [ -w "$target" ] || die "--discard-devices: $device cannot be read and written by $(id -un) (permission denied); nothing changed"
  holds_cache_superblock "$target" || die "--discard-devices: $device does not begin with a FlashChunk superblock: it is not discarded (it may not be the cache's any more); nothing changed"
  if [ -b "$target" ]; then
    max="$(lsblk -bdno DISC-MAX -- "$target" 2>/dev/null | tr -d ' ')"
    [ -n "$max" ] && [ "$max" != 0 ] || die "--discard-devices: $device does not support discard (lsblk DISC-MAX ${max:-unknown}); nothing changed. Uninstall without --discard-devices, then wipe it: blkdiscard -z $device (writes zeros, takes a while) or the drive's own secure erase"
  fi
  exec {fd}<"$target" || die "--discard-devices: cannot open $device"
  flock -n -x "$fd" || die "--discard-devices: $device is in use (a running node's cache holds it): stop Cassandra on this node first; nothing changed"
}

# Discards one device checked by check_discardable: a block device's first CAPACITY bytes (all of it
# without one), a file (the file a symlink names, and the link). Says what it did; false if it failed.
discard_device() {
  local device=$1 capacity=$2 target err length=() bytes="" linked=""
  target="$(realpath -e -- "$device")"
  if [ -b "$target" ]; then
    if [ -n "$capacity" ] && [ "$capacity" != 0 ]; then
      bytes="$(size_bytes "$capacity" 2>/dev/null)" \
        || { echo "$PROG: not discarded: $device (its capacity '$capacity' is not a size)" >&2; return 1; }
      length=(--length "$bytes")
    fi
    if ! err="$(blkdiscard ${length[@]+"${length[@]}"} -- "$target" 2>&1)"; then
      echo "$PROG: not discarded: $device: blkdiscard failed: $err. Wipe it another way: blkdiscard -z $device (writes zeros) or the drive's own secure erase" >&2
      return 1
    fi
    local part=""
    [ -z "$bytes" ] || part=" of its first $bytes bytes, the cache's part"
    note "discarded: $device (blkdiscard$part: the drive dropped those blocks; a secure erase is the drive's own tool)"
  else
    if ! rm -f -- "$target"; then
      echo "$PROG: not discarded: $device: cannot remove $target" >&2
      return 1
    fi
    if [ "$target" != "$device" ]; then
      rm -f -- "$device"
      linked=", and the file it linked to, $target"
    fi
    note "discarded: $device (removed$linked; its blocks are freed in the file system that held it, which fstrim discards on flash)"
  fi
}

cmd_uninstall() {
  parse_args "--cassandra-home --conf-dir --lib-dir --discard-devices --dry-run" "$@"
  resolve_layout
  lock_conf_dir
  STAGE="$(mktemp -d "${TMPDIR:-/tmp}/flashchunk-uninstall.XXXXXX")"
  trap cleanup_stage EXIT
  local entries=() devices=() capacities=() entry
  if has_block "$YAML"; then
    mapfile -t entries < <(configured_devices "$YAML")
  fi
  for entry in ${entries[@]+"${entries[@]}"}; do
    devices+=("${entry%%$'\t'*}")
    capacities+=("${entry#*$'\t'}")
  done
  local device i
  if [ "$DISCARD" = 1 ]; then
    if [ "${#devices[@]}" -eq 0 ] && has_block "$YAML"; then
      die "--discard-devices: the flashchunk block of $YAML names no device this script can read; nothing changed"
    fi
    for device in ${devices[@]+"${devices[@]}"}; do
      check_discardable "$device"
    done
  fi
  # install's order reversed: cassandra.yaml loses the keys before the options lose the loader that
  # takes them out (a run stopped in between leaves a node that starts), the jar goes last
  local changed=() file new
  for file in "$YAML" "$SERVER_OPTS" "$CLIENT_OPTS"; do
    new="$STAGE/$(basename -- "$file")"
    edit_block strip "$file" >"$new" || exit 1
    same_file "$file" "$new" || changed+=("$file")
  done
  local verb="removed" verb_changed="changed"
  [ "$DRY_RUN" = 0 ] || { verb="would remove (dry run)"; verb_changed="would change (dry run)"; }
  if [ "${#changed[@]}" -eq 0 ] && [ ! -e "$INSTALLED_JAR" ]; then
    note "FlashChunk is not installed in $CASSANDRA_HOME (no flashchunk blocks in $CONF_DIR, no $INSTALLED_JAR): nothing changed"
    return 0
  fi
  if [ "$DRY_RUN" = 0 ]; then
    check_writable "$CONF_DIR" "$LIB_DIR"
    check_targets_writable ${changed[@]+"${changed[@]}"}
  fi
  if [ -e "$INSTALLED_JAR" ]; then
    note "$verb: $INSTALLED_JAR (version $(jar_version "$INSTALLED_JAR"))"
  fi
  for file in "${changed[@]}"; do
    note "$verb_changed: $file (the flashchunk block removed)"
    print_diff "$file" "$STAGE/$(basename -- "$file")"
  done
  if [ "$DRY_RUN" = 0 ]; then
    for file in "${changed[@]}"; do
      replace_file "$file" "$STAGE/$(basename -- "$file")"
    done
    [ ! -e "$INSTALLED_JAR" ] || rm -f -- "$INSTALLED_JAR" || die "cannot remove $INSTALLED_JAR"
  fi
  for file in "$SERVER_OPTS" "$CLIENT_OPTS" "$YAML"; do
    [ -f "$file$BACKUP_SUFFIX" ] || continue
    if same_file "$file$BACKUP_SUFFIX" "$STAGE/$(basename -- "$file")"; then
      [ "$DRY_RUN" = 1 ] || rm -f -- "$file$BACKUP_SUFFIX"
      note "$verb: $file$BACKUP_SUFFIX (the file is back to exactly that content)"
    else
      note "kept: $file$BACKUP_SUFFIX (the file was edited since the install; compare them)"
    fi
  done
  local failed=0
  for i in "${!devices[@]}"; do
    device=${devices[$i]}
    if [ "$DISCARD" = 0 ]; then
      note "left alone: the cache device $device (it holds SSTable chunks decompressed; uninstall --discard-devices, blkdiscard or shred -u wipes it)"
    elif [ "$DRY_RUN" = 1 ]; then
      note "would discard (dry run): $device"
    else
      discard_device "$device" "${capacities[$i]}" || failed=$((failed + 1))
    fi
  done
  [ "$DRY_RUN" = 1 ] || note "uninstalled. Restart Cassandra on this node to run with its own chunk cache again."
  [ "$failed" = 0 ] || die "$failed of ${#devices[@]} device(s) not discarded (above); the rest of the uninstall is done"
}

# ---------------------------------------------------------------- status

cmd_status() {
  parse_args "--cassandra-home --conf-dir --lib-dir" "$@"
  resolve_layout
  local version_text
  if version_text="$( (detect_cassandra_version && echo "$CASSANDRA_VERSION") 2>&1)"; then
    version_text="Cassandra $version_text"
  else
    version_text="unknown Cassandra version: ${version_text#"$PROG: error: "}"
  fi
  echo "$CASSANDRA_HOME: $version_text (conf $CONF_DIR, lib $LIB_DIR)"
  local parts=0 missing=() file
  if [ -f "$INSTALLED_JAR" ]; then
    echo "  jar:                 $INSTALLED_JAR, version $(jar_version "$INSTALLED_JAR")"
    parts=$((parts + 1))
  else
    missing+=("$INSTALLED_JAR")
  fi
  for file in "$SERVER_OPTS" "$CLIENT_OPTS" "$YAML"; do
    if has_block "$file"; then
      parts=$((parts + 1))
      if [ "$file" != "$YAML" ]; then
        printf '  %-20s %s\n' "$(basename -- "$file"):" "$(block_lines "$file" | grep -E '^-' | tr '\n' ' ')"
      fi
    else
      missing+=("the flashchunk block of $file")
    fi
  done
  if has_block "$YAML"; then
    echo "  cassandra.yaml:      $(block_lines "$YAML" | grep -E '^chunk_cache_class:' || echo 'no chunk_cache_class line')"
    local path kind line
    echo "  devices:"
    while IFS= read -r line; do
      case "$line" in
        *"- path:"*)
          path="$(sed -n "s/^[[:space:]]*-[[:space:]]*path:[[:space:]]*//p" <<<"$line" | sed -e "s/^'\\(.*\\)'\$/\\1/" -e "s/''/'/g")"
          if [ -b "$path" ]; then kind="block device"; elif [ -f "$path" ]; then kind="regular file, $(stat -Lc %s -- "$path") bytes"; else kind="MISSING"; fi
          echo "    $path ($kind)"
          ;;
        *capacity:* | *engine:* | *queue_depth:*)
          echo "      ${line#"${line%%[![:space:]]*}"}"
          ;;
      esac
    done < <(block_lines "$YAML")
    block_lines "$YAML" | grep -E '^  (capi_library|strict|queue_size|queue_bytes|dram_tier_size|dram_tier_bytes|checkpoint_interval|checkpoint_interval_ms):' \
      | sed 's/^  /  setting: /' || true
  fi
  if [ "$parts" -eq 4 ]; then
    echo "FlashChunk is installed (restart Cassandra if it was installed after the last start)"
    return 0
  fi
  if [ "$parts" -eq 0 ]; then
    echo "FlashChunk is not installed"
    return 3
  fi
  echo "FlashChunk is PARTLY installed; missing:"
  printf '  %s\n' "${missing[@]}"
  echo "run '$PROG install ...' again, or '$PROG uninstall ...'"
  return 4
}

# ---------------------------------------------------------------- main

[ $# -ge 1 ] || { usage >&2; exit 2; }
COMMAND="$1"
shift
case "$COMMAND" in
  install) cmd_install "$@" ;;
  uninstall) cmd_uninstall "$@" ;;
  status) cmd_status "$@" ;;
  -h | --help | help) usage ;;
  *) usage >&2; die "unknown command '$COMMAND'" ;;
esac
