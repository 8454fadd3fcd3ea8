"""JupyterHub on one machine for a class: every student gets the tapeviz lessons.

    pip install 'tapeviz[lessons]' jupyterhub            # (from a wheel or a clone: see docs/teaching.md)
    npm install -g configurable-http-proxy
    jupyterhub -f deploy/jupyterhub/jupyterhub_config.py

Students log in at http://SERVER:8000 and land in JupyterLab with ~/tapeviz-lessons: the lessons are
copied there when their server starts, and a notebook a student edited is never overwritten (a new
tapeviz puts its version beside it as NAME.new.ipynb).

As written it is a trial setup: anyone who knows TAPEVIZ_HUB_PASSWORD gets in (every name is a new
user; without the variable, DummyAuthenticator lets in anyone), and each server runs as the hub's own
Unix user, its home in
/tmp/tapeviz-hub/<name> (SimpleLocalProcessSpawner). For a real class, with one Unix account per
student, uncomment the two PAM lines below and run the hub as root: LocalProcessSpawner then starts each
server as its student, in the student's home. tests/lessons/test_jupyterhub.py runs this file (on 127.0.0.1).
"""

import asyncio
import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (JupyterHub defines it)

c.JupyterHub.bind_url = os.environ.get("TAPEVIZ_HUB_URL", "http://:8000")

# Who may log in: with TAPEVIZ_HUB_PASSWORD (8+ characters), any name with that password (and the
# teacher, an admin, with TAPEVIZ_HUB_ADMIN_PASSWORD, 32+); without it, any name and any password.
c.Authenticator.admin_users = {"teacher"}
if os.environ.get("TAPEVIZ_HUB_PASSWORD"):
    c.JupyterHub.authenticator_class = "shared-password"
    c.SharedPasswordAuthenticator.user_password = os.environ["TAPEVIZ_HUB_PASSWORD"]
    c.SharedPasswordAuthenticator.admin_password = os.environ.get("TAPEVIZ_HUB_ADMIN_PASSWORD", "")
    c.Authenticator.allow_all = True
else:
    c.JupyterHub.authenticator_class = "dummy"  # a trial, on a machine only you can reach
# c.JupyterHub.authenticator_class = "pam"            # one Unix account per student
# c.JupyterHub.spawner_class = "localprocess"

# Where each student's server runs.
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = os.environ.get("TAPEVIZ_HUB_HOMES", "/tmp/tapeviz-hub") + "/{username}"
c.Spawner.default_url = "/lab/tree/tapeviz-lessons/01_first_gradient.ipynb"
c.Spawner.http_timeout = 120  # a loaded machine starts 20 servers at once
c.Spawner.start_timeout = 120

if os.geteuid() == 0:  # a hub run as root (in a container): Jupyter refuses root unless told
    c.Spawner.args = ["--allow-root"]

# A shared machine: one BLAS thread per kernel. Twenty kernels each starting one thread per core
# would fight over the cores (docs/teaching.md has the numbers).
c.Spawner.environment = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


async def copy_lessons(spawner):
    """Before a server starts: the lessons into the student's ~/tapeviz-lessons (edits kept).

    In a process of its own, as the student when the hub runs as root (the files are the student's),
    awaited, so that twenty students starting at once do not hold up the hub.
    """
    from jupyterhub.spawner import SimpleLocalProcessSpawner

    if isinstance(spawner, SimpleLocalProcessSpawner):  # every server runs as the hub's user
        home, run_as = Path(spawner.home_dir), []
    else:  # LocalProcessSpawner: each student's own account
        home, run_as = Path("~" + spawner.user.name).expanduser(), ["runuser", "-u", spawner.user.name, "--"]
    command = [*run_as, sys.executable, "-m", "tapeviz.lessons", str(home / "tapeviz-lessons"), "--no-browser"]
    process = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.DEVNULL)
    if await process.wait() != 0:
        raise RuntimeError(f"copying the lessons for {spawner.user.name} failed: {' '.join(command)}")


c.Spawner.pre_spawn_hook = copy_lessons
