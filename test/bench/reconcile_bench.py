#!/usr/bin/python3
"""TrainJobs reconciled per second: the controller through the API server (cluster mode) against
the controller on the store directly (embedded mode), and the controller's peak RSS.

    python3 test/bench/reconcile_bench.py [N ...]        (default: 1000 10000)

Run by hand from a build tree (build/bin/trainer-operator, build/lib/trainer-operator/plugins);
loopback only; standard library + PyYAML. Per N:
  prepare   `trainer-operator apiserver` alone on a fresh store; namespace kubeflow-system, the
            ClusterTrainingRuntime of examples/10-runtime-torch-distributed.yaml and N minimal
            TrainJobs (namespace default) created through the API (keep-alive HTTPS, a few
            threads); SIGTERM; the store file is copied for every run, so each starts cold over
            the same N stored TrainJobs and no JobSet.
  embedded  `run --store COPY --api-bind-address 0` (no API served).
  cluster   `apiserver --store COPY` (started and ready before the clock starts), then
            `run --kubeconfig K --webhook-cert-management none` (neither mode serves webhooks).
Both use a Configuration with leaderElection.leaderElect: false and otherwise the defaults
(1 TrainJob worker; cluster mode's client is rate-limited at clientConnection qps 50, burst 100;
--qps Q changes that). Cluster mode's client logs its requests (TRAINER_CLIENT_REQUEST_LOG) and
the summary after the table counts them by verb and resource.
Seconds run from the controller's start until the store holds N JobSets, polled every 100 ms with
a read-only SQLite connection (the store is WAL; see JobSetCounter); the controller's VmHWM
(/proc/PID/status) is read at that moment. A run that does not finish within its time limit
reports what it reached; a failure is printed and the script still exits 0.
"""

import argparse
import base64
import http.client
import json
import os
import shutil
import signal
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import threading
import time

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(REPO, "build", "bin", "trainer-operator")  # --build-dir DIR: DIR/bin/...
PLUGINS = os.path.join(REPO, "build", "lib", "trainer-operator", "plugins")
RUNTIME_YAML = os.path.join(REPO, "examples", "10-runtime-torch-distributed.yaml")
NAMESPACE = "default"
JOBSET_API = "jobset.x-k8s.io/v1alpha2"
POLL_SECONDS = 0.1
KEEP = False  # --keep: leave every store in the work directory
METRICS = "0"  # --cache-metrics: the controllers' /metrics on a free loopback port
CONFIGURATION = """apiVersion: config.trainer.kubeflow.org/v1alpha1
kind: Configuration
leaderElection:
  leaderElect: false
"""


# ---------------------------------------------------------------- processes


def start(args, log_path, env=None):
    """Starts a trainer-operator command with its output in log_path."""
    log = open(log_path, "wb")
    try:
        return subprocess.Popen([BIN] + args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=dict(os.environ, **(env or {})))
    finally:
        log.close()


def stop(proc, grace=60):
    """SIGTERM, then SIGKILL after `grace` seconds; returns the exit code."""
    if proc is None or proc.poll() is not None:
        return None if proc is None else proc.returncode
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(30)


def proc_status(pid):
    """VmHWM and VmRSS of a process in MB (None when it is gone)."""
    out = {"VmHWM": None, "VmRSS": None}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in out:
                    out[key] = int(value.split()[0]) / 1024.0
    except OSError:
        pass
    return out


def cpu_seconds(pid):
    """User + system CPU seconds of a process so far (None when it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def copy_store(src, dst):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(src + suffix):
            shutil.copyfile(src + suffix, dst + suffix)


# ---------------------------------------------------------------- the API


class Api:
    """A keep-alive HTTPS client per thread from an admin kubeconfig (CA data, bearer token)."""

    def __init__(self, kubeconfig_path):
        with open(kubeconfig_path) as f:
            kc = yaml.safe_load(f)
        cluster = kc["clusters"][0]["cluster"]
        server = cluster["server"]
        assert server.startswith("https://"), server
        hostport = server[len("https://"):].rstrip("/")
        self.host, _, port = hostport.rpartition(":")
        self.port = int(port)
        self.token = kc["users"][0]["user"]["token"]
        self.ctx = ssl.create_default_context(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
        self.local = threading.local()

    def _conn(self):
        c = getattr(self.local, "conn", None)
        if c is None:
            c = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=60)
            self.local.conn = c
        return c

    def request(self, method, path, body=None):
        """(status, parsed body or text); one reconnect on a dropped connection."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": "Bearer " + self.token, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(2):
            conn = self._conn()
            try:
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                raw = resp.read()
                break
            except (http.client.HTTPException, OSError):
                conn.close()
                self.local.conn = None
                if attempt == 1:
                    raise
        try:
            return resp.status, json.loads(raw)
        except ValueError:
            return resp.status, raw.decode(errors="replace")


