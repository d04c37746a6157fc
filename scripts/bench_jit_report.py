#!/usr/bin/env python3
"""What a restarted node's JIT compiled after it answered CQL: from a scripts/bench-ycsb.sh --jit-log run.

For each restart in OUT/raw.jsonl whose node logged its compilations (OUT/jit-*-<pid>.log, JDK 17's
-Xlog:jit+compilation=debug with the JVM's uptime), it counts the compilations by tier before CQL-ready
(the warm-up before clients, if any, falls there) and in the first --window seconds after, the C2 code
made not entrant after CQL-ready that was compiled before it (code the clients' requests invalidated),
and the classes whose methods C2 compiled most after CQL-ready, by package. CQL-ready in the JVM's
uptime is taken as the harness's startup time (from the start command, so up to about a second late).
With --jit-deopt (HotSpot's compilation log, OUT/jitxml-*-pid<pid>.xml), it says why that code was let go:
the uncommon traps that fired in it (reason, method) or the dependencies a class broke, and in what batches.

    python3 scripts/bench_jit_report.py OUT [--window 30] [--top 12]   (prints, and writes OUT/jit.md)
    python3 scripts/bench_jit_report.py --self-test
"""
import argparse
import collections
import glob
import html
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


# HotSpot's compilation log (-XX:+LogCompilation): one element a line, attributes in single quotes.
XML_ELEMENT = re.compile(r"^<(\w+)((?:\s+\w+='[^']*')*)\s*/?>")
XML_ATTRIBUTE = re.compile(r"(\w+)='([^']*)'")


def let_go(lines):
    """Each piece of compiled code the JVM let go in a LogCompilation file, with why: a list of (stamp s, compile
    id, tier, cause, detail), cause "trap <reason>" (an uncommon trap fired in it: detail the method and bytecode
    it fired at, the innermost of those inlined there), "dependency <type>" (a class loaded or changed broke an
    assumption it was compiled under: detail the class) or "other"; and {compile id: (stamp s, tier, method)} of
    the code installed."""
    traps = {}          # compile id -> (stamp, reason, method @ bci), the latest trap fired in that code
    dependencies = []   # (stamp, type, class) of each failed dependency, in the log's order
    installed = {}
    events = []
    let_go_ids = set()
    trap = None         # the runtime trap whose frames are being read
    for line in lines:
        m = XML_ELEMENT.match(line)
        if not m:
            continue
        tag, a = m.group(1), {k: html.unescape(v) for k, v in XML_ATTRIBUTE.findall(m.group(2))}
        if tag == "uncommon_trap" and "thread" in a and "compile_id" in a:
            # A trap that fired at run time (the compiler's own trap points, inside its tasks, have no thread).
            trap = [float(a["stamp"]), a.get("reason", "?"), None]
            traps[int(a["compile_id"])] = trap
        elif tag == "jvms" and trap is not None:
            if trap[2] is None:
                trap[2] = f"{a.get('method', '?').split(' (')[0]} @ {a.get('bci', '?')}"
        elif tag == "dependency_failed":
            dependencies.append((float(a.get("stamp", "nan")), a.get("type", "?"), a.get("witness") or a.get("ctxk", "?")))
        elif tag == "nmethod" and "compile_id" in a and a.get("compiler"):
            installed[int(a["compile_id"])] = (float(a["stamp"]), int(a.get("level", -1)), a.get("method", "?"))
        elif tag == "make_not_entrant" and "compile_id" in a and int(a["compile_id"]) not in let_go_ids:
            # The first of its lines: threads still running in code let go log it again as they leave it.
            stamp, cid = float(a["stamp"]), int(a["compile_id"])
            let_go_ids.add(cid)
            t = traps.get(cid)
            broken = [d for d in dependencies if stamp - 0.05 <= d[0] <= stamp]
            if t is not None and t[0] <= stamp:
                events.append((stamp, cid, int(a.get("level", -1)), f"trap {t[1]}", t[2] or "?"))
            elif broken:
                events.append((stamp, cid, int(a.get("level", -1)), f"dependency {broken[-1][1]}", broken[-1][2]))
            else:
                events.append((stamp, cid, int(a.get("level", -1)), "other", ""))
        if tag != "jvms" and tag != "uncommon_trap":
            trap = None
    return events, installed


