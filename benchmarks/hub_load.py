"""A class on one JupyterHub: N students start their servers and run lesson 1 at once.

    python benchmarks/hub_load.py                 # 20 students (and one alone first, the baseline)
    python benchmarks/hub_load.py --students 5 --deadline 300

Loopback only: a real hub (deploy/jupyterhub/jupyterhub_config.py, with its ports moved to 127.0.0.1,
its database and homes in a temporary folder) behind configurable-http-proxy (npm; on PATH, or in
$VIRTUAL_ENV/node_modules/.bin where ./dev.sh puts it). Each simulated student gets a token through
the Hub's REST API, starts a server there, starts a kernel on it and runs every code cell of lesson 1
top to bottom through the kernel protocol (the server's websocket). BLAS runs on one thread per kernel,
as the config sets for a shared server.

Prints, against one student alone: per-cell latency (p50, p95 over the students), failures (cells
that raised, servers or kernels that did not start), memory per kernel and per server (RSS after the
lesson, and the kernel's peak), the time to get every server up, and the total. Bounded: at most
--students (capped at 50) and --deadline seconds (default 600), after which it stops and reports.

tests/lessons/test_jupyterhub.py uses the same pieces (``Hub``, ``Student``) on three students.
"""

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py"
LESSON = ROOT / "notebooks" / "01_first_gradient.ipynb"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_proxy():
    """configurable-http-proxy: on PATH, or where ./dev.sh installs it (the venv's node_modules)."""
    found = shutil.which("configurable-http-proxy")
    if found:
        return found
    candidate = Path(sys.prefix) / "node_modules" / ".bin" / "configurable-http-proxy"
    return str(candidate) if candidate.exists() else None


def lesson_cells(path=LESSON):
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]


class Hub:
    """A real JupyterHub on 127.0.0.1, started from the class config; stop() ends it and its servers."""

    def __init__(self, workdir, proxy):
        self.workdir = Path(workdir)
        self.port, self.hub_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_hex(32)
        config = self.workdir / "jupyterhub_config.py"
        config.write_text(
            f"load_subconfig({str(CONFIG)!r})\n"
            f"c.JupyterHub.bind_url = {self.url + '/'!r}\n"
            f"c.JupyterHub.hub_bind_url = 'http://127.0.0.1:{self.hub_port}'\n"
            f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{free_port()}'\n"
            f"c.ConfigurableHTTPProxy.command = [{proxy!r}]\n"
            f"c.JupyterHub.db_url = 'sqlite:///{self.workdir / 'hub.sqlite'}'\n"
            f"c.JupyterHub.cookie_secret_file = {str(self.workdir / 'cookie_secret')!r}\n"
            f"c.SimpleLocalProcessSpawner.home_dir_template = {str(self.workdir / 'homes') + '/{username}'!r}\n"
            "c.JupyterHub.services = [{'name': 'class-load', 'api_token': "
            f"{self.token!r}}}]\n"
            "c.JupyterHub.load_roles = [{'name': 'class-load', 'services': ['class-load'], "
            "'scopes': ['admin:users', 'admin:servers', 'tokens', 'list:users']}]\n"
        )
        env = dict(os.environ)
        bindir = str(Path(sys.executable).parent)  # jupyterhub-singleuser, next to this Python
        env["PATH"] = os.pathsep.join([bindir, env.get("PATH", "")])
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        self.log = open(self.workdir / "hub.log", "w")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(config)],
            cwd=self.workdir,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    async def api(self, method, path, token=None, body=None, ok=(200, 201, 202, 204)):
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest

        request = HTTPRequest(
            f"{self.url}/hub/api{path}",
            method=method,
            headers={"Authorization": f"token {token or self.token}"},
            body=None if body is None and method == "GET" else json.dumps(body or {}),
            allow_nonstandard_methods=True,
            request_timeout=120,
        )
        response = await AsyncHTTPClient().fetch(request, raise_error=False)
        if response.code not in ok:
            raise RuntimeError(f"{method} /hub/api{path}: HTTP {response.code} {response.body[:300]!r}")
        return json.loads(response.body) if response.body else None

    async def wait_up(self, deadline):
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyterhub exited ({self.process.returncode}):\n{self.log_tail()}")
            try:
                await self.api("GET", "/")
                return
            except (OSError, RuntimeError):
                await asyncio.sleep(0.5)
        raise TimeoutError(f"the hub did not answer in time:\n{self.log_tail()}")

    def log_tail(self, lines=40):
        if not self.log.closed:
            self.log.flush()
        return "\n".join((self.workdir / "hub.log").read_text(errors="replace").splitlines()[-lines:])

    def memory(self):
        """RSS in MiB of the hub's descendants: {'kernel': [...], 'server': [...], 'proxy': [...]}."""
        import psutil

        found = {"kernel": [], "server": [], "proxy": []}
        for child in psutil.Process(self.process.pid).children(recursive=True):
            try:
                line = " ".join(child.cmdline())
                rss = child.memory_info().rss / 2**20
            except psutil.Error:
                continue
            kind = (
                "kernel"
                if "ipykernel" in line
                else "server"
                if "singleuser" in line
                else "proxy"
                if "http-proxy" in line
                else None
            )
            if kind:
                found[kind].append(rss)
        return found

    def stop(self):
        """SIGTERM: the hub stops every server and the proxy; what is left after 30 s is killed."""
        import psutil

        try:
            children = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.Error:
            children = []
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for child in children:  # servers and kernels the hub could not stop
            try:
                child.kill()
            except psutil.Error:
                pass
        self.log.close()


