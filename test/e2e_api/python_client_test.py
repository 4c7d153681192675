#!/usr/bin/python3
"""End-to-end: Debian's Python kubernetes client (python3-kubernetes) against
`trainer-operator apiserver` (the API alone, no controller) on a fresh store.

Usage: python_client_test.py [--bin PATH] [--plugin-dir DIR] [--source-dir DIR] [unittest args]

Defaults come from TRAINER_BIN, TRAINER_PLUGIN_DIR and TRAINER_SOURCE_DIR (CTest sets them, see
CMakeLists.txt here), else the build tree of the checkout this file is in. A missing kubernetes
module fails the run (it never skips). The last line printed is unittest's summary; the exit code
is non-zero on any failure.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

try:
    import yaml
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException

    IMPORT_ERROR = None
except ImportError as e:  # reported by setUpClass as a failure
    IMPORT_ERROR = ("the Python kubernetes client is not importable (%s): scripts/setup.sh installs "
                    "python3-kubernetes; run this with /usr/bin/python3" % e)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))

TRAINER = ("trainer.kubeflow.org", "v1alpha1")
NS = "default"


def parse_args():
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--bin", default=os.environ.get("TRAINER_BIN", os.path.join(SOURCE, "build/bin/trainer-operator")))
    p.add_argument("--plugin-dir", default=os.environ.get(
        "TRAINER_PLUGIN_DIR", os.path.join(SOURCE, "build/lib/trainer-operator/plugins")))
    p.add_argument("--source-dir", default=os.environ.get("TRAINER_SOURCE_DIR", SOURCE))
    return p.parse_known_args()


ARGS, UNITTEST_ARGV = parse_args()


def example(name):
    """The YAML documents of examples/NAME."""
    with open(os.path.join(ARGS.source_dir, "examples", name)) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def eventually(pred, limit=30.0, step=0.2):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def configmap(name, data=None, labels=None, owner_references=None):
    """A ConfigMap with its TypeMeta (test_02a covers creating one without)."""
    return client.V1ConfigMap(api_version="v1", kind="ConfigMap", data=data,
                              metadata=client.V1ObjectMeta(name=name, labels=labels,
                                                           owner_references=owner_references))


def status_of(e):
    """The metav1.Status in an ApiException's body (a dict), or {}."""
    try:
        return json.loads(e.body)
    except (TypeError, ValueError):
        return {}


class ApiServer:
    """`trainer-operator apiserver` on its own store in `workdir`, port 0."""

    def __init__(self, workdir, extra=()):
        self.workdir = workdir
        self.kubeconfig = os.path.join(workdir, "kubeconfig")
        self.log_path = os.path.join(workdir, "apiserver.log")
        args = [ARGS.bin, "apiserver", "--store", os.path.join(workdir, "store.db"), "--plugin-dir", ARGS.plugin_dir,
                "--api-bind-address", "127.0.0.1:0", "--write-kubeconfig", self.kubeconfig, *extra]
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def log_tail(self, n=4000):
        with open(self.log_path, "rb") as f:
            return f.read()[-n:].decode("utf-8", "replace")

    def wait_ready(self, configuration):
        """Waits for the kubeconfig, loads it into `configuration`, then waits for /readyz."""
        if not eventually(lambda: os.path.exists(self.kubeconfig) or self.proc.poll() is not None, 60, 0.1) \
                or not os.path.exists(self.kubeconfig):
            raise AssertionError("no kubeconfig within 60s (exit %s); log:\n%s" % (self.proc.poll(), self.log_tail()))
        config.load_kube_config(config_file=self.kubeconfig, client_configuration=configuration)
        api = self.api = client.ApiClient(configuration)
        last = [None]

        def ready():
            try:
                return api.call_api("/readyz", "GET", response_type="str", auth_settings=["BearerToken"],
                                    _return_http_data_only=True) == "ok"
            except Exception as e:  # not listening yet, TLS not ready, 503
                last[0] = e
                return False

        if not eventually(ready, 60, 0.25):
            raise AssertionError("/readyz never answered ok: %r; log:\n%s" % (last[0], self.log_tail()))
        return api

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if getattr(self, "api", None):
            self.api.rest_client.pool_manager.clear()  # closes the client's connections
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


def help_text():
    r = subprocess.run([ARGS.bin, "apiserver", "--help"], capture_output=True, text=True, timeout=30)
    return r.stdout + r.stderr


