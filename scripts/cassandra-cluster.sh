#!/usr/bin/env bash
# Runs a cluster of Apache Cassandra 5.0.9 nodes on loopback addresses: node K on 127.0.0.K out of
# ROOT/nodeK, a run directory of scripts/cassandra-node.sh, node 1 the seed. Each node runs either
# with the flash chunk cache on a device file of its own or stock.
#
#   cassandra-cluster.sh init ROOT --nodes N [--flash-cache SPEC | --stock] [--stock-nodes K,...]
#                             [--cluster-name NAME] [--native-port P] [--storage-port P] [--jmx-port P]
#                             [--ring-delay-ms MS] [--jar PATH]
#   cassandra-cluster.sh start ROOT [--heap SIZE] [--wait-seconds N]
#   cassandra-cluster.sh stop ROOT [--wait-seconds N]
#   cassandra-cluster.sh start-node ROOT NODE [--heap SIZE] [--wait-seconds N]
#   cassandra-cluster.sh stop-node ROOT NODE [--wait-seconds N]
#   cassandra-cluster.sh kill ROOT NODE
#   cassandra-cluster.sh add-node ROOT [--flash-cache SPEC | --stock] [--heap SIZE] [--wait-seconds N] [--no-start]
#   cassandra-cluster.sh status ROOT
#   cassandra-cluster.sh nodetool ROOT NODE ARGS...
#   cassandra-cluster.sh cqlsh ROOT NODE ARGS...
#
# ROOT holds cluster.env (the cluster's settings), lib/flashchunk-cassandra.jar (the plugin, copied
# at init when a node has the flash cache) and node1/, node2/, ...; each nodeK/ is a cassandra-node.sh
# run directory with conf/cluster-node.env (its number, address and cache) and, for a flash node, its
# device file flash-cache.img (unless --flash-cache names another directory).
set -euo pipefail

PROG="cassandra-cluster.sh"
SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPTS_DIR/.." && pwd)"
NODE_SH="$SCRIPTS_DIR/cassandra-node.sh"
DEFAULT_JAR="$REPO_DIR/plugin/target/flashchunk-cassandra.jar"
AGENT_CLASS_ENTRY="io/flashchunk/cassandra/agent/FlashChunkAgent.class"
LOADER="io.flashchunk.cassandra.config.FlashChunkConfigurationLoader"
CACHE_CLASS="io.flashchunk.cassandra.CassandraFlashCache"
DEFAULT_FLASH_BYTES=$((256 << 20))
DEFAULT_HEAP=768M
# a bootstrap streams, so it may take longer than a restart; both wait for CQL, then for UN
DEFAULT_WAIT_SECONDS=300
MAX_NODES=254

# die, note, size_bytes
# shellcheck source=lib/common.sh
source "$SCRIPTS_DIR/lib/common.sh"

