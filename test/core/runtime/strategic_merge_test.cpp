// strategicMerge against the JobSetSpec patch metadata: the Kubernetes PodSpec patch strategies
// and cases ported from k8s.io/apimachinery v0.36.3 pkg/util/strategicpatch/patch_test.go (its
// MergeItem fields mapped onto PodSpec fields: mergingList -> containers/env, mergingIntList ->
// finalizers, retainKeysMap -> a volume). Every case states the exact output text.
#include "core/runtime/strategic_merge.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace trainer::core;

namespace {

struct Case {
    std::string name;
    PatchSchema schema;
    std::string original;
    std::string patch;
    std::string expected;       // exact serialization; for an error, the original's
    std::string errorPath{};    // under "spec"
    std::string errorMessage{};
};

PatchSchema at(std::string_view root) { return patchSchemaAt(jobSetSpecPatchSchema(), root); }
const PatchSchema kJobSet = jobSetSpecPatchSchema();
const PatchSchema kPod = at("core/v1.PodSpec");
const PatchSchema kContainer = at("core/v1.Container");
const PatchSchema kMeta = at("meta/v1.ObjectMeta");
const PatchSchema kResources = resourceRequirementsPatchSchema();

void run(const std::vector<Case>& cases) {
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            Diagnostics diag;
            json::value original = json::parse(c.original);
            json::value out = strategicMerge(original, json::parse(c.patch), diag, "spec", c.schema);
            BOOST_TEST(json::serialize(out) == c.expected);
            if (c.errorMessage.empty()) {
                BOOST_TEST(diag.errors.empty());
                continue;
            }
            BOOST_TEST(out == original);
            BOOST_TEST_REQUIRE(diag.errors.size() == 1u);
            BOOST_TEST(diag.errors[0].path == c.errorPath);
            BOOST_TEST(diag.errors[0].message == c.errorMessage);
        }
    }
}

}  // namespace

