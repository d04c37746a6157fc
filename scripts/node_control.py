"""One Cassandra 5.0.9 node run through scripts/cassandra-node.sh, for the scripts that start, stop and kill
nodes under YCSB: the YCSB benchmark (bench_ycsb.py), the start-time benchmark (bench_startup.py), the
SIGKILL soak (soak_sigkill.py) and the live fault runs (faults_live.py).

Node: a run directory on free ports below the kernel's ephemeral range (init, configure stock or with the
flash cache, start and wait for CQL, stop, kill, nodetool, the chunk cache line of nodetool info, the
flash cache's JMX bean, what its log says at close and at start); flash_yaml: the flash cache's
cassandra.yaml block; run and log: a command's output (raising on failure) and a timed line on stderr.
A flash node's agent is AGENT_JAR; a run with its own copy of the jar sets node_control.AGENT_JAR.
"""
import json
import os
import random
import re
import socket
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODE_SCRIPT = os.path.join(REPO, "scripts", "cassandra-node.sh")
YCSB_SCRIPT = os.path.join(REPO, "scripts", "ycsb.sh")
AGENT_JAR = os.path.join(REPO, "plugin", "target", "flashchunk-cassandra.jar")
LOADER = "io.flashchunk.cassandra.config.FlashChunkConfigurationLoader"
CACHE_CLASS = "io.flashchunk.cassandra.CassandraFlashCache"
MEMORY_CGROUP = "flashchunk-bench"
FLASH_BEAN = "io.flashchunk:type=FlashChunkCache"
DEVICE_BEANS = "io.flashchunk:type=FlashChunkDevice,*"

START = time.time()


# (every user's lines keep the "bench-ycsb" tag they had when this lived in bench_ycsb.py)
def log(message):
    print(f"[bench-ycsb {time.time() - START:6.0f} s] {message}", file=sys.stderr, flush=True)