usage() {
  cat <<'EOF'
usage: cassandra-cluster.sh COMMAND ROOT ...

  init ROOT --nodes N [--flash-cache SPEC | --stock] [--stock-nodes K,...] [--cluster-name NAME]
            [--native-port P] [--storage-port P] [--jmx-port P] [--ring-delay-ms MS] [--jar PATH]
      create ROOT/node1..nodeN for nodes on 127.0.0.1..127.0.0.N (N at most 254), node 1 the seed.
      Every node uses the same CQL and storage ports (default 9042, 7000) on its own address; JMX
      is on 127.0.0.1 for all (Cassandra 5.0.9 binds its local JMX there only), node K on port
      P+K-1 (default P 7199). --ring-delay-ms: cassandra.ring_delay_ms of every node (default 5000;
      joins and decommissions wait it, and it is how long gossip lets a joining node stay silent).
      --flash-cache SPEC gives every node (but the --stock-nodes) the flash chunk cache on a device
      file of its own, which init creates (fallocate):
        SIZE       ROOT/nodeK/flash-cache.img of SIZE bytes (B, KiB, MiB, GiB or TiB; e.g. 256MiB)
        DIR        DIR/nodeK-flash-cache.img of 256MiB (DIR: an existing directory, say on a flash
                   drive; it must take O_DIRECT)
        DIR:SIZE   both
      The plugin jar (--jar, default plugin/target/flashchunk-cassandra.jar; build it with
      mvn -q -DskipTests package -pl plugin -am) is copied to ROOT/lib/. --stock (the default): no
      node has the flash cache.
  start ROOT [--heap SIZE] [--wait-seconds N]
      start every node that is not running, one at a time in node order (Cassandra bootstraps one
      node at a time): each must answer CQL and show every running node UN in its nodetool status,
      and every running node must show it UN, before the next one starts. --heap (default 768M,
      then what the last start used) is every node's -Xms and -Xmx; --wait-seconds (default 300)
      bounds each node's start and each wait for UN.
  stop ROOT [--wait-seconds N]
      SIGTERM to every running node at once, waiting up to N s (default 60) for each.
  start-node ROOT NODE [--heap SIZE] [--wait-seconds N]
      start one node (a restart, or the first start of a node add-node did not start) and wait as
      start does.
  stop-node ROOT NODE [--wait-seconds N]
      stop one node (SIGTERM).
  kill ROOT NODE
      SIGKILL one node.
  add-node ROOT [--flash-cache SPEC | --stock] [--heap SIZE] [--wait-seconds N] [--no-start]
      init node N+1 on 127.0.0.(N+1) (its cache as init gave the cluster, unless told otherwise) and
      start it: it bootstraps into the running cluster. --no-start: init only (edit its conf, then
      start-node bootstraps it).
  status ROOT
      each node's number, address, process and cache, then `nodetool status` as the first running
      node sees it; exit 0 when every node runs, 3 when not.
  nodetool ROOT NODE ARGS...
      nodetool against node NODE (a number, or nodeK).
  cqlsh ROOT NODE ARGS...
      cqlsh against node NODE's CQL address and port.
EOF
}

# ---------------------------------------------------------------- helpers

check_heap() {
  [[ $1 =~ ^[0-9]+[kKmMgG]?$ ]] || die "--heap must look like 512M or 1G, got '$1'"
}

# absolute path of ROOT (it need not exist yet); refuses characters a yaml line or an options file
# line cannot carry
abs_root() {
  local d=$1
  [ -n "$d" ] || die "missing ROOT argument"
  case "$d" in
    *$'\n'* | *'"'* | *\\* | *'|'* | *'&'* | *' '* | *:*) die "ROOT '$d' contains a character the node configuration cannot take (space, quote, backslash, '|', '&', ':')" ;;
  esac
  realpath -m -- "$d"
}

# ROOT must hold an initialised cluster; loads cluster.env
load_cluster() {
  local root=$1 key value
  [ -d "$root" ] || die "cluster root $root does not exist (create it with: $PROG init $root --nodes N)"
  [ -f "$root/cluster.env" ] || die "$root is not a cluster: no cluster.env (create one with: $PROG init $root --nodes N)"
  CLUSTER_NAME="" NATIVE_PORT="" STORAGE_PORT="" JMX_PORT_BASE="" RING_DELAY_MS="" FLASH_SPEC="" HEAP=""
  while IFS='=' read -r key value; do
    case "$key" in
      CLUSTER_NAME) CLUSTER_NAME=$value ;;
      NATIVE_PORT) NATIVE_PORT=$value ;;
      STORAGE_PORT) STORAGE_PORT=$value ;;
      JMX_PORT_BASE) JMX_PORT_BASE=$value ;;
      RING_DELAY_MS) RING_DELAY_MS=$value ;;
      FLASH_SPEC) FLASH_SPEC=$value ;;
      HEAP) HEAP=$value ;;
    esac
  done <"$root/cluster.env"
  [ -n "$CLUSTER_NAME" ] || die "$root/cluster.env has no CLUSTER_NAME"
  check_port_number "NATIVE_PORT in $root/cluster.env" "$NATIVE_PORT"
  check_port_number "STORAGE_PORT in $root/cluster.env" "$STORAGE_PORT"
  check_port_number "JMX_PORT_BASE in $root/cluster.env" "$JMX_PORT_BASE"
  check_positive_int "RING_DELAY_MS in $root/cluster.env" "$RING_DELAY_MS"
  HEAP=${HEAP:-$DEFAULT_HEAP}
}

write_cluster_env() {
  local root=$1
  cat >"$root/cluster.env.tmp" <<EOF
CLUSTER_NAME=$CLUSTER_NAME
NATIVE_PORT=$NATIVE_PORT
STORAGE_PORT=$STORAGE_PORT
JMX_PORT_BASE=$JMX_PORT_BASE
RING_DELAY_MS=$RING_DELAY_MS
FLASH_SPEC=$FLASH_SPEC
HEAP=$HEAP
EOF
  mv "$root/cluster.env.tmp" "$root/cluster.env"
}