// Fields without patch tags: objects merge key by key at any depth, lists and scalars are replaced.
BOOST_AUTO_TEST_CASE(untagged_fields_merge_key_by_key) {
    run({
        {"maps merge key by key, null deletes, absent null is a no-op", kPod,
         R"({"nodeSelector":{"a":"1","b":"2"},"hostname":"h"})",
         R"({"nodeSelector":{"b":"3","c":"4","a":null},"subdomain":null,"hostname":null})",
         R"({"nodeSelector":{"b":"3","c":"4"}})"},
        {"affinity merges key by key", kPod,
         R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}}})",
         R"({"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"gpu","operator":"Exists"}]}}]},"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"kubernetes.io/hostname"}]}}})",
         R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]},"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"gpu","operator":"Exists"}]}}]},"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"kubernetes.io/hostname"}]}}})"},
        {"nodeSelectorTerms (untagged) is replaced", kPod,
         R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]},{"matchFields":[]}]}}}})",
         R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["b"]}]}]}}}})",
         R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["b"]}]}]}}}})"},
        {"pod securityContext merges key by key", kPod,
         R"({"securityContext":{"runAsUser":1000,"fsGroup":2000,"sysctls":[{"name":"a","value":"1"}]}})",
         R"({"securityContext":{"runAsUser":0,"fsGroup":null,"runAsNonRoot":false,"sysctls":[{"name":"b","value":"2"}]}})",
         R"({"securityContext":{"runAsUser":0,"sysctls":[{"name":"b","value":"2"}],"runAsNonRoot":false}})"},
        {"container securityContext merges, capabilities.add replaced", kPod,
         R"({"containers":[{"name":"node","securityContext":{"privileged":true,"capabilities":{"add":["NET_ADMIN"],"drop":["ALL"]}}}]})",
         R"({"containers":[{"name":"node","securityContext":{"capabilities":{"add":["SYS_PTRACE"]},"runAsUser":2}}]})",
         R"({"containers":[{"name":"node","securityContext":{"privileged":true,"capabilities":{"add":["SYS_PTRACE"],"drop":["ALL"]},"runAsUser":2}}]})"},
        {"dnsConfig merges, its options list (untagged) is replaced", kPod,
         R"({"dnsPolicy":"None","dnsConfig":{"nameservers":["1.1.1.1"],"options":[{"name":"ndots","value":"2"}]}})",
         R"({"dnsConfig":{"searches":["svc.cluster.local"],"options":[{"name":"edns0"}]}})",
         R"({"dnsPolicy":"None","dnsConfig":{"nameservers":["1.1.1.1"],"options":[{"name":"edns0"}],"searches":["svc.cluster.local"]}})"},
        {"tolerations, command and args are replaced", kPod,
         R"({"tolerations":[{"key":"a","operator":"Exists"},{"key":"b"}],"containers":[{"name":"c","command":["x","y"],"args":["1"]}]})",
         R"({"tolerations":[{"key":"c","effect":"NoSchedule"}],"containers":[{"name":"c","command":["z"]}]})",
         R"({"tolerations":[{"key":"c","effect":"NoSchedule"}],"containers":[{"name":"c","command":["z"],"args":["1"]}]})"},
        {"envFrom and readinessGates are replaced", kPod,
         R"({"readinessGates":[{"conditionType":"a"}],"containers":[{"name":"c","envFrom":[{"configMapRef":{"name":"a"}}]}]})",
         R"({"readinessGates":[{"conditionType":"b"}],"containers":[{"name":"c","envFrom":[{"secretRef":{"name":"s"}}]}]})",
         R"({"readinessGates":[{"conditionType":"b"}],"containers":[{"name":"c","envFrom":[{"secretRef":{"name":"s"}}]}]})"},
        {"container resources merge key by key, claims replaced", kContainer,
         R"({"name":"c","resources":{"limits":{"cpu":"1","memory":"1Gi"},"claims":[{"name":"a"},{"name":"b"}]}})",
         R"({"resources":{"limits":{"cpu":"2"},"requests":{"cpu":"1"},"claims":[{"name":"c"}]}})",
         R"({"name":"c","resources":{"limits":{"cpu":"2","memory":"1Gi"},"claims":[{"name":"c"}],"requests":{"cpu":"1"}}})"},
        {"resourcesPerNode schema: claims merge by name", kResources,
         R"({"limits":{"nvidia.com/gpu":"2"},"claims":[{"name":"a"},{"name":"b","request":"x"}]})",
         R"({"requests":{"cpu":"4"},"limits":{"nvidia.com/gpu":"1"},"claims":[{"name":"b","request":"y"},{"name":"c"}]})",
         R"({"limits":{"nvidia.com/gpu":"1"},"claims":[{"name":"a"},{"name":"b","request":"y"},{"name":"c"}],"requests":{"cpu":"4"}})"},
        {"labels and annotations of the job and pod templates merge", kJobSet,
         R"({"replicatedJobs":[{"name":"node","template":{"metadata":{"labels":{"a":"1"}},"spec":{"template":{"metadata":{"annotations":{"x":"1"}}}}}}]})",
         R"({"replicatedJobs":[{"name":"node","template":{"metadata":{"labels":{"b":"2"}},"spec":{"template":{"metadata":{"annotations":{"x":"2","y":"3"}}}}}}]})",
         R"({"replicatedJobs":[{"name":"node","template":{"metadata":{"labels":{"a":"1","b":"2"}},"spec":{"template":{"metadata":{"annotations":{"x":"2","y":"3"}}}}}}]})"},
        {"successPolicy and failurePolicy rules merge as maps, their lists replaced", kJobSet,
         R"({"successPolicy":{"operator":"All","targetReplicatedJobs":["a","b"]},"failurePolicy":{"maxRestarts":3,"rules":[{"name":"r1","action":"FailJobSet"}]}})",
         R"({"successPolicy":{"targetReplicatedJobs":["c"]},"failurePolicy":{"rules":[{"name":"r2","action":"RestartJobSet"}]}})",
         R"({"successPolicy":{"operator":"All","targetReplicatedJobs":["c"]},"failurePolicy":{"maxRestarts":3,"rules":[{"name":"r2","action":"RestartJobSet"}]}})"},
        {"scalars are replaced, an untagged field may change its JSON type", kPod,
         R"({"serviceAccountName":"a","terminationGracePeriodSeconds":30,"overhead":{"cpu":"1"}})",
         R"({"serviceAccountName":"b","terminationGracePeriodSeconds":300,"overhead":"flat"})",
         R"({"serviceAccountName":"b","terminationGracePeriodSeconds":300,"overhead":"flat"})"},
        {"new members are appended in patch order", kPod,
         R"({"hostname":"h"})", R"({"subdomain":"s","hostNetwork":true,"dnsPolicy":"Default"})",
         R"({"hostname":"h","subdomain":"s","hostNetwork":true,"dnsPolicy":"Default"})"},
        {"nulls inside a new value are dropped", kPod,
         R"({})", R"({"securityContext":{"runAsUser":1,"fsGroup":null},"containers":[{"name":"a","env":[{"name":"X","value":"1","valueFrom":null}]}]})",
         R"({"securityContext":{"runAsUser":1},"containers":[{"name":"a","env":[{"name":"X","value":"1"}]}]})"},
        {"an empty map patch changes nothing", kPod,
         R"({"securityContext":{"runAsUser":1}})", R"({"securityContext":{}})", R"({"securityContext":{"runAsUser":1}})"},
        {"null patch changes nothing", kPod, R"({"hostname":"h"})", "null", R"({"hostname":"h"})"},
        {"null original is an empty object", kPod, "null", R"({"hostname":"h"})", R"({"hostname":"h"})"},
    });
}

