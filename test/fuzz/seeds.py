#!/usr/bin/python3
"""Seed inputs for the fuzz targets, generated from examples/ and test/fixtures/upstream
(test/fuzz/README.md). Usage: seeds.py OUT_DIR writes OUT_DIR/<target>/<name> for every target;
scripts/fuzz.sh adds them to the committed corpus (test/fuzz/corpus/<target>/) before a run.
Inputs larger than MAX_BYTES are left out (they slow every execution down)."""

import glob
import hashlib
import json
import os
import re
import sys

import yaml

MAX_BYTES = 64 * 1024
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def files(*patterns):
    out = []
    for p in patterns:
        out += sorted(glob.glob(os.path.join(ROOT, p)))
    return [f for f in out if os.path.getsize(f) <= MAX_BYTES]


def objects():
    """Every object of the examples and the upstream fixtures (YAML documents and case files)."""
    out = []
    for f in files("examples/*.yaml", "examples/local/*.yaml", "test/fixtures/upstream/reference/*/*.yaml",
                   "test/fixtures/upstream/flux/*.yaml"):
        with open(f) as fh:
            out += [d for d in yaml.safe_load_all(fh) if isinstance(d, dict)]
    for f in files("test/golden/upstream/*.json"):
        with open(f) as fh:
            case = json.load(fh)
        out += [case["trainJob"]] if isinstance(case.get("trainJob"), dict) else []
        out += [r for r in case.get("runtimes", []) if isinstance(r, dict)]
    return out


class Writer:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.count = {}

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode()
        if len(data) > MAX_BYTES:
            return
        d = os.path.join(self.out_dir, target)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "gen-" + hashlib.sha1(data).hexdigest()[:16]), "wb") as fh:
            fh.write(data)
        self.count[target] = self.count.get(target, 0) + 1


def compact(v):
    return json.dumps(v, separators=(",", ":"))


def input_seeds(w, objs):
    for f in files("examples/*.yaml", "examples/local/*.yaml", "test/fixtures/upstream/reference/*/*.yaml",
                   "test/fixtures/upstream/flux/*.yaml", "test/fixtures/upstream/config/*.yaml"):
        with open(f, "rb") as fh:
            w.add("input", fh.read())
    for o in objs:
        w.add("input", compact(o))
    w.add("input", compact({"apiVersion": "v1", "kind": "List", "items": objs[:4]}))


def review(obj, operation="CREATE", old=None):
    req = {"uid": "u-1", "kind": {"group": "trainer.kubeflow.org", "version": "v1alpha1", "kind": obj.get("kind", "")},
           "resource": {"group": "trainer.kubeflow.org", "version": "v1alpha1", "resource": "trainjobs"},
           "name": obj.get("metadata", {}).get("name", ""), "namespace": "default", "operation": operation,
           "object": obj, "userInfo": {"username": "u"}}
    if old is not None:
        req["oldObject"] = old
    return compact({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req})


def admission_seeds(w, objs):
    for o in objs:
        if o.get("apiVersion", "").startswith("trainer.kubeflow.org/"):
            w.add("admission", review(o))
            w.add("admission", review(o, "UPDATE", o))


def edits_seeds(w):
    # Each line: a plugin byte (a = alpha, b = beta, c = gamma) and one edit document.
    env = '{"op":"set","path":"/podSets/node/containers/node/env/%s","value":{"name":"%s","value":"1"}}'
    w.add("edits", "a" + env % ("ALPHA_ENV", "ALPHA_ENV") + "\nb" + env % ("ALPHA_ENV", "ALPHA_ENV") + "\n")
    w.add("edits", "b" + env % ("X", "X") + "\nc" + env % ("X", "X") + "\nc" + env % ("X", "Y") + "\n")
    w.add("edits", 'a{"op":"remove","path":"/podSets/launcher/containers/node"}\nb{"op":"set","path":"/podSets/-","value":{}}\n')


def request_seeds(w, objs):
    labels = set()
    for o in objs:
        for k, v in (o.get("metadata", {}).get("labels") or {}).items():
            labels.add("%s=%s" % (k, v))
    for sel in sorted(labels):
        w.add("apiserver_request", "GET /apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs?labelSelector=" + sel)
        w.add("apiserver_request", "GET /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes?watch=1&labelSelector=" + sel)
    for f in files("test/fixtures/upstream/reference/crds/*.yaml", "api/crds/*.json"):
        with open(f, "rb") as fh:
            body = fh.read()
        w.add("apiserver_request", b"GET /apis/scheduling.x-k8s.io/v1alpha1/podgroups?fieldSelector=metadata.name%3Dx\n" + body)


def patch_seeds(w, objs):
    # Byte 0: media type (0 merge, 1 json, 2 strategic, 3 apply, 4 apply creating); byte 1: stored
    # object (4 TrainJob, 5 ClusterTrainingRuntime); byte 2: flags.
    for o in objs:
        kind = o.get("kind")
        if kind not in ("TrainJob", "ClusterTrainingRuntime"):
            continue
        target = b"\x04" if kind == "TrainJob" else b"\x05"
        w.add("apiserver_patch", b"\x03" + target + b"\x00" + yaml.safe_dump(o).encode())
        w.add("apiserver_patch", b"\x04" + target + b"\x01" + compact(o).encode())
        w.add("apiserver_patch", b"\x00" + target + b"\x00" + compact({"spec": o.get("spec", {})}).encode())


def protobuf_seeds(w):
    # The kubectl request bodies the protobuf tests capture (hex strings in protobuf_test.cpp).
    with open(os.path.join(ROOT, "test/core/apiserver/protobuf_test.cpp")) as fh:
        text = fh.read()
    for hexbody in re.findall(r'"(6b387300[0-9a-f]+)"', text):
        for defaults in (b"\x00", b"\x01", b"\x02"):
            w.add("apiserver_protobuf", defaults + bytes.fromhex(hexbody))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: seeds.py OUT_DIR")
    w = Writer(sys.argv[1])
    objs = objects()
    input_seeds(w, objs)
    admission_seeds(w, objs)
    edits_seeds(w)
    request_seeds(w, objs)
    patch_seeds(w, objs)
    protobuf_seeds(w)
    for target, n in sorted(w.count.items()):
        print("seeds: %s: %d generated" % (target, n))


if __name__ == "__main__":
    main()