# node numbers of ROOT, ascending, one per line
node_numbers() {
  local root=$1 d
  for d in "$root"/node*; do
    [ -f "$d/conf/cluster-node.env" ] || continue
    d=${d##*/node}
    if [[ $d =~ ^[1-9][0-9]*$ ]]; then echo "$d"; fi
  done | sort -n
}

# the number of node argument NODE (3 or node3) of ROOT, or dies naming the nodes there are
node_number() {
  local root=$1 arg=$2 k
  k=${arg#node}
  if ! [[ $k =~ ^[1-9][0-9]*$ ]]; then
    die "NODE must be a node number such as 2 (or node2), got '$arg'"
  fi
  if [ ! -f "$root/node$k/conf/cluster-node.env" ]; then
    die "no node $k in $root (its nodes: $(node_numbers "$root" | tr '\n' ' ' | sed 's/ $//'))"
  fi
  echo "$k"
}

# sets NODE_ADDRESS, NODE_CACHE (flash|stock), NODE_DEVICE, NODE_CAPACITY of node K
load_node() {
  local root=$1 k=$2 key value
  NODE_ADDRESS="" NODE_CACHE="" NODE_DEVICE="" NODE_CAPACITY=""
  while IFS='=' read -r key value; do
    case "$key" in
      ADDRESS) NODE_ADDRESS=$value ;;
      CACHE) NODE_CACHE=$value ;;
      DEVICE) NODE_DEVICE=$value ;;
      CAPACITY) NODE_CAPACITY=$value ;;
    esac
  done <"$root/node$k/conf/cluster-node.env"
}

node_pid() {
  local dir=$1 out
  out="$("$NODE_SH" status "$dir" 2>/dev/null)" || return 1
  sed -n 's/^running pid \([0-9]*\).*/\1/p' <<<"$out"
}

# parses a --flash-cache SPEC into FLASH_DIR ("" = each node's run directory) and FLASH_BYTES
parse_flash_spec() {
  local spec=$1 dir="" size=""
  if [[ $spec =~ ^[0-9]+(B|KiB|MiB|GiB|TiB)?$ ]]; then
    size=$spec
  elif [[ $spec == *:* ]]; then
    dir=${spec%:*} size=${spec##*:}
  else
    dir=$spec
  fi
  FLASH_DIR="" FLASH_BYTES=$DEFAULT_FLASH_BYTES
  if [ -n "$size" ]; then
    FLASH_BYTES="$(size_bytes "$size")" \
      || die "--flash-cache '$spec': '$size' is not a size; write bytes or a number with B, KiB, MiB, GiB or TiB (e.g. 256MiB)"
    [ "$FLASH_BYTES" -gt 0 ] && [ $((FLASH_BYTES % 4096)) -eq 0 ] \
      || die "--flash-cache '$spec': the size must be a positive multiple of 4096 bytes, got $FLASH_BYTES"
  fi
  if [ -n "$dir" ]; then
    [ -d "$dir" ] || die "--flash-cache '$spec': '$dir' is neither a size (such as 256MiB) nor an existing directory"
    FLASH_DIR="$(realpath -- "$dir")"
    case "$FLASH_DIR" in
      *' '* | *'"'* | *:* | *\\*) die "--flash-cache '$spec': the directory's path may not hold spaces, quotes, ':' or '\\'" ;;
    esac
  fi
}

# ---------------------------------------------------------------- one node's configuration