// Lists tagged patchStrategy "merge": merged by patchMergeKey (lists of scalars: a set), in the
// order apimachinery's normalizeElementOrder gives.
BOOST_AUTO_TEST_CASE(merged_lists_by_merge_key) {
    run({
        {"containers by name: a patched item keeps its place", kPod,
         R"({"containers":[{"name":"a","image":"x"},{"name":"b"}]})", R"({"containers":[{"name":"b","image":"y"}]})",
         R"({"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]})"},
        {"a new item goes before the original items it is compared with", kPod,
         R"({"containers":[{"name":"node","image":"x"}]})", R"({"containers":[{"name":"sidecar","image":"s"}]})",
         R"({"containers":[{"name":"sidecar","image":"s"},{"name":"node","image":"x"}]})"},
        {"preserve the order from the patch in a merging list (upstream)", kContainer,
         R"({"env":[{"name":"1"},{"name":"2","value":"b"},{"name":"3"}]})",
         R"({"env":[{"name":"3","value":"c"},{"name":"1","value":"a"},{"name":"2","valueFrom":{"fieldRef":{"fieldPath":"x"}}}]})",
         R"({"env":[{"name":"3","value":"c"},{"name":"1","value":"a"},{"name":"2","value":"b","valueFrom":{"fieldRef":{"fieldPath":"x"}}}]})"},
        {"preserve the order from the patch in a merging list 2 (upstream)", kContainer,
         R"({"env":[{"name":"1"},{"name":"2","value":"b"},{"name":"3"}]})",
         R"({"env":[{"name":"3","value":"c"},{"name":"1","value":"a"}]})",
         R"({"env":[{"name":"2","value":"b"},{"name":"3","value":"c"},{"name":"1","value":"a"}]})"},
        {"initContainers and their env by name, a new variable before the later runtime ones", kPod,
         R"({"initContainers":[{"name":"init","env":[{"name":"INIT_ENV","value":"runtime"},{"name":"DATASET_PATH","value":"runtime"}]}]})",
         R"({"initContainers":[{"name":"init","env":[{"name":"INIT_ENV","value":"override_init"},{"name":"NEW_VALUE","value":"from_overrides"}]},{"name":"extra","image":"e"}]})",
         R"({"initContainers":[{"name":"init","env":[{"name":"INIT_ENV","value":"override_init"},{"name":"NEW_VALUE","value":"from_overrides"},{"name":"DATASET_PATH","value":"runtime"}]},{"name":"extra","image":"e"}]})"},
        {"ports by containerPort", kContainer,
         R"({"ports":[{"containerPort":29500,"name":"master"},{"containerPort":8080,"name":"http"}]})",
         R"({"ports":[{"containerPort":8080,"name":"web"},{"containerPort":9090}]})",
         R"({"ports":[{"containerPort":29500,"name":"master"},{"containerPort":8080,"name":"web"},{"containerPort":9090}]})"},
        {"ports outside a container carry no merge key: replaced", kPod,
         R"({"ports":[{"containerPort":29500}]})", R"({"ports":[{"containerPort":9090}]})", R"({"ports":[{"containerPort":9090}]})"},
        {"volumeMounts by mountPath: one volume mounted twice", kContainer,
         R"({"volumeMounts":[{"name":"v","mountPath":"/a"},{"name":"v","mountPath":"/b"}]})",
         R"({"volumeMounts":[{"name":"w","mountPath":"/b","readOnly":true},{"name":"v","mountPath":"/c"}]})",
         R"({"volumeMounts":[{"name":"v","mountPath":"/a"},{"name":"w","mountPath":"/b","readOnly":true},{"name":"v","mountPath":"/c"}]})"},
        {"volumes by name merge their sources (retainKeys only with the directive)", kPod,
         R"({"volumes":[{"name":"data","emptyDir":{}},{"name":"cfg","configMap":{"name":"a"}}]})",
         R"({"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"c"}},{"name":"cfg","configMap":{"name":"b","optional":true}}]})",
         R"({"volumes":[{"name":"data","emptyDir":{},"persistentVolumeClaim":{"claimName":"c"}},{"name":"cfg","configMap":{"name":"b","optional":true}}]})"},
        {"imagePullSecrets, schedulingGates, hostAliases, topologySpreadConstraints by their keys", kPod,
         R"({"imagePullSecrets":[{"name":"r1"}],"schedulingGates":[{"name":"g1"}],"hostAliases":[{"ip":"10.0.0.1","hostnames":["a"]}],"topologySpreadConstraints":[{"topologyKey":"zone","maxSkew":1}]})",
         R"({"imagePullSecrets":[{"name":"r2"}],"schedulingGates":[{"name":"g1"},{"name":"g2"}],"hostAliases":[{"ip":"10.0.0.1","hostnames":["b"]}],"topologySpreadConstraints":[{"topologyKey":"zone","maxSkew":2}]})",
         R"({"imagePullSecrets":[{"name":"r2"},{"name":"r1"}],"schedulingGates":[{"name":"g1"},{"name":"g2"}],"hostAliases":[{"ip":"10.0.0.1","hostnames":["b"]}],"topologySpreadConstraints":[{"topologyKey":"zone","maxSkew":2}]})"},
        {"replicatedJobs by name, dependsOn by name", kJobSet,
         R"({"replicatedJobs":[{"name":"launcher","replicas":1},{"name":"node","dependsOn":[{"name":"launcher","status":"Ready"}]}]})",
         R"({"replicatedJobs":[{"name":"node","replicas":2,"dependsOn":[{"name":"init","status":"Complete"}]}]})",
         R"({"replicatedJobs":[{"name":"launcher","replicas":1},{"name":"node","dependsOn":[{"name":"init","status":"Complete"},{"name":"launcher","status":"Ready"}],"replicas":2}]})"},
        {"containers merge inside a replicated job's pod template", kJobSet,
         R"({"replicatedJobs":[{"name":"node","template":{"spec":{"parallelism":2,"template":{"spec":{"containers":[{"name":"node","image":"i","env":[{"name":"A","value":"1"}]}]}}}}}]})",
         R"({"replicatedJobs":[{"name":"node","template":{"spec":{"template":{"spec":{"containers":[{"name":"node","env":[{"name":"A","value":"2"}],"ports":[{"containerPort":1}]}]}}}}}]})",
         R"({"replicatedJobs":[{"name":"node","template":{"spec":{"parallelism":2,"template":{"spec":{"containers":[{"name":"node","image":"i","env":[{"name":"A","value":"2"}],"ports":[{"containerPort":1}]}]}}}}}]})"},
        {"a list patched onto a missing list is taken as it is", kPod,
         R"({})", R"({"containers":[{"name":"b"},{"name":"a","env":[{"name":"X","value":"1"}]}]})",
         R"({"containers":[{"name":"b"},{"name":"a","env":[{"name":"X","value":"1"}]}]})"},
        {"merge empty merging lists (upstream)", kPod, R"({"containers":[]})", R"({"containers":[]})", R"({"containers":[]})"},
        {"an empty patch list keeps the original items", kPod,
         R"({"containers":[{"name":"a"}]})", R"({"containers":[]})", R"({"containers":[{"name":"a"}]})"},
        {"a patch item repeating its key merges twice into one item", kContainer,
         R"({"env":[{"name":"A","value":"1"}]})", R"({"env":[{"name":"A","value":"2"},{"name":"A","valueFrom":{}}]})",
         R"({"env":[{"name":"A","value":"2","valueFrom":{}}]})"},
        {"nulls in a merged item delete its keys", kContainer,
         R"({"env":[{"name":"A","value":"1","valueFrom":{"fieldRef":{}}}]})", R"({"env":[{"name":"A","valueFrom":null}]})",
         R"({"env":[{"name":"A","value":"1"}]})"},
        {"ownerReferences by uid", kMeta,
         R"({"ownerReferences":[{"uid":"u1","name":"a"}]})", R"({"ownerReferences":[{"uid":"u1","name":"b"},{"uid":"u2","name":"c"}]})",
         R"({"ownerReferences":[{"uid":"u1","name":"b"},{"uid":"u2","name":"c"}]})"},
        {"unique scalars when merging lists (upstream): finalizers", kMeta,
         R"({"finalizers":["a","b"]})", R"({"finalizers":["b","c"]})", R"({"finalizers":["a","b","c"]})"},
        {"preserve the order from the patch in a merging int list (upstream)", kMeta,
         R"({"finalizers":["a","b","c"]})", R"({"finalizers":["c","a","b"]})", R"({"finalizers":["c","a","b"]})"},
        {"merging a list of scalars drops the original's duplicates", kMeta,
         R"({"finalizers":["a","a","b"]})", R"({"finalizers":["c","b"]})", R"({"finalizers":["c","a","b"]})"},
        {"preserve the order from the patch in a merging int list 2 (upstream)", kMeta,
         R"({"finalizers":["a","b","c"]})", R"({"finalizers":["c","a"]})", R"({"finalizers":["b","c","a"]})"},
    });
}

