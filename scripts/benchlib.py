"""What the benchmark report scripts share: logging, number formatting, pyplot, the command line."""
import subprocess
import sys


def logger(name):
    """A function that prints one line, prefixed with the script's name, to standard error."""
    def log(message):
        print(f"{name}: {message}", file=sys.stderr)
    return log


def fmt(value, digits):
    return "n/a" if value is None else f"{value:.{digits}f}"


def interval_mean(samples, field, lo, hi):
    """The mean over [lo, hi] seconds of a rate sampled as intervals: each sample holds the rate over the
    interval ending at its "t" (from the previous sample's t, the first from 0), weighted by how much of
    that interval lies in [lo, hi]; None when none does."""
    total = weight = 0.0
    start = 0.0
    for sample in samples:
        end = sample["t"]
        overlap = min(end, hi) - max(start, lo)
        if overlap > 0:
            total += sample[field] * overlap
            weight += overlap
        start = end
    return total / weight if weight else None


def import_pyplot(log):
    """matplotlib's pyplot on the Agg backend, installed with pip first if missing."""
    try:
        import matplotlib
    except ImportError:
        log("matplotlib is missing; installing it with: pip install matplotlib")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "matplotlib"], check=True,
                       stdout=sys.stderr)
        import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_figure(plt, fig, path, dpi=110):
    """Lays the figure out, writes it to `path` as PNG and frees it; returns the path."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def checker(failures):
    """A check(what, got, want) that records a failure unless got equals want (numbers within 1e-9)."""
    def check(what, got, want):
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (got, want))
        ok = abs(got - want) < 1e-9 if numbers else got == want
        if not ok:
            failures.append(f"{what}: got {got}, want {want}")
    return check


def quietly(function, *args):
    """function(*args) with standard output thrown away (a self-test running a whole report); its result."""
    import contextlib
    import os
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        return function(*args)


def finish_self_test(failures):
    """Prints the self-test's outcome; returns the exit code."""
    if failures:
        for failure in failures:
            print(f"self-test FAILED: {failure}", file=sys.stderr)
        return 1
    print("self-test passed")
    return 0


def main(argv, doc, report, self_test):
    """`SCRIPT OUT_DIR` writes the report; `SCRIPT --self-test` checks the script on synthetic data."""
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2 or argv[1].startswith("-"):
        print(doc.strip(), file=sys.stderr)
        return 2
    return report(argv[1])


def self_test_only(argv, doc, self_test):
    """`SCRIPT --self-test` runs the self-test; anything else prints what the module is for."""
    if argv[1:] == ["--self-test"]:
        return self_test()
    print(doc.strip(), file=sys.stderr)
    return 2
