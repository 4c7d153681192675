#!/usr/bin/python3
"""Wire-level protocol tests: `trainer-operator apiserver` spoken to over raw HTTPS (http.client + ssl +
json), checking status codes and metav1.Status bodies the way the real Kubernetes API server writes them.

Usage: protocol_test.py [--bin PATH] [--plugin-dir DIR] [--source-dir DIR] [unittest args]

Defaults come from TRAINER_BIN, TRAINER_PLUGIN_DIR and TRAINER_SOURCE_DIR (CTest sets them, see
CMakeLists.txt here), else the build tree of the checkout this file is in. Standard library only, plus
PyYAML (python3-yaml) to read the kubeconfig and the examples. The last line printed is unittest's
summary; the exit code is non-zero on any failure.

Expected wordings come from the upstream sources, e.g.
  https://github.com/kubernetes/apimachinery/blob/master/pkg/api/errors/errors.go
  https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/rest.go (checkName, transformDecodeError)
  https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/patch.go
  https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/validation/validation.go
  https://github.com/kubernetes/apimachinery/blob/master/pkg/util/managedfields/internal/conflict.go
  https://github.com/kubernetes/apiserver/blob/master/pkg/storage/cacher/watch_cache_history.go (410 Expired)
"""
import argparse
import base64
import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

try:
    import yaml

    IMPORT_ERROR = None
except ImportError as e:  # reported by setUpClass as a failure
    IMPORT_ERROR = ("PyYAML is not importable (%s): scripts/setup.sh installs python3-yaml; run this with "
                    "/usr/bin/python3" % e)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))

NS = "default"
CM = "/api/v1/namespaces/default/configmaps"
PODS = "/api/v1/namespaces/default/pods"
TRAINER = "/apis/trainer.kubeflow.org/v1alpha1"
TJ = TRAINER + "/namespaces/default/trainjobs"
CTR = TRAINER + "/clustertrainingruntimes"
RETENTION_FLAG = "--watch-retention"

NOT_FOUND_ROUTE = "the server could not find the requested resource"
UNKNOWN_FORMAT = "the body of the request was in an unknown format - accepted media types include: "
CONFLICT_TAIL = "the object has been modified; please apply your changes to the latest version and try again"
WEBHOOK_DENIED = 'admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: '
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def parse_args():
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--bin", default=os.environ.get("TRAINER_BIN", os.path.join(SOURCE, "build/bin/trainer-operator")))
    p.add_argument("--plugin-dir", default=os.environ.get(
        "TRAINER_PLUGIN_DIR", os.path.join(SOURCE, "build/lib/trainer-operator/plugins")))
    p.add_argument("--source-dir", default=os.environ.get("TRAINER_SOURCE_DIR", SOURCE))
    return p.parse_known_args()


ARGS, UNITTEST_ARGV = parse_args()


def example(name):
    """The first YAML document of examples/NAME."""
    with open(os.path.join(ARGS.source_dir, "examples", name)) as f:
        return [d for d in yaml.safe_load_all(f) if d][0]


def eventually(pred, limit=30.0, step=0.2):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def q(path, **params):
    """path?params, URL-encoded."""
    return path + ("?" + urllib.parse.urlencode(params) if params else "")


class Response:
    def __init__(self, status, headers, raw):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers}
        self.raw = raw
        try:
            self.json = json.loads(raw) if raw else None
        except ValueError:
            self.json = None

    @property
    def text(self):
        return self.raw.decode("utf-8", "replace")

    def __repr__(self):
        return "HTTP %d %s: %s" % (self.status, self.headers.get("content-type"), self.text[:2000])


class Client:
    """HTTPS to the server, trusting only the kubeconfig's CA (hostname verified)."""

    def __init__(self, host, port, ctx, token):
        self.host, self.port, self.ctx, self.token = host, port, ctx, token

    def connect(self, timeout=60):
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)

    def headers(self, token, content_type, extra):
        h = {"Accept": "application/json"}
        if token:
            h["Authorization"] = "Bearer " + token
        if content_type:
            h["Content-Type"] = content_type
        h.update(extra or {})
        return h

    def request(self, method, path, body=None, content_type=None, headers=None, token=True, timeout=60):
        if token is True:
            token = self.token
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            content_type = content_type or "application/json"
        elif isinstance(body, str):
            body = body.encode()
        conn = self.connect(timeout)
        try:
            conn.request(method, path, body=body, headers=self.headers(token, content_type, headers))
            resp = conn.getresponse()
            return Response(resp.status, resp.getheaders(), resp.read())
        finally:
            conn.close()

    def request_big(self, method, path, body, content_type="application/json"):
        """Sends a large body; a server that answers (and closes) before reading it all is fine."""
        conn = self.connect(60)
        try:
            conn.putrequest(method, path)
            for k, v in self.headers(self.token, content_type, {"Content-Length": str(len(body))}).items():
                conn.putheader(k, v)
            conn.endheaders()
            try:
                for i in range(0, len(body), 65536):
                    conn.sock.sendall(body[i:i + 65536])
            except OSError:
                pass  # the answer may already be waiting
            resp = conn.getresponse()
            return Response(resp.status, resp.getheaders(), resp.read())
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body, **kw):
        return self.request("POST", path, body, **kw)

    def put(self, path, body, **kw):
        return self.request("PUT", path, body, **kw)

    def patch(self, path, body, content_type, **kw):
        return self.request("PATCH", path, body, content_type=content_type, **kw)

    def delete(self, path, body=None, **kw):
        return self.request("DELETE", path, body, **kw)

    def watch(self, path, timeout=60):
        return WatchStream(self, path, timeout)


class WatchStream:
    """A watch response read line by line: one JSON event per line (chunked transfer)."""

    def __init__(self, client, path, timeout):
        self.conn = client.connect(timeout)
        self.conn.request("GET", path, headers=client.headers(client.token, None, None))
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.headers = {k.lower(): v for k, v in self.resp.getheaders()}
        self.started = time.monotonic()

    def next_event(self):
        """The next event (a dict), or None at the end of the stream."""
        while True:
            line = self.resp.readline()
            if not line:
                return None
            if line.strip():
                return json.loads(line)

    def events(self, until=None, limit=None):
        """Events up to (and including) the first for which until(ev) holds, or to the end of the stream."""
        out = []
        while True:
            ev = self.next_event()
            if ev is None:
                return out
            out.append(ev)
            if until and until(ev):
                return out
            if limit and len(out) >= limit:
                return out

    def close(self):
        self.conn.close()


class ApiServer:
    """`trainer-operator apiserver` on its own store in `workdir`, port 0."""

    def __init__(self, workdir, extra=()):
        self.workdir = workdir
        self.kubeconfig = os.path.join(workdir, "kc")
        self.log_path = os.path.join(workdir, "apiserver.log")
        args = [ARGS.bin, "apiserver", "--store", os.path.join(workdir, "s.db"), "--plugin-dir", ARGS.plugin_dir,
                "--api-bind-address", "127.0.0.1:0", "--write-kubeconfig", self.kubeconfig, *extra]
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log, start_new_session=True)

    def log_tail(self, n=6000):
        try:
            with open(self.log_path, "rb") as f:
                self.saved_log = f.read()[-n:].decode("utf-8", "replace")
        except OSError:
            pass  # removed with its directory: the copy taken at stop()
        return getattr(self, "saved_log", "")

    def wait_ready(self):
        """Waits (bounded) for the kubeconfig and /readyz; a Client for the kubeconfig's user."""
        if not eventually(lambda: os.path.exists(self.kubeconfig) or self.proc.poll() is not None, 60, 0.1) \
                or not os.path.exists(self.kubeconfig):
            raise AssertionError("no kubeconfig within 60s (exit %s); log:\n%s" % (self.proc.poll(), self.log_tail()))
        client = client_from_kubeconfig(self.kubeconfig)
        last = [None]

        def ready():
            if self.proc.poll() is not None:
                return True
            try:
                r = client.get("/readyz", token=None, timeout=5)
                last[0] = r
                return r.status == 200
            except (OSError, http.client.HTTPException) as e:
                last[0] = e
                return False

        if not eventually(ready, 60, 0.25) or self.proc.poll() is not None:
            raise AssertionError("/readyz never answered 200 (exit %s, last %r); log:\n%s"
                                 % (self.proc.poll(), last[0], self.log_tail()))
        return client

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self.log.closed:
            self.log.close()
            self.log_tail()
        return self.proc.returncode