// $patch, $retainKeys, $deleteFromPrimitiveList.
BOOST_AUTO_TEST_CASE(directives) {
    run({
        {"$patch: replace on a map", kPod,
         R"({"nodeSelector":{"a":"1","b":"2"}})", R"({"nodeSelector":{"$patch":"replace","c":"3"}})", R"({"nodeSelector":{"c":"3"}})"},
        {"$patch: replace on the whole document (upstream: add key and delete all keys from map)", kPod,
         R"({"hostname":"h","subdomain":"s"})", R"({"serviceAccountName":"sa","$patch":"replace"})", R"({"serviceAccountName":"sa"})"},
        {"$patch: replace keeps the patch as it is, less its leftovers", kPod,
         R"({"securityContext":{"runAsUser":1}})", R"({"securityContext":{"$patch":"replace","fsGroup":2,"runAsGroup":null,"seccompProfile":{"$patch":"delete"}}})",
         R"({"securityContext":{"fsGroup":2,"seccompProfile":{}}})"},
        {"$patch: delete on a map leaves it empty (upstream: delete map from nested map)", kPod,
         R"({"nodeSelector":{"a":"1"},"hostname":"h"})", R"({"nodeSelector":{"$patch":"delete"}})", R"({"nodeSelector":{},"hostname":"h"})"},
        {"$patch on a map the original lacks drops it", kPod,
         R"({"hostname":"h"})", R"({"affinity":{"$patch":"delete"},"securityContext":{"$patch":"merge","runAsUser":1}})", R"({"hostname":"h"})"},
        {"$patch: delete on the whole document", kPod, R"({"hostname":"h"})", R"({"$patch":"delete"})", R"({})"},
        {"$patch: delete on a list item", kContainer,
         R"({"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]})", R"({"env":[{"name":"A","$patch":"delete"}]})",
         R"({"env":[{"name":"B","value":"2"}]})"},
        {"delete all duplicate entries in a merging list (upstream)", kContainer,
         R"({"env":[{"name":"1"},{"name":"1"},{"name":"2","value":"a"},{"name":"3"},{"name":"3"}]})",
         R"({"env":[{"name":"1","$patch":"delete"},{"name":"3","$patch":"delete"}]})", R"({"env":[{"name":"2","value":"a"}]})"},
        {"$patch: delete of a missing item and a new item", kPod,
         R"({"volumes":[{"name":"a","emptyDir":{}}]})", R"({"volumes":[{"name":"x","$patch":"delete"},{"name":"b","emptyDir":{}}]})",
         R"({"volumes":[{"name":"b","emptyDir":{}},{"name":"a","emptyDir":{}}]})"},
        {"$patch: replace as a list item: the other items are the list", kPod,
         R"({"volumes":[{"name":"a"},{"name":"b"}]})", R"({"volumes":[{"name":"c","emptyDir":{}},{"$patch":"replace"}]})",
         R"({"volumes":[{"name":"c","emptyDir":{}}]})"},
        {"delete all items from merging list (upstream)", kPod,
         R"({"containers":[{"name":"1"},{"name":"2"}]})", R"({"containers":[{"$patch":"replace"}]})", R"({"containers":[]})"},
        {"$patch items of a list the original lacks are dropped", kContainer,
         R"({"name":"c"})", R"({"env":[{"name":"hello"},{"name":"doesntexist","$patch":"delete"}]})",
         R"({"name":"c","env":[{"name":"hello"}]})"},
        {"$retainKeys on a volume clears the other sources", kPod,
         R"({"volumes":[{"name":"data","emptyDir":{"medium":"Memory"},"hostPath":{"path":"/x"}},{"name":"other","emptyDir":{}}]})",
         R"({"volumes":[{"name":"data","$retainKeys":["name","persistentVolumeClaim"],"persistentVolumeClaim":{"claimName":"c"}}]})",
         R"({"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"c"}},{"name":"other","emptyDir":{}}]})"},
        {"retainKeys map adds a field and clears a field (upstream)", kPod,
         R"({"volumes":[{"name":"v","secret":{"secretName":"s"},"emptyDir":{}}]})",
         R"({"volumes":[{"name":"v","$retainKeys":["name","secret"],"secret":{"optional":true}}]})",
         R"({"volumes":[{"name":"v","secret":{"secretName":"s","optional":true}}]})"},
        {"$retainKeys is honoured in any object; nulls need not be listed", kPod,
         R"({"securityContext":{"runAsUser":1,"fsGroup":2,"runAsGroup":3}})",
         R"({"securityContext":{"$retainKeys":["runAsUser","fsGroup"],"runAsUser":5,"runAsGroup":null}})",
         R"({"securityContext":{"runAsUser":5,"fsGroup":2}})"},
        {"directives left in a new value are dropped", kPod,
         R"({})", R"({"securityContext":{"$retainKeys":["runAsUser"],"runAsUser":1},"initContainers":[{"name":"a","$setElementOrder/env":[{"name":"X"}],"env":[{"name":"X"}]}]})",
         R"({"securityContext":{"runAsUser":1},"initContainers":[{"name":"a","env":[{"name":"X"}]}]})"},
        {"$deleteFromPrimitiveList on finalizers", kMeta,
         R"({"finalizers":["a","b","c"]})", R"({"$deleteFromPrimitiveList/finalizers":["b"]})", R"({"finalizers":["a","c"]})"},
        {"$deleteFromPrimitiveList of nonexistent item (upstream)", kMeta,
         R"({"finalizers":["a","b"]})", R"({"$deleteFromPrimitiveList/finalizers":["c"]})", R"({"finalizers":["a","b"]})"},
        {"$deleteFromPrimitiveList on nonexistent primitive list (upstream)", kMeta,
         R"({"labels":{"a":"b"}})", R"({"$deleteFromPrimitiveList/finalizers":["c"]})", R"({"labels":{"a":"b"}})"},
        {"$deleteFromPrimitiveList and additions in one patch", kMeta,
         R"({"finalizers":["a","b","c"]})", R"({"$deleteFromPrimitiveList/finalizers":["c"],"finalizers":["d"]})",
         R"({"finalizers":["d","a","b"]})"},
        {"$deleteFromPrimitiveList on a list without merge strategy (upstream)", kContainer,
         R"({"args":["--a","--b","--c"]})", R"({"$deleteFromPrimitiveList/args":["--b"]})", R"({"args":["--a","--c"]})"},
    });
}

