// meta.k8s.io/v1 Tables as the API server answers `kubectl get`: column definitions, typed cells,
// rows' objects, for built-in kinds, the embedded TrainJob CRD and a CRD with printer columns.
#include <boost/test/unit_test.hpp>

#include "core/api/schema.hpp"
#include "core/apiserver/table.hpp"
#include "core/store/store.hpp"

#include <string>

using namespace trainer::core;
using namespace trainer::core::apiserver;
using namespace std::chrono;

namespace {

// 2024-05-01T12:00:00Z.
system_clock::time_point now() { return sys_days{year{2024} / 5 / 1} + hours{12}; }

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

// `text` with metadata.creationTimestamp `ago` before now().
json::object aged(std::string_view text, system_clock::duration ago) {
    auto o = parse(text);
    o["metadata"].as_object()["creationTimestamp"] = formatRfc3339(now() - ago);
    return o;
}

std::string names(const json::object& table) {
    std::string s;
    for (auto const& d : table.at("columnDefinitions").as_array()) s += (s.empty() ? "" : "|") + std::string(d.at("name").as_string());
    return s;
}

json::array cells(const json::object& table, size_t row) { return table.at("rows").as_array().at(row).at("cells").as_array(); }

const std::string kNameDoc =
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to "
    "request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and "
    "configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const std::string kCreationDoc =
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set "
    "in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is "
    "in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

json::value definition(std::string name, std::string type, std::string format, std::string description, int priority = 0) {
    return json::object{{"name", name}, {"type", type}, {"format", format}, {"description", description}, {"priority", priority}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(trainjob_table_from_the_embedded_crd_columns) {
    auto const* info = crdInfo(ObjectKind::TrainJob);
    BOOST_TEST_REQUIRE(info != nullptr);
    auto const* printerColumns = info->if_contains("additionalPrinterColumns");
    BOOST_TEST_REQUIRE((printerColumns && printerColumns->is_array()));
    auto columns = tableColumns("TrainJob", false, printerColumns->as_array());

    auto done = aged(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
        "metadata":{"name":"done","namespace":"default","resourceVersion":"7","labels":{"team":"a"}},
        "status":{"conditions":[{"type":"Created","status":"True"},{"type":"Complete","status":"True"}]}})", 5min);
    auto fresh = aged(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
        "metadata":{"name":"fresh","namespace":"default"},"spec":{"runtimeRef":{"name":"torch"}}})", 50h);
    auto table = buildTable({done, fresh}, columns, IncludeObject::Metadata, "42", "", now());

    auto expected = json::object{
        {"kind", "Table"},
        {"apiVersion", "meta.k8s.io/v1"},
        {"metadata", {{"resourceVersion", "42"}}},
        {"columnDefinitions",
         json::array{definition("Name", "string", "name", kNameDoc),
                     definition("State", "string", "", "Custom resource definition column (in JSONPath format): .status.conditions[-1:].type"),
                     definition("Age", "date", "", "Custom resource definition column (in JSONPath format): .metadata.creationTimestamp")}},
        {"rows",
         json::array{json::object{{"cells", json::array{"done", "Complete", "5m"}},
                                  {"object", {{"kind", "PartialObjectMetadata"},
                                              {"apiVersion", "meta.k8s.io/v1"},
                                              {"metadata", done.at("metadata")}}}},
                     json::object{{"cells", json::array{"fresh", nullptr, "2d2h"}},
                                  {"object", {{"kind", "PartialObjectMetadata"},
                                              {"apiVersion", "meta.k8s.io/v1"},
                                              {"metadata", fresh.at("metadata")}}}}}},
    };
    BOOST_TEST(json::serialize(table) == json::serialize(expected));
}

BOOST_AUTO_TEST_CASE(configmap_table_has_typed_cells_and_upstream_names) {
    auto cm = aged(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"default"},
        "data":{"a":"1"},"binaryData":{"b":"AA=="}})", 10s);
    auto table = buildTable({cm}, tableColumns("ConfigMap", true, {}), IncludeObject::None, "", "", now());
    auto expected = json::object{
        {"kind", "Table"},
        {"apiVersion", "meta.k8s.io/v1"},
        {"metadata", json::object{}},
        {"columnDefinitions",
         json::array{definition("Name", "string", "name", kNameDoc),
                     definition("Data", "string", "",
                                "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' "
                                "or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data "
                                "must not overlap with the keys in the BinaryData field, this is enforced during validation process."),
                     definition("Age", "string", "", kCreationDoc)}},
        {"rows", json::array{json::object{{"cells", json::array{"cfg", 2, "10s"}}, {"object", nullptr}}}},
    };
    BOOST_TEST(json::serialize(table) == json::serialize(expected));
}

