#!/usr/bin/python3
"""The install manifests (manifests/) and the RBAC proof of cluster mode.

1. Every kustomization under manifests/ renders with `kubectl kustomize` (a Component through an
   overlay of manifests/default); the manifests agree with the code and the Dockerfile (webhook
   paths and names, CRD schemas, binary, plugin and config paths, ports, runtime libraries).
2. `trainer-operator apiserver` accepts every rendered output with
   `kubectl apply --server-side --dry-run=server` (the kinds it does not serve are an explicit
   list here, so a change is noticed).
3. The RBAC proof: `trainer-operator run --kubeconfig` against that API server, with the shipped
   Configuration, is driven through everything it does in a cluster (the examples, a deleted
   TrainJob, a TrainJob whose runtime is gone, a deadline, legacy runtime finalizers, the
   webhook, certificate management, leader election, a restart). Every request it logs
   (TRAINER_CLIENT_REQUEST_LOG) is mapped to (verb, group, resource[/subresource], namespace,
   name) as the API server's RequestInfo does (plus `create` for a server-side apply, which may
   create its object: see authorizations()), and must be granted by the rendered
   ClusterRole/Roles bound to its ServiceAccount; every granted rule must be used by some
   request, except the ones listed in GRANTED_WITHOUT_REQUEST.

Usage: rbac_test.py [--bin PATH] [--plugin-dir DIR] [--source-dir DIR] [unittest args]
Defaults come from TRAINER_BIN, TRAINER_PLUGIN_DIR and TRAINER_SOURCE_DIR (CTest sets them, see
CMakeLists.txt here), else the build tree of the checkout this file is in; kubectl is $KUBECTL or
/usr/bin/kubectl (v1.32). A missing tool fails the run, it never skips. The last line printed is
unittest's summary; the exit code is non-zero on any failure.
"""
import argparse
import base64
import copy
import http.client
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import uuid

try:
    import yaml

    # libyaml's parser and emitter (Debian's python3-yaml has them): the pure-Python ones spent
    # about 100 s of this test's CPU on the 1.8 MB of rendered CRDs, ten times libyaml's.
    YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    IMPORT_ERROR = None
except ImportError as e:  # reported by the tests as a failure
    IMPORT_ERROR = ("PyYAML is not importable (%s): scripts/setup.sh installs python3-yaml; run this with "
                    "/usr/bin/python3" % e)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))


def parse_args():
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--bin", default=os.environ.get("TRAINER_BIN", os.path.join(SOURCE, "build/bin/trainer-operator")))
    p.add_argument("--plugin-dir", default=os.environ.get(
        "TRAINER_PLUGIN_DIR", os.path.join(SOURCE, "build/lib/trainer-operator/plugins")))
    p.add_argument("--source-dir", default=os.environ.get("TRAINER_SOURCE_DIR", SOURCE))
    return p.parse_known_args()


ARGS, UNITTEST_ARGV = parse_args()
KUBECTL = os.environ.get("KUBECTL", "/usr/bin/kubectl")
MANIFESTS = os.path.join(ARGS.source_dir, "manifests")
NS = "kubeflow-system"
SERVICE_ACCOUNT = "kubeflow-trainer-controller-manager"

# Kinds in the rendered manifests that the embedded API server does not serve (group, kind).
# Empty: it serves every kind the install uses. A kind appearing here or disappearing from the
# server fails ClusterTest, so the list is kept in step with core/apiserver/resources.cpp.
EXPECTED_UNSERVED = set()

# Objects of the manifests the embedded API server already has as built-ins, which a first
# server-side apply conflicts with: its trainer CRD objects (core/apiserver/resources.cpp) carry no
# managedFields and a schema without descriptions, so applying upstream's CRDs conflicts with the
# "before-first-apply" manager on .spec.versions (a real API server has no such built-ins). The
# test asserts exactly these conflict, then applies them with --force-conflicts.
# The embedded API seeds the trainer CRDs exactly as manifests/crds has them, so applying the
# install manifests conflicts with nothing.
EXPECTED_BUILTIN_CONFLICTS = set()

# Rules granted although no request of the operator's uses them, with the reason.
GRANTED_WITHOUT_REQUEST = {
    ("update", "trainer.kubeflow.org", "trainjobs/finalizers"):
        "children carry ownerReferences with blockOwnerDeletion: true; the OwnerReferencesPermissionEnforcement "
        "admission plugin requires `update` on the owner's finalizers subresource to set it",
}

# What the shipped plugins and the operator build, for waiting on (the examples' TrainJobs).
EXAMPLE_TRAINJOBS = ["multi-node-example", "deepspeed-example", "plain-example", "gang-example", "volcano-example"]
LEGACY_FINALIZER = "trainer.kubeflow.org/resource-in-use"


# ---------------------------------------------------------------------------------------------
# Helpers

def eventually(pred, limit=60.0, step=0.25):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def run(args, input=None, timeout=120):
    return subprocess.run(args, input=input, capture_output=True, text=True, timeout=timeout)


def docs(text):
    return [d for d in yaml.load_all(text, Loader=YAML_LOADER) if d]


def kustomization_dirs():
    """Every folder under manifests/ holding a kustomization, with its kind."""
    out = []
    for root, _, files in os.walk(MANIFESTS):
        for name in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
            if name in files:
                with open(os.path.join(root, name)) as f:
                    k = yaml.load(f, Loader=YAML_LOADER) or {}
                out.append((os.path.relpath(root, MANIFESTS), k.get("kind", "Kustomization")))
    return sorted(out)


def render(rel, kind, scratch):
    """`kubectl kustomize` of manifests/REL; a Component through an overlay of manifests/default."""
    target = os.path.join(MANIFESTS, rel)
    if kind == "Component":
        overlay = tempfile.mkdtemp(prefix="overlay-", dir=scratch)
        with open(os.path.join(overlay, "kustomization.yaml"), "w") as f:
            yaml.safe_dump({"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                            "resources": [os.path.relpath(os.path.join(MANIFESTS, "default"), overlay)],
                            "components": [os.path.relpath(target, overlay)]}, f)
        target = overlay
    return run([KUBECTL, "kustomize", target])


