"""The class setup (deploy/jupyterhub/jupyterhub_config.py) on a real JupyterHub, on 127.0.0.1 only.

Three students get tokens through the Hub's REST API, start their servers (SimpleLocalProcessSpawner),
find the lessons in ~/tapeviz-lessons, and run lesson 1 top to bottom through the kernel protocol,
with BLAS on one thread per kernel. The pieces are benchmarks/hub_load.py's, which runs the same
with 20 students. Bounded: every wait has a deadline, and the hub stops its servers at the end.
"""

import asyncio
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import hub_load  # noqa: E402

STUDENTS = ["ada", "grace", "alan"]
BLAS = "import os; assert [os.environ.get(k) for k in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS')] == ['1', '1']"


@pytest.mark.slow  # a hub, three servers, three kernels
def test_three_students_run_lesson_one_on_a_real_hub(tmp_path):
    pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (it comes with the [test] extra)")
    pytest.importorskip("psutil", reason="psutil is not installed (ipykernel brings it)")
    proxy = hub_load.find_proxy()
    if proxy is None:
        pytest.skip(
            "configurable-http-proxy (npm) is not installed: ./dev.sh installs it when npm is there, "
            "or npm install -g configurable-http-proxy"
        )
    cells = [*hub_load.lesson_cells(), BLAS]
    hub = hub_load.Hub(tmp_path, proxy)
    try:

        async def lesson():
            deadline = time.monotonic() + 240
            await hub.wait_up(time.monotonic() + 60)
            return await hub_load.run_class(hub, STUDENTS, cells, deadline)

        students, _elapsed, memory = asyncio.run(lesson())
    finally:
        hub.stop()
    failures = [f for s in students for f in s.failures]
    assert not failures, "\n".join(failures) + "\n" + hub.log_tail()
    for student in students:
        assert len(student.latencies) == len(cells), student.name
        assert student.kernel_rss and student.kernel_rss > 10, "the kernel reported its memory"
        copied = sorted(p.name for p in (tmp_path / "homes" / student.name / "tapeviz-lessons").glob("*.ipynb"))
        assert copied == sorted(p.name for p in hub_load.LESSON.parent.glob("[0-9][0-9]_*.ipynb"))
    assert len(memory["server"]) == len(STUDENTS) and len(memory["kernel"]) == len(STUDENTS)
    assert hub.process.returncode is not None, "the hub stopped"


DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
BLAS_NAMES = ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"]


def test_the_kubernetes_values_and_image_give_each_student_the_lessons_and_one_blas_thread():
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (Jupyter brings it)")
    values = yaml.safe_load((DEPLOY / "kubernetes" / "values.yaml").read_text())
    single = values["singleuser"]
    command = single["lifecycleHooks"]["postStart"]["exec"]["command"]
    assert command[:3] == ["python", "-m", "tapeviz.lessons"] and "--no-browser" in command
    assert single["defaultUrl"].endswith("/tapeviz-lessons/01_first_gradient.ipynb")
    assert command[3] == "/home/jovyan/tapeviz-lessons"
    assert {k: single["extraEnv"][k] for k in BLAS_NAMES} == dict.fromkeys(BLAS_NAMES, "1")
    docker = (DEPLOY / "kubernetes" / "Dockerfile").read_text()
    assert "[lessons]" in docker and all(f"{k}=1" in docker for k in BLAS_NAMES)
    hub = (DEPLOY / "jupyterhub" / "jupyterhub_config.py").read_text()
    assert single["defaultUrl"] in hub and all(k in hub for k in BLAS_NAMES)
