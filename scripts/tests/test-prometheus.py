#!/usr/bin/env python3
"""The monitoring files the release ships, against real parts: a Cassandra node with the flash cache and
the Prometheus JMX exporter agent (io.prometheus.jmx:jmx_prometheus_javaagent from Maven Central, with
plugin/src/main/monitoring/flashchunk-jmx-exporter.yml), scraped by a real Prometheus server (Debian's
prometheus package) that loads flashchunk-alerts.yml. It checks that every metric the rules name is
exported, that a device's labels carry its path, that every expression of flashchunk-dashboard.json
(and its node variable's query) returns data through Prometheus's HTTP API, that the alert rules load
and none fires on a healthy node, and that promtool's unit tests of the alerts pass.

usage: scripts/tests/test-prometheus.py [--keep]   (--keep: leave the work directory for a look)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import node_control  # noqa: E402  (scripts/)

REPO = node_control.REPO
MONITORING = os.path.join(REPO, "plugin", "src", "main", "monitoring")
RULES = os.path.join(MONITORING, "flashchunk-jmx-exporter.yml")
ALERTS = os.path.join(MONITORING, "flashchunk-alerts.yml")
DASHBOARD = os.path.join(MONITORING, "flashchunk-dashboard.json")
ALERT_TESTS = os.path.join(REPO, "plugin", "src", "test", "monitoring", "flashchunk-alerts-test.yml")
EXPORTER = "io.prometheus.jmx:jmx_prometheus_javaagent:1.0.1"
ROWS = 3000
# What a dashboard's variables stand for here: every node, and a rate window of several scrapes.
VARIABLES = {"$instance": ".*", "$__rate_interval": "20s"}


def fail(message):
    raise SystemExit("FAIL: " + message)


def ok(message):
    print("ok - " + message, flush=True)


def http_json(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def wait_until(what, seconds, check):
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            fail(f"{what}: not within {seconds} s")
        time.sleep(0.5)


def exporter_jar(work):
    subprocess.run(["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={EXPORTER}", f"-DoutputDirectory={work}",
                    "-Dmdep.stripVersion=true"], check=True, cwd=work)
    return os.path.join(work, "jmx_prometheus_javaagent.jar")


def metric_names_in_rules():
    return sorted(set(re.findall(r"^\s+name: (flashchunk_\w+)", open(RULES).read(), re.M)))


def dashboard_queries():
    """(panel title, expression) of every target, and the node variable's query."""
    board = json.load(open(DASHBOARD))
    queries = []
    for panel in board["panels"]:
        for target in panel.get("targets", []):
            queries.append((panel["title"], target["expr"]))
    variables = [v for v in board["templating"]["list"] if v["type"] == "query"]
    return queries, variables


def substitute(expression):
    for name, value in VARIABLES.items():
        expression = expression.replace(name, value)
    if "$" in expression:
        fail("a dashboard expression uses a variable this test does not know: " + expression)
    return expression


def cql(node, statements):
    subprocess.run([node_control.NODE_SCRIPT, "cqlsh", node.dir, "-f", statements], check=True,
                   stdout=subprocess.DEVNULL)


def main():
    keep = "--keep" in sys.argv[1:]
    subprocess.run(["promtool", "test", "rules", ALERT_TESTS], check=True)
    ok("promtool: every suggested alert fires on its series and not on a healthy node's")

    work = tempfile.mkdtemp(prefix="test-prometheus.")
    node = node_control.Node(os.path.join(work, "node"))
    prometheus = None
    try:
        agent = exporter_jar(work)
        exporter_port, prometheus_port = node_control.free_ports(2)
        node.init()
        device = os.path.join(work, "flash-cache.img")
        with open(device, "wb") as f:
            f.truncate(256 << 20)
        # 1 MiB segments and a short interval: the node's few MiB of chunks reach flash and a checkpoint
        node.configure(node_control.flash_yaml(device, "256MiB", ["segment_size: 1MiB", "checkpoint_interval: 2s"]))
        with open(node.extra_options, "a") as f:
            f.write(f"-javaagent:{agent}=127.0.0.1:{exporter_port}:{RULES}\n")
        node.start("1G")

        load = os.path.join(work, "load.cql")
        with open(load, "w") as f:
            f.write("CREATE KEYSPACE fc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"
                    "CREATE TABLE fc.kv (k int PRIMARY KEY, v text) WITH compression = "
                    "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 4};\n")
            for k in range(ROWS):
                f.write(f"INSERT INTO fc.kv (k, v) VALUES ({k}, '{k:08d}{'x' * 1000}');\n")
        cql(node, load)
        node.nodetool("flush", "fc", "kv")
        reads = os.path.join(work, "reads.cql")
        with open(reads, "w") as f:
            for k in range(0, ROWS, 3):
                f.write(f"SELECT k FROM fc.kv WHERE k = {k};\n")

        metrics = urllib.request.urlopen(f"http://127.0.0.1:{exporter_port}/metrics", timeout=30).read().decode()
        missing = [name for name in metric_names_in_rules() if not re.search(rf"^{name}[{{ ]", metrics, re.M)]
        if missing:
            fail("rules name metrics the exporter did not produce: " + ", ".join(missing))
        if not re.search(r"^process_start_time_seconds ", metrics, re.M):
            fail("the exporter agent does not export process_start_time_seconds, which FlashChunkCheckpointStale needs")
        label_keys = {}
        for name, labels in re.findall(r"^(flashchunk_\w+)(?:\{(.*?)\})? ", metrics, re.M):
            keys = tuple(sorted(re.findall(r'(\w+)="', labels)))
            label_keys.setdefault(name, set()).add(keys)
        mixed = {name: keys for name, keys in label_keys.items() if len(keys) > 1}
        if mixed:
            fail(f"metrics whose series carry different label sets (two rules, one name?): {mixed}")
        device_lines = [line for line in metrics.splitlines() if line.startswith("flashchunk_device_hit_reads_total{")]
        if len(device_lines) != 1 or f'path="{device}"' not in device_lines[0] or 'space="0"' not in device_lines[0]:
            fail("the device's labels are not space 0 and its path: " + repr(device_lines))
        ok(f"the exporter produces all {len(metric_names_in_rules())} metrics the rules name; a device's labels are "
           "its space and path")

        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - {ALERTS}