class Student:
    """One simulated student: a token, a server, a kernel, lesson 1 cell by cell."""

    def __init__(self, hub, name):
        self.hub, self.name = hub, name
        self.latencies, self.failures = [], []
        self.kernel_rss = self.kernel_peak = None
        self.ready_after = None

    async def log_in(self):
        await self.hub.api("POST", f"/users/{self.name}", ok=(201, 409))
        reply = await self.hub.api(
            "POST", f"/users/{self.name}/tokens", body={"note": "class load", "expires_in": 3600}
        )
        self.token = reply["token"]

    async def start_server(self, deadline):
        start = time.monotonic()
        await self.hub.api("POST", f"/users/{self.name}/server", token=self.token, ok=(201, 202, 400))
        while time.monotonic() < deadline:
            user = await self.hub.api("GET", f"/users/{self.name}", token=self.token)
            server = user.get("servers", {}).get("")
            if server and server.get("ready"):
                self.ready_after = time.monotonic() - start
                return
            await asyncio.sleep(0.5)
        raise TimeoutError(f"{self.name}: the server did not start in time")

    async def run_lesson(self, cells, deadline):
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        from tornado.websocket import websocket_connect

        base = f"{self.hub.url}/user/{quote(self.name)}"
        headers = {"Authorization": f"token {self.token}"}
        response = await AsyncHTTPClient().fetch(
            HTTPRequest(
                f"{base}/api/kernels", method="POST", headers=headers, body='{"name": "python3"}', request_timeout=120
            )
        )
        kernel = json.loads(response.body)["id"]
        socket_url = base.replace("http://", "ws://") + f"/api/kernels/{kernel}/channels"
        connection = await websocket_connect(HTTPRequest(socket_url, headers=headers))
        session = uuid.uuid4().hex
        try:
            for index, code in enumerate(cells):
                start = time.monotonic()
                reply, _out = await self._execute(connection, session, code, deadline)
                self.latencies.append(time.monotonic() - start)
                if reply.get("status") != "ok":
                    self.failures.append(f"{self.name} cell {index}: {reply.get('ename')}: {reply.get('evalue')}")
            _reply, out = await self._execute(connection, session, "print(open('/proc/self/status').read())", deadline)
            status = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
            self.kernel_rss = int(status["VmRSS"].split()[0]) / 1024
            self.kernel_peak = int(status["VmHWM"].split()[0]) / 1024
        finally:
            connection.close()

    async def _execute(self, connection, session, code, deadline):
        msg_id = uuid.uuid4().hex
        header = {
            "msg_id": msg_id,
            "username": self.name,
            "session": session,
            "msg_type": "execute_request",
            "version": "5.3",
            "date": "",
        }
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False}
        message = {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": "shell"}
        await connection.write_message(json.dumps(message))
        reply, idle, out = None, False, []
        while reply is None or not idle:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.name}: a cell ran past the deadline")
            raw = await asyncio.wait_for(connection.read_message(), left)
            if raw is None:
                raise ConnectionError(f"{self.name}: the kernel's websocket closed")
            if isinstance(raw, bytes):
                continue  # binary buffers (widgets): not needed here
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["header"]["msg_type"]
            if kind == "execute_reply":
                reply = msg["content"]
            elif kind == "status" and msg["content"].get("execution_state") == "idle":
                idle = True
            elif kind == "stream":
                out.append(msg["content"]["text"])
        return reply, "".join(out)

    async def attend(self, cells, deadline):
        """Log in, start the server, run the lesson; a failure is recorded, never raised."""
        try:
            await self.log_in()
            await self.start_server(deadline)
            await self.run_lesson(cells, deadline)
        except Exception as problem:  # noqa: BLE001 (every failure is counted and reported)
            self.failures.append(f"{self.name}: {type(problem).__name__}: {problem}")

    async def leave(self):
        await self.hub.api("DELETE", f"/users/{self.name}/server", ok=(202, 204, 400, 404))