def client_from_kubeconfig(path):
    with open(path) as f:
        kc = yaml.safe_load(f)
    ctx_name = kc["current-context"]
    ctx = next(c["context"] for c in kc["contexts"] if c["name"] == ctx_name)
    cluster = next(c["cluster"] for c in kc["clusters"] if c["name"] == ctx["cluster"])
    user = next(u["user"] for u in kc["users"] if u["name"] == ctx["user"])
    url = urllib.parse.urlsplit(cluster["server"])
    assert url.scheme == "https", cluster["server"]
    ca = base64.b64decode(cluster["certificate-authority-data"]).decode()
    ssl_ctx = ssl.create_default_context(cadata=ca)
    ssl_ctx.check_hostname = True
    ssl_ctx.verify_mode = ssl.CERT_REQUIRED
    return Client(url.hostname, url.port, ssl_ctx, user["token"])


def help_text():
    r = subprocess.run([ARGS.bin, "apiserver", "--help"], capture_output=True, text=True, timeout=30)
    return r.stdout + r.stderr


def configmap(name, data=None, labels=None, **meta):
    md = {"name": name}
    if labels is not None:
        md["labels"] = labels
    md.update(meta)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data if data is not None else {"k": name}}


def names(items):
    return sorted(i["metadata"]["name"] for i in items)


class ProtocolTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if IMPORT_ERROR:
            raise AssertionError(IMPORT_ERROR)
        if not os.access(ARGS.bin, os.X_OK):
            raise AssertionError("trainer-operator not built: %s" % ARGS.bin)
        cls.tmp = tempfile.mkdtemp(prefix="trainer-protocol-")
        cls.server = ApiServer(cls.tmp)
        SERVERS.append(cls.server)
        try:
            cls.c = cls.server.wait_ready()
        except Exception:
            cls.server.stop(signal.SIGKILL)
            raise
        cls.kept = {}  # path -> uid of objects that must survive to the end

    @classmethod
    def tearDownClass(cls):
        server = getattr(cls, "server", None)
        if server and server.proc.poll() is None:
            server.stop(signal.SIGKILL)
        if getattr(cls, "tmp", None):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    # ---- assertions ----

    def ok(self, r, code=200, kind=None):
        """r answered `code` with a JSON body (of `kind`); the body."""
        self.assertEqual(r.status, code, r)
        self.assertIsInstance(r.json, dict, r)
        self.assertTrue(r.headers.get("content-type", "").startswith("application/json"), r)
        if kind:
            self.assertEqual(r.json.get("kind"), kind, r)
        return r.json

    def status(self, r, code, reason, message=None, prefix=None, contains=()):
        """r is a failure metav1.Status `code`/`reason` (and message); the Status."""
        self.assertEqual(r.status, code, r)
        self.assertTrue(r.headers.get("content-type", "").startswith("application/json"), r)
        st = r.json
        self.assertIsInstance(st, dict, r)
        self.assertEqual(st.get("kind"), "Status", r)
        self.assertEqual(st.get("apiVersion"), "v1", r)
        self.assertEqual(st.get("status"), "Failure", r)
        self.assertEqual(st.get("code"), code, r)
        self.assertEqual(st.get("reason"), reason, r)
        if message is not None:
            self.assertEqual(st.get("message"), message, r)
        if prefix is not None:
            self.assertTrue(st.get("message", "").startswith(prefix), "%r does not start with %r" % (r, prefix))
        for part in contains:
            self.assertIn(part, st.get("message", ""), r)
        return st

    def not_found(self, r, resource, name, group=""):
        qualified = resource + ("." + group if group else "")
        st = self.status(r, 404, "NotFound", '%s "%s" not found' % (qualified, name))
        self.assertEqual(st.get("details", {}).get("name"), name, r)
        self.assertEqual(st.get("details", {}).get("kind"), resource, r)
        self.assertEqual(st.get("details", {}).get("group", ""), group, r)
        return st

    def route_not_found(self, r, allow_plain=False):
        """404 for a path no resource serves: a NotFound Status (go-restful's routes), or, where the real
        server falls through to Go's http.NotFound (unknown groups, CRD paths), its plain text."""
        if allow_plain and r.status == 404 and r.headers.get("content-type", "").startswith("text/plain"):
            self.assertEqual(r.text, "404 page not found\n", r)
            return
        self.status(r, 404, "NotFound", NOT_FOUND_ROUTE)

    def create(self, path, body, keep=False):
        got = self.ok(self.c.post(path, body), 201)
        if keep:
            self.kept[path + "/" + got["metadata"]["name"]] = got["metadata"]["uid"]
        return got

    def gone(self, path):
        return self.c.get(path).status == 404

    def ensure_trainjob(self, name, **labels):
        body = example("20-trainjob-torch-multi-node.yaml")
        body["metadata"] = {"name": name, "labels": labels}
        r = self.c.post(TJ, body)
        if r.status == 409:
            return self.ok(self.c.get(TJ + "/" + name))
        return self.ok(r, 201, "TrainJob")

    # ---- unauthenticated endpoints and authentication ----

    def test_01_unauthenticated_endpoints(self):
        r = self.c.get("/version", token=None)
        v = self.ok(r)
        for key in ("major", "minor", "gitVersion", "goVersion", "platform"):
            self.assertIn(key, v, r)
        self.assertRegex(v["gitVersion"], r"^v\d+\.\d+\.\d+", r)
        for path in ("/healthz", "/livez", "/readyz"):
            with self.subTest(path=path):
                r = self.c.get(path, token=None)
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.text, "ok", r)

    def test_02_authentication(self):
        for token in (None, "not-the-token"):
            for path in ("/api", "/api/v1/namespaces/default/configmaps", "/apis"):
                with self.subTest(token=token, path=path):
                    st = self.status(self.c.get(path, token=token), 401, "Unauthorized", "Unauthorized")
                    self.assertEqual(st.get("metadata"), {}, st)

    # ---- discovery ----

    def test_03_discovery_core(self):
        r = self.c.get("/api")
        body = self.ok(r, kind="APIVersions")
        self.assertEqual(body["versions"], ["v1"], r)

        r = self.c.get("/api/v1")
        body = self.ok(r, kind="APIResourceList")
        self.assertEqual(body["groupVersion"], "v1", r)
        res = {x["name"]: x for x in body["resources"]}
        for name in ("configmaps", "pods", "pods/status", "namespaces", "secrets", "services", "events"):
            self.assertIn(name, res, sorted(res))
        cm = res["configmaps"]
        self.assertEqual(cm["kind"], "ConfigMap")
        self.assertEqual(cm["singularName"], "configmap")
        self.assertIs(cm["namespaced"], True)
        self.assertEqual(cm.get("shortNames"), ["cm"])
        self.assertEqual(sorted(cm["verbs"]),
                         ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"])
        status = res["pods/status"]
        self.assertEqual(status["kind"], "Pod")
        self.assertIs(status["namespaced"], True)
        self.assertEqual(sorted(status["verbs"]), ["get", "patch", "update"])
        ns = res["namespaces"]
        self.assertIs(ns["namespaced"], False)
        self.assertEqual(ns.get("shortNames"), ["ns"])

    def test_04_discovery_groups(self):
        r = self.c.get("/apis")
        body = self.ok(r, kind="APIGroupList")
        groups = {g["name"]: g for g in body["groups"]}
        for name, version in (("trainer.kubeflow.org", "v1alpha1"), ("apiextensions.k8s.io", "v1"),
                              ("coordination.k8s.io", "v1"), ("jobset.x-k8s.io", "v1alpha2")):
            with self.subTest(group=name):
                self.assertIn(name, groups, sorted(groups))
                g = groups[name]
                self.assertIn({"groupVersion": name + "/" + version, "version": version}, g["versions"], g)
                self.assertEqual(g["preferredVersion"]["groupVersion"], name + "/" + version, g)
        self.assertNotIn("", groups)

        r = self.c.get(TRAINER)
        body = self.ok(r, kind="APIResourceList")
        self.assertEqual(body["groupVersion"], "trainer.kubeflow.org/v1alpha1")
        res = {x["name"]: x for x in body["resources"]}
        tj = res.get("trainjobs")
        self.assertIsNotNone(tj, sorted(res))
        self.assertEqual(tj["kind"], "TrainJob")
        self.assertEqual(tj["singularName"], "trainjob")
        self.assertIs(tj["namespaced"], True)
        self.assertEqual(sorted(tj["verbs"]),
                         ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"])
        self.assertIn("trainjobs/status", res, sorted(res))
        self.assertEqual(res["trainjobs/status"]["kind"], "TrainJob")
        self.assertEqual(sorted(res["trainjobs/status"]["verbs"]), ["get", "patch", "update"])
        self.assertIs(res["clustertrainingruntimes"]["namespaced"], False)

        self.route_not_found(self.c.get("/apis/nope/v1"), allow_plain=True)

    # ---- create / get ----

    def test_05_runtime_and_trainjob(self):
        runtime = example("10-runtime-torch-distributed.yaml")
        got = self.create(CTR, runtime, keep=True)
        self.assertEqual(got["kind"], "ClusterTrainingRuntime")
        self.assertNotIn("namespace", got["metadata"])
        tj = self.ensure_trainjob("proto-tj")
        self.kept[TJ + "/proto-tj"] = tj["metadata"]["uid"]
        self.assertEqual(tj["apiVersion"], "trainer.kubeflow.org/v1alpha1")
        self.assertEqual(tj["metadata"]["namespace"], NS)
        self.assertEqual(tj["spec"]["trainer"]["numNodes"], 3)

    def test_10_create(self):
        r = self.c.post(CM, configmap("proto-cm", {"a": "1"}, {"proto": "yes"}))
        cm = self.ok(r, 201, "ConfigMap")
        self.kept[CM + "/proto-cm"] = cm["metadata"]["uid"]
        self.assertEqual(cm["apiVersion"], "v1")
        md = cm["metadata"]
        self.assertEqual((md["name"], md["namespace"]), ("proto-cm", NS))
        self.assertTrue(md.get("uid"), r)
        self.assertTrue(md.get("resourceVersion"), r)
        self.assertRegex(md.get("creationTimestamp", ""), TIMESTAMP)
        self.assertEqual(cm["data"], {"a": "1"})

        st = self.status(self.c.post(CM, configmap("proto-cm")), 409, "AlreadyExists",
                         'configmaps "proto-cm" already exists')
        self.assertEqual(st["details"]["name"], "proto-cm")
        self.assertEqual(st["details"]["kind"], "configmaps")

        gen = self.ok(self.c.post(CM, {"apiVersion": "v1", "kind": "ConfigMap",
                                       "metadata": {"generateName": "proto-gen-"}}), 201)
        self.assertRegex(gen["metadata"]["name"], r"^proto-gen-[a-z0-9]{5}$")
        self.assertEqual(gen["metadata"]["generateName"], "proto-gen-")
        self.kept[CM + "/" + gen["metadata"]["name"]] = gen["metadata"]["uid"]
        self.ok(self.c.get(CM + "/" + gen["metadata"]["name"]))

        dry = self.ok(self.c.post(q(CM, dryRun="All"), configmap("proto-dry")), 201, "ConfigMap")
        self.assertEqual(dry["metadata"]["name"], "proto-dry")
        self.not_found(self.c.get(CM + "/proto-dry"), "configmaps", "proto-dry")

        st = self.not_found(self.c.post("/api/v1/namespaces/nope/configmaps", configmap("proto-nons")),
                            "namespaces", "nope")
        self.assertEqual(st["details"]["kind"], "namespaces")

        self.status(self.c.post(CM, configmap("proto-elsewhere-ns", namespace="proto-other")), 400, "BadRequest",
                    "the namespace of the provided object does not match the namespace sent on the request")
        self.not_found(self.c.get(CM + "/proto-elsewhere-ns"), "configmaps", "proto-elsewhere-ns")

    def test_11_get(self):
        r = self.c.get(CM + "/proto-cm")
        cm = self.ok(r, kind="ConfigMap")
        self.assertEqual(cm["metadata"]["uid"], self.kept[CM + "/proto-cm"])
        self.assertEqual(cm["data"], {"a": "1"})
        self.not_found(self.c.get(CM + "/proto-absent"), "configmaps", "proto-absent")
        self.not_found(self.c.get(TJ + "/proto-absent"), "trainjobs", "proto-absent", "trainer.kubeflow.org")
        self.not_found(self.c.get(CTR + "/proto-absent"), "clustertrainingruntimes", "proto-absent",
                       "trainer.kubeflow.org")

    # ---- list ----

    def test_12_list_selectors(self):
        for name, labels in (("proto-sel-1", {"app": "web", "tier": "a"}), ("proto-sel-2", {"app": "web", "tier": "b"}),
                             ("proto-sel-3", {"app": "db"}), ("proto-sel-4", {})):
            labels["proto-sel"] = "y"
            self.create(CM, configmap(name, labels=labels), keep=True)
        cases = (("proto-sel,app=web", [1, 2]),
                 ("proto-sel,app==db", [3]),
                 ("proto-sel,app!=web", [3, 4]),
                 ("proto-sel,tier in (a,b)", [1, 2]),
                 ("proto-sel,tier notin (a)", [2, 3, 4]),
                 ("proto-sel,tier", [1, 2]),
                 ("proto-sel,!tier", [3, 4]),
                 ("proto-sel=y,app in (db,web),tier notin (b)", [1, 3]))
        for selector, want in cases:
            with self.subTest(labelSelector=selector):
                r = self.c.get(q(CM, labelSelector=selector))
                body = self.ok(r, kind="ConfigMapList")
                self.assertEqual(body["apiVersion"], "v1")
                self.assertTrue(body["metadata"].get("resourceVersion"), r)
                self.assertEqual(names(body["items"]), ["proto-sel-%d" % i for i in want], r)

        for fields, want in (("metadata.name=proto-sel-2", [2]), ("metadata.name!=proto-sel-2", [1, 3, 4]),
                             ("metadata.namespace=default", [1, 2, 3, 4]), ("metadata.namespace=other", [])):
            with self.subTest(fieldSelector=fields):
                body = self.ok(self.c.get(q(CM, labelSelector="proto-sel", fieldSelector=fields)), kind="ConfigMapList")
                self.assertEqual(names(body["items"]), ["proto-sel-%d" % i for i in want])

        for selector in ("app in (web", "app=web,,", "!!app", "app = (x)"):
            with self.subTest(invalid=selector):
                self.status(self.c.get(q(CM, labelSelector=selector)), 400, "BadRequest")
        self.status(self.c.get(q(CM, fieldSelector="data.k=x")), 400, "BadRequest",
                    '"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"')

    def test_13_pagination_and_all_namespaces(self):
        for i in range(5):
            self.create(CM, configmap("proto-page-%d" % i, labels={"proto-page": "y"}), keep=True)
        full = self.ok(self.c.get(CM), kind="ConfigMapList")
        everything = names(full["items"])
        self.assertGreaterEqual(len(everything), 10)
        for selector in (None, "proto-page"):
            with self.subTest(labelSelector=selector):
                want = everything if selector is None else ["proto-page-%d" % i for i in range(5)]
                seen, token, pages = [], None, 0
                while True:
                    params = {"limit": "2"}
                    if selector:
                        params["labelSelector"] = selector
                    if token:
                        params["continue"] = token
                    r = self.c.get(q(CM, **params))
                    page = self.ok(r, kind="ConfigMapList")
                    self.assertLessEqual(len(page["items"]), 2, r)
                    self.assertTrue(page["metadata"].get("resourceVersion"), r)
                    seen += [i["metadata"]["name"] for i in page["items"]]
                    pages += 1
                    token = page["metadata"].get("continue")
                    if not token:
                        break
                    self.assertEqual(len(page["items"]), 2, r)
                    self.assertLess(pages, 100)
                self.assertEqual(pages, (len(want) + 1) // 2)
                self.assertEqual(sorted(seen), want)
                self.assertEqual(len(seen), len(set(seen)), seen)
        self.status(self.c.get(q(CM, limit="2", **{"continue": "not-a-continue-token"})), 400, "BadRequest",
                    contains=("continue key is not valid",))

        ns = self.create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                "metadata": {"name": "proto-other"}}, keep=True)
        self.assertEqual(ns["kind"], "Namespace")
        self.assertEqual(ns["status"]["phase"], "Active")
        other = "/api/v1/namespaces/proto-other/configmaps"
        self.create(other, configmap("proto-elsewhere", labels={"proto-page": "y"}), keep=True)
        r = self.c.get("/api/v1/configmaps")
        body = self.ok(r, kind="ConfigMapList")
        self.assertTrue(body["metadata"].get("resourceVersion"), r)
        where = {(i["metadata"]["namespace"], i["metadata"]["name"]) for i in body["items"]}
        self.assertIn(("proto-other", "proto-elsewhere"), where)
        self.assertIn((NS, "proto-cm"), where)
        body = self.ok(self.c.get(q("/api/v1/configmaps", labelSelector="proto-page")), kind="ConfigMapList")
        self.assertEqual(len(body["items"]), 6)
        body = self.ok(self.c.get(q("/api/v1/configmaps", fieldSelector="metadata.namespace=proto-other")))
        self.assertEqual([(i["metadata"]["namespace"], i["metadata"]["name"]) for i in body["items"]],
                         [("proto-other", "proto-elsewhere")])

    # ---- update ----

    def test_14_update(self):
        cur = self.ok(self.c.get(CM + "/proto-cm"))
        old_rv = cur["metadata"]["resourceVersion"]
        cur["data"] = {"a": "2"}
        r = self.c.put(CM + "/proto-cm", cur)
        upd = self.ok(r, 200, "ConfigMap")
        self.assertEqual(upd["data"], {"a": "2"})
        self.assertNotEqual(upd["metadata"]["resourceVersion"], old_rv, r)
        self.assertEqual(upd["metadata"]["uid"], cur["metadata"]["uid"])

        stale = dict(cur, data={"a": "stale"})
        stale["metadata"] = dict(cur["metadata"], resourceVersion=old_rv)
        st = self.status(self.c.put(CM + "/proto-cm", stale), 409, "Conflict",
                         'Operation cannot be fulfilled on configmaps "proto-cm": ' + CONFLICT_TAIL)
        self.assertEqual(st["details"]["name"], "proto-cm")
        self.assertEqual(st["details"]["kind"], "configmaps")
        self.assertEqual(self.ok(self.c.get(CM + "/proto-cm"))["data"], {"a": "2"})

        renamed = dict(upd)
        renamed["metadata"] = dict(upd["metadata"], name="proto-other-name")
        self.status(self.c.put(CM + "/proto-cm", renamed), 400, "BadRequest",
                    "the name of the object (proto-other-name) does not match the name on the URL (proto-cm)")
        self.not_found(self.c.get(CM + "/proto-other-name"), "configmaps", "proto-other-name")

        # Without a resourceVersion a ConfigMap update is unconditional; a PUT does not create a ConfigMap.
        cur = self.ok(self.c.get(CM + "/proto-cm"))
        unconditional = dict(cur, data={"a": "3"})
        unconditional["metadata"] = {k: v for k, v in cur["metadata"].items() if k != "resourceVersion"}
        got = self.ok(self.c.put(CM + "/proto-cm", unconditional), 200, "ConfigMap")
        self.assertEqual(got["data"], {"a": "3"})
        self.assertNotEqual(got["metadata"]["resourceVersion"], cur["metadata"]["resourceVersion"])
        self.not_found(self.c.put(CM + "/proto-nothere", configmap("proto-nothere")), "configmaps", "proto-nothere")
        self.not_found(self.c.get(CM + "/proto-nothere"), "configmaps", "proto-nothere")

    # ---- patch ----

    def test_15_patch_merge_json_strategic(self):
        path = CM + "/proto-cm"
        before = self.ok(self.c.get(path))
        r = self.c.patch(path, {"data": {"m": "1", "a": None}, "metadata": {"labels": {"patched": "merge"}}},
                         "application/merge-patch+json")
        got = self.ok(r, kind="ConfigMap")
        self.assertEqual(got["data"], {"m": "1"})
        self.assertEqual(got["metadata"]["labels"], {"proto": "yes", "patched": "merge"})
        self.assertNotEqual(got["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"])

        got = self.ok(self.c.patch(path, [{"op": "add", "path": "/data/j", "value": "2"},
                                          {"op": "test", "path": "/data/m", "value": "1"},
                                          {"op": "replace", "path": "/metadata/labels/patched", "value": "json"}],
                                   "application/json-patch+json"))
        self.assertEqual(got["data"], {"m": "1", "j": "2"})
        self.assertEqual(got["metadata"]["labels"]["patched"], "json")
        rv = got["metadata"]["resourceVersion"]
        st = self.status(self.c.patch(path, [{"op": "test", "path": "/data/j", "value": "wrong"},
                                             {"op": "add", "path": "/data/never", "value": "x"}],
                                      "application/json-patch+json"),
                         422, "Invalid", "the server rejected our request due to an error in our request")
        self.assertNotIn("causes", st.get("details") or {}, st)
        after = self.ok(self.c.get(path))
        self.assertEqual(after["metadata"]["resourceVersion"], rv)
        self.assertNotIn("never", after["data"])
        self.status(self.c.patch(path, "[{\"op\": ", "application/json-patch+json"), 400, "BadRequest")

        got = self.ok(self.c.patch(path, {"data": {"s": "3"}}, "application/strategic-merge-patch+json"))
        self.assertEqual(got["data"], {"m": "1", "j": "2", "s": "3"})
        for ctype in ("application/merge-patch+json", "application/strategic-merge-patch+json"):
            with self.subTest(absent=ctype):
                self.not_found(self.c.patch(CM + "/proto-nothere", {"data": {"x": "1"}}, ctype),
                               "configmaps", "proto-nothere")
        self.not_found(self.c.get(CM + "/proto-nothere"), "configmaps", "proto-nothere")

        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "proto-pod"},
               "spec": {"containers": [{"name": "a", "image": "busybox:1"}, {"name": "b", "image": "busybox:1"}]}}
        self.create(PODS, pod, keep=True)
        got = self.ok(self.c.patch(PODS + "/proto-pod", {"spec": {"containers": [{"name": "b", "image": "busybox:2"}]}},
                                   "application/strategic-merge-patch+json"), kind="Pod")
        self.assertEqual([(c["name"], c["image"]) for c in got["spec"]["containers"]],
                         [("a", "busybox:1"), ("b", "busybox:2")])
        # A merge patch, by contrast, replaces the list.
        got = self.ok(self.c.patch(PODS + "/proto-pod", {"metadata": {"labels": {"x": "y"}}},
                                   "application/merge-patch+json"), kind="Pod")
        self.assertEqual(len(got["spec"]["containers"]), 2)

        self.ensure_trainjob("proto-tj")
        st = self.status(self.c.patch(TJ + "/proto-tj", {"metadata": {"labels": {"x": "y"}}},
                                      "application/strategic-merge-patch+json"), 415, "UnsupportedMediaType",
                         UNKNOWN_FORMAT + "application/json-patch+json, application/merge-patch+json, "
                                          "application/apply-patch+yaml")
        self.assertNotIn("strategic", st["message"])
        self.status(self.c.patch(path, "data: {}", "text/plain"), 415, "UnsupportedMediaType",
                    UNKNOWN_FORMAT + "application/json-patch+json, application/merge-patch+json, "
                                     "application/strategic-merge-patch+json, application/apply-patch+yaml")
        # The TrainJob accepts the other patch types.
        got = self.ok(self.c.patch(TJ + "/proto-tj", {"metadata": {"labels": {"patched": "merge"}}},
                                   "application/merge-patch+json"), kind="TrainJob")
        self.assertEqual(got["metadata"]["labels"]["patched"], "merge")

    def test_16_server_side_apply(self):
        path = CM + "/proto-apply"
        doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: proto-apply\ndata:\n  key: %s\n"
        apply = "application/apply-patch+yaml"
        r = self.c.patch(q(path, fieldManager="mgr-a"), doc % "a", apply)
        got = self.ok(r, 201, "ConfigMap")
        self.kept[path] = got["metadata"]["uid"]
        self.assertEqual(got["data"], {"key": "a"})
        r = self.c.patch(q(path, fieldManager="mgr-a"), doc % "a", apply)
        again = self.ok(r, 200, "ConfigMap")
        self.assertEqual(again["metadata"]["uid"], got["metadata"]["uid"])

        with self.subTest("managedFields after create and re-apply"):
            self.assertEqual(again["metadata"]["resourceVersion"], got["metadata"]["resourceVersion"],
                             "an identical re-apply is a no-op")
            for obj in (got, again):
                managed = obj["metadata"].get("managedFields")
                self.assertEqual([(m["manager"], m["operation"], m.get("fieldsV1")) for m in managed or []],
                                 [("mgr-a", "Apply", {"f:data": {"f:key": {}}})], obj)
        with self.subTest("conflict"):
            st = self.status(self.c.patch(q(path, fieldManager="mgr-b"), doc % "b", apply), 409, "Conflict",
                             'Apply failed with 1 conflict: conflict with "mgr-a": .data.key')
            self.assertEqual(st["details"].get("causes"), [{"reason": "FieldManagerConflict",
                                                            "message": 'conflict with "mgr-a"', "field": ".data.key"}])
        self.assertEqual(self.ok(self.c.get(path))["data"], {"key": "a"})

        r = self.c.patch(q(path, fieldManager="mgr-b", force="true"), doc % "b", apply)
        forced = self.ok(r, 200, "ConfigMap")
        self.assertEqual(forced["data"], {"key": "b"})
        managed = self.ok(self.c.get(path))["metadata"].get("managedFields", [])
        owners = [m["manager"] for m in managed if "f:key" in m.get("fieldsV1", {}).get("f:data", {})]
        self.assertEqual(owners, ["mgr-b"], managed)
        entry = next(m for m in managed if m["manager"] == "mgr-b")
        self.assertEqual((entry["operation"], entry["apiVersion"], entry["fieldsType"]), ("Apply", "v1", "FieldsV1"))
        self.assertRegex(entry.get("time", ""), TIMESTAMP)

        # Real servers answer a missing fieldManager with 422 (ValidatePatchOptions), not 400.
        st = self.status(self.c.patch(path, doc % "c", apply), 422, "Invalid",
                         'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: '
                         'is required for apply patch')
        self.assertEqual([c.get("field") for c in st["details"].get("causes", [])], ["fieldManager"], st)
        self.assertEqual(self.ok(self.c.get(path))["data"], {"key": "b"})

    # ---- status subresource ----

    def test_17_status_subresource(self):
        path = TJ + "/proto-tj"
        cur = self.ok(self.c.get(path))
        spec = json.loads(json.dumps(cur["spec"]))
        cond = {"type": "Complete", "status": "True", "reason": "Proto", "message": "set by protocol_test",
                "lastTransitionTime": "2025-01-01T00:00:00Z"}
        body = json.loads(json.dumps(cur))
        body["status"] = {"conditions": [cond]}
        body["spec"]["suspend"] = not spec.get("suspend", False)
        body["metadata"].setdefault("labels", {})["via-status"] = "ignored"
        r = self.c.put(path + "/status", body)
        got = self.ok(r, 200, "TrainJob")
        self.assertEqual(got["status"].get("conditions"), [cond], r)
        self.assertEqual(got["spec"], spec, r)
        self.assertNotIn("via-status", got["metadata"].get("labels", {}), r)
        self.assertNotEqual(got["metadata"]["resourceVersion"], cur["metadata"]["resourceVersion"])
        st = self.ok(self.c.get(path + "/status"), kind="TrainJob")
        self.assertEqual(st["status"]["conditions"], [cond])

        cond2 = dict(cond, type="Failed", reason="Patched")
        r = self.c.patch(path + "/status", {"status": {"conditions": [cond2]}, "spec": {"suspend": True}},
                         "application/merge-patch+json")
        got = self.ok(r, 200, "TrainJob")
        self.assertEqual(got["status"]["conditions"], [cond2], r)
        self.assertEqual(got["spec"], spec, r)

        cur = self.ok(self.c.get(path))
        body = json.loads(json.dumps(cur))
        body["status"] = {"conditions": [dict(cond, reason="ViaMain")]}
        body["metadata"].setdefault("labels", {})["via-main"] = "kept"
        r = self.c.put(path, body)
        got = self.ok(r, 200, "TrainJob")
        self.assertEqual(got["status"]["conditions"], [cond2], r)
        self.assertEqual(got["metadata"]["labels"]["via-main"], "kept", r)
        self.assertEqual(self.ok(self.c.get(path))["status"]["conditions"], [cond2])

    # ---- admission ----

    def test_18_admission(self):
        # The CRD here has spec.trainer.numNodes minimum 0 (api/crds/trainjobs.json), so -1 is the value the
        # schema refuses.
        bad = example("20-trainjob-torch-multi-node.yaml")
        bad["metadata"] = {"name": "proto-tj-neg"}
        bad["spec"]["trainer"]["numNodes"] = -1
        st = self.status(self.c.post(TJ, bad), 422, "Invalid",
                         'TrainJob.trainer.kubeflow.org "proto-tj-neg" is invalid: spec.trainer.numNodes: '
                         'Invalid value: -1: spec.trainer.numNodes in body should be greater than or equal to 0')
        details = st["details"]
        self.assertEqual((details.get("name"), details.get("group"), details.get("kind")),
                         ("proto-tj-neg", "trainer.kubeflow.org", "TrainJob"), st)
        self.assertIn({"reason": "FieldValueInvalid", "field": "spec.trainer.numNodes",
                       "message": "Invalid value: -1: spec.trainer.numNodes in body should be greater than or equal "
                                  "to 0"}, details.get("causes", []), st)
        self.not_found(self.c.get(TJ + "/proto-tj-neg"), "trainjobs", "proto-tj-neg", "trainer.kubeflow.org")

        # The upstream validator names the field spec.RuntimeRef for a ClusterTrainingRuntime and spec.runtimeRef
        # for a TrainingRuntime (kubeflow/trainer pkg/runtime/core/{clustertrainingruntime,trainingruntime}.go).
        cases = (("ClusterTrainingRuntime", "clustertrainingruntimes", "spec.RuntimeRef", "clusterTrainingRuntime"),
                 ("TrainingRuntime", "trainingruntimes", "spec.runtimeRef", "trainingRuntime"))
        for kind, resource, field, noun in cases:
            with self.subTest(runtimeKind=kind):
                bad = example("20-trainjob-torch-multi-node.yaml")
                bad["metadata"] = {"name": "proto-tj-norun"}
                bad["spec"]["runtimeRef"].update(kind=kind, name="no-such-runtime")
                self.status(self.c.post(TJ, bad), 403, "Forbidden", prefix=WEBHOOK_DENIED + field,
                            contains=('%s.trainer.kubeflow.org "no-such-runtime" not found' % resource,
                                      "specified %s must be created before the TrainJob is created" % noun))
                self.not_found(self.c.get(TJ + "/proto-tj-norun"), "trainjobs", "proto-tj-norun",
                               "trainer.kubeflow.org")

    # ---- delete ----

    def test_20_delete(self):
        made = self.create(CM, configmap("proto-del"))
        uid = made["metadata"]["uid"]
        st = self.status(self.c.delete(CM + "/proto-del", {"kind": "DeleteOptions", "apiVersion": "v1",
                                                           "preconditions": {"uid": "wrong-uid"}}), 409, "Conflict",
                         prefix='Operation cannot be fulfilled on configmaps "proto-del": ',
                         contains=("Precondition failed: UID in precondition: wrong-uid, UID in object meta: " + uid,))
        self.assertEqual((st["details"]["name"], st["details"]["kind"]), ("proto-del", "configmaps"), st)
        self.ok(self.c.get(CM + "/proto-del"))
        r = self.c.delete(CM + "/proto-del",
                          {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": uid}})
        body = self.ok(r, 200, "Status")
        self.assertEqual(body.get("status"), "Success", r)
        self.assertEqual(body["details"]["name"], "proto-del", r)
        self.assertEqual(body["details"]["kind"], "configmaps", r)
        self.assertEqual(body["details"].get("uid"), made["metadata"]["uid"], r)
        self.assertIsNone(body.get("reason"), r)
        self.not_found(self.c.get(CM + "/proto-del"), "configmaps", "proto-del")
        self.not_found(self.c.delete(CM + "/proto-del"), "configmaps", "proto-del")
        self.not_found(self.c.delete(TJ + "/proto-never"), "trainjobs", "proto-never", "trainer.kubeflow.org")

    def test_21_delete_with_finalizers(self):
        self.create(CM, configmap("proto-fin", finalizers=["example.com/hold"]))
        r = self.c.delete(CM + "/proto-fin")
        held = self.ok(r, 200, "ConfigMap")
        self.assertRegex(held["metadata"].get("deletionTimestamp", ""), TIMESTAMP, r)
        self.assertEqual(held["metadata"].get("finalizers"), ["example.com/hold"], r)
        got = self.ok(self.c.get(CM + "/proto-fin"))
        self.assertRegex(got["metadata"].get("deletionTimestamp", ""), TIMESTAMP)
        r = self.c.patch(CM + "/proto-fin", {"metadata": {"finalizers": None}}, "application/merge-patch+json")
        self.assertEqual(r.status, 200, r)
        self.assertTrue(eventually(lambda: self.gone(CM + "/proto-fin"), 10),
                        "the ConfigMap whose last finalizer was removed is still there")

    def test_22_owner_references_gc(self):
        owner = self.create(CM, configmap("proto-owner"))
        ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "proto-owner", "uid": owner["metadata"]["uid"]}
        self.create(CM, configmap("proto-child", ownerReferences=[ref]))
        r = self.c.delete(q(CM + "/proto-owner", propagationPolicy="Background"))
        self.assertEqual(r.status, 200, r)
        self.assertTrue(eventually(lambda: self.gone(CM + "/proto-owner"), 10), "the owner is still there")
        self.assertTrue(eventually(lambda: self.gone(CM + "/proto-child"), 30),
                        "the dependent of a Background delete is still there")

        owner = self.create(CM, configmap("proto-owner2"))
        ref = dict(ref, name="proto-owner2", uid=owner["metadata"]["uid"])
        self.create(CM, configmap("proto-child2", ownerReferences=[ref]), keep=True)
        r = self.c.delete(CM + "/proto-owner2",
                          {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Orphan"})
        self.assertEqual(r.status, 200, r)
        self.assertTrue(eventually(lambda: self.gone(CM + "/proto-owner2"), 30), "the orphaning owner is still there")
        self.assertTrue(eventually(lambda: not self.ok(self.c.get(CM + "/proto-child2"))["metadata"].get(
            "ownerReferences"), 30), "the orphan keeps its ownerReference: %r" % self.c.get(CM + "/proto-child2"))

        st = self.status(self.c.delete(q(CM + "/proto-cm", propagationPolicy="Bogus")), 422, "Invalid",
                         'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": '
                         'supported values: "Foreground", "Background", "Orphan", "nil"')
        self.assertEqual([c.get("field") for c in st["details"].get("causes", [])], ["propagationPolicy"], st)
        self.ok(self.c.get(CM + "/proto-cm"))

    def test_23_deletecollection(self):
        for name, v in (("proto-dc-1", "yes"), ("proto-dc-2", "yes"), ("proto-dc-3", "no")):
            self.create(CM, configmap(name, labels={"proto-dc": v}))
        r = self.c.delete(q(CM, labelSelector="proto-dc=yes"))
        body = self.ok(r, 200, "ConfigMapList")
        self.assertEqual(names(body["items"]), ["proto-dc-1", "proto-dc-2"], r)
        left = self.ok(self.c.get(q(CM, labelSelector="proto-dc")))
        self.assertEqual(names(left["items"]), ["proto-dc-3"])
        self.ok(self.c.get(CM + "/proto-cm"))

    # ---- namespaces and scope ----

    def test_24_namespace_delete_removes_contents(self):
        self.create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "proto-ns"}})
        inner = "/api/v1/namespaces/proto-ns/configmaps"
        self.create(inner, configmap("proto-inner"))
        r = self.c.delete("/api/v1/namespaces/proto-ns")
        self.assertEqual(r.status, 200, r)
        self.assertIn(r.json.get("kind"), ("Namespace", "Status"), r)
        if r.json["kind"] == "Namespace":
            self.assertEqual(r.json["status"]["phase"], "Terminating", r)
        self.assertTrue(eventually(lambda: self.gone(inner + "/proto-inner"), 30),
                        "the namespace's ConfigMap is still there")
        self.assertTrue(eventually(lambda: self.gone("/api/v1/namespaces/proto-ns"), 30),
                        "the namespace is still there")
        self.not_found(self.c.get("/api/v1/namespaces/proto-ns"), "namespaces", "proto-ns")

    def test_25_scope_mismatch(self):
        for path, plain in (("/api/v1/configmaps/proto-cm", False),
                            ("/api/v1/namespaces/default/namespaces/default", False),
                            ("/api/v1/namespaces/default/namespaces", False),
                            (TRAINER + "/trainjobs/proto-tj", True),
                            (TRAINER + "/namespaces/default/clustertrainingruntimes/torch-distributed", True)):
            with self.subTest(path=path):
                self.route_not_found(self.c.get(path), allow_plain=plain)
        self.ok(self.c.get(CM + "/proto-cm"))

    # ---- watch ----

    def list_rv(self, path):
        return self.ok(self.c.get(path))["metadata"]["resourceVersion"]

    def check_stream(self, w):
        self.assertEqual(w.status, 200, w.resp.read()[:2000] if w.status != 200 else "")
        self.assertTrue(w.headers.get("content-type", "").startswith("application/json"), w.headers)
        self.assertEqual(w.headers.get("transfer-encoding"), "chunked", w.headers)

    def test_30_watch_sees_changes_in_order(self):
        # The changes are made while the watch streams (it has answered its headers: the event
        # that starts them); timeoutSeconds and the socket timeout are hang guards only.
        rv = self.list_rv(CM)
        errors = []

        def change():
            try:
                for r in (self.c.post(CM, configmap("proto-w", {"n": "1"})),
                          self.c.patch(CM + "/proto-w", {"data": {"n": "2"}}, "application/merge-patch+json"),
                          self.c.delete(CM + "/proto-w")):
                    if r.status not in (200, 201):
                        errors.append(r)
            except Exception as e:  # reported below
                errors.append(e)

        w = self.c.watch(q(CM, watch="true", resourceVersion=rv, timeoutSeconds="60"), timeout=60)
        t = threading.Thread(target=change)
        t.start()
        try:
            try:
                self.check_stream(w)
                events = w.events(until=lambda ev: ev.get("type") == "DELETED")
            finally:
                w.close()
        finally:
            t.join()
        self.assertEqual(errors, [])
        events = [ev for ev in events if ev.get("type") != "BOOKMARK"]
        for ev in events:
            self.assertEqual(sorted(ev), ["object", "type"], ev)
            self.assertEqual((ev["object"]["kind"], ev["object"]["apiVersion"]), ("ConfigMap", "v1"), ev)
        self.assertEqual([(ev["type"], ev["object"]["metadata"]["name"], ev["object"].get("data", {}).get("n"))
                          for ev in events],
                         [("ADDED", "proto-w", "1"), ("MODIFIED", "proto-w", "2"), ("DELETED", "proto-w", "2")])
        rvs = [int(rv)] + [int(ev["object"]["metadata"]["resourceVersion"]) for ev in events]
        self.assertEqual(rvs, sorted(set(rvs)), "resourceVersions do not increase: %r" % rvs)

    def test_31_watch_bookmark_when_idle(self):
        # An idle watch gets a BOOKMARK (the event awaited; when is the fake-clock unit test's,
        # test/core/apiserver/api_server_test.cpp), and a watch ends on its own at timeoutSeconds.
        rv = self.list_rv(CM)
        w = self.c.watch(q(CM, watch="true", resourceVersion=rv, allowWatchBookmarks="true", timeoutSeconds="60"),
                         timeout=60)
        try:
            self.check_stream(w)
            events = w.events(until=lambda ev: ev.get("type") == "BOOKMARK")
        finally:
            w.close()
        bookmarks = [ev for ev in events if ev.get("type") == "BOOKMARK"]
        self.assertEqual(len(bookmarks), len(events), events)
        self.assertTrue(bookmarks, "an idle watch got no BOOKMARK before it ended")
        short = self.c.watch(q(CM, watch="true", resourceVersion=rv, timeoutSeconds="1"), timeout=60)
        try:
            self.check_stream(short)
            short.events()  # returns at the end of the stream; a socket timeout (60 s) raises
        finally:
            short.close()
        for b in bookmarks:
            obj = b["object"]
            self.assertEqual((obj.get("kind"), obj.get("apiVersion")), ("ConfigMap", "v1"), b)
            self.assertTrue(obj["metadata"].get("resourceVersion"), b)
            self.assertGreaterEqual(int(obj["metadata"]["resourceVersion"]), int(rv), b)
            self.assertLessEqual(set(obj["metadata"]), {"resourceVersion", "annotations"}, b)
            self.assertLessEqual(set(obj), {"kind", "apiVersion", "metadata"}, b)

    def test_32_watch_from_zero_lists_existing(self):
        w = self.c.watch(q(CM, watch="true", resourceVersion="0", labelSelector="proto-sel", timeoutSeconds="60"),
                         timeout=60)
        try:
            self.check_stream(w)
            events = w.events(limit=4)
        finally:
            w.close()
        self.assertEqual([ev["type"] for ev in events], ["ADDED"] * 4, events)
        self.assertEqual(names(ev["object"] for ev in events), ["proto-sel-%d" % i for i in range(1, 5)])

    def test_33_watch_label_selector(self):
        rv = self.list_rv(CM)
        errors = []
        merge = "application/merge-patch+json"

        def change():
            try:
                for r in (self.c.post(CM, configmap("proto-wl-no", labels={"proto-wl": "no"})),
                          self.c.post(CM, configmap("proto-wl-yes", labels={"proto-wl": "yes"})),
                          self.c.patch(CM + "/proto-wl-no", {"data": {"k": "changed"}}, merge),
                          self.c.patch(CM + "/proto-wl-yes", {"data": {"k": "changed"}}, merge),
                          self.c.patch(CM + "/proto-wl-no", {"metadata": {"labels": {"proto-wl": "yes"}}}, merge),
                          self.c.patch(CM + "/proto-wl-yes", {"metadata": {"labels": {"proto-wl": "no"}}}, merge),
                          self.c.delete(CM + "/proto-wl-yes"),
                          self.c.delete(CM + "/proto-wl-no")):
                    if r.status not in (200, 201):
                        errors.append(r)
            except Exception as e:
                errors.append(e)

        w = self.c.watch(q(CM, watch="true", resourceVersion=rv, labelSelector="proto-wl=yes", timeoutSeconds="60"),
                         timeout=60)
        t = threading.Thread(target=change)
        t.start()
        try:
            try:
                self.check_stream(w)
                events = w.events(until=lambda ev: ev.get("type") == "DELETED"
                                  and ev["object"]["metadata"]["name"] == "proto-wl-no")
            finally:
                w.close()
        finally:
            t.join()
        self.assertEqual(errors, [])
        seen = [(ev["type"], ev["object"]["metadata"]["name"]) for ev in events if ev["type"] != "BOOKMARK"]
        # An object entering the selector is ADDED to the watch, one leaving it DELETED (the watch cache's rule).
        self.assertEqual(seen, [("ADDED", "proto-wl-yes"), ("MODIFIED", "proto-wl-yes"), ("ADDED", "proto-wl-no"),
                                ("DELETED", "proto-wl-yes"), ("DELETED", "proto-wl-no")])

    def test_34_watch_from_compacted_revision(self):
        if RETENTION_FLAG not in help_text():
            self.fail("`%s apiserver --help` has no %s flag: cannot shrink the watch history to test 410 Expired"
                      % (ARGS.bin, RETENTION_FLAG))
        tmp = tempfile.mkdtemp(prefix="trainer-protocol-retention-")
        server = ApiServer(tmp, [RETENTION_FLAG, "5"])
        SERVERS.append(server)
        try:
            c = server.wait_ready()
            first = self.ok(c.post(CM, configmap("proto-old-0")), 201)
            for i in range(1, 25):
                self.ok(c.post(CM, configmap("proto-old-%d" % i)), 201)
            w = c.watch(q(CM, watch="true", resourceVersion=first["metadata"]["resourceVersion"], timeoutSeconds="60"),
                        timeout=60)
            try:
                self.check_stream(w)
                events = w.events()
            finally:
                w.close()
            self.assertEqual([ev.get("type") for ev in events], ["ERROR"], events)
            st = events[0]["object"]
            self.assertEqual((st.get("kind"), st.get("apiVersion"), st.get("status")), ("Status", "v1", "Failure"), st)
            self.assertEqual((st.get("code"), st.get("reason")), (410, "Expired"), st)
            self.assertTrue(st.get("message", "").startswith("too old resource version: "), st)
            # From the current list's resourceVersion a watch works again.
            rv = self.ok(c.get(CM))["metadata"]["resourceVersion"]
            w = c.watch(q(CM, watch="true", resourceVersion=rv, timeoutSeconds="1"), timeout=60)
            try:
                self.check_stream(w)
                self.assertEqual([ev for ev in w.events() if ev.get("type") != "BOOKMARK"], [])
            finally:
                w.close()
            self.assertEqual(server.stop(), 0, server.log_tail())
        finally:
            server.stop(signal.SIGKILL)
            shutil.rmtree(tmp, ignore_errors=True)

    # ---- Table ----

    def test_40_table(self):
        accept = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
        for path, want in ((TJ, None), (TJ + "/proto-tj", ["proto-tj"])):
            with self.subTest(path=path):
                r = self.c.get(path, headers=accept)
                table = self.ok(r, kind="Table")
                self.assertEqual(table["apiVersion"], "meta.k8s.io/v1", r)
                cols = [c["name"] for c in table["columnDefinitions"]]
                self.assertEqual(cols[0], "Name", r)
                for col in ("Name", "State", "Age"):
                    self.assertIn(col, cols, r)
                for c in table["columnDefinitions"]:
                    self.assertIn("type", c, r)
                rows = table["rows"]
                self.assertTrue(rows, r)
                if want:
                    self.assertEqual([row["cells"][0] for row in rows], want, r)
                else:
                    self.assertIn("proto-tj", [row["cells"][0] for row in rows], r)
                for row in rows:
                    self.assertEqual(len(row["cells"]), len(cols), row)
                    obj = row["object"]
                    self.assertEqual((obj["kind"], obj["apiVersion"]), ("PartialObjectMetadata", "meta.k8s.io/v1"), row)
                    self.assertEqual(obj["metadata"]["name"], row["cells"][0], row)
                    self.assertNotIn("spec", obj, row)
                tj = next(row for row in rows if row["cells"][0] == "proto-tj")
                self.assertEqual(tj["cells"][cols.index("State")], "Failed", tj)  # the last condition's type
                self.assertRegex(tj["cells"][cols.index("Age")], r"^\d+[smhd]", tj)

    # ---- bad input (last: nothing stored may be lost) ----

    def test_90_bad_input(self):
        unrecognized = "the object provided is unrecognized (must be of type ConfigMap): "
        with self.subTest("malformed JSON"):
            self.status(self.c.post(CM, b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"proto-bad"',
                                    content_type="application/json"), 400, "BadRequest",
                        prefix=unrecognized + "couldn't get version/kind; json parse error: ")
            self.not_found(self.c.get(CM + "/proto-bad"), "configmaps", "proto-bad")
        with self.subTest("JSON array"):
            self.status(self.c.post(CM, [configmap("proto-arr")]), 400, "BadRequest",
                        prefix=unrecognized + "couldn't get version/kind; json parse error: ")
            self.not_found(self.c.get(CM + "/proto-arr"), "configmaps", "proto-arr")

        with self.subTest("YAML body"):
            doc = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: proto-yaml\n  labels:\n    via: yaml\n"
                   "data:\n  y: '1'\n")
            got = self.ok(self.c.post(CM, doc, content_type="application/yaml"), 201, "ConfigMap")
            self.kept[CM + "/proto-yaml"] = got["metadata"]["uid"]
            self.assertEqual((got["data"], got["metadata"]["labels"]), ({"y": "1"}, {"via": "yaml"}))

        with self.subTest("4 MiB body"):
            big = configmap("proto-big", {"blob": "x" * (4 * 1024 * 1024)})
            self.status(self.c.request_big("POST", CM, json.dumps(big).encode()), 413, "RequestEntityTooLarge",
                        "Request entity too large: limit is 3145728")
            self.not_found(self.c.get(CM + "/proto-big"), "configmaps", "proto-big")

        with self.subTest("protobuf"):
            st = self.status(self.c.post(TJ, b"k8s\x00\x0a\x02v1", content_type="application/vnd.kubernetes.protobuf"),
                             415, "UnsupportedMediaType", prefix=UNKNOWN_FORMAT)
            accepted = st["message"][len(UNKNOWN_FORMAT):].split(", ")
            self.assertIn("application/json", accepted, st)
            self.assertIn("application/yaml", accepted, st)

        with self.subTest("a Secret to /configmaps"):
            secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "proto-secret"}, "data": {}}
            self.status(self.c.post(CM, secret), 400, "BadRequest",
                        prefix='Secret in version "v1" cannot be handled as a ConfigMap')
            self.not_found(self.c.get(CM + "/proto-secret"), "configmaps", "proto-secret")
            self.not_found(self.c.get("/api/v1/namespaces/default/secrets/proto-secret"), "secrets", "proto-secret")

        with self.subTest("deep nesting"):
            self.status(self.c.post(CM, b"[" * 100000, content_type="application/json"), 400, "BadRequest",
                        prefix=unrecognized + "couldn't get version/kind; json parse error: ")
            self.status(self.c.post(CM, b'{"a":' * 100000 + b"1" + b"}" * 100000, content_type="application/json"),
                        400, "BadRequest", prefix=unrecognized + "couldn't get version/kind; json parse error: ")
        r = self.c.get("/readyz", token=None)
        self.assertEqual((r.status, r.text), (200, "ok"), r)

    def test_95_nothing_stored_is_lost(self):
        self.assertGreater(len(self.kept), 15, self.kept)
        for path, uid in sorted(self.kept.items()):
            with self.subTest(path=path):
                r = self.c.get(path)
                self.assertEqual(self.ok(r)["metadata"]["uid"], uid, r)

    def test_99_sigterm_stops_the_server(self):
        self.assertEqual(self.server.stop(signal.SIGTERM), 0, self.server.log_tail())


SERVERS = []


class Result(unittest.TextTestResult):
    """Prints the servers' logs with the failures (before unittest's summary line)."""

    def printErrors(self):
        super().printErrors()
        if not self.wasSuccessful():
            for s in SERVERS:
                self.stream.writeln("---- log of %s ----" % s.log_path)
                self.stream.writeln(s.log_tail())


if __name__ == "__main__":
    runner = unittest.TextTestRunner(resultclass=Result, verbosity=2)
    unittest.main(argv=[sys.argv[0]] + UNITTEST_ARGV, testRunner=runner)