scrape_configs:
  - job_name: cassandra
    static_configs:
      - targets: ["127.0.0.1:{exporter_port}"]
""")
        subprocess.run(["promtool", "check", "config", config], check=True, stdout=subprocess.DEVNULL)
        api = f"http://127.0.0.1:{prometheus_port}/api/v1"
        prometheus = subprocess.Popen(
            ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={work}/tsdb",
             f"--web.listen-address=127.0.0.1:{prometheus_port}"],
            stdout=open(os.path.join(work, "prometheus.log"), "w"), stderr=subprocess.STDOUT)

        def query(expression):
            reply = http_json(f"{api}/query?" + urllib.parse.urlencode({"query": expression}))
            if reply.get("status") != "success":
                fail(f"{expression}: {reply}")
            return reply["data"]["result"]

        def healthy_target():
            try:
                targets = http_json(f"{api}/targets")["data"]["activeTargets"]
            except OSError:
                return None
            return targets and all(t["health"] == "up" for t in targets)

        wait_until("Prometheus scraping the node", 60, healthy_target)
        # while Prometheus scrapes: misses, whose chunks fill and seal segments (the write panels' rates),
        # then hits, from flash and memory
        cql(node, reads)
        cql(node, reads)
        # several scrapes across the second pass, so that every rate has two points in its window
        started = query("time()")[1]
        wait_until("ten scrapes", 60,
                   lambda: float(query("time()")[1]) - float(started) > 10 and query("count_over_time(up[20s])")
                   and float(query("count_over_time(up[20s])")[0]["value"][1]) >= 10)
        hit_rate = query('sum(rate(flashchunk_hits_total{tier="flash"}[20s]))')
        if not hit_rate or float(hit_rate[0]["value"][1]) <= 0:
            fail(f"no flash hits in the scrapes: {hit_rate}")
        ok("Prometheus scrapes the node; flash hits show in the scrapes")

        queries, variables = dashboard_queries()
        empty = []
        for title, expression in queries:
            result = query(substitute(expression))
            values = [float(series["value"][1]) for series in result]
            if not values or any(v != v or v in (float("inf"), float("-inf")) for v in values):
                empty.append(f"{title}: {expression}: {values}")
        if empty:
            fail("dashboard expressions with no data, NaN or an infinity:\n  " + "\n  ".join(empty))
        for variable in variables:
            m = re.fullmatch(r"label_values\((\w+), (\w+)\)", variable["query"]["query"])
            if not m:
                fail("a dashboard variable's query this test cannot run: " + variable["query"]["query"])
            values = http_json(f"{api}/label/{m.group(2)}/values?" + urllib.parse.urlencode({"match[]": m.group(1)}))
            if values["data"] != [f"127.0.0.1:{exporter_port}"]:
                fail(f"variable {variable['name']}: {values}")
        ok(f"all {len(queries)} dashboard expressions return finite numbers, and its node variable the node")

        groups = http_json(f"{api}/rules")["data"]["groups"]
        rules = [rule for group in groups for rule in group["rules"]]
        if len(rules) != open(ALERTS).read().count("- alert:") or any(r["health"] != "ok" for r in rules):
            fail("alert rules not all loaded and healthy: " + json.dumps(rules)[:2000])
        active = http_json(f"{api}/alerts")["data"]["alerts"]
        if active:
            fail("alerts on a healthy node: " + json.dumps(active))
        ok(f"the {len(rules)} suggested alerts load, evaluate, and none fires on a healthy node")
    finally:
        if prometheus:
            prometheus.terminate()
            prometheus.wait(30)
        if os.path.exists(os.path.join(node.dir, "cassandra.pid")):
            node.stop()
        if keep:
            print("# work directory kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