def find(objects, kind, name=None, prefix=None):
    hits = [o for o in objects if o.get("kind") == kind and
            (name is None or o["metadata"]["name"] == name) and
            (prefix is None or o["metadata"]["name"].startswith(prefix))]
    if len(hits) != 1:
        raise AssertionError("expected one %s %s, found %d" % (kind, name or prefix or "", len(hits)))
    return hits[0]


def group_of(api_version):
    return api_version.split("/")[0] if "/" in api_version else ""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# The API server's RequestInfo (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go), for
# the requests a client sends.

_API_PREFIXES = {"api", "apis"}
_GROUPLESS_PREFIXES = {"api"}
_SPECIAL_VERBS = {"proxy", "watch"}
_SPECIAL_VERBS_NO_SUBRESOURCES = {"proxy"}
_NAMESPACE_SUBRESOURCES = {"status", "finalize"}
_METHOD_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


def _query_bool(values):
    """metav1's Convert_Slice_string_To_bool: absent, "0" and "false" are false, the rest true."""
    return bool(values) and not (values[0] == "0" or values[0].lower() == "false")


def request_info(method, target):
    """(verb, group, resource, namespace, name) of a resource request; None for a non-resource one."""
    url = urllib.parse.urlsplit(target)
    path = url.path.strip("/")
    parts = path.split("/") if path else []
    if len(parts) < 3 or parts[0] not in _API_PREFIXES:
        return None
    prefix, parts = parts[0], parts[1:]
    group = ""
    if prefix not in _GROUPLESS_PREFIXES:
        if len(parts) < 3:
            return None
        group, parts = parts[0], parts[1:]
    parts = parts[1:]  # the version
    if parts[0] in _SPECIAL_VERBS:
        if len(parts) < 2:
            raise AssertionError("unable to determine kind and namespace from url %s" % target)
        verb, parts = parts[0], parts[1:]
    else:
        verb = _METHOD_VERBS.get(method, "")
    namespace = ""
    if parts[0] == "namespaces" and len(parts) > 1:
        namespace = parts[1]
        if len(parts) > 2 and parts[2] not in _NAMESPACE_SUBRESOURCES:
            parts = parts[2:]
    resource, name, subresource = parts[0], "", ""
    if len(parts) >= 3 and verb not in _SPECIAL_VERBS_NO_SUBRESOURCES:
        subresource = parts[2]
    if len(parts) >= 2:
        name = parts[1]
    query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
    if not name and verb == "get":
        verb = "watch" if _query_bool(query.get("watch", [])) else "list"
        for sel in query.get("fieldSelector", []):
            m = re.fullmatch(r"metadata\.name==?([^,]+)", sel)
            if m:
                name = m.group(1)
    if not name and verb == "delete":
        verb = "deletecollection"
    return verb, group, resource + ("/" + subresource if subresource else ""), namespace, name


def authorizations(method, target):
    """The authorization checks one request needs: [(verb, group, resource, namespace, name)].

    Its RequestInfo; and for a server-side apply (a PATCH with `force`, a parameter only apply
    patches accept; every PATCH the operator sends is one, core/kube/remote_store.cpp apply),
    `create` as well, which the API server checks when the apply creates the object
    (k8s.io/apiserver/pkg/endpoints/handlers/patch.go, createAuthorizerAttributes). The log does
    not say whether an apply created its object, so each apply counts as needing both.
    """
    info = request_info(method, target)
    if info is None:
        return []
    out = [info]
    if method == "PATCH" and "force" in urllib.parse.parse_qs(urllib.parse.urlsplit(target).query):
        out.append(("create",) + info[1:])
    return out


def rule_allows(rule, verb, group, resource, name):
    def has(field, value):
        values = rule.get(field) or []
        return "*" in values or value in values
    names = rule.get("resourceNames") or []
    return (has("verbs", verb) and has("apiGroups", group) and has("resources", resource) and
            (not names or name in names))


def bound_rules(objects):
    """[(scope namespace or "" for cluster-wide, role kind/name, rule)] bound to the operator's ServiceAccount."""
    def binds_us(binding):
        return any(s.get("kind") == "ServiceAccount" and s.get("name") == SERVICE_ACCOUNT and
                   s.get("namespace") == NS for s in binding.get("subjects") or [])
    roles = {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o
             for o in objects if o.get("kind") in ("ClusterRole", "Role")}
    out, used = [], set()
    for b in objects:
        if b.get("kind") not in ("ClusterRoleBinding", "RoleBinding") or not binds_us(b):
            continue
        ref = b["roleRef"]
        scope = b["metadata"].get("namespace", "") if b["kind"] == "RoleBinding" else ""
        key = (ref["kind"], scope if ref["kind"] == "Role" else "", ref["name"])
        if key not in roles:
            raise AssertionError("%s %s refers to a missing %s" % (b["kind"], b["metadata"]["name"], key))
        used.add(key)
        for rule in roles[key].get("rules") or []:
            out.append((scope, "%s %s" % (ref["kind"], ref["name"]), rule))
    unbound = set(roles) - used
    if unbound:
        raise AssertionError("roles bound to nobody: %s" % sorted(unbound))
    return out


def granted(rules, info):
    verb, group, resource, namespace, name = info
    return any(rule_allows(rule, verb, group, resource, name) and (not scope or scope == namespace)
               for scope, _, rule in rules)


# ---------------------------------------------------------------------------------------------
# The Dockerfile, as far as the checks need it.

def dockerfile_stages(path):
    """[{from, packages, instructions: [(KEYWORD, text)]}] with continuation lines joined."""
    with open(path) as f:
        lines = [ln.rstrip("\n") for ln in f if not ln.lstrip().startswith("#")]
    joined, cur = [], ""
    for ln in lines:
        if ln.endswith("\\"):
            cur += ln[:-1] + " "
            continue
        cur += ln
        if cur.strip():
            joined.append(cur.strip())
        cur = ""
    stages = []
    for ins in joined:
        keyword, _, text = ins.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            stages.append({"from": text.split()[0], "packages": [], "instructions": []})
            continue
        stages[-1]["instructions"].append((keyword, text.strip()))
        if keyword == "RUN":
            for m in re.finditer(r"apt-get install ((?:[^&]|&(?!&))*)", text):
                stages[-1]["packages"] += [w for w in m.group(1).split() if not w.startswith("-")]
    return stages


def instruction(stage, keyword):
    hits = [t for k, t in stage["instructions"] if k == keyword]
    return hits[-1] if hits else None


