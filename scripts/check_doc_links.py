#!/usr/bin/env python3
"""Check the relative links of the documentation.

Every [text](target) in README.md and docs/**/*.md (outside code) whose target is not a URL must
name a file or directory that exists, and a #anchor must match a heading of the target Markdown file
by GitHub's rules (lower case, punctuation but '-' and '_' dropped, spaces to '-', repeats -1, -2).

    scripts/check_doc_links.py [FILE.md ...]     # default: README.md and docs/**/*.md

Prints one line per broken link and exits 1 if there is any.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")


def prose(text):
    """The text with fenced code blocks and code spans blanked, line numbers kept."""
    out, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            out.append("")
        elif fenced:
            out.append("")
        else:
            out.append(re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line))
    return "\n".join(out)


def slug(heading):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # links keep their text
    text = re.sub(r"<[^>]+>", "", text)                       # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        found, seen, fenced = set(), {}, False
        for line in path.read_text(encoding="utf-8").split("\n"):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            m = HEADING.match(line)
            if m:
                s = slug(m.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f"{s}-{n}")
            for a in re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
                found.add(a)
        _anchors[path] = found
    return _anchors[path]


def check(md):
    problems = []
    text = prose(md.read_text(encoding="utf-8"))
    targets = [(m.start(), m.group(2)) for m in LINK.finditer(text)]
    targets += [(m.start(), m.group(1)) for m in IMAGE.finditer(text)]
    for start, target in targets:
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):   # http:, https:, mailto:, ...
            continue
        line = text.count("\n", 0, start) + 1
        path_part, _, anchor = target.partition("#")
        dest = md if not path_part else (md.parent / path_part).resolve()
        where = f"{md.relative_to(ROOT)}:{line}: {target}"
        if not dest.exists():
            problems.append(f"{where}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{where}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    return problems


def main(args):
    files = [Path(a).resolve() for a in args] or \
        [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
    problems = [p for f in files for p in check(f)]
    for p in problems:
        print(p)
    sys.stdout.flush()
    print(f"{len(files)} files, {len(problems)} broken links", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