# creates ROOT/nodeK: the run directory (cassandra-node.sh init), the cache, cluster-node.env.
# An empty SPEC: a stock node.
init_node() {
  local root=$1 k=$2 spec=$3 dir="$1/node$k" address="127.0.0.$2" jmx=$((JMX_PORT_BASE + $2 - 1))
  "$NODE_SH" init "$dir" --address "$address" --seeds "127.0.0.1:$STORAGE_PORT" \
    --cluster-name "$CLUSTER_NAME" --ring-delay-ms "$RING_DELAY_MS" \
    --native-port "$NATIVE_PORT" --storage-port "$STORAGE_PORT" --jmx-port "$jmx" >/dev/null
  local cache=stock device="" capacity=""
  if [ -n "$spec" ]; then
    parse_flash_spec "$spec"
    cache=flash capacity=$FLASH_BYTES
    device="$(device_path "$root" "$k")"
    check_device_free "$k" "$device"
    INIT_UNDO_FILES+=("$device")
    local err
    if ! err="$(fallocate -l "$capacity" "$device" 2>&1)"; then
      case "$err" in
        # a file system without fallocate: a sparse file does too (the cache writes what it uses)
        *"not supported"*) truncate -s "$capacity" "$device" || die "node $k: cannot create the device file $device" ;;
        *) rm -f "$device"; die "node $k: cannot create the device file $device ($capacity bytes): $err" ;;
      esac
    fi
    # The same two pieces as every flash node of the project (docs/configuration.md, "Switching the cache
    # on"; scripts/node_control.py): the yaml block, and the agent and loader in jvm-extra.options.
    # strict: a node meant to have the flash cache must not quietly run without it.
    cat >>"$dir/conf/cassandra.yaml" <<EOF

# The flash chunk cache (scripts/cassandra-cluster.sh init).
chunk_cache_class: $CACHE_CLASS
flash_chunk_cache:
  strict: true
  devices:
    - path: $device
      capacity: $capacity
EOF
    cat >"$dir/conf/jvm-extra.options" <<EOF
# The flash chunk cache (scripts/cassandra-cluster.sh init): the plugin's agent and configuration loader.
-javaagent:$root/lib/flashchunk-cassandra.jar
-Dcassandra.config.loader=$LOADER
EOF
  fi
  cat >"$dir/conf/cluster-node.env" <<EOF
NODE=$k
ADDRESS=$address
CACHE=$cache
DEVICE=$device
CAPACITY=$capacity
EOF
  note "node $k: $address (CQL $NATIVE_PORT, storage $STORAGE_PORT, JMX 127.0.0.1:$jmx), $(describe_cache "$cache" "$device" "$capacity")"
}

# node K's device file under the parsed --flash-cache spec
device_path() {
  if [ -n "$FLASH_DIR" ]; then
    echo "$FLASH_DIR/node$2-flash-cache.img"
  else
    echo "$1/node$2/flash-cache.img"
  fi
}

check_device_free() {
  [ ! -e "$2" ] || die "node $1: the device file $2 already exists (another cluster's cache?); remove it or pick another --flash-cache directory"
}

describe_cache() {
  local cache=$1 device=$2 capacity=$3
  if [ "$cache" = flash ]; then
    echo "flash cache on $device ($((capacity >> 20)) MiB)"
  else
    echo "stock"
  fi
}

check_jar() {
  local jar=$1
  [ -f "$jar" ] || die "no plugin jar at $jar: build it with 'mvn -q -DskipTests package -pl plugin -am' in $REPO_DIR, or give --jar PATH"
  jar_has "$jar" "$AGENT_CLASS_ENTRY" \
    || die "--jar $jar is not the shaded FlashChunk plugin (no $AGENT_CLASS_ENTRY in it; build plugin/target/flashchunk-cassandra.jar)"
}

copy_jar() {
  local root=$1 jar=$2
  check_jar "$jar"
  mkdir -p "$root/lib"
  # a copy: the nodes keep the jar they were set up with while the tree is rebuilt (a jar rewritten
  # under a running JVM breaks its class loading)
  cp -- "$jar" "$root/lib/flashchunk-cassandra.jar.tmp"
  mv -- "$root/lib/flashchunk-cassandra.jar.tmp" "$root/lib/flashchunk-cassandra.jar"
}

# ---------------------------------------------------------------- waiting for UN

# addresses of the running nodes of ROOT, one per line
running_addresses() {
  local root=$1 k
  for k in $(node_numbers "$root"); do
    if node_pid "$root/node$k" >/dev/null; then
      echo "127.0.0.$k"
    fi
  done
}

# true if `nodetool status` output shows each given address UN
all_un() {
  local out=$1 address
  shift
  for address in "$@"; do
    awk -v a="$address" '$1 == "UN" && $2 == a { found = 1 } END { exit !found }' <<<"$out" || return 1
  done
}