def dpkg_packages(lib_paths):
    """{path: Debian package} for shared libraries, in one dpkg-query (merged /usr: both spellings)."""
    spellings = {}
    for p in lib_paths:
        real = os.path.realpath(p)
        for s in {p, real, real.replace("/usr/lib/", "/lib/", 1), real.replace("/lib/", "/usr/lib/", 1)}:
            spellings[s] = p
    r = run(["dpkg-query", "-S"] + sorted(spellings))
    out = {}
    for line in r.stdout.splitlines():
        m = re.fullmatch(r"([^:,\s]+)(?::[^:\s]+)?: (\S+)", line.strip())
        if m and m.group(2) in spellings:
            out[spellings[m.group(2)]] = m.group(1)
    missing = sorted(set(lib_paths) - set(out))
    if missing:
        raise AssertionError("no Debian package holds %s (dpkg-query: %s)" % (missing, r.stderr.strip()))
    return out


# ---------------------------------------------------------------------------------------------

class Rendered:
    """Every kustomization rendered once (shared by the test classes)."""
    outputs = None  # rel -> (kind, CompletedProcess)
    scratch = None

    @classmethod
    def get(cls):
        if cls.outputs is None:
            cls.scratch = tempfile.mkdtemp(prefix="trainer-manifests-")
            cls.outputs = {rel: (kind, render(rel, kind, cls.scratch)) for rel, kind in kustomization_dirs()}
        return cls.outputs

    @classmethod
    def objects(cls, rel):
        kind, r = cls.get()[rel]
        if r.returncode != 0:
            raise AssertionError("kubectl kustomize manifests/%s failed: %s" % (rel, r.stderr))
        return docs(r.stdout)


def config_of(objects):
    cm = find(objects, "ConfigMap", prefix="kubeflow-trainer-config")
    return cm, yaml.load(cm["data"]["config.yaml"], Loader=YAML_LOADER)


def manager_container(deployment):
    return next(c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == "manager")


class ManifestsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if IMPORT_ERROR:
            raise AssertionError(IMPORT_ERROR)
        if not os.access(KUBECTL, os.X_OK):
            raise AssertionError("kubectl not found at %s (set $KUBECTL; scripts/setup.sh checks for kubectl >= 1.27)" % KUBECTL)

    def test_01_every_kustomization_renders(self):
        found = dict(kustomization_dirs())
        for rel in ("crds", "rbac", "manager", "runtimes", "runtimes/gang-scheduling", "default",
                    "components/plugin-image", "components/manual-webhook-cert", "examples/third-party-plugin"):
            self.assertIn(rel, found, "manifests/%s has no kustomization" % rel)
        for rel, (kind, r) in sorted(Rendered.get().items()):
            with self.subTest(kustomization=rel):
                self.assertEqual(r.returncode, 0, "kubectl kustomize manifests/%s (%s): %s" % (rel, kind, r.stderr))
                objs = docs(r.stdout)
                self.assertTrue(objs, "manifests/%s renders nothing" % rel)
                for o in objs:
                    self.assertTrue(o.get("apiVersion") and o.get("kind") and o.get("metadata", {}).get("name"), o)

    def test_02_default_is_the_install(self):
        objs = Rendered.objects("default")
        kinds = sorted({(o["kind"], o["metadata"]["name"]) for o in objs})
        for want in [("Namespace", NS), ("ServiceAccount", SERVICE_ACCOUNT), ("ClusterRole", SERVICE_ACCOUNT),
                     ("Deployment", SERVICE_ACCOUNT), ("Service", SERVICE_ACCOUNT),
                     ("ValidatingWebhookConfiguration", "validator.trainer.kubeflow.org"),
                     ("MutatingWebhookConfiguration", "defaulter.trainer.kubeflow.org"),
                     ("CustomResourceDefinition", "trainjobs.trainer.kubeflow.org"),
                     ("CustomResourceDefinition", "trainingruntimes.trainer.kubeflow.org"),
                     ("CustomResourceDefinition", "clustertrainingruntimes.trainer.kubeflow.org")]:
            self.assertIn(want, kinds)
        for o in objs:
            if o["kind"] not in ("Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding",
                                 "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
                self.assertEqual(o["metadata"].get("namespace"), NS, "%s %s" % (o["kind"], o["metadata"]["name"]))

    def test_03_crds_are_the_embedded_api(self):
        """manifests/crds hold the CRDs api/crds/*.json were extracted from (scripts/extract_crd_schemas.py)."""
        spec = importlib.util.spec_from_file_location("extract", os.path.join(ARGS.source_dir, "scripts",
                                                                               "extract_crd_schemas.py"))
        extract = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(extract)
        crds = {o["spec"]["names"]["plural"]: o for o in Rendered.objects("crds")}
        self.assertEqual(sorted(crds), ["clustertrainingruntimes", "trainingruntimes", "trainjobs"])
        for plural, crd in crds.items():
            with open(os.path.join(ARGS.source_dir, "api", "crds", plural + ".json")) as f:
                embedded = json.load(f)
            self.assertEqual(extract.extract(crd), embedded, "manifests/crds and api/crds/%s.json differ" % plural)

    def test_04_webhooks_match_the_server(self):
        with open(os.path.join(ARGS.source_dir, "core", "server", "webhook.hpp")) as f:
            header = f.read()
        consts = dict(re.findall(r'constexpr std::string_view (k\w+)\s*=\s*"([^"]*)"', header))
        want_validating = {consts["kValidateTrainJobName"]: (consts["kValidateTrainJobPath"], "trainjobs"),
                           consts["kValidateTrainingRuntimeName"]: (consts["kValidateTrainingRuntimePath"],
                                                                    "trainingruntimes"),
                           consts["kValidateClusterTrainingRuntimeName"]: (
                               consts["kValidateClusterTrainingRuntimePath"], "clustertrainingruntimes")}
        want_mutating = {consts["kMutateTrainJobName"]: (consts["kMutateTrainJobPath"], "trainjobs")}
        objs = Rendered.objects("default")
        svc = find(objs, "Service", SERVICE_ACCOUNT)
        dep = find(objs, "Deployment", SERVICE_ACCOUNT)
        ports = {p["name"]: p["containerPort"] for p in manager_container(dep)["ports"]}
        _, cfg = config_of(objs)
        webhook_port = next(p for p in svc["spec"]["ports"] if p["name"] == "webhook")
        self.assertEqual(webhook_port["port"], 443)
        self.assertEqual(ports[webhook_port["targetPort"]], cfg["webhook"]["port"])
        # The status server (TrainJobStatus gate): the URL the trainjobstatus plugin injects is
        # https://<Service>.<ns>.svc:<statusServer.port>, so the Service port is that port too.
        status_port = next(p for p in svc["spec"]["ports"] if p["name"] == "status-server")
        want_status = cfg.get("statusServer", {}).get("port", 10443)
        self.assertEqual((status_port["port"], ports[status_port["targetPort"]]), (want_status, want_status))
        for kind, want in (("ValidatingWebhookConfiguration", want_validating),
                           ("MutatingWebhookConfiguration", want_mutating)):
            cfgobj = find(objs, kind)
            got = {}
            for h in cfgobj["webhooks"]:
                svcref = h["clientConfig"]["service"]
                self.assertEqual((svcref["name"], svcref["namespace"], svcref.get("port", 443)),
                                 (svc["metadata"]["name"], NS, 443))
                self.assertNotIn("caBundle", h["clientConfig"], "caBundle is filled in the cluster, never applied")
                self.assertEqual((h["failurePolicy"], h["sideEffects"], h["admissionReviewVersions"]),
                                 ("Fail", "None", ["v1"]))
                self.assertEqual(len(h["rules"]), 1)
                rule = h["rules"][0]
                self.assertEqual((rule["apiGroups"], rule["apiVersions"], sorted(rule["operations"])),
                                 (["trainer.kubeflow.org"], ["v1alpha1"], ["CREATE", "UPDATE"]))
                got[h["name"]] = (svcref["path"], rule["resources"][0])
            self.assertEqual(got, want)
        self.assertEqual(cfg["certManagement"]["webhookServiceName"], svc["metadata"]["name"])

    def test_05_dockerfile_matches_the_deployment(self):
        """The image's paths (binary, plugins, user) are the Deployment's and the install layout's."""
        stages = dockerfile_stages(os.path.join(ARGS.source_dir, "Dockerfile"))
        self.assertEqual(len(stages), 2, "a build stage and a runtime stage")
        build, runtime = stages
        self.assertTrue(build["from"].startswith("debian:bookworm") and runtime["from"].startswith("debian:bookworm"))
        entry = json.loads(instruction(runtime, "ENTRYPOINT"))
        self.assertEqual(len(entry), 1)
        binary = entry[0]
        prefix = os.path.dirname(os.path.dirname(binary))
        self.assertEqual(os.path.relpath(binary, prefix), "bin/trainer-operator")
        with open(os.path.join(ARGS.source_dir, "CMakeLists.txt")) as f:
            cmake = f.read()
        plugin_rel = re.search(r"set\(TRAINER_PLUGIN_INSTALL_DIR\s+(\S+)\)", cmake).group(1)
        plugin_dir = os.path.join(prefix, plugin_rel)
        init_dir = os.path.join(prefix, re.search(r"set\(TRAINER_CONTAINER_INIT_DIR\s+(\S+)\)", cmake).group(1))
        build_runs = " ".join(t for k, t in build["instructions"] if k == "RUN")
        self.assertRegex(build_runs, r"cmake --install \S+ --prefix %s\b" % re.escape(prefix))
        copies = [t.split() for k, t in runtime["instructions"] if k == "COPY"]
        copied = {c[-1] for c in copies if c[0].startswith("--from=")}
        self.assertIn(os.path.dirname(binary), copied)
        self.assertTrue(any(plugin_dir == d or plugin_dir.startswith(d + "/") for d in copied),
                        "%s is not copied into the runtime stage: %s" % (plugin_dir, copied))
        self.assertTrue(any(init_dir == d or init_dir.startswith(d + "/") for d in copied),
                        "%s (the container init) is not copied into the runtime stage: %s" % (init_dir, copied))

        objs = Rendered.objects("default")
        dep = find(objs, "Deployment", SERVICE_ACCOUNT)
        pod = dep["spec"]["template"]["spec"]
        c = manager_container(dep)
        self.assertNotIn("command", c, "the Deployment runs the image's ENTRYPOINT")
        self.assertEqual(json.loads(instruction(runtime, "CMD")), c["args"])
        self.assertEqual(c["args"][:2], ["run", "--config"])
        config_path = c["args"][2]
        self.assertNotIn("--plugin-dir", c["args"], "the image's own plugin dir is the binary's default")
        cm, cfg = config_of(objs)
        mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
        volumes = {v["name"]: v for v in pod["volumes"]}
        mount = mounts[os.path.dirname(config_path)]
        self.assertEqual(volumes[mount["name"]]["configMap"]["name"], cm["metadata"]["name"])
        self.assertIn(os.path.basename(config_path), cm["data"])
        self.assertIn(cfg["webhook"]["certDir"], mounts, "webhook.certDir is not mounted")
        ports = {p["name"]: p["containerPort"] for p in c["ports"]}
        self.assertEqual(ports["health"], int(cfg["health"]["healthProbeBindAddress"].rsplit(":", 1)[1]))
        self.assertEqual(ports["metrics"], int(cfg["metrics"]["bindAddress"].rsplit(":", 1)[1]))
        self.assertEqual(ports["webhook"], cfg["webhook"]["port"])
        probes = {c["livenessProbe"]["httpGet"]["path"], c["readinessProbe"]["httpGet"]["path"]}
        self.assertEqual(probes, {"/" + cfg["health"]["livenessEndpointName"],
                                  "/" + cfg["health"]["readinessEndpointName"]})
        user = instruction(runtime, "USER").split(":")
        self.assertEqual(int(user[0]), pod["securityContext"]["runAsUser"])
        sc = c["securityContext"]
        self.assertEqual((sc["runAsNonRoot"], sc["readOnlyRootFilesystem"], sc["allowPrivilegeEscalation"],
                          sc["capabilities"]["drop"], sc["seccompProfile"]["type"]),
                         (True, True, False, ["ALL"], "RuntimeDefault"))

        # The plugin-image component copies the image's plugins from that same dir.
        plugin_objs = Rendered.objects("examples/third-party-plugin")
        pc = find(plugin_objs, "Deployment", SERVICE_ACCOUNT)["spec"]["template"]["spec"]
        shipped = next(i for i in pc["initContainers"] if i["name"] == "shipped-plugins")
        self.assertIn(plugin_dir + "/*.so", " ".join(shipped["command"]))
        self.assertEqual(shipped["image"], manager_container({"spec": {"template": {"spec": pc}}})["image"])
        args = manager_container({"spec": {"template": {"spec": pc}}})["args"]
        target = args[args.index("--plugin-dir") + 1]
        for ic in pc["initContainers"]:
            self.assertIn(target, [m["mountPath"] for m in ic["volumeMounts"]])

    def test_06_dockerfile_packages(self):
        """The build stage has scripts/setup.sh's build packages; the runtime stage every library linked."""
        build, runtime = dockerfile_stages(os.path.join(ARGS.source_dir, "Dockerfile"))
        with open(os.path.join(ARGS.source_dir, "scripts", "setup.sh")) as f:
            setup = re.search(r"packages=\(([^)]*)\)", f.read()).group(1).split()
        needed = [p for p in setup if re.fullmatch(r"build-essential|cmake|binutils|lld|pkg-config|lib.*-dev|libtcmalloc-minimal4", p)]
        self.assertTrue(needed)
        self.assertEqual(sorted(set(needed) - set(build["packages"])), [])
        if not os.access(ARGS.bin, os.X_OK):
            raise AssertionError("trainer-operator not built: %s" % ARGS.bin)
        paths = set()
        plugins = [os.path.join(ARGS.plugin_dir, n) for n in os.listdir(ARGS.plugin_dir) if n.endswith(".so")]
        self.assertTrue(plugins, ARGS.plugin_dir)
        for f in [ARGS.bin] + plugins:
            out = run(["ldd", f]).stdout
            for m in re.finditer(r"=>\s+(/\S+)", out):
                if "asan" in m.group(1) or "ubsan" in m.group(1):
                    continue  # a sanitizer build
                paths.add(m.group(1))
        linked = set(dpkg_packages(paths).values())
        # In every debian:bookworm-slim image (essential, or required by apt).
        base = {"libc6", "libgcc-s1", "libstdc++6"}
        self.assertEqual(sorted(linked - base - set(runtime["packages"])), [],
                         "libraries the binary or a plugin links that the runtime stage does not install")

    def test_07_manual_cert_component_config(self):
        """components/manual-webhook-cert's Configuration is the shipped one with certManagement off."""
        _, shipped = config_of(Rendered.objects("default"))
        _, manual = config_of(Rendered.objects("components/manual-webhook-cert"))
        expect = copy.deepcopy(shipped)
        expect["certManagement"]["enable"] = False
        self.assertTrue(shipped["certManagement"]["enable"])
        self.assertEqual(manual, expect)
        dep = find(Rendered.objects("components/manual-webhook-cert"), "Deployment", SERVICE_ACCOUNT)
        c = manager_container(dep)
        mount = next(m for m in c["volumeMounts"] if m["mountPath"] == manual["webhook"]["certDir"])
        vol = next(v for v in dep["spec"]["template"]["spec"]["volumes"] if v["name"] == mount["name"])
        self.assertEqual(vol, {"name": mount["name"], "secret": {"secretName": manual["certManagement"]["webhookSecretName"]}})

    def test_08_runtimes_are_the_examples(self):
        """manifests/runtimes are the examples' ClusterTrainingRuntimes (the same objects)."""
        examples = {}
        for name in sorted(os.listdir(os.path.join(ARGS.source_dir, "examples"))):
            if name.startswith("1") and name.endswith(".yaml"):
                with open(os.path.join(ARGS.source_dir, "examples", name)) as f:
                    for d in docs(f.read()):
                        examples[(d["kind"], d["metadata"]["name"])] = d
        shipped = Rendered.objects("runtimes") + Rendered.objects("runtimes/gang-scheduling")
        for o in shipped:
            self.assertEqual(o, examples.get((o["kind"], o["metadata"]["name"])), o["metadata"]["name"])
        cluster_runtimes = {k for k in examples if k[0] == "ClusterTrainingRuntime"}
        self.assertEqual({(o["kind"], o["metadata"]["name"]) for o in shipped if o["kind"] == "ClusterTrainingRuntime"},
                         cluster_runtimes)


# ---------------------------------------------------------------------------------------------

class ApiServer:
    """`trainer-operator apiserver` on a fresh store, port 0."""

    def __init__(self, workdir):
        self.kubeconfig = os.path.join(workdir, "kc")
        self.log_path = os.path.join(workdir, "apiserver.log")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [ARGS.bin, "apiserver", "--store", os.path.join(workdir, "store.db"), "--plugin-dir", ARGS.plugin_dir,
             "--api-bind-address", "127.0.0.1:0", "--write-kubeconfig", self.kubeconfig],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def tail(self, n=3000):
        with open(self.log_path, "rb") as f:
            return f.read()[-n:].decode("utf-8", "replace")

    def wait_ready(self):
        if not eventually(lambda: os.path.exists(self.kubeconfig) or self.proc.poll() is not None, 60, 0.1) \
                or not os.path.exists(self.kubeconfig):
            raise AssertionError("no kubeconfig within 60s (exit %s):\n%s" % (self.proc.poll(), self.tail()))
        if not eventually(lambda: run([KUBECTL, "--kubeconfig", self.kubeconfig, "get", "--raw", "/readyz"],
                                      timeout=10).stdout.strip() == "ok", 60, 0.25):
            raise AssertionError("/readyz never answered ok:\n%s" % self.tail())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class Operator:
    """`trainer-operator run --kubeconfig` (cluster mode), its requests appended to `request_log`."""

    def __init__(self, workdir, kubeconfig, config_path, request_log, tag):
        self.log_path = os.path.join(workdir, "operator-%s.log" % tag)
        self.log = open(self.log_path, "wb")
        env = dict(os.environ, TRAINER_CLIENT_REQUEST_LOG=request_log)
        env.pop("KUBERNETES_SERVICE_HOST", None)
        self.proc = subprocess.Popen(
            [ARGS.bin, "run", "--kubeconfig", kubeconfig, "--plugin-dir", ARGS.plugin_dir, "--config", config_path,
             "--health-probe-bind-address", "0", "--metrics-bind-address", "0", "--api-bind-address", "0"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, env=env)

    def tail(self, n=4000):
        with open(self.log_path, "rb") as f:
            return f.read()[-n:].decode("utf-8", "replace")

    def alive(self):
        return self.proc.poll() is None

    def terminate(self, timeout=60):
        """SIGTERM, then the exit code (SIGKILL and an AssertionError when it does not stop)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                self.log.close()
                raise AssertionError("the operator did not stop within %ds of SIGTERM:\n%s" % (timeout, self.tail()))
        self.log.close()
        return self.proc.returncode


def runtime(kind, name, namespace=None, finalizers=None):
    md = {"name": name}
    if namespace:
        md["namespace"] = namespace
    if finalizers:
        md["finalizers"] = finalizers
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": md,
            "spec": {"template": {"spec": {"replicatedJobs": [{
                "name": "node",
                "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                             "spec": {"template": {"spec": {"containers": [{"name": "node",
                                                                            "image": "busybox:1.36"}]}}}}}]}}}}


def trainjob(name, runtime_name, runtime_kind=None, **spec):
    ref = {"name": runtime_name}
    if runtime_kind:
        ref["kind"] = runtime_kind
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": name, "namespace": "default"}, "spec": dict(runtimeRef=ref, **spec)}


class ClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if IMPORT_ERROR:
            raise AssertionError(IMPORT_ERROR)
        if not os.access(KUBECTL, os.X_OK):
            raise AssertionError("kubectl not found at %s (set $KUBECTL; scripts/setup.sh checks for kubectl >= 1.27)" % KUBECTL)
        if not os.access(ARGS.bin, os.X_OK):
            raise AssertionError("trainer-operator not built: %s" % ARGS.bin)
        cls.tmp = tempfile.mkdtemp(prefix="trainer-rbac-")
        cls.server = ApiServer(cls.tmp)
        try:
            cls.server.wait_ready()
        except Exception:
            cls.server.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "server", None):
            cls.server.stop()
        if getattr(cls, "tmp", None):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    # ---- kubectl against the API server ----

    def kubectl(self, *args, input=None, check=True, timeout=120):
        r = run([KUBECTL, "--kubeconfig", self.server.kubeconfig, *args], input=input, timeout=timeout)
        if check and r.returncode != 0:
            raise AssertionError("kubectl %s: %s%s" % (" ".join(args), r.stdout, r.stderr))
        return r

    def apply(self, objects, *extra):
        text = yaml.dump_all(objects, Dumper=YAML_DUMPER) if isinstance(objects, list) else objects
        return self.kubectl("apply", "--server-side", *extra, "-f", "-", input=text)

    def get(self, resource, name=None, namespace=None):
        """The object (or the list's items) as JSON; None when not found."""
        args = ["get", resource] + ([name] if name else []) + (["-n", namespace] if namespace else []) + ["-o", "json"]
        r = self.kubectl(*args, check=False)
        if r.returncode != 0:
            if "NotFound" in r.stderr or "not found" in r.stderr:
                return None
            raise AssertionError("kubectl %s: %s" % (" ".join(args), r.stderr))
        obj = json.loads(r.stdout)
        return obj if name else obj["items"]

    def served(self):
        """{(group, kind)} the API server serves (discovery), asked once per server: what it
        serves is fixed when it starts (core/apiserver/resources.cpp)."""
        if getattr(self.server, "served", None) is None:
            self.server.served = self.discover()
        return self.server.served

    def discover(self):
        out = set()
        core = json.loads(self.kubectl("get", "--raw", "/api/v1").stdout)
        out |= {("", r["kind"]) for r in core["resources"] if "/" not in r["name"]}
        for g in json.loads(self.kubectl("get", "--raw", "/apis").stdout)["groups"]:
            for v in g["versions"]:
                res = json.loads(self.kubectl("get", "--raw", "/apis/" + v["groupVersion"]).stdout)
                out |= {(g["name"], r["kind"]) for r in res["resources"] if "/" not in r["name"]}
        return out

    def ensure_namespace(self):
        if self.get("namespace", NS) is None:
            self.kubectl("create", "namespace", NS)

    def apply_served(self, objects, *extra):
        """Applies the objects of served kinds (EXPECTED_BUILTIN_CONFLICTS with --force-conflicts);
        the (group, kind)s left out."""
        served = self.served()
        missing = {(group_of(o["apiVersion"]), o["kind"]) for o in objects} - served
        subset = [o for o in objects if (group_of(o["apiVersion"]), o["kind"]) not in missing]
        builtin = [o for o in subset if (o["kind"], o["metadata"]["name"]) in EXPECTED_BUILTIN_CONFLICTS]
        plain = [o for o in subset if o not in builtin]
        for objs, flags in ((plain, ()), (builtin, ("--force-conflicts",))):
            if objs:
                r = self.apply(objs, *extra, *flags)
                self.assertEqual(r.returncode, 0, r.stderr)
        return missing

    # ---- 2: the rendered manifests, accepted by the API server ----

    def test_01_dry_run_apply_of_every_rendering(self):
        self.ensure_namespace()  # a dry run creates no namespace for the objects that follow it
        unserved = set()
        for rel, (kind, r) in sorted(Rendered.get().items()):
            with self.subTest(kustomization=rel):
                self.assertEqual(r.returncode, 0, r.stderr)
                unserved |= self.apply_served(docs(r.stdout), "--dry-run=server")
        self.assertEqual(unserved, EXPECTED_UNSERVED,
                         "the kinds of the manifests the embedded API does not serve changed")
        # The built-ins conflict without --force-conflicts, and only they do.
        conflicting = set()
        for o in Rendered.objects("default"):
            r = self.kubectl("apply", "--server-side", "--dry-run=server", "-f", "-",
                             input=yaml.dump(o, Dumper=YAML_DUMPER), check=False)
            if r.returncode != 0:
                self.assertIn('conflict with "before-first-apply"', r.stderr)
                conflicting.add((o["kind"], o["metadata"]["name"]))
        self.assertEqual(conflicting, EXPECTED_BUILTIN_CONFLICTS)

    # ---- 3: the RBAC proof ----

    def test_02_rbac_proof(self):
        self.ensure_namespace()
        install = Rendered.objects("default")
        self.assertEqual(self.apply_served(install), EXPECTED_UNSERVED)
        rules = bound_rules(install)

        # Cluster state first: the examples' runtimes (and the PriorityClass the volcano one uses),
        # runtimes carrying upstream's legacy finalizer, and a TrainJob whose runtime is then
        # deleted before the operator starts (its reconcile fails and records an Event).
        example_docs = {}
        for name in sorted(os.listdir(os.path.join(ARGS.source_dir, "examples"))):
            if name.endswith(".yaml"):
                with open(os.path.join(ARGS.source_dir, "examples", name)) as f:
                    example_docs[name] = docs(f.read())
        runtimes = [d for n, ds in example_docs.items() if n.startswith("1") for d in ds]
        trainjobs = [d for n, ds in example_docs.items() if n.startswith("2") for d in ds]
        self.assertEqual(sorted(d["metadata"]["name"] for d in trainjobs), sorted(EXAMPLE_TRAINJOBS))
        self.apply(runtimes)
        self.apply([runtime("ClusterTrainingRuntime", "legacy-finalizer", finalizers=[LEGACY_FINALIZER]),
                    runtime("TrainingRuntime", "legacy-finalizer", "default", finalizers=[LEGACY_FINALIZER])])
        self.apply([runtime("TrainingRuntime", "doomed", "default"),
                    trainjob("orphaned", "doomed", "TrainingRuntime")])
        self.kubectl("delete", "trainingruntime", "doomed", "-n", "default")

        # The shipped Configuration, with this machine's webhook port and certificate directory.
        _, cfg = config_of(install)
        cfg["webhook"]["certDir"] = os.path.join(self.tmp, "certs")
        cfg["webhook"]["port"] = free_port()
        config_path = os.path.join(self.tmp, "config.yaml")
        with open(config_path, "w") as f:
            yaml.safe_dump(cfg, f)
        request_log = os.path.join(self.tmp, "requests.log")
        secret_name = cfg["certManagement"]["webhookSecretName"]
        lease_name = cfg["leaderElection"]["resourceName"]

        op = Operator(self.tmp, self.server.kubeconfig, config_path, request_log, "1")
        try:
            self.drive_first_run(op, trainjobs, cfg)
            code = op.terminate()
            self.assertEqual(code, 0, op.tail())
        finally:
            if op.alive():
                op.terminate()
        lease = self.get("lease", lease_name, NS)
        self.assertIsNotNone(lease)
        self.assertEqual(lease["spec"].get("holderIdentity", ""), "", "SIGTERM releases the lease")

        # A restart with a damaged certificate: the operator replaces the Secret and re-injects the CA.
        before = self.get("secret", secret_name, NS)
        garbage = base64.b64encode(b"not a certificate").decode()
        self.kubectl("patch", "secret", secret_name, "-n", NS, "--type", "merge",
                     "-p", json.dumps({"data": {"tls.crt": garbage}}))
        op = Operator(self.tmp, self.server.kubeconfig, config_path, request_log, "2")
        try:
            def repaired():
                s = self.get("secret", secret_name, NS)
                return s and s["data"].get("tls.crt") not in (garbage, before["data"]["tls.crt"])
            self.assertTrue(eventually(repaired, 60), "the Secret was not renewed:\n" + op.tail())
            self.assertTrue(eventually(lambda: self.ca_injected(secret_name), 60), op.tail())
            self.assertTrue(eventually(lambda: (self.get("lease", lease_name, NS) or {}).get("spec", {})
                                       .get("holderIdentity"), 60), "no leader after the restart:\n" + op.tail())
            code = op.terminate()
            self.assertEqual(code, 0, op.tail())
        finally:
            if op.alive():
                op.terminate()

        self.check_requests(request_log, rules)

    def drive_first_run(self, op, trainjobs, cfg):
        def alive_and(pred):
            def check():
                if not op.alive():
                    raise AssertionError("the operator exited (%s):\n%s" % (op.proc.returncode, op.tail()))
                return pred()
            return check

        def jobset_names():
            return {j["metadata"]["name"] for j in self.get("jobsets.jobset.x-k8s.io", namespace="default") or []}

        # Leader, certificate in place, CA injected.
        self.assertTrue(eventually(alive_and(lambda: (self.get("lease", cfg["leaderElection"]["resourceName"], NS)
                                                      or {}).get("spec", {}).get("holderIdentity")), 60),
                        "the operator never became leader:\n" + op.tail())
        secret = cfg["certManagement"]["webhookSecretName"]
        self.assertTrue(eventually(alive_and(lambda: self.ca_injected(secret)), 60),
                        "no webhook certificate:\n" + op.tail())

        # The examples' TrainJobs and one with a deadline that passes.
        deadline = trainjob("deadline-example", "torch-distributed", activeDeadlineSeconds=2,
                            trainer={"command": ["sleep", "inf"]})
        self.apply(trainjobs + [deadline])
        want = set(EXAMPLE_TRAINJOBS)
        self.assertTrue(eventually(alive_and(lambda: want <= jobset_names()), 120),
                        "JobSets %s missing:\n%s" % (sorted(want - jobset_names()), op.tail()))
        for group, name in (("scheduling.x-k8s.io", "gang-example"), ("scheduling.volcano.sh", "volcano-example")):
            self.assertTrue(eventually(alive_and(lambda: self.get("podgroups." + group, name, "default")), 60),
                            "no %s PodGroup %s:\n%s" % (group, name, op.tail()))

        def deadline_passed():
            tj = self.get("trainjob", "deadline-example", "default")
            conds = (tj or {}).get("status", {}).get("conditions", [])
            failed = any(c["type"] == "Failed" and c.get("reason") == "DeadlineExceeded" for c in conds)
            return failed and "deadline-example" not in jobset_names()
        self.assertTrue(eventually(alive_and(deadline_passed), 60), "deadline not enforced:\n" + op.tail())

        # The orphaned TrainJob: Created=False and an Event recorded more than once (count updated).
        def orphan_reported():
            events = [e for e in self.get("events", namespace="default") or []
                      if e.get("involvedObject", {}).get("name") == "orphaned"
                      and e.get("reason") == "TrainJobResourcesCreationFailed"]
            return events and max(e.get("count", 1) for e in events) >= 2
        self.assertTrue(eventually(alive_and(orphan_reported), 60), "no repeated Event for 'orphaned':\n" + op.tail())

        # The legacy finalizer is removed from both runtimes.
        def finalizers_removed():
            return all(LEGACY_FINALIZER not in ((self.get(kind, "legacy-finalizer", ns) or {})
                                                .get("metadata", {}).get("finalizers") or [])
                       for kind, ns in (("clustertrainingruntime", None), ("trainingruntime", "default")))
        self.assertTrue(eventually(alive_and(finalizers_removed), 60), "legacy finalizers kept:\n" + op.tail())

        # The webhooks, called as the API server calls them.
        volcano = next(t for t in trainjobs if t["metadata"]["name"] == "volcano-example")
        probe = copy.deepcopy(volcano)
        probe["metadata"] = {"name": "webhook-probe", "namespace": "default"}
        for path, obj in (("/validate-trainer-kubeflow-org-v1alpha1-trainjob", probe),
                          ("/mutate-trainer-kubeflow-org-v1alpha1-trainjob", probe),
                          ("/validate-trainer-kubeflow-org-v1alpha1-clustertrainingruntime",
                           runtime("ClusterTrainingRuntime", "webhook-probe"))):
            resp = self.admission_review(cfg, path, obj)
            self.assertTrue(resp.get("allowed"), "%s denied: %s" % (path, resp))

        # A deleted TrainJob: its JobSet goes (the API server's garbage collector), the operator follows:
        # it reconciles the deletion (a "Reconciled" line for it, the event awaited) and lives on.
        def reconciles_of_it():
            with open(op.log_path, "rb") as f:
                return sum(1 for line in f.read().decode("utf-8", "replace").splitlines()
                           if '"msg":"Reconciled"' in line and "multi-node-example" in line)
        before = reconciles_of_it()
        self.kubectl("delete", "trainjob", "multi-node-example", "-n", "default")
        self.assertTrue(eventually(alive_and(lambda: "multi-node-example" not in jobset_names()), 60))
        self.assertTrue(eventually(alive_and(lambda: reconciles_of_it() > before), 60),
                        "the operator never reconciled the deleted TrainJob:\n" + op.tail())
        self.assertTrue(op.alive(), op.tail())

    def ca_injected(self, secret_name):
        s = self.get("secret", secret_name, NS)
        if not s or "ca.crt" not in s.get("data", {}):
            return False
        for kind, name in (("validatingwebhookconfiguration", "validator.trainer.kubeflow.org"),
                           ("mutatingwebhookconfiguration", "defaulter.trainer.kubeflow.org")):
            cfgobj = self.get(kind, name)
            if not cfgobj or any(h["clientConfig"].get("caBundle") != s["data"]["ca.crt"] for h in cfgobj["webhooks"]):
                return False
        return True

    def admission_review(self, cfg, path, obj):
        """POSTs an AdmissionReview v1 to the operator's webhook server; the response."""
        kinds = {"TrainJob": "trainjobs", "TrainingRuntime": "trainingruntimes",
                 "ClusterTrainingRuntime": "clustertrainingruntimes"}
        gvk = {"group": "trainer.kubeflow.org", "version": "v1alpha1", "kind": obj["kind"]}
        review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                  "request": {"uid": str(uuid.uuid4()), "kind": gvk, "requestKind": gvk,
                              "resource": {"group": "trainer.kubeflow.org", "version": "v1alpha1",
                                           "resource": kinds[obj["kind"]]},
                              "name": obj["metadata"]["name"], "namespace": obj["metadata"].get("namespace", ""),
                              "operation": "CREATE", "userInfo": {"username": "rbac-test"},
                              "object": obj, "oldObject": None, "dryRun": False}}
        ca = base64.b64decode(self.get("secret", cfg["certManagement"]["webhookSecretName"], NS)["data"]["ca.crt"])
        ctx = ssl.create_default_context(cadata=ca.decode())  # the serving certificate also names 127.0.0.1
        conn = http.client.HTTPSConnection("127.0.0.1", cfg["webhook"]["port"], context=ctx, timeout=30)
        try:
            conn.request("POST", path, body=json.dumps(review), headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            body = r.read()
        finally:
            conn.close()
        self.assertEqual(r.status, 200, body)
        out = json.loads(body)
        self.assertEqual(out["response"]["uid"], review["request"]["uid"])
        return out["response"]

    def check_requests(self, request_log, rules):
        """Every logged resource request is granted; every granted rule is used by one."""
        with open(request_log) as f:
            lines = [ln.rstrip("\n") for ln in f if ln.strip()]
        self.assertTrue(lines, "the operator logged no requests")
        infos, denied = [], {}
        for ln in lines:
            method, _, target = ln.partition(" ")
            for info in authorizations(method, target):  # none for discovery and other non-resource URLs
                infos.append(info)
                if not granted(rules, info):
                    denied.setdefault(info[:4], ln)  # one example request per (verb, group, resource, namespace)
        unused = set()
        for scope, _, rule in rules:
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    for verb in rule["verbs"]:
                        one = dict(rule, apiGroups=[group], resources=[resource], verbs=[verb])
                        if not any(rule_allows(one, i[0], i[1], i[2], i[4]) and (not scope or scope == i[3])
                                   for i in infos):
                            unused.add((verb, group, resource))
        # A namespaced grant the cluster-wide rules already give for every name is dead weight.
        redundant = sorted({(verb, group, resource, scope) for scope, _, rule in rules if scope
                            for group in rule["apiGroups"] for resource in rule["resources"] for verb in rule["verbs"]
                            if any(not cscope and not crule.get("resourceNames") and
                                   rule_allows(crule, verb, group, resource, "")
                                   for cscope, _, crule in rules)})
        self.assertEqual(redundant, [], "Role rules the ClusterRole already grants")
        used = sorted({i[:4] for i in infos})
        self.assertEqual(({k: denied[k] for k in sorted(denied)}, sorted(unused)), ({}, sorted(GRANTED_WITHOUT_REQUEST)),
                         "\n(requests not granted, grants never requested); every (verb, group, resource, namespace) "
                         "requested:\n  " + "\n  ".join(map(str, used)))


def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite()
    for cls in (ManifestsTest, ClusterTest):
        suite.addTests(loader.loadTestsFromTestCase(cls))
    return suite


if __name__ == "__main__":
    try:
        unittest.main(argv=[sys.argv[0]] + UNITTEST_ARGV, verbosity=2)
    finally:
        if Rendered.scratch:
            shutil.rmtree(Rendered.scratch, ignore_errors=True)