def retention_flag():
    """The apiserver flag that bounds how many revisions a watch can resume from, if it has one."""
    m = re.search(r"(--[a-z-]*(?:watch-cache|watch-history|retention|revisions|keep-changes)[a-z-]*)", help_text())
    return m.group(1) if m else None


class PythonClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if IMPORT_ERROR:
            raise AssertionError(IMPORT_ERROR)
        if not os.access(ARGS.bin, os.X_OK):
            raise AssertionError("trainer-operator not built: %s" % ARGS.bin)
        cls.tmp = tempfile.mkdtemp(prefix="trainer-pyclient-")
        cls.server = ApiServer(cls.tmp)
        try:
            cls.server.wait_ready(client.Configuration())
        except Exception:
            cls.server.stop(signal.SIGKILL)
            raise
        # The default configuration, as a user's script has it.
        config.load_kube_config(config_file=cls.server.kubeconfig)
        cls.api = client.ApiClient()
        cls.core = client.CoreV1Api(cls.api)
        cls.custom = client.CustomObjectsApi(cls.api)

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "api", None):
            cls.api.rest_client.pool_manager.clear()
        server = getattr(cls, "server", None)
        if server and server.proc.poll() is None:
            server.stop(signal.SIGKILL)
        if getattr(cls, "tmp", None):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    # ---- helpers ----

    def assertApiError(self, code, fn, *args, **kwargs):
        """Calls fn, expects ApiException `code`; the error's metav1.Status."""
        with self.assertRaises(ApiException) as cm:
            fn(*args, **kwargs)
        self.assertEqual(cm.exception.status, code, cm.exception.body)
        st = status_of(cm.exception)
        self.assertEqual(st.get("kind"), "Status", cm.exception.body)
        self.assertEqual(st.get("code"), code, cm.exception.body)
        return st

    def ensure_runtime(self):
        body = example("10-runtime-torch-distributed.yaml")[0]
        try:
            return self.custom.create_cluster_custom_object(*TRAINER, "clustertrainingruntimes", body)
        except ApiException as e:
            self.assertEqual(e.status, 409, e.body)
            return self.custom.get_cluster_custom_object(*TRAINER, "clustertrainingruntimes", "torch-distributed")

    def trainjob(self, name, labels=None, num_nodes=1):
        body = example("20-trainjob-torch-multi-node.yaml")[0]
        body["metadata"] = {"name": name, "namespace": NS, "labels": labels or {}}
        body["spec"]["trainer"]["numNodes"] = num_nodes
        return body

    def create_trainjob(self, name, **kw):
        self.ensure_runtime()
        return self.custom.create_namespaced_custom_object(*TRAINER, NS, "trainjobs", self.trainjob(name, **kw))

    def get_trainjob(self, name):
        return self.custom.get_namespaced_custom_object(*TRAINER, NS, "trainjobs", name)

    # ---- cases (unittest runs them in name order) ----

    def test_01_list_namespaces(self):
        namespaces = self.core.list_namespace()
        names = [n.metadata.name for n in namespaces.items]
        self.assertIn("default", names)
        self.assertTrue(namespaces.metadata.resource_version)
        default = self.core.read_namespace("default")
        self.assertEqual(default.status.phase, "Active")
        self.assertTrue(default.metadata.uid)
        self.assertIsNotNone(default.metadata.creation_timestamp)

    def test_02_configmap_create_read_conflict(self):
        cm = configmap("py-cm", {"a": "b"}, {"e2e": "py"})
        created = self.core.create_namespaced_config_map(NS, cm)
        self.assertEqual(created.metadata.name, "py-cm")
        self.assertEqual(created.metadata.namespace, NS)
        self.assertTrue(created.metadata.uid)
        self.assertTrue(created.metadata.resource_version)
        self.assertEqual(self.core.read_namespaced_config_map("py-cm", NS).data, {"a": "b"})

        st = self.assertApiError(409, self.core.create_namespaced_config_map, NS, cm)
        self.assertEqual(st["reason"], "AlreadyExists")
        self.assertEqual(st["message"], 'configmaps "py-cm" already exists')

        # An update with a stale resourceVersion conflicts.
        fresh = self.core.read_namespaced_config_map("py-cm", NS)
        fresh.data = {"a": "c"}
        updated = self.core.replace_namespaced_config_map("py-cm", NS, fresh)
        self.assertNotEqual(updated.metadata.resource_version, created.metadata.resource_version)
        stale = self.core.read_namespaced_config_map("py-cm", NS)
        stale.metadata.resource_version = created.metadata.resource_version
        st = self.assertApiError(409, self.core.replace_namespaced_config_map, "py-cm", NS, stale)
        self.assertEqual(st["reason"], "Conflict")
        self.assertIn("the object has been modified; please apply your changes to the latest version and try again",
                      st["message"])

        st = self.assertApiError(404, self.core.read_namespaced_config_map, "py-none", NS)
        self.assertEqual(st["reason"], "NotFound")
        self.assertEqual(st["message"], 'configmaps "py-none" not found')

    def test_02a_create_without_type_meta(self):
        # Python code usually leaves kind/apiVersion out of built-in models; the URL names the kind.
        created = self.core.create_namespaced_config_map(NS, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="py-untyped"), data={"a": "b"}))
        self.assertEqual(created.kind, "ConfigMap")
        self.assertEqual(created.api_version, "v1")
        self.assertEqual(self.core.read_namespaced_config_map("py-untyped", NS).data, {"a": "b"})
        ns = self.core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py-untyped-ns")))
        self.assertEqual(ns.status.phase, "Active")

    def test_03_runtime_and_trainjob_via_custom_objects(self):
        runtime = self.ensure_runtime()
        self.assertEqual(runtime["kind"], "ClusterTrainingRuntime")
        self.assertEqual(runtime["metadata"]["name"], "torch-distributed")
        body = example("20-trainjob-torch-multi-node.yaml")[0]
        body["metadata"]["namespace"] = NS
        created = self.custom.create_namespaced_custom_object(*TRAINER, NS, "trainjobs", body)
        self.assertEqual(created["apiVersion"], "trainer.kubeflow.org/v1alpha1")
        self.assertEqual(created["kind"], "TrainJob")
        self.assertEqual(created["metadata"]["generation"], 1)
        got = self.get_trainjob("multi-node-example")
        self.assertEqual(got["spec"]["runtimeRef"]["name"], "torch-distributed")
        self.assertEqual(got["spec"]["trainer"]["numNodes"], 3)
        self.assertEqual(got["metadata"]["uid"], created["metadata"]["uid"])
        runtimes = self.custom.list_cluster_custom_object(*TRAINER, "clustertrainingruntimes")
        self.assertEqual(runtimes["kind"], "ClusterTrainingRuntimeList")
        self.assertIn("torch-distributed", [r["metadata"]["name"] for r in runtimes["items"]])

        # The validating webhook refuses a TrainJob whose runtime does not exist; nothing is stored.
        bad = self.trainjob("py-bad-runtime")
        bad["spec"]["runtimeRef"]["name"] = "no-such-runtime"
        with self.assertRaises(ApiException) as cm:
            self.custom.create_namespaced_custom_object(*TRAINER, NS, "trainjobs", bad)
        self.assertIn(cm.exception.status, (400, 403, 422), cm.exception.body)
        self.assertIn('admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request',
                      status_of(cm.exception).get("message", ""))
        self.assertApiError(404, self.get_trainjob, "py-bad-runtime")

    def test_04_list_with_label_selectors(self):
        for name, labels in (("py-sel-1", {"py-sel": "yes", "tier": "a"}), ("py-sel-2", {"py-sel": "yes", "tier": "b"}),
                             ("py-sel-3", {"py-sel": "no"})):
            self.core.create_namespaced_config_map(NS, configmap(name, {"k": name}, labels))
        cases = (("py-sel=yes", {"py-sel-1", "py-sel-2"}),
                 ("py-sel=yes,tier!=a", {"py-sel-2"}),
                 ("tier in (a,b)", {"py-sel-1", "py-sel-2"}),
                 ("py-sel,!tier", {"py-sel-3"}),
                 ("py-sel,py-sel notin (yes)", {"py-sel-3"}))
        for selector, want in cases:
            with self.subTest(selector=selector):
                got = {c.metadata.name for c in self.core.list_namespaced_config_map(NS, label_selector=selector).items}
                self.assertEqual(got, want)

        self.create_trainjob("py-tj-a", labels={"py-sel": "yes"})
        self.create_trainjob("py-tj-b", labels={"py-sel": "no"})
        listed = self.custom.list_namespaced_custom_object(*TRAINER, NS, "trainjobs", label_selector="py-sel=yes")
        self.assertEqual(listed["kind"], "TrainJobList")
        self.assertEqual([i["metadata"]["name"] for i in listed["items"]], ["py-tj-a"])
        self.assertTrue(listed["metadata"]["resourceVersion"])

        # Chunked lists: limit + continue return every object exactly once.
        everything = {c.metadata.name for c in self.core.list_namespaced_config_map(NS).items}
        self.assertGreaterEqual(len(everything), 4)
        chunked, token, pages = [], None, 0
        while True:
            page = self.core.list_namespaced_config_map(NS, limit=2, _continue=token)
            self.assertLessEqual(len(page.items), 2)
            chunked += [c.metadata.name for c in page.items]
            pages += 1
            token = page.metadata._continue
            if not token:
                break
            self.assertLess(pages, 100)
        self.assertGreater(pages, 1)
        self.assertEqual(sorted(chunked), sorted(everything))

    def test_05_watch_from_the_lists_resource_version(self):
        self.ensure_runtime()
        listed = self.custom.list_namespaced_custom_object(*TRAINER, NS, "trainjobs")
        rv = listed["metadata"]["resourceVersion"]
        # Changes made after the list: the watch from its resourceVersion must replay them, in order.
        self.create_trainjob("py-watch")
        self.custom.patch_namespaced_custom_object(*TRAINER, NS, "trainjobs", "py-watch",
                                                   {"metadata": {"labels": {"watched": "yes"}}})
        self.custom.delete_namespaced_custom_object(*TRAINER, NS, "trainjobs", "py-watch")
        w = watch.Watch()
        seen, bookmarks = [], []
        for ev in w.stream(self.custom.list_namespaced_custom_object, *TRAINER, NS, "trainjobs", resource_version=rv,
                           allow_watch_bookmarks=True, timeout_seconds=60):
            obj = ev["raw_object"]
            if ev["type"] == "BOOKMARK":
                bookmarks.append(obj)
                continue
            seen.append((ev["type"], obj["metadata"]["name"], obj["metadata"].get("labels", {}).get("watched")))
            if ev["type"] == "DELETED":
                w.stop()
                break
        self.assertEqual(seen, [("ADDED", "py-watch", None), ("MODIFIED", "py-watch", "yes"),
                                ("DELETED", "py-watch", "yes")])
        for b in bookmarks:
            self.assertEqual(b["kind"], "TrainJob", b)
            self.assertTrue(b["metadata"]["resourceVersion"], b)

    def test_06_watch_sees_live_changes(self):
        # The changes start once the watch streams: its first BOOKMARK (an idle watch gets one)
        # is that event. timeout_seconds is a hang guard.
        rv = self.core.list_namespaced_config_map(NS).metadata.resource_version
        errors = []

        def change():
            try:
                self.core.create_namespaced_config_map(NS, configmap("py-live", {"n": "1"}))
                self.core.patch_namespaced_config_map("py-live", NS, {"data": {"n": "2"}})
            except Exception as e:  # reported below
                errors.append(e)

        t = threading.Thread(target=change)
        w = watch.Watch()
        seen = []
        try:
            for ev in w.stream(self.core.list_namespaced_config_map, NS, resource_version=rv,
                               allow_watch_bookmarks=True, timeout_seconds=60):
                if ev["type"] == "BOOKMARK":
                    if not t.is_alive() and t.ident is None:
                        t.start()
                    continue
                cm = ev["object"]
                self.assertIsInstance(cm, client.V1ConfigMap)
                seen.append((ev["type"], cm.metadata.name, (cm.data or {}).get("n")))
                if len(seen) == 2:
                    w.stop()
                    break
        finally:
            if t.ident is not None:
                t.join()
        self.assertEqual(errors, [])
        self.assertEqual(seen, [("ADDED", "py-live", "1"), ("MODIFIED", "py-live", "2")])

    def test_07_watch_from_a_compacted_resource_version(self):
        flag = retention_flag()
        if not flag:
            self.fail("`%s apiserver --help` names no flag that bounds the watch history: cannot test 410 Expired"
                      % ARGS.bin)
        # A second server that keeps only a few revisions: resourceVersion "1" is too old for it.
        tmp = tempfile.mkdtemp(prefix="trainer-pyclient-retention-")
        server = ApiServer(tmp, [flag, "5"])
        try:
            cfg = client.Configuration()
            api = server.wait_ready(cfg)
            core = client.CoreV1Api(api)
            for i in range(20):
                core.create_namespaced_config_map(NS, configmap("old-%d" % i))
            w = watch.Watch()
            with self.assertRaises(ApiException) as cm:
                for _ in w.stream(core.list_namespaced_config_map, NS, resource_version="1", timeout_seconds=60):
                    pass
            self.assertEqual(cm.exception.status, 410, cm.exception.reason)
            text = "%s %s" % (cm.exception.reason, cm.exception.body)
            self.assertRegex(text, "Expired|Gone|too old resource version")
            # A list from the current state and a watch from its resourceVersion work again.
            rv = core.list_namespaced_config_map(NS).metadata.resource_version
            self.assertEqual(list(w.stream(core.list_namespaced_config_map, NS, resource_version=rv,
                                           timeout_seconds=1)), [])
        finally:
            server.stop(signal.SIGKILL)
            shutil.rmtree(tmp, ignore_errors=True)

    def test_08_status_subresource(self):
        self.create_trainjob("py-status")
        before = self.get_trainjob("py-status")
        condition = {"type": "Complete", "status": "True", "reason": "PyClient", "message": "set from Python",
                     "lastTransitionTime": "2025-01-01T00:00:00Z"}
        patched = self.custom.patch_namespaced_custom_object_status(
            *TRAINER, NS, "trainjobs", "py-status", {"status": {"conditions": [condition]}})
        self.assertEqual(patched["status"]["conditions"], [condition])
        got = self.custom.get_namespaced_custom_object_status(*TRAINER, NS, "trainjobs", "py-status")
        self.assertEqual(got["status"]["conditions"], [condition])
        self.assertEqual(got["metadata"]["generation"], before["metadata"]["generation"])
        self.assertNotEqual(got["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"])

        # The status subresource ignores spec; the main resource ignores status.
        suspend = before["spec"].get("suspend")  # the CRD defaults it to false
        self.assertIsNot(suspend, True)
        self.custom.patch_namespaced_custom_object_status(*TRAINER, NS, "trainjobs", "py-status",
                                                          {"spec": {"suspend": True}})
        self.assertEqual(self.get_trainjob("py-status")["spec"].get("suspend"), suspend)
        failed = dict(condition, type="Failed", reason="Main")
        main = self.custom.patch_namespaced_custom_object(*TRAINER, NS, "trainjobs", "py-status",
                                                          {"status": {"conditions": [failed]},
                                                           "spec": {"suspend": True}})
        self.assertEqual(main["status"]["conditions"], [condition])
        self.assertIs(main["spec"]["suspend"], True)
        self.assertEqual(main["metadata"]["generation"], before["metadata"]["generation"] + 1)

    def test_09_delete_with_propagation_policy(self):
        parent = self.create_trainjob("py-delete")
        owner = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "name": "py-delete",
                 "uid": parent["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}
        self.core.create_namespaced_config_map(NS, configmap("py-delete-child", {"k": "v"},
                                                             owner_references=[owner]))
        self.custom.delete_namespaced_custom_object(*TRAINER, NS, "trainjobs", "py-delete",
                                                    propagation_policy="Background")

        def gone(fn, *args):
            try:
                fn(*args)
                return False
            except ApiException as e:
                return e.status == 404

        self.assertTrue(eventually(lambda: gone(self.get_trainjob, "py-delete")), "the TrainJob is still there")
        self.assertTrue(eventually(lambda: gone(self.core.read_namespaced_config_map, "py-delete-child", NS)),
                        "the dependent ConfigMap of a Background delete is still there")

        # Orphan: the dependent stays and loses its ownerReference.
        parent = self.create_trainjob("py-orphan")
        owner.update(name="py-orphan", uid=parent["metadata"]["uid"])
        self.core.create_namespaced_config_map(NS, configmap("py-orphan-child", {"k": "v"},
                                                             owner_references=[owner]))
        self.custom.delete_namespaced_custom_object(*TRAINER, NS, "trainjobs", "py-orphan",
                                                    body=client.V1DeleteOptions(propagation_policy="Orphan"))
        self.assertTrue(eventually(lambda: gone(self.get_trainjob, "py-orphan")), "the TrainJob is still there")
        child = self.core.read_namespaced_config_map("py-orphan-child", NS)
        self.assertFalse(child.metadata.owner_references, child.metadata)

        # A plain delete of a ConfigMap, then 404 for it.
        self.core.delete_namespaced_config_map("py-cm", NS, propagation_policy="Background")
        st = self.assertApiError(404, self.core.read_namespaced_config_map, "py-cm", NS)
        self.assertEqual(st["details"]["name"], "py-cm")
        st = self.assertApiError(404, self.custom.delete_namespaced_custom_object, *TRAINER, NS, "trainjobs",
                                 "py-never")
        self.assertEqual(st["message"], 'trainjobs.trainer.kubeflow.org "py-never" not found')

    def test_99_sigterm_stops_the_server(self):
        self.assertEqual(self.server.stop(signal.SIGTERM), 0, self.server.log_tail())


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + UNITTEST_ARGV, verbosity=2)
