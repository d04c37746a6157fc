#!/usr/bin/env bash
# Runs YCSB (site.ycsb.Client of site.ycsb:core) against Cassandra with our binding
# (io.flashchunk.ycsb.cassandra.CassandraDb) and compressible-value workload
# (io.flashchunk.ycsb.CompressibleWorkload), and creates the table it writes to.
#
#   ycsb.sh load [--native-port P] [YCSB options...]     the load phase (Client -load)
#   ycsb.sh run  [--native-port P] [YCSB options...]     the transaction phase (Client -t)
#   ycsb.sh create-table [--native-port P] [--compressor C] [--chunk-kb N | --no-compression] [--drop] ...
#   ycsb.sh classpath                                     print the classpath
#
# YCSB options pass through unchanged: -P FILE, -p name=value, -threads N, -target N, -s, -db CLASS.
# ycsb-workloads/workloads/defaults.properties is read first (workload class, hosts=127.0.0.1), so
# later -P files and every -p override it. --native-port P is short for -p port=P.
# Builds ycsb-workloads with Maven when its jar is missing or older than its sources (set
# FLASHCHUNK_YCSB_NO_BUILD=1 to forbid that: the jar as it is, whatever changed since). YCSB_JAVA_OPTS adds JVM options; YCSB_LOG_LEVEL sets the
# driver's log level (default warn).
set -euo pipefail

PROG="ycsb.sh"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODULE="$REPO/ycsb-workloads"
JAR="$MODULE/target/flashchunk-ycsb-workloads.jar"
CLASSPATH_FILE="$MODULE/target/classpath.txt"
DEFAULTS="$MODULE/workloads/defaults.properties"
DB_CLASS="io.flashchunk.ycsb.cassandra.CassandraDb"
CREATE_TABLE_CLASS="io.flashchunk.ycsb.cassandra.CreateTableCommand"

# die
# shellcheck source=lib/common.sh
source "$REPO/scripts/lib/common.sh"

usage() {
  sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

java_bin() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    echo "$JAVA_HOME/bin/java"
  elif command -v java >/dev/null 2>&1; then
    command -v java
  else
    die "no java found (set JAVA_HOME or put a Java 17 java on PATH)"
  fi
}

# True when the jar or its classpath is missing, or a source or the pom changed after the jar was built.
needs_build() {
  [ -f "$JAR" ] && [ -f "$CLASSPATH_FILE" ] || return 0
  [ -n "$(find "$MODULE/src/main" "$MODULE/pom.xml" "$REPO/pom.xml" -newer "$JAR" -print -quit)" ]
}

ensure_built() {
  if [ "${FLASHCHUNK_YCSB_NO_BUILD:-0}" = "1" ]; then
    # a harness built and judged the binding when its run began: a source or pom changed since must not
    # stop its clients mid-run
    [ -f "$JAR" ] && [ -f "$CLASSPATH_FILE" ] || die "$JAR or its classpath is missing and FLASHCHUNK_YCSB_NO_BUILD=1"
    return 0
  fi
  if needs_build; then
    command -v mvn >/dev/null 2>&1 || die "mvn is needed to build ycsb-workloads (scripts/install-deps.sh)"
    echo "$PROG: building ycsb-workloads" >&2
    (cd "$REPO" && mvn -q -B -pl ycsb-workloads package -DskipTests) >&2 || die "building ycsb-workloads failed"
    # Maven leaves a jar it finds up to date as it was, older than a pom it did not need: built now.
    touch "$JAR" "$CLASSPATH_FILE"
  fi
}

classpath() {
  echo "$JAR:$(cat "$CLASSPATH_FILE")"
}

run_java() {
  local main="$1"
  shift
  local opts=()
  read -r -a opts <<< "${YCSB_JAVA_OPTS:-}"
  exec "$(java_bin)" "${opts[@]}" -Dorg.slf4j.simpleLogger.defaultLogLevel="${YCSB_LOG_LEVEL:-warn}" \
    -cp "$(classpath)" "$main" "$@"
}

# load/run: the YCSB client with our defaults first, then the caller's options.
client() {
  local phase="$1"
  shift
  local args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --native-port)
        [ $# -ge 2 ] || die "--native-port needs a port"
        [[ "$2" =~ ^[0-9]+$ ]] || die "--native-port must be a number, got '$2'"
        args+=(-p "port=$2")
        shift 2
        ;;
      *)
        args+=("$1")
        shift
        ;;
    esac
  done
  [ -f "$DEFAULTS" ] || die "missing $DEFAULTS"
  ensure_built
  run_java site.ycsb.Client "$phase" -db "$DB_CLASS" -P "$DEFAULTS" "${args[@]}"
}

[ $# -ge 1 ] || { usage >&2; exit 2; }
command="$1"
shift
case "$command" in
  load) client -load "$@" ;;
  run) client -t "$@" ;;
  create-table)
    ensure_built
    run_java "$CREATE_TABLE_CLASS" "$@"
    ;;
  classpath)
    ensure_built
    classpath
    ;;
  -h|--help|help) usage ;;
  *) usage >&2; die "unknown command '$command'" ;;
esac