async def run_class(hub, names, cells, deadline):
    students = [Student(hub, name) for name in names]
    start = time.monotonic()
    await asyncio.gather(*(s.attend(cells, deadline) for s in students))
    elapsed = time.monotonic() - start
    memory = hub.memory()
    await asyncio.gather(*(s.leave() for s in students))
    return students, elapsed, memory


def _percentile(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def report(cells, alone, crowd, n):
    (one,), one_time, _ = alone
    students, total, memory = crowd
    lines = [
        f"| cell | first line | alone (s) | {n} at once p50 (s) | p95 (s) |",
        "|---:|---|---:|---:|---:|",
    ]
    for index, code in enumerate(cells):
        times = [s.latencies[index] for s in students if len(s.latencies) > index]
        first = code.strip().splitlines()[0][:38].replace("|", "\\|") if code.strip() else ""
        solo = one.latencies[index] if len(one.latencies) > index else float("nan")
        lines.append(
            f"| {index} | `{first}` | {solo:.2f} | {_percentile(times, 0.5):.2f} | {_percentile(times, 0.95):.2f} |"
        )
    lesson = [sum(s.latencies) for s in students if len(s.latencies) == len(cells)]
    ready = [s.ready_after for s in students if s.ready_after is not None]
    failures = [f for s in students for f in s.failures]
    rss = [s.kernel_rss for s in students if s.kernel_rss]
    peak = [s.kernel_peak for s in students if s.kernel_peak]
    lines += [
        "",
        f"- lesson 1 ({len(cells)} code cells), whole lesson: alone {sum(one.latencies):.1f} s; "
        f"{n} at once p50 {_percentile(lesson, 0.5):.1f} s, p95 {_percentile(lesson, 0.95):.1f} s",
        f"- server start (REST API to ready): alone {one.ready_after or float('nan'):.1f} s; "
        f"{n} at once p50 {_percentile(ready, 0.5):.1f} s, max {max(ready or [float('nan')]):.1f} s",
        f"- failures: {len(failures)} (alone: {len(one.failures)})" + "".join(f"\n  - {f}" for f in failures[:10]),
        f"- memory per kernel after the lesson: RSS median {_percentile(rss, 0.5):.0f} MiB "
        f"(peak {_percentile(peak, 0.5):.0f} MiB); per single-user server "
        f"{_percentile(memory['server'], 0.5):.0f} MiB; proxy {sum(memory['proxy']):.0f} MiB; "
        f"all {n} students {sum(memory['kernel']) + sum(memory['server']):.0f} MiB",
        f"- total time, {n} students from login to the last cell: {total:.1f} s (one alone: {one_time:.1f} s)",
        f"- machine: {os.cpu_count()} cores, load average before {LOAD_BEFORE}, after {os.getloadavg()[0]:.1f}",
    ]
    return "\n".join(lines), failures


LOAD_BEFORE = None


async def main_async(options):
    global LOAD_BEFORE
    proxy = find_proxy()
    if proxy is None:
        raise SystemExit(
            "configurable-http-proxy not found: npm install -g configurable-http-proxy (or ./dev.sh setup)"
        )
    cells = lesson_cells()
    n = min(options.students, 50)
    deadline = time.monotonic() + options.deadline
    LOAD_BEFORE = f"{os.getloadavg()[0]:.1f}"
    with tempfile.TemporaryDirectory(prefix="tapeviz-hub-") as workdir:
        hub = Hub(workdir, proxy)
        try:
            await hub.wait_up(time.monotonic() + 60)
            alone = await run_class(hub, ["alone"], cells, deadline)
            crowd = await run_class(hub, [f"student{i:02d}" for i in range(n)], cells, deadline)
        finally:
            hub.stop()
        text, failures = report(cells, alone, crowd, n)
        print(text)
        if failures:
            print("\nThe hub's log, last lines:\n" + hub.log_tail())
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=20, help="simulated students at once (at most 50)")
    parser.add_argument("--deadline", type=float, default=600, help="stop after this many seconds")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
