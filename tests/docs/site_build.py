"""The docs site for the tests that read it, built once per run, in the background from the start.

Building the site is a minute of Sphinx. Run inside the ``docs_site`` fixture, it holds one test
worker for that minute while the other waits on browsers and kernels; started as the run starts
(``start``, from ``pytest_sessionstart`` in tests/conftest.py, in the process that schedules the
run: xdist's controller, or the only process), it uses the CPU those waits leave idle, and the
docs-site tests are handed out after the browser and slow ones (tests/conftest.py), by when it is
done. ``site`` (the fixture's) waits for that build, or builds now when none was started: a run
with ``-m``, ``-k`` or paths that leave the docs-site tests out starts none.

Run as a script (``python tests/docs/site_build.py OUT``), it builds into OUT and writes the
outcome to ``OUT.outcome.json`` (atomically, whatever happens), which ``site`` waits for.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS_TESTS = ROOT / "tests" / "docs" / "test_docs_site.py"
BUILDING = "TAPEVIZ_DOCS_BUILDING"  # the folder a background build writes into, for the workers
TIMEOUT_S = 900
_TAIL = 4000  # characters of the build's output kept for a failure's message


def command(out):
    """The build, as ``./dev.sh docs`` runs it (warnings as errors); -E reads every page again."""
    return [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-b", "html", "-q", "docs", str(out)]


def _environment():
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _outcome_file(out):
    return Path(f"{out}.outcome.json")


def build(out):
    """Build into ``out`` now: ``(returncode, the tail of stdout and stderr)``."""
    try:
        done = subprocess.run(
            command(out), cwd=ROOT, env=_environment(), capture_output=True, text=True, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        return -1, f"the docs build ran past {TIMEOUT_S} s"
    return done.returncode, f"{done.stdout[-_TAIL:]}\n{done.stderr[-_TAIL:]}"


def _selected(config):
    """True when the run includes the docs-site tests: no -m or -k, and a path that holds them."""
    if config.option.markexpr or config.option.keyword or config.option.collectonly:
        return False
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0]).resolve()
        if path == DOCS_TESTS or path in DOCS_TESTS.parents:
            return True
    return False


class Background:
    """A build running beside the tests: its process, and the temporary folder it made (or None)."""

    def __init__(self, process, scratch):
        self.process = process
        self.scratch = scratch

    def stop(self):
        """At the run's end: a build still running (the run stopped early) is ended, a temporary site removed."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


def start(config):
    """Start the background build when this run reads the site and Sphinx is installed: a ``Background``, else None."""
    if hasattr(config, "workerinput") or BUILDING in os.environ or not _selected(config):
        return None
    if importlib.util.find_spec("sphinx") is None:
        return None  # the fixture skips, saying why
    given = os.environ.get("TAPEVIZ_DOCS_OUT")
    scratch = None if given else Path(tempfile.mkdtemp(prefix="tapeviz-site-"))
    out = Path(given).resolve() if given else scratch / "html"
    _outcome_file(out).unlink(missing_ok=True)
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__)), str(out)],
        cwd=ROOT,
        env=_environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.environ[BUILDING] = str(out)  # workers start after this hook and inherit it
    return Background(process, scratch)


def site(tmp_path_factory):
    """The built site's folder: the background build's once it is done, else one built now.

    Raises AssertionError with the build's output when it failed.
    """
    started = os.environ.get(BUILDING)
    if started:
        out = Path(started)
        outcome = _outcome_file(out)
        deadline = time.monotonic() + TIMEOUT_S
        while not outcome.exists():
            assert time.monotonic() < deadline, f"the background docs build wrote no outcome in {TIMEOUT_S} s"
            time.sleep(0.5)
        returncode, output = json.loads(outcome.read_text(encoding="utf-8"))
    else:
        given = os.environ.get("TAPEVIZ_DOCS_OUT")
        out = Path(given).resolve() if given else tmp_path_factory.mktemp("site")
        returncode, output = build(out)
    assert returncode == 0, f"the docs build failed:\n{output}"
    return out


def _main(out):
    returncode, output = -1, "the build did not finish"
    try:
        returncode, output = build(out)
    finally:
        outcome = _outcome_file(out)
        temporary = outcome.with_suffix(".tmp")
        temporary.write_text(json.dumps([returncode, output]), encoding="utf-8")
        os.replace(temporary, outcome)


if __name__ == "__main__":
    _main(Path(sys.argv[1]))
