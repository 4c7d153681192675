#include "core/runtime/strategic_merge.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace trainer::core;

namespace {
struct MergeCase {
    std::string name;
    std::string original;
    std::string patch;
    std::string expected;  // exact JSON text: member order matters too
    size_t errors = 0;
};

const std::vector<MergeCase> kCases = {
    {"maps merge key-wise", R"({"a":1,"b":{"x":1,"y":2}})", R"({"b":{"y":3,"z":4}})", R"({"a":1,"b":{"x":1,"y":3,"z":4}})"},
    {"null deletes a key", R"({"a":1,"b":2,"c":3})", R"({"b":null})", R"({"a":1,"c":3})"},
    {"null for an absent key is a no-op", R"({"a":1})", R"({"x":null})", R"({"a":1})"},
    {"absent fields untouched", R"({"affinity":{"nodeAffinity":{}},"a":1})", R"({"a":2})", R"({"affinity":{"nodeAffinity":{}},"a":2})"},
    {"labels and nodeSelector merge key-wise",
     R"({"metadata":{"labels":{"a":"1","b":"2"}},"nodeSelector":{"x":"1"}})",
     R"({"metadata":{"labels":{"b":"3","c":"4"}},"nodeSelector":{"y":"2"}})",
     R"({"metadata":{"labels":{"a":"1","b":"3","c":"4"}},"nodeSelector":{"x":"1","y":"2"}})"},
    {"replicatedJobs merge by name, new appended",
     R"({"replicatedJobs":[{"name":"a","replicas":1},{"name":"b","replicas":1}]})",
     R"({"replicatedJobs":[{"name":"c","replicas":3},{"name":"b","replicas":2}]})",
     R"({"replicatedJobs":[{"name":"a","replicas":1},{"name":"b","replicas":2},{"name":"c","replicas":3}]})"},
    {"containers by name, env by name in place then appended",
     R"({"containers":[{"name":"node","image":"i","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},{"name":"side"}]})",
     R"({"containers":[{"name":"node","env":[{"name":"C","value":"3"},{"name":"A","value":"9"}]}]})",
     R"({"containers":[{"name":"node","image":"i","env":[{"name":"A","value":"9"},{"name":"B","value":"2"},{"name":"C","value":"3"}]},{"name":"side"}]})"},
    {"initContainers by name",
     R"({"initContainers":[{"name":"i","image":"x"}]})", R"({"initContainers":[{"name":"i","image":"y"},{"name":"j"}]})",
     R"({"initContainers":[{"name":"i","image":"y"},{"name":"j"}]})"},
    {"volumeMounts by mountPath (same volume twice)",
     R"({"volumeMounts":[{"name":"v","mountPath":"/a"},{"name":"v","mountPath":"/b"}]})",
     R"({"volumeMounts":[{"name":"w","mountPath":"/b","readOnly":true},{"name":"v","mountPath":"/c"}]})",
     R"({"volumeMounts":[{"name":"v","mountPath":"/a"},{"name":"w","mountPath":"/b","readOnly":true},{"name":"v","mountPath":"/c"}]})"},
    {"ports by containerPort",
     R"({"ports":[{"containerPort":29500},{"containerPort":8080,"name":"http"}]})",
     R"({"ports":[{"containerPort":8080,"name":"web"},{"containerPort":9090}]})",
     R"({"ports":[{"containerPort":29500},{"containerPort":8080,"name":"web"},{"containerPort":9090}]})"},
    {"volumes, imagePullSecrets, schedulingGates by name",
     R"({"volumes":[{"name":"a","emptyDir":{}}],"imagePullSecrets":[{"name":"r1"}],"schedulingGates":[{"name":"g1"}]})",
     R"({"volumes":[{"name":"a","secret":{"secretName":"s"}},{"name":"b","emptyDir":{}}],"imagePullSecrets":[{"name":"r2"}],"schedulingGates":[{"name":"g1"},{"name":"g2"}]})",
     R"({"volumes":[{"name":"a","emptyDir":{},"secret":{"secretName":"s"}},{"name":"b","emptyDir":{}}],"imagePullSecrets":[{"name":"r1"},{"name":"r2"}],"schedulingGates":[{"name":"g1"},{"name":"g2"}]})"},
    {"tolerations, command and args replaced",
     R"({"tolerations":[{"key":"a"},{"key":"b"}],"command":["x","y"],"args":["1"]})",
     R"({"tolerations":[{"key":"c"}],"command":["z"]})",
     R"({"tolerations":[{"key":"c"}],"command":["z"],"args":["1"]})"},
    {"affinity and securityContext replaced wholesale",
     R"({"affinity":{"nodeAffinity":{"x":1},"podAffinity":{"y":2}},"securityContext":{"runAsUser":1,"fsGroup":2}})",
     R"({"affinity":{"podAntiAffinity":{"z":3}},"securityContext":{"runAsUser":5}})",
     R"({"affinity":{"podAntiAffinity":{"z":3}},"securityContext":{"runAsUser":5}})"},
    {"container securityContext replaced too",
     R"({"containers":[{"name":"n","securityContext":{"privileged":true,"runAsUser":1}}]})",
     R"({"containers":[{"name":"n","securityContext":{"runAsUser":2}}]})",
     R"({"containers":[{"name":"n","securityContext":{"runAsUser":2}}]})"},
    {"scalars replaced, type changes allowed",
     R"({"serviceAccountName":"a","terminationGracePeriodSeconds":30,"x":{"y":1}})",
     R"({"serviceAccountName":"b","terminationGracePeriodSeconds":300,"x":"flat"})",
     R"({"serviceAccountName":"b","terminationGracePeriodSeconds":300,"x":"flat"})"},
    {"$patch: replace on a map",
     R"({"nodeSelector":{"a":"1","b":"2"}})", R"({"nodeSelector":{"$patch":"replace","c":"3"}})",
     R"({"nodeSelector":{"c":"3"}})"},
    {"$patch: delete on a map",
     R"({"nodeSelector":{"a":"1"},"k":1})", R"({"nodeSelector":{"$patch":"delete"}})", R"({"k":1})"},
    {"$patch: delete on a keyed list element",
     R"({"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]})", R"({"env":[{"name":"A","$patch":"delete"}]})",
     R"({"env":[{"name":"B","value":"2"}]})"},
    {"$patch: replace on a keyed list",
     R"({"volumes":[{"name":"a"},{"name":"b"}]})", R"({"volumes":[{"$patch":"replace"},{"name":"c"}]})",
     R"({"volumes":[{"name":"c"}]})"},
    {"$retainKeys keeps only the listed keys",
     R"({"v":{"name":"a","emptyDir":{},"hostPath":{"path":"/x"}}})",
     R"({"v":{"$retainKeys":["name","secret"],"secret":{"secretName":"s"}}})",
     R"({"v":{"name":"a","secret":{"secretName":"s"}}})"},
    {"$deleteFromPrimitiveList",
     R"({"finalizers":["a","b","c"]})", R"({"$deleteFromPrimitiveList/finalizers":["b"]})", R"({"finalizers":["a","c"]})"},
    {"$setElementOrder is ignored",
     R"({"env":[{"name":"A"}]})", R"({"$setElementOrder/env":[{"name":"A"}],"env":[{"name":"A","value":"1"}]})",
     R"({"env":[{"name":"A","value":"1"}]})"},
    {"nulls inside a new keyed element are dropped",
     R"({"env":[]})", R"({"env":[{"name":"A","value":"1","valueFrom":null}]})", R"({"env":[{"name":"A","value":"1"}]})"},
    {"patch list onto a missing list",
     R"({})", R"({"containers":[{"name":"a","env":[{"name":"X","value":"1"}]}]})",
     R"({"containers":[{"name":"a","env":[{"name":"X","value":"1"}]}]})"},
    {"element without the merge key is an error and skipped",
     R"({"containers":[{"name":"a"}]})", R"({"containers":[{"image":"x"},{"name":"b"}]})",
     R"({"containers":[{"name":"a"},{"name":"b"}]})", 1},
    {"non-object element in a keyed list is an error",
     R"({"env":[{"name":"A"}]})", R"({"env":["B"]})", R"({"env":[{"name":"A"}]})", 1},
    {"unknown $patch directive is reported",
     R"({"m":{"a":1}})", R"({"m":{"$patch":"explode","b":2}})", R"({"m":{"a":1,"b":2}})", 1},
    {"patch onto a non-object original",
     R"("text")", R"({"a":1})", R"({"a":1})"},
};
}  // namespace

