#!/usr/bin/env python3
"""What a restarted node's JIT compiled after it answered CQL: from a scripts/bench-ycsb.sh --jit-log run.

For each restart in OUT/raw.jsonl whose node logged its compilations (OUT/jit-*-<pid>.log, JDK 17's
-Xlog:jit+compilation=debug with the JVM's uptime), it counts the compilations by tier before CQL-ready
(the warm-up before clients, if any, falls there) and in the first --window seconds after, the C2 code
made not entrant after CQL-ready that was compiled before it (code the clients' requests invalidated),
and the classes whose methods C2 compiled most after CQL-ready, by package. CQL-ready in the JVM's
uptime is taken as the harness's startup time (from the start command, so up to about a second late).

    python3 scripts/bench_jit_report.py OUT [--window 30] [--top 12]   (prints, and writes OUT/jit.md)
    python3 scripts/bench_jit_report.py --self-test
"""
import argparse
import collections
import glob
import json
import os
import re
import sys

# [12345ms][jit,compilation]  1234 %s!bn  4       org.example.Class::method @ 12 (345 bytes)   made not entrant
# (the tags' decoration is there when the log holds other tags too; the attributes are a field of five
# characters, each a flag or a space; the tier is "-" where there is none; after the size, a message: none
# for a compilation, "(static)" for a native wrapper, "made not entrant" or "made zombie" for code let go)
LINE = re.compile(r"^\[(\d+)ms\](?:\[jit,compilation\s*\])?\s*(\d+) ([% ][s ][! ][b ][n ]) (\d|-)\s+(\S+)"
                  r"(?: @ \d+)?\s+\((?:\d+ bytes|native)\)\s*(.*)$")
# [12345ms][class,load     ] org.example.Class source: file:/... (tags padded to the widest's length)
CLASS_LOAD = re.compile(r"^\[(\d+)ms\]\[class,load\s*\] (\S+)")
KINDS = {"": "compiled", "(static)": "compiled", "made not entrant": "not entrant", "made zombie": "zombie"}


def parse(lines, classes=None):
    """(uptime s, compile id, tier (-1: none), method, osr, kind) for each line of the JIT's: kind "compiled",
    "not entrant" or "zombie" (the sweeper freeing code let go before; not a compilation); with a list as
    classes, (uptime s, class name) of each class loaded is appended to it."""
    events = []
    for line in lines:
        m = LINE.match(line.rstrip("\n"))
        if m:
            events.append((int(m.group(1)) / 1000, int(m.group(2)), -1 if m.group(4) == "-" else int(m.group(4)),
                           m.group(5), "%" in m.group(3), KINDS.get(m.group(6).strip(), "other")))
        elif classes is not None:
            c = CLASS_LOAD.match(line)
            if c:
                classes.append((int(c.group(1)) / 1000, c.group(2)))
    return events


def package_of(method, depth=4):
    """The first `depth` parts of a method's class name: the part of the code it belongs to."""
    cls = method.split("::", 1)[0]
    parts = cls.split(".")
    return ".".join(parts[:min(depth, len(parts) - 1)]) or cls


def summarise(events, ready, window):
    """Counts before CQL-ready and in [ready, ready + window): compilations by tier, C2 code compiled before
    ready and made not entrant after it, and C2 compilations after ready by package."""
    compiled = [e for e in events if e[5] == "compiled"]
    before = collections.Counter(e[2] for e in compiled if e[0] < ready)
    after = collections.Counter(e[2] for e in compiled if ready <= e[0] < ready + window)
    c2_before = {e[1] for e in compiled if e[2] == 4 and e[0] < ready}
    invalidated = [e for e in events
                   if e[5] == "not entrant" and e[2] == 4 and e[1] in c2_before and ready <= e[0] < ready + window]
    packages = collections.Counter(package_of(e[3]) for e in compiled if e[2] == 4 and ready <= e[0] < ready + window)
    last = max((e[0] for e in compiled if e[2] == 4 and ready <= e[0] < ready + window), default=None)
    return {"before": before, "after": after, "c2_invalidated": len(invalidated), "c2_packages": packages,
            "last_c2_after_ready_s": None if last is None else round(last - ready, 1)}


def restarts_with_logs(out):
    rows = [json.loads(line) for line in open(os.path.join(out, "raw.jsonl"))]
    found = []
    for r in rows:
        if r.get("phase") != "restart" or not r.get("pid"):
            continue
        logs = glob.glob(os.path.join(out, f"jit-*-{r['pid']}.log"))
        if logs:
            found.append((r, logs[0]))
    return found