def wait_ready(proc, kubeconfig_path, limit=120):
    """Waits for the kubeconfig file and GET /readyz 200; returns an Api or raises."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("apiserver exited with %s" % proc.returncode)
        if os.path.exists(kubeconfig_path):
            try:
                api = Api(kubeconfig_path)
                if api.request("GET", "/readyz")[0] == 200:
                    return api
            except (OSError, http.client.HTTPException, ValueError, KeyError, TypeError):
                pass
        time.sleep(0.1)
    raise RuntimeError("apiserver not ready within %d s" % limit)


def start_apiserver(store, kubeconfig_path, log_path):
    proc = start(["apiserver", "--store", store, "--plugin-dir", PLUGINS, "--api-bind-address", "127.0.0.1:0",
                  "--write-kubeconfig", kubeconfig_path, "--watch-retention", "1000000"], log_path)
    try:
        return proc, wait_ready(proc, kubeconfig_path)
    except Exception:
        stop(proc)
        raise


# ---------------------------------------------------------------- preparation


def trainjob(i):
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "bench-%06d" % i, "namespace": NAMESPACE},
        "spec": {
            "runtimeRef": {"name": "torch-distributed", "kind": "ClusterTrainingRuntime",
                           "apiGroup": "trainer.kubeflow.org"},
            "trainer": {"numNodes": 1},
        },
    }


def create(api, path, obj):
    status, body = api.request("POST", path, obj)
    if status not in (201, 409):
        raise RuntimeError("POST %s: %d %s" % (path, status, str(body)[:300]))


def create_trainjobs(api, n, threads):
    path = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/%s/trainjobs" % NAMESPACE
    errors = []

    def worker(k):
        try:
            for i in range(k, n, threads):
                create(api, path, trainjob(i))
        except Exception as e:  # reported by the caller
            errors.append(e)

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise errors[0]


def prepare(n, work, threads):
    """A store with the runtime and N TrainJobs, written through the API; returns (path, rate)."""
    store = os.path.join(work, "prepared-%d.db" % n)
    kubeconfig = store + ".kubeconfig"
    proc, api = start_apiserver(store, kubeconfig, os.path.join(work, "prepare-%d.log" % n))
    try:
        create(api, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                           "metadata": {"name": "kubeflow-system"}})
        with open(RUNTIME_YAML) as f:
            create(api, "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes", yaml.safe_load(f))
        t0 = time.monotonic()
        create_trainjobs(api, n, threads)
        rate = n / (time.monotonic() - t0)
    finally:
        code = stop(proc)
    if code != 0:
        raise RuntimeError("apiserver (prepare) exited with %s" % code)
    stored = count(store, "trainer.kubeflow.org/v1alpha1", "TrainJob")
    if stored != n:
        raise RuntimeError("prepared store holds %d TrainJobs, want %d" % (stored, n))
    return store, rate


# ---------------------------------------------------------------- measurement


def connect_ro(path):
    return sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=10)


def count_on(db, api_version, kind):
    # The primary key starts with (api_version, kind): a range, not a scan of every object.
    return db.execute("SELECT count(*) FROM objects WHERE api_version=? AND kind=?", (api_version, kind)).fetchone()[0]


def count(path, api_version, kind):
    db = connect_ro(path)
    try:
        return count_on(db, api_version, kind)
    finally:
        db.close()


class JobSetCounter:
    """The JobSets in a store, cheaply per poll: the objects table's count once, then the JobSets
    the change feed (table changes; revision is its integer primary key; type 0 is ADDED) added
    since the last poll, a range of new rows instead of a count over every JobSet (40 ms a poll
    at 10000, a third of a core at 100 ms); the objects count confirms once the feed says N."""

    def __init__(self, path):
        self.db = connect_ro(path)
        self.since = self.db.execute("SELECT coalesce(max(revision), 0) FROM changes").fetchone()[0]
        self.count = count_on(self.db, JOBSET_API, "JobSet")

    def poll(self, n):
        upto = self.db.execute("SELECT coalesce(max(revision), 0) FROM changes").fetchone()[0]
        self.count += self.db.execute(
            "SELECT count(*) FROM changes WHERE revision > ? AND revision <= ? AND type = 0 AND api_version = ? "
            "AND kind = ?", (self.since, upto, JOBSET_API, "JobSet")).fetchone()[0]
        self.since = upto
        if self.count >= n:
            self.count = count_on(self.db, JOBSET_API, "JobSet")
        return self.count

    def close(self):
        self.db.close()


def measure(controller, store, n, limit):
    """Polls the store until it holds N JobSets or the limit; the controller's memory then."""
    counter = JobSetCounter(store)
    t0 = time.monotonic()
    reached, poll_cost, polls = counter.count, 0.0, 0
    try:
        while reached < n:
            if controller.poll() is not None or time.monotonic() - t0 > limit:
                break
            time.sleep(POLL_SECONDS)
            p0 = time.monotonic()
            try:
                reached = counter.poll(n)
            except sqlite3.OperationalError:
                pass  # busy during a checkpoint: next poll
            poll_cost += time.monotonic() - p0
            polls += 1
    finally:
        counter.close()
    seconds = time.monotonic() - t0
    mem = proc_status(controller.pid)
    return {"seconds": seconds, "reached": reached, "done": reached >= n, "hwm": mem["VmHWM"],
            "cpu": cpu_seconds(controller.pid), "exited": controller.returncode,
            "poll_ms": 1000 * poll_cost / max(polls, 1)}


