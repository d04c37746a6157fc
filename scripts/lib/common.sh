# The shell helpers the scripts share, one copy of each. Sourced, never run: a script sources it by an
# absolute path built from its own location (its SCRIPTS_DIR, repo or repo_dir); one that calls die or
# note sets PROG first (the name its messages start with: "cassandra-node.sh", "bench-cache", ...). A
# script whose die messages never had the word "error: " sets ERROR_PREFIX="" after sourcing (the
# benchmark scripts). Defines functions and ERROR_PREFIX only, so it is safe under set -euo pipefail.

# ---------------------------------------------------------------- messages

# what die() writes between "$PROG: " and the message (set here, not taken from the environment)
ERROR_PREFIX="error: "

# "$PROG: error: MESSAGE" on stderr, then exit 1
die() {
  echo "$PROG: $ERROR_PREFIX$*" >&2
  exit 1
}

# "$PROG: MESSAGE" on stdout
note() {
  echo "$PROG: $*"
}

# ---------------------------------------------------------------- options

# called as need_option_value "$@" while parsing options: dies unless the option $1 has a non-empty value
need_option_value() {
  [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value (see --help)"
}

# ---------------------------------------------------------------- checks of option values

# dies unless $2 is a whole number of at least 1 ($1 names it in the message)
check_positive_int() {
  local name=$1 value=$2
  if ! [[ $value =~ ^[0-9]+$ ]] || [ "$((10#$value))" -lt 1 ]; then
    die "$name must be a positive integer, got '$value'"
  fi
}

# dies unless $2 is a port number, 1-65535 ($1 names it in the message)
check_port_number() {
  local name=$1 value=$2
  if ! [[ $value =~ ^[0-9]+$ ]] || [ "$((10#$value))" -lt 1 ] || [ "$((10#$value))" -gt 65535 ]; then
    die "$name must be a port number 1-65535, got '$value'"
  fi
}

# whether the jar $1 holds the entry $2 (unzip where installed, else Python's zipfile)
jar_has() {
  local jar=$1 entry=$2
  if command -v unzip >/dev/null; then
    unzip -l -- "$jar" "$entry" >/dev/null 2>&1
  else
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).getinfo(sys.argv[2])' "$jar" "$entry" 2>/dev/null
  fi
}

# ---------------------------------------------------------------- sizes

# bytes of a size written as in cassandra.yaml (123, 64KiB, 64MiB, 1GiB, 2TiB); fails on bad syntax
size_bytes() {
  local value=$1
  [[ $value =~ ^([0-9]+)(B|KiB|MiB|GiB|TiB)?$ ]] || return 1
  local number=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2]:-B} shift=0
  [ "${#number}" -le 15 ] || return 1
  number=$((10#$number))
  case "$unit" in
    KiB) shift=10 ;; MiB) shift=20 ;; GiB) shift=30 ;; TiB) shift=40 ;;
  esac
  [ "$number" -le $(((1 << (62 - shift)) - 1)) ] || return 1
  echo $((number << shift))
}

# ---------------------------------------------------------------- the end-to-end tests (scripts/tests/)
# They count their checks in a variable `passed` (set it to 0 first) and end with "N passed, 0 failed".

# the failed check's message on stderr, the count on stdout, then exit 1
fail() {
  echo "FAIL: $*" >&2
  echo "$passed passed, 1 failed"
  exit 1
}

# counts a passed check and prints "ok N - MESSAGE"
ok() {
  passed=$((passed + 1))
  echo "ok $passed - $*"
}

# COUNT free TCP ports on 127.0.0.1, on one line (all bound at once, so they differ)
free_tcp_ports() {
  python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
EOF
}

# ---------------------------------------------------------------- builds for runs of real nodes

# stage_node_build STAGE: builds the plugin jar, the YCSB binding and native/ (from the repository,
# the current directory), then copies the agent jar and the native library into STAGE as the run's own
# (STAGE/agent.jar, STAGE/libcflsh_block.so): later builds in this checkout must not change them under
# a node. The binding is judged as ycsb.sh judges it (Maven leaves an up-to-date jar older than a pom
# that changed), and FLASHCHUNK_YCSB_NO_BUILD=1 is exported: the clients never build.
stage_node_build() {
  local stage=$1
  echo "== building the plugin jar, the YCSB binding and native/" >&2
  mvn -q -B -pl plugin,ycsb-workloads -am package -DskipTests >/dev/null
  scripts/ycsb.sh classpath >/dev/null
  make -s -C native all
  export FLASHCHUNK_YCSB_NO_BUILD=1
  cp plugin/target/flashchunk-cassandra.jar "$stage/agent.jar"
  cp native/build/libcflsh_block.so "$stage/"
}
