"""How long `import tapeviz` takes, as a ratio to `import numpy` (its one requirement).

Run: python benchmarks/bench_import.py. Each import runs in a fresh interpreter,
alternated, best of several rounds (a busy machine slows both alike). This used
to be a timed test; timing belongs here, where a slow machine cannot fail CI.
"""

import statistics
import subprocess
import sys

TARGET_RATIO = 3.0  # tapeviz imports numpy and ~60 small modules of its own

CODE = "import time; t0 = time.perf_counter(); import {module}; print(time.perf_counter() - t0)"


def import_seconds(module):
    out = subprocess.run([sys.executable, "-c", CODE.format(module=module)], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(rounds=7):
    import_seconds("tapeviz")  # warm-up: .pyc files, the OS file cache
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(import_seconds("tapeviz"))
        theirs.append(import_seconds("numpy"))
    best_ours, best_theirs = min(ours), min(theirs)
    ratio = best_ours / best_theirs
    print(
        f"import tapeviz: {best_ours * 1e3:.0f} ms (median {statistics.median(ours) * 1e3:.0f}); "
        f"import numpy: {best_theirs * 1e3:.0f} ms; ratio {ratio:.2f} (target <= {TARGET_RATIO})"
    )
    return ratio


if __name__ == "__main__":
    main()
