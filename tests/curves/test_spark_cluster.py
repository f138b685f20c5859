"""A real Spark cluster, not a toy: sweeps on a Spark standalone master with two workers.

The module starts a standalone master and two workers (one core, 1 GiB each) on 127.0.0.1 with
the ``spark-class`` script PySpark ships, and waits until the master's web UI reports both
workers alive. Spark allows one SparkContext per process and the suite's ``spark`` fixture may
already hold a ``local[*]`` one, so each sweep on the cluster runs in a driver subprocess (the
venv's python with :data:`DRIVER`), which writes the result table as Parquet for the test to
compare with the same sweep in local mode. Where PySpark ships the Spark Connect server and its
client packages are installed, the same sweep goes through Spark Connect. The robustness test
kills one worker, with its executor, while the sweep runs. Every process started here runs in
its own process group and is stopped by its pid (and its group), also when a test fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from kipviz.curves.summary import CURVES
from kipviz.curves.sweep import grid, sweep
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.workload import Workload

pytestmark = pytest.mark.cluster

MiB = 2**20
HOST = "127.0.0.1"
START_S = 90  # the master and both workers are up in about 10 s on an idle 2-core machine
DRIVER_S = 150
BASE = ConsumerScenario(partitions=12, brokers=3, fetch_max_bytes=2 * MiB,
                        consume_bytes_per_s=20e6, ticks=200, windows=5,
                        workload=Workload(profile="zipf", initial_lag_bytes=2 * MiB))
SMALL = grid(BASE, fetch_max_bytes=[256 * 1024, 1 * MiB, 2 * MiB],
             max_partition_fetch_bytes=[64 * 1024, 1 * MiB])  # 6 configurations
# About 0.35 s each on this machine: 12 of them keep both executors busy for a few seconds.
SLOW = grid(replace(BASE, partitions=1000, ticks=5000),
            fetch_max_bytes=[256 * 1024, 1 * MiB, 4 * MiB],
            max_partition_fetch_bytes=[64 * 1024, 256 * 1024, 512 * 1024, 1 * MiB])
# Small executors, both cores; a lost executor's tasks are retried elsewhere (executor loss
# does not count as a task failure, the limit is for anything else going wrong meanwhile).
# Short-lived JVMs on 2 cores: the client compiler only (-XX:TieredStopAtLevel=1) and one GC
# thread start them in less CPU time than the defaults; each of the cluster's JVMs (master,
# workers, executors, drivers, the Connect server) also maps the class-data archive make built
# (kipviz.curves.spark.archive), as a local session's driver does: the cluster keeps Spark's
# default configuration folder, so their class path is the one the archive was written for.
JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
CLUSTER_CONF = {"spark.executor.memory": "512m", "spark.cores.max": "2",
                "spark.task.maxFailures": "8"}  # the JVM options: Cluster.conf
CONNECT_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"

# The driver: one sweep on the cluster (or through Spark Connect), its table as Parquet and a
# few facts about the run as JSON. Arguments: one JSON object (see _run_driver).
DRIVER = r'''
import json, pickle, sys, time
from pathlib import Path

from kipviz.curves.spark import get_spark
from kipviz.curves.sweep import sweep

args = json.loads(sys.argv[1])
out = Path(args["out"])
configs = pickle.loads(Path(args["configs"]).read_bytes())
spark = get_spark(master=args.get("master"), remote=args.get("remote"),
                  app_name="kipviz-cluster-test", conf=args.get("conf") or {})
facts = {"version": spark.version}
if args.get("executors"):  # classic session: wait for the executors, so both get tasks
    jsc = spark.sparkContext._jsc.sc()
    deadline = time.monotonic() + 90
    while jsc.getExecutorMemoryStatus().size() < args["executors"] + 1:
        if time.monotonic() > deadline:
            sys.exit("executors did not register: %d" % (jsc.getExecutorMemoryStatus().size() - 1))
        time.sleep(0.2)
    facts.update(master=spark.sparkContext.master, app_id=spark.sparkContext.applicationId)
(out.parent / "started").write_text(spark.sparkContext.applicationId if args.get("executors")
                                    else "")  # the kill loop's cue, with the app to look for
begin = time.monotonic()
result = sweep(spark, configs, seed=args["seed"], cache_dir=args.get("cache_dir"),
               partitions=args.get("partitions"))
facts.update(seconds=time.monotonic() - begin, computed=result.computed)
if args.get("executors"):
    tracker = spark.sparkContext.statusTracker()
    stages = [tracker.getStageInfo(s) for j in tracker.getJobIdsForGroup()
              for s in tracker.getJobInfo(j).stageIds]
    facts["failed_tasks"] = sum(s.numFailedTasks for s in stages if s is not None)
    facts["stage_retries"] = sum(s.currentAttemptId for s in stages if s is not None)
result.table.to_parquet(out, index=False)
out.with_suffix(".json").write_text(json.dumps(facts))
spark.stop()
'''


def _spark_home() -> Path:
    """The installed PySpark's folder: its bin/, sbin/ and jars/ are a Spark distribution."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _free_port() -> int:
    """A TCP port free on 127.0.0.1 just now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop ``proc`` and every process under it (a worker's executors and their Python
    workers), each by its pid, then whatever is left in its process group; and reap it."""
    import psutil

    family = []
    if proc.poll() is None:  # once reaped, its pid may name another process
        with contextlib.suppress(psutil.NoSuchProcess):
            family = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    for p in family:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.terminate()
    _, alive = psutil.wait_procs(family, timeout=15)
    for p in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    psutil.wait_procs(alive, timeout=5)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the group is the pid: start_new_session=True
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