BOOST_AUTO_TEST_CASE(custom_resource_columns_with_types_and_priorities) {
    auto crd = parse(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
        "metadata":{"name":"widgets.example.com"},
        "spec":{"group":"example.com","names":{"kind":"Widget","plural":"widgets"},"scope":"Namespaced","versions":[
          {"name":"v1","served":true,"storage":false,"additionalPrinterColumns":[{"name":"Old","type":"string","jsonPath":".spec.old"}]},
          {"name":"v2","served":true,"storage":true,"additionalPrinterColumns":[
            {"name":"Color","type":"string","jsonPath":".spec.color","description":"The color"},
            {"name":"Size","type":"integer","jsonPath":".spec.size"},
            {"name":"Ratio","type":"number","jsonPath":".spec.ratio","priority":1},
            {"name":"Ready","type":"boolean","jsonPath":".status.ready","priority":2,"format":"flag"},
            {"name":"Started","type":"date","jsonPath":".status.startTime"},
            {"name":"Tags","type":"string","jsonPath":".spec.tags"},
            {"name":"First","type":"string","jsonPath":".spec.items[*].name"},
            {"name":"Mismatch","type":"integer","jsonPath":".spec.color"},
            {"name":"Whole","type":"number","jsonPath":".spec.size"}]}]}})");
    auto columns = tableColumns("Widget", false, crdPrinterColumns(crd, "v2"));
    auto w = aged(R"({"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w1","namespace":"default"},
        "spec":{"color":"red","size":3,"ratio":1.5,"tags":["a","b"],"items":[{"name":"x"},{"name":"y"}]},
        "status":{"ready":true}})", 1h);
    w["status"].as_object()["startTime"] = formatRfc3339(now() - 90s);
    auto bare = aged(R"({"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w2","namespace":"default"},
        "spec":{"size":2.9},"status":{"startTime":"not a time"}})", 1h);
    auto table = buildTable({w, bare}, columns, IncludeObject::Object, "", "next", now());

    BOOST_TEST(names(table) == "Name|Color|Size|Ratio|Ready|Started|Tags|First|Mismatch|Whole");
    auto const& defs = table.at("columnDefinitions").as_array();
    BOOST_TEST(json::serialize(defs.at(1)) == json::serialize(definition("Color", "string", "", "The color")));
    BOOST_TEST(json::serialize(defs.at(3)) ==
               json::serialize(definition("Ratio", "number", "", "Custom resource definition column (in JSONPath format): .spec.ratio", 1)));
    BOOST_TEST(json::serialize(defs.at(4)) ==
               json::serialize(definition("Ready", "boolean", "flag", "Custom resource definition column (in JSONPath format): .status.ready", 2)));
    BOOST_TEST(json::serialize(cells(table, 0)) == R"(["w1","red",3,1.5E0,true,"90s","[\"a\",\"b\"]","x",null,3])");
    BOOST_TEST(json::serialize(cells(table, 1)) == R"(["w2",null,2,null,null,"<invalid>",null,null,null,2.9E0])");
    BOOST_TEST(table.at("metadata") == (json::object{{"continue", "next"}}));
    BOOST_TEST(table.at("rows").as_array().at(0).at("object") == json::value(w));

    // The served version's columns; none: Name and Age.
    BOOST_TEST(names(buildTable({}, tableColumns("Widget", false, crdPrinterColumns(crd, "v1")), IncludeObject::Metadata, "", "",
                                now())) == "Name|Old");
    auto plain = tableColumns("Widget", false, crdPrinterColumns(crd, "v9"));
    auto plainTable = buildTable({w}, plain, IncludeObject::Metadata, "", "", now());
    BOOST_TEST(json::serialize(plainTable.at("columnDefinitions")) ==
               json::serialize(json::array{definition("Name", "string", "name", kNameDoc), definition("Age", "date", "", kCreationDoc)}));
    BOOST_TEST(json::serialize(cells(plainTable, 0)) == R"(["w1","60m"])");

    // A column whose jsonPath does not parse ends the list, as upstream falls back.
    auto broken = json::array{json::object{{"name", "A"}, {"type", "string"}, {"jsonPath", ".a"}},
                              json::object{{"name", "B"}, {"type", "string"}, {"jsonPath", ".b["}},
                              json::object{{"name", "C"}, {"type", "string"}, {"jsonPath", ".c"}}};
    BOOST_TEST(names(buildTable({}, tableColumns("Widget", false, broken), IncludeObject::None, "", "", now())) == "Name|A");
}

