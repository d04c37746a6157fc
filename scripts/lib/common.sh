# The shell helpers the scripts share, one copy of each. Sourced, never run: a script sets PROG (the
# name its messages start with: "cassandra-node.sh", "bench-cache", ...) and then sources this file by
# an absolute path built from its own location (its SCRIPTS_DIR, repo or repo_dir). A script whose die
# messages never had the word "error: " sets ERROR_PREFIX="" after sourcing (the benchmark scripts).
# Defines functions and ERROR_PREFIX only, so it is safe under set -euo pipefail.

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