# waits until node K shows every running node UN and every running node shows node K UN: then
# gossip has settled around K, so the next node can join (or be restarted) safely. Each round asks
# every running node at once: a nodetool is a JVM start, seconds each on a busy machine.
wait_normal() {
  local root=$1 k=$2 wait_s=$3 deadline t0 addresses=() other out="" pending views asked
  t0=$(date +%s)
  deadline=$((t0 + wait_s))
  views="$(mktemp -d)"
  while :; do
    node_pid "$root/node$k" >/dev/null \
      || { rm -rf "$views"; die "node $k is no longer running (see $root/node$k/logs/system.log)"; }
    mapfile -t addresses < <(running_addresses "$root")
    asked=()
    for other in "${addresses[@]}"; do
      other=${other##*.}
      ("$NODE_SH" nodetool "$root/node$other" status >"$views/$other" 2>&1 || true) &
      asked+=($!)
    done
    wait "${asked[@]}"
    pending=""
    out="$(cat "$views/$k")"
    all_un "$out" "${addresses[@]}" || pending="node $k does not see all of ${addresses[*]} UN"
    if [ -z "$pending" ]; then
      for other in "${addresses[@]}"; do
        other=${other##*.}
        [ "$other" != "$k" ] || continue
        if ! all_un "$(cat "$views/$other")" "127.0.0.$k"; then
          pending="node $other does not see node $k UN"
          break
        fi
      done
    fi
    if [ -z "$pending" ]; then
      rm -rf "$views"
      note "node $k: UN in the view of every running node ($(($(date +%s) - t0)) s after CQL)"
      return 0
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      rm -rf "$views"
      echo "---- nodetool status on node $k:" >&2
      echo "$out" >&2
      die "node $k: not UN everywhere within $wait_s s ($pending); see $root/node$k/logs/system.log"
    fi
    sleep 1
  done
}

start_one() {
  local root=$1 k=$2 heap=$3 wait_s=$4 pid
  if pid="$(node_pid "$root/node$k")"; then
    note "node $k: already running (pid $pid)"
    return 0
  fi
  load_node "$root" "$k"
  if [ "$NODE_CACHE" = flash ] && [ ! -f "$root/lib/flashchunk-cassandra.jar" ]; then
    die "node $k has the flash cache but $root/lib/flashchunk-cassandra.jar is missing"
  fi
  local out
  out="$("$NODE_SH" start "$root/node$k" --heap "$heap" --wait-seconds "$wait_s")" \
    || die "node $k did not start (see $root/node$k/logs/system.log)"
  note "node $k: ${out#cassandra-node.sh: }"
  wait_normal "$root" "$k" "$wait_s"
}

# ---------------------------------------------------------------- commands

cmd_init() {
  [ $# -ge 1 ] || die "usage: $PROG init ROOT --nodes N [--flash-cache SPEC | --stock] [--stock-nodes K,...] [--cluster-name NAME] [--native-port P] [--storage-port P] [--jmx-port P] [--ring-delay-ms MS] [--jar PATH]"
  local root nodes="" spec="" stock=0 stock_nodes="" jar=$DEFAULT_JAR
  root="$(abs_root "$1")"
  shift
  CLUSTER_NAME=FlashChunk NATIVE_PORT=9042 STORAGE_PORT=7000 JMX_PORT_BASE=7199 RING_DELAY_MS=5000 HEAP=$DEFAULT_HEAP
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) [ $# -ge 2 ] || die "--nodes needs a value"; nodes=$2; shift 2 ;;
      --flash-cache) [ $# -ge 2 ] || die "--flash-cache needs a value (a size such as 256MiB, a directory, or DIR:SIZE)"; spec=$2; shift 2 ;;
      --stock) stock=1; shift ;;
      --stock-nodes) [ $# -ge 2 ] || die "--stock-nodes needs a value"; stock_nodes=$2; shift 2 ;;
      --cluster-name) [ $# -ge 2 ] || die "--cluster-name needs a value"; CLUSTER_NAME=$2; shift 2 ;;
      --native-port) [ $# -ge 2 ] || die "--native-port needs a value"; NATIVE_PORT=$2; shift 2 ;;
      --storage-port) [ $# -ge 2 ] || die "--storage-port needs a value"; STORAGE_PORT=$2; shift 2 ;;
      --jmx-port) [ $# -ge 2 ] || die "--jmx-port needs a value"; JMX_PORT_BASE=$2; shift 2 ;;
      --ring-delay-ms) [ $# -ge 2 ] || die "--ring-delay-ms needs a value"; RING_DELAY_MS=$2; shift 2 ;;
      --jar) [ $# -ge 2 ] || die "--jar needs a value"; jar=$2; shift 2 ;;
      *) die "init: unknown option '$1'" ;;
    esac
  done
  [ -n "$nodes" ] || die "init: --nodes N is required"
  check_positive_int --nodes "$nodes"
  [ "$nodes" -le "$MAX_NODES" ] || die "--nodes must be at most $MAX_NODES (node K is on 127.0.0.K), got $nodes"
  if [ "$stock" = 1 ] && [ -n "$spec" ]; then
    die "--flash-cache and --stock exclude each other"
  fi
  [ -z "$spec" ] || parse_flash_spec "$spec"
  local stock_set=" " k
  if [ -n "$stock_nodes" ]; then
    [ -n "$spec" ] || die "--stock-nodes goes with --flash-cache (without it every node is stock)"
    local items=()
    IFS=',' read -r -a items <<<"$stock_nodes"
    for k in "${items[@]}"; do
      if ! [[ $k =~ ^[1-9][0-9]*$ ]] || [ "$k" -gt "$nodes" ]; then
        die "--stock-nodes: '$k' is not a node number from 1 to $nodes"
      fi
      stock_set+="$k "
    done
  fi
  check_positive_int --ring-delay-ms "$RING_DELAY_MS"
  check_port_number --native-port "$NATIVE_PORT"
  check_port_number --storage-port "$STORAGE_PORT"
  check_port_number --jmx-port "$JMX_PORT_BASE"
  check_jmx_range "$nodes"
  [ ! -e "$root/cluster.env" ] || die "$root already holds a cluster (cluster.env exists); remove it first or pick another ROOT"
  local existing=""
  [ ! -d "$root" ] || existing="$(find "$root" -maxdepth 1 -name 'node*' -print -quit)"
  [ -z "$existing" ] || die "$root already has $existing; pick an empty ROOT"
  FLASH_SPEC=$spec
  if [ -n "$spec" ]; then
    check_jar "$jar"
    for ((k = 1; k <= nodes; k++)); do
      [[ $stock_set == *" $k "* ]] || check_device_free "$k" "$(device_path "$root" "$k")"
    done
  fi
  # a failed init takes back what it made: ROOT when it made it, and the device files
  INIT_UNDO_ROOT="" INIT_UNDO_FILES=()
  [ -e "$root" ] || INIT_UNDO_ROOT=$root
  trap undo_failed_init EXIT
  mkdir -p "$root" || die "cannot create $root"
  [ -z "$spec" ] || copy_jar "$root" "$jar"
  for ((k = 1; k <= nodes; k++)); do
    if [[ $stock_set == *" $k "* ]]; then
      init_node "$root" "$k" ""
    else
      init_node "$root" "$k" "$spec"
    fi
  done
  write_cluster_env "$root"
  trap - EXIT
  note "initialised cluster $CLUSTER_NAME in $root: $nodes node(s), seed 127.0.0.1 (start it with: $PROG start $root)"
}

undo_failed_init() {
  local rc=$? f
  [ "$rc" -ne 0 ] || return 0
  for f in "${INIT_UNDO_FILES[@]}"; do
    rm -f -- "$f"
  done
  [ -z "$INIT_UNDO_ROOT" ] || rm -rf -- "$INIT_UNDO_ROOT"
  exit "$rc"
}

# JMX ports are all on 127.0.0.1, where node 1 also has its CQL and storage ports
check_jmx_range() {
  local last=$((JMX_PORT_BASE + $1 - 1))
  [ "$last" -le 65535 ] || die "--jmx-port $JMX_PORT_BASE: node $1 would get JMX port $last, above 65535"
  if [ "$NATIVE_PORT" = "$STORAGE_PORT" ]; then
    die "the native ($NATIVE_PORT) and storage ($STORAGE_PORT) ports must differ"
  fi
  local port
  for port in "$NATIVE_PORT" "$STORAGE_PORT"; do
    if [ "$port" -ge "$JMX_PORT_BASE" ] && [ "$port" -le "$last" ]; then
      die "the JMX ports $JMX_PORT_BASE-$last (node K: --jmx-port + K - 1, all on 127.0.0.1) include port $port, which node 1 uses on 127.0.0.1; pick another --jmx-port"
    fi
  done
}

# parses [--heap SIZE] [--wait-seconds N] into HEAP and WAIT_S
parse_start_options() {
  local what=$1
  shift
  WAIT_S=$DEFAULT_WAIT_SECONDS
  while [ $# -gt 0 ]; do
    case "$1" in
      --heap) [ $# -ge 2 ] || die "--heap needs a value"; HEAP=$2; shift 2 ;;
      --wait-seconds) [ $# -ge 2 ] || die "--wait-seconds needs a value"; WAIT_S=$2; shift 2 ;;
      *) die "$what: unknown option '$1'" ;;
    esac
  done
  check_heap "$HEAP"
  check_positive_int --wait-seconds "$WAIT_S"
}

cmd_start() {
  [ $# -ge 1 ] || die "usage: $PROG start ROOT [--heap SIZE] [--wait-seconds N]"
  local root k t0
  root="$(abs_root "$1")"
  shift
  load_cluster "$root"
  parse_start_options start "$@"
  write_cluster_env "$root"
  t0=$(date +%s)
  for k in $(node_numbers "$root"); do
    start_one "$root" "$k" "$HEAP" "$WAIT_S"
  done
  note "cluster $CLUSTER_NAME up: $(node_numbers "$root" | wc -l) node(s) UN ($(($(date +%s) - t0)) s)"
}

cmd_start_node() {
  [ $# -ge 2 ] || die "usage: $PROG start-node ROOT NODE [--heap SIZE] [--wait-seconds N]"
  local root k
  root="$(abs_root "$1")"
  load_cluster "$root"
  k="$(node_number "$root" "$2")"
  shift 2
  parse_start_options start-node "$@"
  start_one "$root" "$k" "$HEAP" "$WAIT_S"
}

cmd_stop() {
  [ $# -ge 1 ] || die "usage: $PROG stop ROOT [--wait-seconds N]"
  local root wait_s=60 k
  root="$(abs_root "$1")"
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --wait-seconds) [ $# -ge 2 ] || die "--wait-seconds needs a value"; wait_s=$2; shift 2 ;;
      *) die "stop: unknown option '$1'" ;;
    esac
  done
  check_positive_int --wait-seconds "$wait_s"
  load_cluster "$root"
  # all at once: a clean stop needs nothing from the other nodes
  local pids=() names=() failed=""
  for k in $(node_numbers "$root"); do
    node_pid "$root/node$k" >/dev/null || continue
    (
      set -o pipefail
      "$NODE_SH" stop "$root/node$k" --wait-seconds "$wait_s" 2>&1 | sed "s/^cassandra-node.sh: /$PROG: node $k: /"
    ) &
    pids+=($!)
    names+=("$k")
  done
  local i
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed+=" ${names[$i]}"
  done
  [ -z "$failed" ] || die "node(s)$failed did not stop (see above; force with: $PROG kill $root NODE)"
  note "cluster $CLUSTER_NAME stopped (${#pids[@]} node(s) were running)"
}

cmd_stop_node() {
  [ $# -ge 2 ] || die "usage: $PROG stop-node ROOT NODE [--wait-seconds N]"
  local root k
  root="$(abs_root "$1")"
  load_cluster "$root"
  k="$(node_number "$root" "$2")"
  shift 2
  local out
  out="$("$NODE_SH" stop "$root/node$k" "$@")" || exit 1
  note "node $k: ${out#cassandra-node.sh: }"
}

cmd_kill() {
  [ $# -eq 2 ] || die "usage: $PROG kill ROOT NODE"
  local root k out
  root="$(abs_root "$1")"
  load_cluster "$root"
  k="$(node_number "$root" "$2")"
  out="$("$NODE_SH" kill "$root/node$k")" || exit 1
  note "node $k: ${out#cassandra-node.sh: }"
}

cmd_add_node() {
  [ $# -ge 1 ] || die "usage: $PROG add-node ROOT [--flash-cache SPEC | --stock] [--heap SIZE] [--wait-seconds N] [--no-start]"
  local root spec="" stock=0 start_opts=() start=1
  root="$(abs_root "$1")"
  shift
  load_cluster "$root"
  spec=$FLASH_SPEC
  while [ $# -gt 0 ]; do
    case "$1" in
      --flash-cache) [ $# -ge 2 ] || die "--flash-cache needs a value"; spec=$2; stock=0; shift 2 ;;
      --stock) stock=1; shift ;;
      --heap | --wait-seconds) [ $# -ge 2 ] || die "$1 needs a value"; start_opts+=("$1" "$2"); shift 2 ;;
      --no-start) start=0; shift ;;
      *) die "add-node: unknown option '$1'" ;;
    esac
  done
  [ "$stock" = 0 ] || spec=""
  parse_start_options add-node "${start_opts[@]}"
  local last k
  last="$(node_numbers "$root" | tail -n 1)"
  k=$((${last:-0} + 1))
  [ "$k" -le "$MAX_NODES" ] || die "the cluster has node $last already: node K is on 127.0.0.K, so $MAX_NODES nodes at most"
  check_jmx_range "$k"
  if [ -n "$spec" ]; then
    parse_flash_spec "$spec"
    check_device_free "$k" "$(device_path "$root" "$k")"
  fi
  node_pid "$root/node1" >/dev/null 2>&1 || die "node 1 (the seed) is not running: a new node joins through it (start it: $PROG start-node $root 1)"
  if [ -n "$spec" ] && [ ! -f "$root/lib/flashchunk-cassandra.jar" ]; then
    copy_jar "$root" "$DEFAULT_JAR"
  fi
  init_node "$root" "$k" "$spec"
  if [ "$start" = 0 ]; then
    note "node $k initialised, not started (start it with: $PROG start-node $root $k)"
    return 0
  fi
  start_one "$root" "$k" "$HEAP" "$WAIT_S"
  note "node $k joined cluster $CLUSTER_NAME"
}

cmd_status() {
  [ $# -eq 1 ] || die "usage: $PROG status ROOT"
  local root k pid all=0 first=""
  root="$(abs_root "$1")"
  load_cluster "$root"
  echo "cluster $CLUSTER_NAME in $root (CQL port $NATIVE_PORT, storage port $STORAGE_PORT on each address)"
  for k in $(node_numbers "$root"); do
    load_node "$root" "$k"
    if pid="$(node_pid "$root/node$k")"; then
      printf 'node%-3s %-15s running pid %-8s JMX 127.0.0.1:%-6s %s\n' "$k" "$NODE_ADDRESS" "$pid" \
        "$((JMX_PORT_BASE + k - 1))" "$(describe_cache "$NODE_CACHE" "$NODE_DEVICE" "$NODE_CAPACITY")"
      first=${first:-$k}
    else
      printf 'node%-3s %-15s not running %-8s JMX 127.0.0.1:%-6s %s\n' "$k" "$NODE_ADDRESS" "" \
        "$((JMX_PORT_BASE + k - 1))" "$(describe_cache "$NODE_CACHE" "$NODE_DEVICE" "$NODE_CAPACITY")"
      all=3
    fi
  done
  if [ -n "$first" ]; then
    echo "nodetool status on node $first:"
    "$NODE_SH" nodetool "$root/node$first" status || echo "(nodetool status failed on node $first)"
  else
    echo "no node is running"
  fi
  return "$all"
}

cmd_nodetool() {
  [ $# -ge 2 ] || die "usage: $PROG nodetool ROOT NODE ARGS..."
  local root k
  root="$(abs_root "$1")"
  load_cluster "$root"
  k="$(node_number "$root" "$2")"
  shift 2
  exec "$NODE_SH" nodetool "$root/node$k" "$@"
}

cmd_cqlsh() {
  [ $# -ge 2 ] || die "usage: $PROG cqlsh ROOT NODE ARGS..."
  local root k
  root="$(abs_root "$1")"
  load_cluster "$root"
  k="$(node_number "$root" "$2")"
  shift 2
  exec "$NODE_SH" cqlsh "$root/node$k" "$@"
}

# ---------------------------------------------------------------- main

[ $# -ge 1 ] || { usage >&2; exit 2; }
command="$1"
shift
case "$command" in
  init) cmd_init "$@" ;;
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  start-node) cmd_start_node "$@" ;;
  stop-node) cmd_stop_node "$@" ;;
  kill) cmd_kill "$@" ;;
  add-node) cmd_add_node "$@" ;;
  status) cmd_status "$@" ;;
  nodetool) cmd_nodetool "$@" ;;
  cqlsh) cmd_cqlsh "$@" ;;
  -h | --help | help) usage ;;
  *) usage >&2; die "unknown command '$command'" ;;
esac