BOOST_AUTO_TEST_CASE(include_object_variants) {
    auto cm = aged(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"default","uid":"u1"}})", 1s);
    struct Case {
        const char* include;
        std::optional<json::value> object;  // nullopt: a 400
        const char* error;
    };
    const Case cases[] = {
        {"", json::object{{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", cm.at("metadata")}}, ""},
        {"Metadata", json::object{{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", cm.at("metadata")}}, ""},
        {"None", json::value(nullptr), ""},
        {"Object", json::value(cm), ""},
        {"object", std::nullopt, "unrecognized includeObject value: \"object\""},
        {"All", std::nullopt, "unrecognized includeObject value: \"All\""},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.include) {
            std::string error;
            auto include = parseIncludeObject(c.include, error);
            BOOST_TEST(include.has_value() == c.object.has_value());
            if (!include) {
                BOOST_TEST(error == c.error);
                continue;
            }
            auto table = buildTable({cm}, tableColumns("ConfigMap", true, {}), *include, "", "", now());
            BOOST_TEST(table.at("rows").as_array().at(0).at("object") == *c.object);
        }
    }
}

BOOST_AUTO_TEST_CASE(headers_and_list_metadata) {
    auto columns = tableColumns("Namespace", true, {});
    auto noHeaders = buildTable({}, columns, IncludeObject::Metadata, "9", "c", now(), false);
    BOOST_TEST(noHeaders.at("columnDefinitions").is_null());
    BOOST_TEST(noHeaders.at("rows").as_array().empty());
    BOOST_TEST(noHeaders.at("metadata") == (json::object{{"resourceVersion", "9"}, {"continue", "c"}}));
}

BOOST_AUTO_TEST_CASE(builtin_kind_columns_and_cells) {
    struct Case {
        const char* kind;
        json::object object;
        const char* columns;
        const char* cells;
    };
    const Case cases[] = {
        {"Namespace", aged(R"({"kind":"Namespace","metadata":{"name":"default"},"status":{"phase":"Active"}})", 3h),
         "Name|Status|Age", R"(["default","Active","3h"])"},
        {"Pod",
         aged(R"({"kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n1","containers":[{"name":"a"},{"name":"b"}],
            "readinessGates":[{"conditionType":"x/ready"}]},
            "status":{"phase":"Running","podIPs":[{"ip":"10.0.0.7"}],"conditions":[{"type":"Ready","status":"False"}],
            "containerStatuses":[{"name":"a","ready":true,"restartCount":2,"state":{"running":{}},
                                  "lastState":{"terminated":{"finishedAt":"2024-05-01T11:55:00Z"}}},
                                 {"name":"b","ready":false,"restartCount":1,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})",
              20min),
         "Name|Ready|Status|Restarts|Age|IP|Node|Nominated Node|Readiness Gates",
         R"x(["p","1/2","CrashLoopBackOff","3 (5m ago)","20m","10.0.0.7","n1","<none>","0/1"])x"},
        {"Pod",
         aged(R"({"kind":"Pod","metadata":{"name":"i"},"spec":{"containers":[{"name":"a"}],"initContainers":[{"name":"init"},{"name":"more"}]},
            "status":{"phase":"Pending","initContainerStatuses":[{"name":"init","state":{"terminated":{"exitCode":0}}},
            {"name":"more","state":{"waiting":{"reason":"PodInitializing"}}}]}})", 30s),
         "Name|Ready|Status|Restarts|Age|IP|Node|Nominated Node|Readiness Gates",
         R"(["i","0/1","Init:1/2","0","30s","<none>","<none>","<none>","<none>"])"},
        {"Service",
         aged(R"({"kind":"Service","metadata":{"name":"s"},"spec":{"type":"NodePort","clusterIPs":["10.96.0.9"],
            "ports":[{"port":80,"protocol":"TCP"},{"port":443,"nodePort":30443,"protocol":"TCP"}],"selector":{"b":"2","a":"1"}}})", 2s),
         "Name|Type|Cluster-IP|External-IP|Port(s)|Age|Selector",
         R"(["s","NodePort","10.96.0.9","<none>","80/TCP,443:30443/TCP","2s","a=1,b=2"])"},
        {"Lease", aged(R"({"kind":"Lease","metadata":{"name":"l"},"spec":{"holderIdentity":"op-1"}})", 61s), "Name|Holder|Age",
         R"(["l","op-1","61s"])"},
        {"PriorityClass", aged(R"({"kind":"PriorityClass","metadata":{"name":"high"},"value":1000,"globalDefault":true,
            "preemptionPolicy":"Never"})", 48h),
         "Name|Value|Global-Default|Age|PreemptionPolicy", R"(["high",1000,true,"2d","Never"])"},
        {"RuntimeClass", aged(R"({"kind":"RuntimeClass","metadata":{"name":"gvisor"},"handler":"runsc"})", 5s), "Name|Handler|Age",
         R"(["gvisor","runsc","5s"])"},
        {"LimitRange", aged(R"({"kind":"LimitRange","metadata":{"name":"limits"}})", 1h), "Name|Created At",
         R"(["limits","2024-05-01T11:00:00Z"])"},
        {"CustomResourceDefinition", parse(R"({"kind":"CustomResourceDefinition","metadata":{"name":"a.b.c"}})"), "Name|Created At",
         R"(["a.b.c","0001-01-01T00:00:00Z"])"},
        {"Job",
         aged(R"({"kind":"Job","metadata":{"name":"j"},"spec":{"completions":1,"selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"u"}},
            "template":{"spec":{"containers":[{"name":"main","image":"busybox"},{"name":"side","image":"envoy"}]}}},
            "status":{"succeeded":1,"startTime":"2024-05-01T11:50:00Z","completionTime":"2024-05-01T11:53:20Z",
            "conditions":[{"type":"Complete","status":"True"}]}})", 15min),
         "Name|Status|Completions|Duration|Age|Containers|Images|Selector",
         R"(["j","Complete","1/1","3m20s","15m","main,side","busybox,envoy","batch.kubernetes.io/controller-uid=u"])"},
        {"Job", aged(R"({"kind":"Job","metadata":{"name":"k"},"spec":{"parallelism":3},"status":{"startTime":"2024-05-01T11:59:00Z"}})", 1min),
         "Name|Status|Completions|Duration|Age|Containers|Images|Selector", R"(["k","Running","0/1 of 3","60s","60s","","","<none>"])"},
        {"Event",
         parse(R"({"kind":"Event","metadata":{"name":"x.1","namespace":"default"},"type":"Warning","reason":"Failed",
            "involvedObject":{"kind":"TrainJob","name":"x","fieldPath":"spec"},"message":" boom \n","count":3,
            "firstTimestamp":"2024-05-01T11:00:00Z","lastTimestamp":"2024-05-01T11:59:50Z",
            "source":{"component":"trainer-operator","host":"h"}})"),
         "Last Seen|Type|Reason|Object|Subobject|Source|Message|First Seen|Count|Name",
         R"(["10s","Warning","Failed","trainjob/x","spec","trainer-operator, h","boom","60m",3,"x.1"])"},
        {"Secret", aged(R"({"kind":"Secret","type":"Opaque","metadata":{"name":"s"},"data":{"a":"","b":""}})", 1s), "Name|Type|Data|Age",
         R"(["s","Opaque",2,"1s"])"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.kind << " " << c.cells) {
            auto table = buildTable({c.object}, tableColumns(c.kind, true, {}), IncludeObject::None, "", "", now());
            BOOST_TEST(names(table) == c.columns);
            BOOST_TEST(json::serialize(cells(table, 0)) == c.cells);
        }
    }
}

