#!/usr/bin/env python3
"""Derives the golden render output of upstream's Flux examples from upstream's Go code.

Not run by the tests: it records how test/plugins/flux/golden/*.json were made, independently
of the C++ plugin. Each function below mirrors one Go function of
https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/flux/flux.go
(and the JobSet builder, pkg/runtime/framework/plugins/jobset/{jobset.go,builder.go}); the
per-example numbers are read off the YAML in test/fixtures/upstream/flux/.

    python3 derive.py <dir holding upstream's broker.toml, entrypoint.sh, init.sh> <out dir>

Placeholders the test fills in: "<uid>" (the TrainJob uid render assigns), "<curve.cert>"
(the random key pair; checked separately).
"""
import json
import pathlib
import sys

NODE = "node"
OWNER = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "uid": "<uid>",
         "controller": True, "blockOwnerDeletion": True}
DEFAULT_VIEW_IMAGE = "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy"  # constants.FluxInstallerImage


def generate_range(size, start):
    return str(start) if size == 1 else f"{start}-{start + size - 1}"


def generate_hostlist(prefix, size):
    return f"{prefix}-{NODE}-0-[{generate_range(size, 0)}]"


def broker_config(tpl, name, ns, hosts, device="eth0", queue="fcfs"):
    fqdn = f"{name}.{ns}.svc.cluster.local"
    return tpl["broker.toml"] % ("tcp://" + device + ":%p", "tcp://%h" + f".{fqdn}:" + "%p", hosts, queue)


def init_entrypoint(tpl, name, ns, nodes):
    hosts = generate_hostlist(name, nodes)
    return tpl["init.sh"] % ("/opt/view", f"{name}-0", hosts, broker_config(tpl, name, ns, hosts))


def flux_entrypoint(tpl, name, nodes, tasks, gpus):
    flags = f"-N {nodes} -n {tasks * nodes}"
    rspec = f"--cores={generate_range(tasks, 0)}"
    if gpus > 0:
        flags = f"{flags} -g {gpus}"
        rspec = f"{rspec} --gpu={generate_range(gpus, 0)}"
    return tpl["entrypoint.sh"] % (rspec, f"{name}-{NODE}-0-0", flags)


def owner(name):
    return [dict(OWNER, name=name)]


def meta(name, job, ns):
    return {"name": name, "namespace": ns, "ownerReferences": owner(job)}


def jobset(ex):
    name, ns, cm = ex["name"], ex["ns"], ex["name"] + "-flux-entrypoint"
    node = {"name": NODE, "image": ex["image"],
            "command": ["/bin/bash", "/etc/flux-config/entrypoint.sh", ex["original"]],
            "volumeMounts": [
                {"name": "flux-install", "mountPath": "/mnt/flux"},
                {"name": "spack-install", "mountPath": "/opt/software"},
                {"name": cm, "mountPath": "/etc/flux-config", "readOnly": True},
                {"name": "flux-curve", "mountPath": "/curve", "readOnly": True},
                {"name": "shared-memory", "mountPath": "/dev/shm", "readOnly": True}]}
    if ex["env"]:
        node["env"] = ex["env"]
    if ex.get("resources"):
        node["resources"] = ex["resources"]
    installer = {"name": "flux-installer", "image": ex.get("view", DEFAULT_VIEW_IMAGE),
                 "command": ["/bin/bash", "/etc/flux-config/init.sh"],
                 "volumeMounts": [{"name": "flux-install", "mountPath": "/mnt/flux"},
                                  {"name": cm, "mountPath": "/etc/flux-config", "readOnly": True}]}
    volumes = [{"name": "spack-install", "emptyDir": {}},
               {"name": "flux-install", "emptyDir": {}},
               {"name": cm, "configMap": {"name": cm, "defaultMode": 0o755}},
               {"name": "shared-memory", "emptyDir": {"medium": "Memory"}},
               {"name": "flux-curve", "secret": {"secretName": name + "-flux-curve", "defaultMode": 0o400}}]
    rjob = {"name": NODE, "groupName": "default", "replicas": 1,
            "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                         "spec": {"parallelism": ex["nodes"], "completions": ex["nodes"],
                                  "template": {"spec": {"initContainers": [installer], "containers": [node],
                                                        "volumes": volumes}}}}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta(name, name, ns),
            "spec": {"replicatedJobs": [rjob], "suspend": False}}


def objects(tpl, ex):
    name, ns = ex["name"], ex["ns"]
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(name + "-flux-entrypoint", name, ns),
          "data": {"entrypoint.sh": flux_entrypoint(tpl, name, ex["nodes"], ex["tasks"], ex["gpus"]),
                   "init.sh": init_entrypoint(tpl, name, ns, ex["nodes"])}}
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": meta(name + "-flux-curve", name, ns),
              "data": {"curve.cert": "<curve.cert>"}}
    return [jobset(ex), cm, secret]


VIEW_ENV = {"name": "FLUX_VIEW_IMAGE", "value": DEFAULT_VIEW_IMAGE}
EXAMPLES = {
    # numNodes 2, numProcPerNode 4, no GPU; trainer.env names the default view image.
    "lammps-train-job": dict(name="lammps-flux", ns="default", nodes=2, tasks=4, gpus=0,
                             image="ghcr.io/converged-computing/metric-lammps:latest",
                             original="lmp -v x 4 -v y 4 -v z 4 -in in.reaxc.hns -nocite", env=[VIEW_ENV]),
    # numNodes 2, numProcPerNode 1, resourcesPerNode nvidia.com/gpu 1 (requests first).
    "lammps-train-gpus": dict(
        name="lammps-flux", ns="default", nodes=2, tasks=1, gpus=1,
        image="ghcr.io/flux-framework/tutorials:gpu-lammps-hwloc",
        original="lmp_gpu -k on g 8 -sf kk -pk kokkos cuda/aware off newton on neigh half -in in.reaxff.hns "
                 "-v x 8 -v y 8 -v z 16 -in in.reaxff.hns -nocite",
        env=[{"name": "OMPI_MCA_btl", "value": "tcp,self"}, VIEW_ENV],
        resources={"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}}),
    # numNodes 4, numProcPerNode from the policy (CRD default 1), no env.
    "flux-interactive": dict(name="lammps-flux-interactive", ns="default", nodes=4, tasks=1, gpus=0,
                             image="ghcr.io/converged-computing/metric-lammps:latest",
                             original="sleep infinity", env=[]),
}


def main():
    src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    tpl = {n: (src / n).read_bytes().decode("utf-8") for n in ("broker.toml", "entrypoint.sh", "init.sh")}
    for example, ex in EXAMPLES.items():
        (out / f"{example}.json").write_text(json.dumps(objects(tpl, ex), indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