def run_embedded(prepared, n, work, tag, config, limit):
    store = os.path.join(work, "embedded-%s.db" % tag)
    copy_store(prepared, store)
    ctl = start(["run", "--store", store, "--plugin-dir", PLUGINS, "--config", config, "--api-bind-address", "0",
                 "--health-probe-bind-address", "0", "--metrics-bind-address", METRICS],
                os.path.join(work, "embedded-%s.log" % tag))
    try:
        r = measure(ctl, store, n, limit)
    finally:
        stop(ctl)
        if not KEEP:
            remove_store(store)
    r["apiserver_hwm"], r["apiserver_cpu"] = None, None
    r["log"] = log_summary(os.path.join(work, "embedded-%s.log" % tag), r["seconds"])
    return r


def run_cluster(prepared, n, work, tag, config, limit):
    store = os.path.join(work, "cluster-%s.db" % tag)
    kubeconfig = store + ".kubeconfig"
    copy_store(prepared, store)
    server, _ = start_apiserver(store, kubeconfig, os.path.join(work, "cluster-apiserver-%s.log" % tag))
    server_cpu0 = cpu_seconds(server.pid) or 0.0
    ctl = None
    try:
        requests = os.path.join(work, "cluster-requests-%s.txt" % tag)
        ctl = start(["run", "--kubeconfig", kubeconfig, "--plugin-dir", PLUGINS, "--config", config,
                     "--webhook-cert-management", "none",
                     "--health-probe-bind-address", "0", "--metrics-bind-address", METRICS],
                    os.path.join(work, "cluster-%s.log" % tag), {"TRAINER_CLIENT_REQUEST_LOG": requests})
        r = measure(ctl, store, n, limit)
        r["apiserver_hwm"] = proc_status(server.pid)["VmHWM"]
        r["apiserver_cpu"] = cpu_seconds(server.pid) - server_cpu0
        cache = cache_bytes(os.path.join(work, "cluster-%s.log" % tag)) if METRICS != "0" else ""
    finally:
        stop(ctl)
        stop(server)
        if not KEEP:
            remove_store(store)
    r["log"] = log_summary(os.path.join(work, "cluster-%s.log" % tag), r["seconds"])
    r["log"] += request_summary(requests, n) + cache
    return r


# ---------------------------------------------------------------- the controller's log