// $setElementOrder/<list>: the raw cases of upstream's TestStrategicMergePatch (three-way
// patches applied to "current"), on containers and finalizers.
BOOST_AUTO_TEST_CASE(set_element_order) {
    run({
        {"add an item in a list and preserve order", kPod,
         R"({"containers":[{"name":"1","image":"a"},{"name":"2","image":"b"}]})",
         R"({"$setElementOrder/containers":[{"name":"3"},{"name":"1"},{"name":"2"}],"containers":[{"name":"3","image":"c"}]})",
         R"({"containers":[{"name":"3","image":"c"},{"name":"1","image":"a"},{"name":"2","image":"b"}]})"},
        {"add multiple items in a list and preserve order", kPod,
         R"({"containers":[{"name":"1","image":"a"},{"name":"2","image":"b"}]})",
         R"({"$setElementOrder/containers":[{"name":"1"},{"name":"4"},{"name":"2"},{"name":"3"}],"containers":[{"name":"4","image":"d"},{"name":"3","image":"c"}]})",
         R"({"containers":[{"name":"1","image":"a"},{"name":"4","image":"d"},{"name":"2","image":"b"},{"name":"3","image":"c"}]})"},
        {"delete an item in a list and preserve order", kPod,
         R"({"containers":[{"name":"1","image":"a"},{"name":"2","image":"b"},{"name":"3"}]})",
         R"({"$setElementOrder/containers":[{"name":"2"},{"name":"1"}],"containers":[{"name":"3","$patch":"delete"}]})",
         R"({"containers":[{"name":"2","image":"b"},{"name":"1","image":"a"}]})"},
        {"add and delete an item in a list and preserve order", kPod,
         R"({"containers":[{"name":"1","image":"a"},{"name":"2","image":"b"},{"name":"3"}]})",
         R"({"$setElementOrder/containers":[{"name":"4"},{"name":"2"},{"name":"1"}],"containers":[{"name":"4","image":"d"},{"name":"3","$patch":"delete"}]})",
         R"({"containers":[{"name":"4","image":"d"},{"name":"2","image":"b"},{"name":"1","image":"a"}]})"},
        {"set elements order in a list with server-only items", kPod,
         R"({"containers":[{"name":"1","image":"a"},{"name":"3"},{"name":"4"},{"name":"2"},{"name":"9"}]})",
         R"({"$setElementOrder/containers":[{"name":"4"},{"name":"2"},{"name":"3"},{"name":"1"}]})",
         R"({"containers":[{"name":"4"},{"name":"2"},{"name":"3"},{"name":"1","image":"a"},{"name":"9"}]})"},
        {"set elements order in a list with server-only items 2", kPod,
         R"({"containers":[{"name":"1"},{"name":"2"},{"name":"9"},{"name":"3"},{"name":"4"}]})",
         R"({"$setElementOrder/containers":[{"name":"2"},{"name":"1"},{"name":"4"},{"name":"3"}]})",
         R"({"containers":[{"name":"2"},{"name":"1"},{"name":"9"},{"name":"4"},{"name":"3"}]})"},
        {"set elements order in a list with server-only items 3", kPod,
         R"({"containers":[{"name":"1"},{"name":"2"},{"name":"7"},{"name":"9"},{"name":"8"},{"name":"3"},{"name":"4"}]})",
         R"({"$setElementOrder/containers":[{"name":"2"},{"name":"1"},{"name":"4"},{"name":"3"}]})",
         R"({"containers":[{"name":"2"},{"name":"1"},{"name":"7"},{"name":"9"},{"name":"8"},{"name":"4"},{"name":"3"}]})"},
        {"$setElementOrder contains item that is not present in the list to be merged", kPod,
         R"({"containers":[{"name":"1"},{"name":"3"}]})",
         R"({"$setElementOrder/containers":[{"name":"3"},{"name":"2"},{"name":"1"}],"containers":[{"name":"3","image":"c"},{"name":"1","image":"a"}]})",
         R"({"containers":[{"name":"3","image":"c"},{"name":"1","image":"a"}]})"},
        {"nested patch merge with empty list", kPod,
         R"({"containers":[{"name":"hello2"}]})",
         R"({"$setElementOrder/containers":[{"name":"hello"},{"name":"doesntexist"}],"containers":[{"name":"hello"}]})",
         R"({"containers":[{"name":"hello"},{"name":"hello2"}]})"},
        {"delete and reorder in one list, reorder in another", kPod,
         R"({"containers":[{"name":"a"},{"name":"b"}],"initContainers":[{"name":"c"},{"name":"d"}]})",
         R"({"$setElementOrder/containers":[{"name":"b"}],"$setElementOrder/initContainers":[{"name":"d"},{"name":"c"}],"containers":[{"name":"a","$patch":"delete"}]})",
         R"({"containers":[{"name":"b"}],"initContainers":[{"name":"d"},{"name":"c"}]})"},
        {"a list the original lacks, ordered", kPod,
         R"({})", R"({"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"b"},{"name":"a","$patch":"delete"}]})",
         R"({"containers":[{"name":"b"}]})"},
        {"delete items in lists of scalars", kMeta,
         R"({"finalizers":["1","2","3","4"]})", R"({"$setElementOrder/finalizers":["1","2"],"$deleteFromPrimitiveList/finalizers":["3"]})",
         R"({"finalizers":["1","2","4"]})"},
        {"delete all duplicate items in lists of scalars", kMeta,
         R"({"finalizers":["1","2","3","3","4"]})", R"({"$setElementOrder/finalizers":["1","2"],"$deleteFromPrimitiveList/finalizers":["3"]})",
         R"({"finalizers":["1","2","4"]})"},
        {"behavior of set element order for a merging int list with duplicate", kMeta,
         R"({"finalizers":["1","2","3","2","4"]})", R"({"$setElementOrder/finalizers":["2","1","4","3","2"]})",
         R"({"finalizers":["2","2","1","4","3"]})"},
        {"set elements order in an int list with server-only items 2", kMeta,
         R"({"finalizers":["1","2","9","3","4"]})", R"({"$setElementOrder/finalizers":["2","1","4","3"]})",
         R"({"finalizers":["2","1","9","4","3"]})"},
        {"add and delete items in lists of scalars (two-way)", kMeta,
         R"({"finalizers":["1","2","3"]})",
         R"({"$setElementOrder/finalizers":["1","2","4"],"$deleteFromPrimitiveList/finalizers":["3"],"finalizers":["4"]})",
         R"({"finalizers":["1","2","4"]})"},
        {"behavior of set element order for a merging list with duplicate", kPod,
         R"({"containers":[{"name":"1"},{"name":"2","image":"dup1"},{"name":"3"},{"name":"2","image":"dup2"},{"name":"4"}]})",
         R"({"$setElementOrder/containers":[{"name":"2"},{"name":"1"},{"name":"4"},{"name":"3"},{"name":"2"}]})",
         R"({"containers":[{"name":"2","image":"dup1"},{"name":"2","image":"dup2"},{"name":"1"},{"name":"4"},{"name":"3"}]})"},
    });
}