BOOST_AUTO_TEST_CASE(strategic_merge_table) {
    for (auto const& c : kCases) {
        BOOST_TEST_CONTEXT(c.name) {
            Diagnostics diag;
            json::value out = strategicMerge(json::parse(c.original), json::parse(c.patch), diag, "spec");
            BOOST_TEST(json::serialize(out) == json::serialize(json::parse(c.expected)));
            BOOST_TEST(diag.errors.size() == c.errors);
        }
    }
}

BOOST_AUTO_TEST_CASE(strategic_merge_error_paths) {
    Diagnostics diag;
    strategicMerge(json::parse(R"({"replicatedJobs":[{"name":"a"}]})"),
                   json::parse(R"({"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}}]})"),
                   diag, "spec.runtimePatches[0].trainingRuntimeSpec.template.spec");
    BOOST_TEST_REQUIRE(diag.errors.size() == 1u);
    BOOST_TEST(diag.errors[0].path ==
               "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0]");
    BOOST_TEST(diag.errors[0].message == "list element does not contain the merge key \"name\"");
}

BOOST_AUTO_TEST_CASE(merge_key_table) {
    const std::vector<std::pair<std::string, std::string>> keyed = {
        {"replicatedJobs", "name"}, {"containers", "name"},  {"initContainers", "name"}, {"env", "name"},
        {"volumeMounts", "mountPath"}, {"volumes", "name"}, {"imagePullSecrets", "name"}, {"schedulingGates", "name"},
        {"ports", "containerPort"},  {"claims", "name"},
    };
    for (auto const& [field, key] : keyed) {
        auto k = mergeKeyOf(field);
        BOOST_TEST_REQUIRE(k.has_value(), field);
        BOOST_TEST(std::string(*k) == key);
    }
    for (std::string f : {"tolerations", "command", "args", "envFrom", "dependsOn", "targetReplicatedJobs"})
        BOOST_TEST(!mergeKeyOf(f).has_value(), f);
    BOOST_TEST(replacedWholesale("affinity"));
    BOOST_TEST(replacedWholesale("securityContext"));
    BOOST_TEST(!replacedWholesale("nodeSelector"));
}