def causes(events, installed, ready, window):
    """The C2 code installed before `ready` and let go in [ready, ready + window): a Counter by cause, a Counter
    by (cause, detail), and the batches (let go within 100 ms of each other) of five or more: (seconds after
    ready, count, Counter by cause)."""
    gone = [e for e in events if e[2] == 4 and ready <= e[0] < ready + window
            and e[1] in installed and installed[e[1]][0] < ready]
    by_cause = collections.Counter(e[3] for e in gone)
    by_detail = collections.Counter((e[3], e[4]) for e in gone)
    batches, current = [], []
    for e in sorted(gone):
        if current and e[0] - current[-1][0] > 0.1:
            batches.append(current)
            current = []
        current.append(e)
    if current:
        batches.append(current)
    return by_cause, by_detail, [(round(b[0][0] - ready, 2), len(b), collections.Counter(e[3] for e in b))
                                 for b in batches if len(b) >= 5]


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
        xml = glob.glob(os.path.join(out, f"jitxml-*-pid{r['pid']}.xml"))
        if xml:
            with open(xml[0], errors="replace") as f:
                by_cause, by_detail, batches = causes(*let_go(f), r["startup_s"], window)
            details.append(f"  C2 code of before let go after CQL-ready, by cause (LogCompilation): "
                           + (", ".join(f"{c} {n}" for c, n in by_cause.most_common()) or "none"))
            details.append("  where: " + "; ".join(f"{c}: {d} ({n})" for (c, d), n in by_detail.most_common(top)))
            details.append("  batches (5 or more within 100 ms): " + ("; ".join(
                f"{t} s after, {n}: " + ", ".join(f"{c} {k}" for c, k in b.most_common()) for t, n, b in batches)
                or "none"))
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
    xml = ["<nmethod compile_id='6' compiler='c2' level='4' method='a.b.c.D f ()V' stamp='1.000'/>",
           "<nmethod compile_id='12' compiler='c2' level='4' method='a.b.c.E g ()V' stamp='1.100'/>",
           "<nmethod compile_id='13' compiler='c2' level='4' method='a.b.c.E h ()V' stamp='1.200'/>",
           "<nmethod compile_id='14' compiler='c2' level='4' method='a.b.c.E i ()V' stamp='2.300'/>",
           "<uncommon_trap bci='3' reason='null_check' action='make_not_entrant'/>",
           "<uncommon_trap thread='77' reason='class_check' action='maybe_recompile' compile_id='6' compiler='c2' "
           "level='4' stamp='2.400'>",
           "<jvms bci='17' method='a.b.c.F &lt;init&gt; (I)V' bytes='20' count='5'/>",
           "<jvms bci='2' method='a.b.c.D f ()V' bytes='9' count='5'/>",
           "</uncommon_trap>",
           "<make_not_entrant thread='77' compile_id='6' compiler='c2' level='4' stamp='2.400'/>",
           "<dependency_failed type='unique_concrete_method_4' ctxk='a.b.S' x='a.b.A f ()V' witness='a.b.B' "
           "stamp='2.480'/>",
           "<make_not_entrant thread='78' compile_id='12' compiler='c2' level='4' stamp='2.480'/>",
           "<make_not_entrant thread='78' compile_id='13' compiler='c2' level='4' stamp='2.560'/>",
           "<make_not_entrant thread='78' compile_id='14' compiler='c2' level='4' stamp='2.700'/>",
           "<make_not_entrant thread='79' compile_id='6' compiler='c2' level='4' stamp='2.900'/>"]
    gone, installed = let_go(xml)
    check("let go", [(e[1], e[3], e[4]) for e in gone],
          [(6, "trap class_check", "a.b.c.F <init> @ 17"), (12, "dependency unique_concrete_method_4", "a.b.B"),
           (13, "other", ""), (14, "other", "")])
    check("installed", installed[13], (1.2, 4, "a.b.c.E h ()V"))
    by_cause, by_detail, batches = causes(gone, installed, 2.0, 5)
    check("causes of code from before ready only", dict(by_cause), {"trap class_check": 1,
                                                                     "dependency unique_concrete_method_4": 1, "other": 1})
    check("detail", by_detail[("trap class_check", "a.b.c.F <init> @ 17")], 1)
    check("no batch of five", batches, [])
    check("a batch", causes(gone * 2, installed, 2.0, 5)[2][0][:2], (0.4, 6))
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