// The first error stops the merge: reported once at its field path, the original returned as it was.
BOOST_AUTO_TEST_CASE(errors) {
    const std::string containers = R"({"containers":[{"name":"a"}]})";
    run({
        {"an object for a merged list", kPod, containers, R"({"hostname":"h","containers":{"name":"a"}})", containers,
         "spec.containers", "expected a []interface {}, but received a map[string]interface {}"},
        {"a string item in a keyed list", kContainer, R"({"env":[{"name":"A"}]})", R"({"env":["B"]})", R"({"env":[{"name":"A"}]})",
         "spec.env[0]", "expected a map[string]interface {}, but received a string"},
        {"a null item in a keyed list", kPod, containers, R"({"containers":[null]})", containers,
         "spec.containers[0]", "expected a map[string]interface {}, but received a %!s(<nil>)"},
        {"a list for a struct field", kJobSet, R"({"replicatedJobs":[{"name":"a"}]})", R"({"replicatedJobs":[{"name":"a","template":[]}]})",
         R"({"replicatedJobs":[{"name":"a"}]})", "spec.replicatedJobs[0].template",
         "expected a map[string]interface {}, but received a []interface {}"},
        {"a type error in a new item is found too", kJobSet, R"({})",
         R"({"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"volumes":{}}}}}}]})", R"({})",
         "spec.replicatedJobs[0].template.spec.template.spec.volumes", "expected a []interface {}, but received a map[string]interface {}"},
        {"an object in finalizers", kMeta, R"({"finalizers":["a"]})", R"({"finalizers":[{"a":1}]})", R"({"finalizers":["a"]})",
         "spec.finalizers[0]", "expected a string, but received a map[string]interface {}"},
        {"missing merge key should error out (upstream)", kPod, containers, R"({"containers":[{"image":"x"}]})", containers,
         "spec.containers[0]", R"(map: {"image":"x"} does not contain declared merge key: name)"},
        {"missing merge key deep in a JobSetSpec", kJobSet,
         R"({"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}}}]})",
         R"({"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"containers":[{"name":"c"},{"image":"x"}]}}}}}]})",
         R"({"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}}}]})",
         "spec.replicatedJobs[0].template.spec.template.spec.containers[1]", R"(map: {"image":"x"} does not contain declared merge key: name)"},
        {"an original item without merge key", kPod, R"({"containers":[{"image":"x"}]})", R"({"containers":[{"name":"a"}]})",
         R"({"containers":[{"image":"x"}]})", "spec.containers", R"(map: {"image":"x"} does not contain declared merge key: name)"},
        {"an original item that is not an object", kPod, R"({"containers":["x"]})", R"({"containers":[{"name":"a"}]})",
         R"({"containers":["x"]})", "spec.containers", R"(list element types are not identical: [["x"],[{"name":"a"}]])"},
        {"finalizers of two types", kMeta, R"({"finalizers":[1]})", R"({"finalizers":["a"]})", R"({"finalizers":[1]})",
         "spec.finalizers", R"(list element types are not identical: [[1],["a"]])"},
        {"$patch: delete item without merge key", kPod, containers, R"({"containers":[{"$patch":"delete"}]})", containers,
         "spec.containers[0]", R"(map: {"$patch":"delete"} does not contain declared merge key: name)"},
        {"$patch: merge as a list item", kPod, containers, R"({"containers":[{"name":"a","$patch":"merge"}]})", containers,
         "spec.containers[0]", "merging lists cannot yet be specified in the patch"},
        {"$patch: merge in a map", kPod, R"({"securityContext":{"runAsUser":1}})",
         R"({"securityContext":{"$patch":"merge","runAsUser":2}})", R"({"securityContext":{"runAsUser":1}})", "spec.securityContext",
         R"(unknown patch type: merge in map: {"$patch":"merge","runAsUser":2})"},
        {"unknown $patch in a list item", kPod, containers, R"({"containers":[{"name":"a","$patch":"explode"}]})", containers,
         "spec.containers[0]", R"(unknown patch type: explode in map: {"name":"a","$patch":"explode"})"},
        {"$retainKeys not listing a patched key", kPod, R"({"volumes":[{"name":"v","emptyDir":{}}]})",
         R"({"volumes":[{"name":"v","$retainKeys":["name"],"secret":{"secretName":"s"}}]})", R"({"volumes":[{"name":"v","emptyDir":{}}]})",
         "spec.volumes[0].$retainKeys", "invalid patch format of retainKeys"},
        {"$retainKeys not a list", kPod, R"({"securityContext":{}})", R"({"securityContext":{"$retainKeys":"runAsUser"}})",
         R"({"securityContext":{}})", "spec.securityContext.$retainKeys", "invalid patch format of retainKeys"},
        {"$deleteFromPrimitiveList without a list name", kMeta, R"({"finalizers":["a"]})", R"({"$deleteFromPrimitiveListfinalizers":["a"]})",
         R"({"finalizers":["a"]})", "spec.$deleteFromPrimitiveListfinalizers", "invalid patch format of primitive list"},
        {"$deleteFromPrimitiveList on a list of objects without merge key", kPod, R"({"tolerations":[{"key":"a"}]})",
         R"({"$deleteFromPrimitiveList/tolerations":[{"key":"a"}]})", R"({"tolerations":[{"key":"a"}]})",
         "spec.$deleteFromPrimitiveList/tolerations", "cannot merge lists without merge key for struct"},
        {"should check if order in $setElementOrder and patch list match (upstream)", kPod,
         R"({"containers":[{"name":"1"},{"name":"3"},{"name":"2"}]})",
         R"({"$setElementOrder/containers":[{"name":"1"},{"name":"2"},{"name":"3"}],"containers":[{"name":"3","image":"c"},{"name":"1","image":"a"}]})",
         R"({"containers":[{"name":"1"},{"name":"3"},{"name":"2"}]})", "spec.$setElementOrder/containers",
         "The order in patch list:\n[{\"name\":\"3\",\"image\":\"c\"},{\"name\":\"1\",\"image\":\"a\"}]\n doesn't match $setElementOrder list:\n"
         "[{\"name\":\"1\"},{\"name\":\"2\"},{\"name\":\"3\"}]\n"},
        {"$setElementOrder not a list", kPod, containers, R"({"$setElementOrder/containers":{"name":"a"}})", containers,
         "spec.$setElementOrder/containers", "expected a []interface {}, but received a map[string]interface {}"},
        {"$setElementOrder without a list name", kPod, containers, R"({"$setElementOrderX":[]})", containers,
         "spec.$setElementOrderX", "invalid patch format of setElementOrder list"},
        {"$setElementOrder of an empty list", kPod, R"({"containers":[]})", R"({"$setElementOrder/containers":[{"name":"a"}]})",
         R"({"containers":[]})", "spec.containers", "no elements in any of the given slices"},
        {"a patch that is not an object", kPod, containers, "[1]", containers, "spec", "invalid JSON document"},
        {"an original that is not an object", kPod, R"("text")", R"({"hostname":"h"})", R"("text")", "spec", "invalid JSON document"},
    });
}