def log_summary(path, seconds):
    """What the controller's JSON log says: TrainJob reconciles, their busy time, non-info lines."""
    reconciles, busy, durations, others = 0, 0.0, [], {}
    try:
        with open(path, errors="replace") as f:
            for line in f:
                try:
                    d = json.loads(line)
                except ValueError:
                    others["(not JSON) " + line.strip()[:100]] = others.get("(not JSON) " + line.strip()[:100], 0) + 1
                    continue
                if d.get("msg") == "Reconciled" and d.get("controller") == "trainjob":
                    reconciles += 1
                    s = float(d.get("seconds", 0))
                    busy += s
                    durations.append(s)
                elif d.get("level") not in ("info", "debug"):
                    key = "%s %s: %s" % (d.get("level"), d.get("msg"), str(d.get("error", ""))[:100])
                    others[key] = others.get(key, 0) + 1
    except OSError:
        return "no log"
    durations.sort()
    text = "%d TrainJob reconciles, worker busy %.0f%% of the run" % (reconciles, 100 * busy / max(seconds, 1e-9))
    if durations:
        p99 = durations[min(len(durations) - 1, int(0.99 * len(durations)))]
        text += ", reconcile median %.1f ms, p99 %.1f ms" % (1000 * durations[len(durations) // 2], 1000 * p99)
    for key, k in sorted(others.items(), key=lambda kv: -kv[1])[:5]:
        text += "\n           %dx %s" % (k, key)
    return text


def request_summary(path, n):
    """The cluster-mode client's requests (TRAINER_CLIENT_REQUEST_LOG), by verb and resource."""
    counts, total = {}, 0
    try:
        with open(path, errors="replace") as f:
            for line in f:
                method, _, target = line.strip().partition(" ")
                target, _, query = target.partition("?")
                segments = ["NAME" if s.startswith("bench-") else s for s in target.split("/")]
                key = "%s %s%s" % (method, "/".join(segments), "?watch" if "watch=true" in query else "")
                counts[key] = counts.get(key, 0) + 1
                total += 1
    except OSError:
        return ""
    text = "\n           %d API requests (%.1f per TrainJob)" % (total, total / max(n, 1))
    for key, k in sorted(counts.items(), key=lambda kv: -kv[1])[:6]:
        text += "\n           %6d %s" % (k, key)
    return text


def cache_bytes(log_path):
    """trainer_informer_cache_bytes from the controller's /metrics (its port from its log)."""
    port = None
    with open(log_path, errors="replace") as f:
        for line in f:
            if '"Serving"' in line and '"metrics"' in line:
                port = json.loads(line).get("port")
    if not port:
        return "\n           no metrics server in the log"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode(errors="replace")
    except (OSError, http.client.HTTPException) as e:
        return "\n           /metrics: %s" % e
    finally:
        conn.close()
    # trainer_informer_cache_bytes{kind="jobsets.jobset.x-k8s.io"} 123 (updated every 2 s)
    gauges = [(line.split('"')[1].split(".")[0], float(line.rsplit(" ", 1)[1])) for line in text.splitlines()
              if line.startswith("trainer_informer_cache_bytes{") and '"' in line]
    return "\n           informer cache %.1f MB of JSON: %s" % (sum(b for _, b in gauges) / 2**20, ", ".join(
        "%s %.1f MB" % (kind, b / 2**20) for kind, b in gauges if b > 0))


def remove_store(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


# ---------------------------------------------------------------- report


def mb(v):
    return "-" if v is None else "%.1f" % v


def median_run(runs):
    """The run of median seconds (finished runs first)."""
    ordered = sorted(runs, key=lambda r: (not r["done"], r["seconds"]))
    return ordered[(len(ordered) - 1) // 2] if all(r["done"] for r in runs) else ordered[-1]


def row(n, mode, runs):
    r = median_run(runs)
    rate = r["reached"] / r["seconds"] if r["seconds"] > 0 else 0.0
    note = "" if r["done"] else "TIMEOUT: %d/%d JobSets" % (r["reached"], n)
    if r["exited"] is not None:
        note += " controller exited %s" % r["exited"]
    if len(runs) > 1:
        note += " median of %d: %s s" % (len(runs), ", ".join("%.1f" % x["seconds"] for x in runs))
    print("%7d  %-8s  %8.1f  %9.1f  %9s  %9s  %7.1f  %s" % (
        n, mode, r["seconds"], rate, mb(r["hwm"]), mb(r["apiserver_hwm"]), r["poll_ms"], note.strip()), flush=True)
    return r


HEADER_PRINTED = False


def bench(n, opts, work, config, logs):
    """Both modes over one prepared store of N TrainJobs; prints their rows and the ratio."""
    global HEADER_PRINTED
    limit = opts.timeout or max(120.0, 0.12 * n)
    repeats = opts.repeats or (3 if n <= 1000 else 1)
    prepared, rate = prepare(n, work, opts.threads)
    try:
        print("N=%d: %d TrainJobs created through the API at %.0f/s" % (n, n, rate), flush=True)
        if not HEADER_PRINTED:
            HEADER_PRINTED = True
            print("%7s  %-8s  %8s  %9s  %9s  %9s  %7s  %s" % (
                "N", "mode", "seconds", "TrainJob/s", "ctl MB", "apisrv MB", "poll ms", "notes"), flush=True)
        results = {}
        for mode, fn in (("embedded", run_embedded), ("cluster", run_cluster)):
            runs = [fn(prepared, n, work, "%d-%d" % (n, i), config, limit) for i in range(repeats)]
            r = results[mode] = row(n, mode, runs)
            cpu = "controller CPU %s s" % ("-" if r["cpu"] is None else "%.1f" % r["cpu"])
            if r["apiserver_cpu"] is not None:
                cpu += ", apiserver CPU %.1f s" % r["apiserver_cpu"]
            logs.append("%7d  %-8s  %s; %s" % (n, mode, cpu, r["log"]))
        e, c = results["embedded"], results["cluster"]
        if e["done"] and c["done"]:
            print("%7d  ratio cluster/embedded: time %.2fx, TrainJobs/s %.2fx, controller peak RSS %.2fx" % (
                n, c["seconds"] / e["seconds"], e["seconds"] / c["seconds"], (c["hwm"] or 0) / (e["hwm"] or 1)),
                flush=True)
    finally:
        if not opts.keep:
            remove_store(prepared)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="*", type=int, default=[1000, 10000], help="numbers of TrainJobs (default 1000 10000)")
    ap.add_argument("--repeats", type=int, default=0,
                    help="runs per mode and N, median reported (default: 3 for N <= 1000, else 1)")
    ap.add_argument("--timeout", type=float, default=0,
                    help="seconds per run (default: max(120, 0.12 s per TrainJob): 20 minutes at 10000)")
    ap.add_argument("--threads", type=int, default=4, help="client threads creating the TrainJobs (default 4)")
    ap.add_argument("--qps", type=float, default=None,
                    help="clientConnection.qps of the Configuration (cluster mode's client; default 50, 0: unlimited)")
    ap.add_argument("--cache-metrics", action="store_true",
                    help="serve the controllers' /metrics on loopback and report cluster mode's informer cache bytes")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                    help="the build tree with bin/trainer-operator and lib/trainer-operator/plugins (default: build)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (stores and logs)")
    opts = ap.parse_args()
    global KEEP, METRICS, BIN, PLUGINS
    BIN = os.path.join(opts.build_dir, "bin", "trainer-operator")
    PLUGINS = os.path.join(opts.build_dir, "lib", "trainer-operator", "plugins")
    KEEP = opts.keep
    METRICS = "127.0.0.1:0" if opts.cache_metrics else "0"
    for path in (BIN, PLUGINS, RUNTIME_YAML):
        if not os.path.exists(path):
            print("missing %s (build the tree first)" % path, file=sys.stderr)
            return 0
    work = tempfile.mkdtemp(prefix="reconcile_bench.")
    config = os.path.join(work, "config.yaml")
    with open(config, "w") as f:
        f.write(CONFIGURATION)
        if opts.qps is not None:
            f.write("clientConnection:\n  qps: %s\n" % opts.qps)
    built = os.stat(BIN).st_mtime
    print("work directory: %s; %d CPUs; load average %s; %s built %s" % (
        work, os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg()), BIN,
        time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(built))), flush=True)
    logs = []
    try:
        for n in opts.n:
            try:
                bench(n, opts, work, config, logs)
            except Exception as e:  # a failed N is reported, the next one still runs
                print("%7d  failed: %s: %s" % (n, type(e).__name__, e), flush=True)
    finally:
        if not opts.keep:
            for name in os.listdir(work):
                if name.endswith((".db", ".db-wal", ".db-shm")):
                    os.remove(os.path.join(work, name))
        if os.path.exists(BIN) and os.stat(BIN).st_mtime != built:
            print("WARNING: %s was rebuilt during the benchmark; runs may mix two builds" % BIN)
        print("load average at the end: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
        print("\nthe controller's log (the median run):")
        print("\n".join(logs))
        print("logs in %s" % work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