BOOST_AUTO_TEST_CASE(wide_columns_have_priority_and_completed_pods_a_condition) {
    auto table = buildTable({parse(R"({"kind":"Pod","metadata":{"name":"p"},"status":{"phase":"Succeeded"}})")},
                            tableColumns("Pod", true, {}), IncludeObject::None, "", "", now());
    std::string wide;
    for (auto const& d : table.at("columnDefinitions").as_array())
        if (d.at("priority").as_int64() > 0) wide += (wide.empty() ? "" : "|") + std::string(d.at("name").as_string());
    BOOST_TEST(wide == "IP|Node|Nominated Node|Readiness Gates");
    BOOST_TEST(json::serialize(table.at("rows").as_array().at(0).at("conditions")) ==
               R"([{"type":"Completed","status":"True","reason":"Succeeded","message":"The pod has completed successfully."}])");
    auto running = buildTable({parse(R"({"kind":"Pod","metadata":{"name":"p"},"status":{"phase":"Running"}})")},
                              tableColumns("Pod", true, {}), IncludeObject::None, "", "", now());
    BOOST_TEST(!running.at("rows").as_array().at(0).as_object().contains("conditions"));

    // The CLI prints the same columns, priority 0 only unless wide.
    BOOST_TEST(printTable({aged(R"({"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a"}]},
        "status":{"phase":"Pending"}})", 3s)}, "Pod", false, now()) ==
               "NAME   READY   STATUS    RESTARTS   AGE\n"
               "p      0/1     Pending   0          3s\n");
}