@dataclass
class Cluster:
    """A Spark cluster (a standalone master and its workers) on 127.0.0.1, with what is needed
    to reach them."""

    root: Path
    env: dict[str, str]
    port: int
    webui: int
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)  # all, to stop
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    dead: list[subprocess.Popen[bytes]] = field(default_factory=list)  # workers killed here
    java_opts: str = JAVA_OPTS

    @property
    def conf(self) -> dict[str, str]:
        """:data:`CLUSTER_CONF` with this Spark cluster's JVM options for executors and drivers."""
        return {**CLUSTER_CONF, "spark.executor.extraJavaOptions": self.java_opts,
                "spark.driver.extraJavaOptions": self.java_opts}

    @property
    def url(self) -> str:
        return f"spark://{HOST}:{self.port}"

    def start(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        """Start a Spark script in a process group of its own, its output in ``<name>.log``."""
        with (self.root / f"{name}.log").open("ab") as log:
            proc = subprocess.Popen([str(_spark_home() / "bin" / args[0]), *args[1:]],
                                    env=self.env, cwd=self.root, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        return proc

    def start_worker(self) -> subprocess.Popen[bytes]:
        """Start one more worker (1 core, 1 GiB) with a work folder of its own."""
        n = len(self.workers)
        work = self.root / f"work-{n}"
        work.mkdir(exist_ok=True)
        proc = self.start(f"worker-{n}", "spark-class", "org.apache.spark.deploy.worker.Worker",
                          self.url, "--host", HOST, "--cores", "1", "--memory", "1g",
                          "--webui-port", str(_free_port()), "--work-dir", str(work))
        self.workers.append(proc)
        return proc

    def status(self) -> dict[str, Any]:
        """The master's web UI JSON (workers, cores, applications)."""
        with urllib.request.urlopen(f"http://{HOST}:{self.webui}/json/", timeout=5) as r:
            return dict(json.load(r))

    def wait_for_workers(self, n: int, timeout: float = START_S) -> None:
        """Poll the master's JSON until ``n`` workers are alive; raise with the logs if not."""
        deadline = time.monotonic() + timeout
        alive = -1
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError):
                alive = int(self.status().get("aliveworkers", 0))
                if alive == n:
                    return
            if any(p.poll() is not None for p in [self.procs[0], *self.workers]
                   if p not in self.dead):
                break  # the master (started first) or a worker exited
            time.sleep(0.3)
        raise RuntimeError(f"{alive} of {n} workers alive after {timeout} s:\n{self.logs()}")

    def logs(self) -> str:
        """The end of every process's log, for failure messages."""
        return "\n".join(f"--- {p.name}\n" + p.read_text(errors="replace")[-3000:]
                         for p in sorted(self.root.glob("*.log")))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A Spark cluster: a standalone master and two one-core workers on 127.0.0.1, stopped by
    pid after."""
    from kipviz.curves.spark.archive import java_options
    from kipviz.curves.spark.java import ensure_java, wrapped_home

    try:
        java = ensure_java()
    except RuntimeError as err:
        pytest.skip(str(err))
    java_opts = f"{JAVA_OPTS} {java_options(wrapped_home(java))}".strip()
    root = tmp_path_factory.mktemp("cluster")
    for sub in ("local", "logs"):
        (root / sub).mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("SPARK_REMOTE", "KIPVIZ_SPARK_MASTER", "MASTER", "PYSPARK_SUBMIT_ARGS",
                        "SPARK_CONF_DIR")}  # Spark's own (empty) configuration folder
    env.update(SPARK_HOME=str(_spark_home()), JAVA_HOME=str(Path(java).resolve().parent.parent),
               SPARK_LOCAL_IP=HOST, PYSPARK_PYTHON=sys.executable,
               PYSPARK_DRIVER_PYTHON=sys.executable,
               SPARK_LOCAL_DIRS=str(root / "local"), SPARK_LOG_DIR=str(root / "logs"),
               SPARK_DAEMON_MEMORY="512m", SPARK_DAEMON_JAVA_OPTS=java_opts,
               SPARK_CONNECT_MODE="0")
    c = Cluster(root=root, env=env, port=_free_port(), webui=_free_port(), java_opts=java_opts)
    try:
        c.start("master", "spark-class", "org.apache.spark.deploy.master.Master", "--host", HOST,
                "--port", str(c.port), "--webui-port", str(c.webui))
        c.start_worker()
        c.start_worker()
        c.wait_for_workers(2)
        yield c
    finally:
        for proc in reversed(c.procs):
            _stop(proc)


def _run_driver(cluster: Cluster, out: Path, configs: list[Any], *, seed: int = 0,
                **args: Any) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Run :data:`DRIVER` in a subprocess; its result table and facts."""
    out.parent.mkdir(parents=True, exist_ok=True)
    script, pickled = out.parent / "driver.py", out.parent / "configs.pkl"
    script.write_text(DRIVER)
    pickled.write_bytes(pickle.dumps(configs))
    args = {"out": str(out), "configs": str(pickled), "seed": seed, **args}
    log_path = out.with_suffix(".log")
    with log_path.open("wb") as log:
        proc = subprocess.Popen([sys.executable, str(script), json.dumps(args)], env=cluster.env,
                                cwd=out.parent, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        proc.wait(timeout=DRIVER_S)
    except subprocess.TimeoutExpired:
        pass
    finally:
        _stop(proc)
    if proc.returncode != 0 or not out.exists():
        raise AssertionError(f"driver failed ({proc.returncode}):\n"
                             + log_path.read_text(errors="replace")[-6000:]
                             + "\n" + cluster.logs())
    return pd.read_parquet(out), json.loads(out.with_suffix(".json").read_text())


def _assert_same_table(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Value for value: the keys, parameters and summary metrics exactly, and every curve."""
    scalars = [c for c in expected.columns if c not in CURVES]
    pd.testing.assert_frame_equal(got[scalars].reset_index(drop=True),
                                  expected[scalars].reset_index(drop=True),
                                  check_dtype=False, check_exact=True)
    for name in CURVES:
        for a, b in zip(got[name], expected[name], strict=True):
            np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))


def _descendants(proc: subprocess.Popen[bytes]) -> list[Any]:
    """Every live process under ``proc`` (a worker's executor and its Python workers)."""
    import psutil

    try:
        return list(psutil.Process(proc.pid).children(recursive=True))
    except psutil.NoSuchProcess:
        return []


def _runs_python(procs: list[Any], app_id: str) -> bool:
    """Whether a Python worker (a ``mapInPandas`` task) of application ``app_id`` runs among
    ``procs``: one under an executor JVM started for that application (``--app-id``), not a
    Python worker an earlier application's executor left behind while it shut down."""
    import psutil

    for p in procs:
        with contextlib.suppress(psutil.Error):
            if "java" in p.name() and app_id in p.cmdline() and any(
                    "pyspark" in " ".join(q.cmdline()) and "java" not in q.name()
                    for q in p.children(recursive=True)):
                return True
    return False


def test_a_sweep_on_a_standalone_cluster_equals_local_mode(cluster, spark, tmp_path):
    """Six configurations on a master with two workers: the summary table is the local one,
    value for value, and both workers ran executors for it."""
    table, facts = _run_driver(cluster, tmp_path / "cluster" / "table.parquet", SMALL, seed=3,
                               master=cluster.url, conf=cluster.conf, executors=2, partitions=6)
    assert facts["master"] == cluster.url and facts["computed"] == len(SMALL)
    assert facts["failed_tasks"] == facts["stage_retries"] == 0  # nothing retried here
    local = sweep(spark, SMALL, seed=3)
    assert list(table["config_id"]) == list(range(len(SMALL)))
    _assert_same_table(table, local.table)
    apps = {app["id"]: app["name"] for app in cluster.status()["completedapps"]}
    assert apps[facts["app_id"]] == "kipviz-cluster-test"
    for n in (0, 1):  # an executor of the app on each worker
        assert (cluster.root / f"work-{n}" / facts["app_id"]).is_dir()


def _connect_unavailable() -> str | None:
    """Why Spark Connect cannot be tested here, or None."""
    jars = _spark_home() / "jars"
    if not (_spark_home() / "sbin" / "start-connect-server.sh").exists() and not any(
            jars.glob("spark-connect_*.jar")):
        return "this PySpark build ships no Spark Connect server"
    try:
        from pyspark.sql.connect.utils import check_dependencies

        check_dependencies()
    except ImportError as err:
        return f"Spark Connect client packages missing (pip install -e '.[connect]'): {err}"
    return None


def test_the_same_sweep_through_spark_connect_equals_local_mode(cluster, spark, tmp_path):
    """A Spark Connect server, a driver of the standalone Spark cluster, runs the six configurations
    for a client that has no JVM; the table is the local one, value for value."""
    reason = _connect_unavailable()
    if reason:
        pytest.skip(reason)
    port = _free_port()
    server = cluster.start(
        "connect", "spark-submit", "--class", CONNECT_CLASS, "--master", cluster.url,
        "--name", "kipviz-connect-server",
        *(a for k, v in {**cluster.conf, "spark.connect.grpc.binding.port": str(port),
                         "spark.connect.grpc.binding.address": HOST,
                         "spark.ui.enabled": "false"}.items() for a in ("--conf", f"{k}={v}")))
    try:
        deadline = time.monotonic() + START_S
        while True:
            with socket.socket() as s:
                if s.connect_ex((HOST, port)) == 0:
                    break
            if server.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"Spark Connect server did not start:\n{cluster.logs()}")
            time.sleep(0.3)
        table, facts = _run_driver(cluster, tmp_path / "connect" / "table.parquet", SMALL,
                                   seed=3, remote=f"sc://{HOST}:{port}", partitions=6)
    finally:
        _stop(server)
    assert facts["computed"] == len(SMALL)
    status = cluster.status()
    assert "kipviz-connect-server" in {app["name"] for key in ("activeapps", "completedapps")
                                       for app in status[key]}  # the server ran on the cluster
    _assert_same_table(table, sweep(spark, SMALL, seed=3).table)


def test_a_worker_lost_mid_sweep_loses_and_duplicates_nothing(cluster, spark, tmp_path):
    """Twelve slow configurations; the worker that runs the first task is killed (with its
    executor, as when its machine is lost) once that task has started. Spark retries its
    tasks on the other worker: each configuration comes back once, the cache holds exactly one
    file per configuration, and both equal local mode."""
    cluster.wait_for_workers(2)  # a Spark Connect server stopped just before frees its cores
    out = tmp_path / "cluster" / "table.parquet"
    cache = tmp_path / "cluster-cache"
    result: dict[str, Any] = {}
    killed: list[int] = []

    def run() -> None:
        try:
            result["value"] = _run_driver(cluster, out, SLOW, master=cluster.url,
                                          conf=cluster.conf, executors=2, partitions=4,
                                          cache_dir=str(cache))
        except BaseException as err:
            result["error"] = err

    driver = threading.Thread(target=run, daemon=True)
    driver.start()
    try:
        deadline = time.monotonic() + DRIVER_S
        started = out.parent / "started"
        while driver.is_alive() and not killed and time.monotonic() < deadline:
            # Not before both executors registered (a worker killed sooner leaves the driver
            # waiting for an executor that never comes), and only this application's tasks.
            app_id = started.read_text() if started.exists() else ""
            for worker in cluster.workers[:2] if app_id else []:
                family = _descendants(worker)
                if _runs_python(family, app_id):
                    for p in [worker.pid, *(q.pid for q in family)]:  # each by its pid
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(p, signal.SIGKILL)
                    worker.wait(timeout=10)
                    cluster.dead.append(worker)
                    killed.append(worker.pid)
                    break
            time.sleep(0.05)
        driver.join(DRIVER_S)
    finally:
        if killed:  # put a fresh worker in its place for whatever runs next
            cluster.start_worker()
    assert killed, "no task started on a worker before the sweep ended"
    if "error" in result:
        raise result["error"]
    table, facts = result["value"]
    # The killed executor was running a task: Spark retried it, alone or (when the lost
    # executor's shuffle files could not be read) with a new attempt of its stage.
    assert facts["failed_tasks"] + facts["stage_retries"] >= 1, facts
    assert sorted(table["config_id"]) == list(range(len(SLOW)))
    local_cache = tmp_path / "local-cache"
    local = sweep(spark, SLOW, seed=0, cache_dir=local_cache)
    _assert_same_table(table, local.table)
    files = sorted(p.name for p in (cache / "ConsumerScenario").iterdir())
    assert len(files) == len(SLOW) and files == sorted(
        p.name for p in (local_cache / "ConsumerScenario").iterdir())
    for name in files:
        _assert_same_table(pd.read_parquet(cache / "ConsumerScenario" / name),
                           pd.read_parquet(local_cache / "ConsumerScenario" / name))
    cluster.wait_for_workers(2)