def run(command, check=True, env=None):
    result = subprocess.run(command, check=False, text=True, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed (exit {result.returncode}):\n{result.stdout or ''}")
    return result.stdout or ""


def node_ports():
    """Ports below the kernel's ephemeral range, so no client connection's local port takes a node's
    port while the node restarts."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            ephemeral = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        ephemeral = 32768
    ports = range(max(1024, ephemeral - 12000), ephemeral)
    return ports if len(ports) >= 1000 else range(20000, 30000)


NODE_PORTS = node_ports()
_ports_given = set()  # no port is handed out twice in one run


def free_ports(count):
    ports = []
    while len(ports) < count:
        port = random.choice(NODE_PORTS)
        if port in _ports_given:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _ports_given.add(port)
        ports.append(port)
    return ports


def flash_yaml(device, capacity, settings=(), device_settings=(), more_devices=()):
    """The flash cache block: one device (device_settings: extra lines of its entry), and more_devices, each
    a (path, capacity) pair, after it."""
    # strict: a flash configuration whose cache cannot start must not be measured as one.
    lines = (["chunk_cache_class: " + CACHE_CLASS, "flash_chunk_cache:", "  strict: true", "  devices:",
              f"    - path: {device}", f"      capacity: {capacity}"] + [f"      {s}" for s in device_settings])
    for path, size in more_devices:
        lines += [f"    - path: {path}", f"      capacity: {size}"]
    lines += [f"  {s}" for s in settings]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the node

class Node:
    """The benchmark's node: one run directory, restarted per configuration."""

    def __init__(self, directory, blkio_cgroup=None):
        self.dir = directory
        self.blkio_cgroup = blkio_cgroup
        self.native, self.storage, self.jmx = free_ports(3)
        self.yaml = os.path.join(directory, "conf", "cassandra.yaml")
        self.extra_options = os.path.join(directory, "conf", "jvm-extra.options")

    def init(self):
        run([NODE_SCRIPT, "init", self.dir, "--force", "--native-port", str(self.native),
             "--storage-port", str(self.storage), "--jmx-port", str(self.jmx)])
        with open(self.yaml) as f:
            # Cassandra's defaults for the file cache (off): the launcher's template turns it on for tests.
            self.base_yaml = "".join(line for line in f if not line.startswith(("file_cache_enabled:", "file_cache_size:")))
        self.base_yaml += "file_cache_enabled: false\n"

    def configure(self, flash_block, record_reads=None, agent_jar=None, node_settings=(), jvm_options=()):
        """Stock Cassandra when flash_block is None; else the agent (AGENT_JAR, or agent_jar), the loader and
        the flash cache block, and with record_reads a file the cache records every chunk read to (for
        scripts/sim-cache.sh). node_settings: lines of cassandra.yaml of Cassandra's own, either way;
        jvm_options: JVM options added last, either way."""
        with open(self.yaml, "w") as f:
            f.write(self.base_yaml + "".join(line + "\n" for line in node_settings)
                    + ("\n" + flash_block if flash_block else ""))
        options = list(jvm_options)
        if flash_block:
            options += [f"-javaagent:{agent_jar or AGENT_JAR}", f"-Dcassandra.config.loader={LOADER}"]
            if record_reads:
                options.append(f"-Dflashchunk.record_reads={record_reads}")
        if options:
            with open(self.extra_options, "w") as f:
                f.write("".join(option + "\n" for option in options))
        elif os.path.exists(self.extra_options):
            os.remove(self.extra_options)

    def start(self, heap, memory_limit=None):
        """Starts the node; returns the seconds it took to answer CQL (recovery included)."""
        command = [NODE_SCRIPT, "start", self.dir, "--heap", heap, "--wait-seconds", "300"]
        if memory_limit:
            command += ["--cgroup", MEMORY_CGROUP, "--memory-limit", str(memory_limit)]
        if self.blkio_cgroup:
            command += ["--blkio-cgroup", self.blkio_cgroup]
        line = run(command).strip().splitlines()[-1]
        log(line)
        m = re.search(r" in ([\d.]+) s ", line)
        return float(m.group(1)) if m else None

    def stop(self):
        run([NODE_SCRIPT, "stop", self.dir, "--wait-seconds", "180"], check=False)

    def kill(self):
        run([NODE_SCRIPT, "kill", self.dir])

    def pid(self):
        with open(os.path.join(self.dir, "cassandra.pid")) as f:
            return int(f.read().strip())

    def nodetool(self, *arguments):
        return run([NODE_SCRIPT, "nodetool", self.dir, *arguments])

    def chunk_cache(self):
        """{requests, misses, entries, capacity} of nodetool info's Chunk Cache line."""
        for line in self.nodetool("info").splitlines():
            if line.startswith("Chunk Cache"):
                m = re.search(r"entries (\d+),.*capacity ([^,]+), (\d+) misses, (\d+) requests", line)
                if m:
                    return {"entries": int(m.group(1)), "capacity": m.group(2), "misses": int(m.group(3)),
                            "requests": int(m.group(4))}
        return {"entries": 0, "capacity": "none", "misses": 0, "requests": 0}

    def beans(self, query):
        """The attributes of the JMX beans a query names (each with its name), through nodetool's sjk
        ([] if unreadable)."""
        text = run([NODE_SCRIPT, "nodetool", self.dir, "sjk", "mxdump", "-q", query], check=False)
        start = text.find("{")
        try:
            return json.loads(text[start:])["beans"] if start >= 0 else []
        except (ValueError, KeyError):
            return []

    def device_beans(self):
        """The flash cache's device beans' attributes ([] if unreadable)."""
        return self.beans(DEVICE_BEANS)

    def flash_bean(self):
        """{attribute: value} of the flash cache's JMX bean ({} if unreadable)."""
        found = self.beans(FLASH_BEAN)
        return found[0] if found else {}

    def closing_stats(self):
        """The flash cache's counters as it logged them when it last closed (system.log), or None."""
        found = None
        with open(os.path.join(self.dir, "logs", "system.log"), errors="replace") as f:
            for line in f:
                # INFO after a final checkpoint; WARN when it could not be written
                for marker in ("flash chunk cache: closed after a final checkpoint;",
                               "a restart recovers what the last durable checkpoint named;"):
                    if marker in line:
                        found = line.split(marker, 1)[1].strip()
        return found

    def recovered_chunks(self):
        """The chunks the flash cache said it recovered in its last start (system.log), or None."""
        found = None
        with open(os.path.join(self.dir, "logs", "system.log"), errors="replace") as f:
            for line in f:
                m = re.search(r"flash chunk cache: serving .* (\d+) chunks recovered", line)
                if m:
                    found = int(m.group(1))
        return found