def report(out, window, top):
    lines = [f"What each restarted node's JIT compiled: before CQL-ready (with the warm-up before clients, if any) and in "
             f"the first {window} s after it (tier 1-3: C1, 4: C2; `-Xlog:jit+compilation=debug,class+load`; CQL-ready taken as "
             "the harness's startup time, up to about a second late)", "",
             "| restart | CQL after, s | to 90% of warm, s | C1 compiles before; after | C2 compiles before; after | "
             "C2 code of before made not entrant after | last C2 compile after CQL-ready, s |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    details = []
    for r, path in restarts_with_logs(out):
        classes = []
        with open(path, errors="replace") as f:
            s = summarise(parse(f, classes), r["startup_s"], window)
        c1 = lambda c: sum(v for t, v in c.items() if t in (1, 2, 3))
        name = f'{r["label"]}, {r["kind"]}' + (f' (round {r.get("round", 0) + 1})' if r.get("round") else "")
        reach = r.get("time_to_share_s")
        lines.append(f"| {name} | {r['startup_s']:.1f} | {'' if reach is None else f'{reach:.0f}'} | "
                     f"{c1(s['before']):,}; {c1(s['after']):,} | {s['before'][4]:,}; {s['after'][4]:,} | "
                     f"{s['c2_invalidated']:,} | {'' if s['last_c2_after_ready_s'] is None else s['last_c2_after_ready_s']} |")
        details.append(f"- {name}: C2 compiles after CQL-ready by package: "
                       + ", ".join(f"{p} {n}" for p, n in s["c2_packages"].most_common(top)))
        late = [(t - r["startup_s"], c) for t, c in classes if r["startup_s"] <= t < r["startup_s"] + window]
        if classes:
            details.append(f"  classes loaded after CQL-ready: {len(late)}"
                           + (": " + ", ".join(f"{c} ({t:.1f} s)" for t, c in late[:top * 4])
                              + (" ..." if len(late) > top * 4 else "") if late else ""))
    if len(lines) == 4:
        return None
    return "\n".join(lines + [""] + details) + "\n"


def self_test():
    log = ["[900ms]    5       3       a.b.c.D::f (8 bytes)",
           "[1000ms]    6       4       a.b.c.D::f (8 bytes)",
           "[1500ms]    7 %     4       org.apache.cassandra.db.ReadCommand::run @ 4 (32 bytes)",
           "[2500ms]    6       4       a.b.c.D::f (8 bytes)   made not entrant",
           "[2600ms]    8       4       org.apache.cassandra.transport.Message::decode (100 bytes)",
           "[2700ms]    9       2       io.netty.buffer.ByteBuf::get (10 bytes)",
           "[9000ms]   10       4       io.netty.buffer.ByteBuf::get (10 bytes)",
           "[2650ms][jit,compilation]   11       1       a.b.c.D::g (4 bytes)",
           "[2655ms][jit,compilation]    5       3       a.b.c.D::f (8 bytes)   made zombie",
           "[2656ms][jit,compilation] 2111 % !   4       java.util.concurrent.ConcurrentHashMap::transfer @ 372 (849 bytes)",
           "[2657ms][jit,compilation]   19     n 0       java.lang.System::arraycopy (native)   (static)",
           "[2660ms][class,load     ] org.apache.cassandra.transport.messages.RegisterMessage source: jar:file:/x.jar",
           "not a compilation line"]
    classes = []
    events = parse(log, classes)
    s = summarise(events, 2.0, 5)
    problems = []

    def check(what, got, want):
        if got != want:
            problems.append(f"{what}: got {got!r}, want {want!r}")

    check("lines parsed", len(events), 11)
    check("kinds", [e[5] for e in events].count("zombie"), 1)
    check("an OSR compile with an exception handler", events[-2][2:5],
          (4, "java.util.concurrent.ConcurrentHashMap::transfer", True))
    check("classes loaded", classes, [(2.66, "org.apache.cassandra.transport.messages.RegisterMessage")])
    check("osr flag", events[2][4], True)
    check("C2 before ready", s["before"][4], 2)
    check("C1 after ready", s["after"][2] + s["after"][1], 2)
    check("C2 after ready, in the window only", s["after"][4], 2)
    check("a zombie is not a compilation, a native wrapper is", (s["after"][3], s["after"][0]), (0, 1))
    check("C2 code of before invalidated after", s["c2_invalidated"], 1)
    check("packages", dict(s["c2_packages"]), {"org.apache.cassandra.transport": 1, "java.util.concurrent": 1})
    check("last C2 after ready", s["last_c2_after_ready_s"], 0.7)
    check("short class name", package_of("T::f"), "T")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("self-test passed")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", nargs="?")
    p.add_argument("--window", type=int, default=30, help="seconds after CQL-ready counted (default 30)")
    p.add_argument("--top", type=int, default=12, help="packages listed a restart (default 12)")
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args(argv)
    if args.self_test:
        return self_test()
    if not args.out:
        p.error("OUT (a scripts/bench-ycsb.sh --jit-log run's directory) is needed")
    text = report(args.out, args.window, args.top)
    if text is None:
        sys.exit(f"no restart in {args.out}/raw.jsonl has a JIT log (run scripts/bench-ycsb.sh with --jit-log)")
    with open(os.path.join(args.out, "jit.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
