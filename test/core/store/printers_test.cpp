// kubectl-like `get` tables with a fixed clock.
#include <boost/test/unit_test.hpp>

#include "core/apiserver/printers.hpp"
#include "core/json/io.hpp"
#include "store_test_util.hpp"

using namespace trainer::core;
using namespace trainer::core::test;
using namespace std::chrono;

namespace {

// An object created `ago` before fixedNow().
json::object aged(json::object o, system_clock::duration ago) {
    o["metadata"].as_object()["creationTimestamp"] = formatRfc3339(fixedNow() - ago);
    return o;
}

std::string join(const std::vector<json::value>& vs) {
    std::string s;
    for (auto const& v : vs) s += (s.empty() ? "" : "|") + (v.is_string() ? std::string(v.as_string()) : json::serialize(v));
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(human_duration_like_kubectl) {
    struct Case {
        system_clock::duration d;
        const char* text;
    };
    const Case cases[] = {
        {0s, "0s"},          {45s, "45s"},           {119s, "119s"},       {120s, "2m"},         {200s, "3m20s"},
        {10min, "10m"},      {179min, "179m"},       {3h, "3h"},           {5h, "5h"},           {5h + 30min, "5h30m"},
        {8h, "8h"},          {47h, "47h"},           {48h, "2d"},          {50h, "2d2h"},        {8 * 24h, "8d"},
        {400 * 24h, "400d"}, {730 * 24h, "2y"},      {800 * 24h, "2y70d"}, {9 * 365 * 24h, "9y"}, {-1s, "0s"},
        {-5s, "<invalid>"},  {1500ms, "1s"},
    };
    for (auto const& c : cases) BOOST_TEST_CONTEXT(c.text) { BOOST_TEST(humanDuration(c.d) == c.text); }
}

BOOST_AUTO_TEST_CASE(json_path_subset) {
    auto doc = json::parse(R"({"status":{"conditions":[{"type":"A","status":"False"},{"type":"Completed","status":"True"}],
        "restarts":0},"spec":{"list":[1,2,3],"suspend":false}})");
    struct Case {
        const char* path;
        const char* result;
    };
    const Case cases[] = {
        {".status.restarts", "0"},
        {".spec.suspend", "false"},
        {".status.conditions[-1:].type", "Completed"},
        {".status.conditions[0].type", "A"},
        {".status.conditions[5].type", ""},
        {R"(.status.conditions[?(@.type=="Completed")].status)", "True"},
        {R"(.status.conditions[?(@.status != 'True')].type)", "A"},
        {".status.conditions[?(@.type)].type", "A|Completed"},
        {".spec.list[*]", "1|2|3"},
        {".spec.list[1:]", "2|3"},
        {".spec.list[:-1]", "1|2"},
        {"{.spec.list[0]}", "1"},
        {".spec['list'][2]", "3"},
        {".missing.x", ""},
        {"status", ""},
        {".status.conditions[", ""},
        {"..", ""},
        {".status.conditions[x]", ""},
    };
    for (auto const& c : cases) BOOST_TEST_CONTEXT(c.path) { BOOST_TEST(join(evalJsonPath(doc, c.path)) == c.result); }
}

BOOST_AUTO_TEST_CASE(trainjob_table) {
    auto a = trainJob("a");
    a["spec"].as_object()["suspend"] = true;
    a["status"] = json::parse(R"({"conditions":[{"type":"Suspended","status":"True"}]})");
    auto b = trainJob("b");
    b["status"] = json::parse(R"({"conditions":[{"type":"Complete","status":"True"},{"type":"Suspended","status":"False"}]})");
    auto c = trainJob("long-name-job");
    c["spec"].as_object()["runtimeRef"].as_object()["name"] = "mpi";
    std::vector<json::object> jobs{aged(b, 45s), aged(c, 5h), aged(a, 200s)};

    BOOST_TEST(printTable(jobs, "TrainJob", false, fixedNow()) ==
               "NAME            STATE       SUSPENDED   AGE\n"
               "a               Suspended   true        3m20s\n"
               "b               Complete    false       45s\n"
               "long-name-job               false       5h\n");
    BOOST_TEST(printTable(jobs, "trainjob", true, fixedNow()) ==
               "NAME            STATE       SUSPENDED   AGE     RUNTIME\n"
               "a               Suspended   true        3m20s   torch-distributed\n"
               "b               Complete    false       45s     torch-distributed\n"
               "long-name-job               false       5h      mpi\n");
    BOOST_TEST(printTable({}, "TrainJob", false, fixedNow()) == "");
}

BOOST_AUTO_TEST_CASE(namespace_column_when_objects_span_namespaces) {
    auto runtime = [](const char* name, const char* ns) {
        return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                            {"kind", "TrainingRuntime"},
                            {"metadata", {{"name", name}, {"namespace", ns}}}};
    };
    std::vector<json::object> objs{aged(runtime("x", "team-b"), 48h), aged(runtime("y", "team-a"), 50h),
                                   aged(runtime("bad-time", "team-a"), 1s)};
    objs.back()["metadata"].as_object()["creationTimestamp"] = "yesterday";
    BOOST_TEST(printTable(objs, "TrainingRuntime", false, fixedNow()) ==
               "NAMESPACE   NAME       AGE\n"
               "team-a      bad-time   <unknown>\n"
               "team-a      y          2d2h\n"
               "team-b      x          2d\n");
    objs.pop_back();
    objs.pop_back();
    BOOST_TEST(printTable(objs, "TrainingRuntime", false, fixedNow()) ==
               "NAME   AGE\n"
               "x      2d\n");
}

BOOST_AUTO_TEST_CASE(crd_printer_columns_for_a_plugin_kind) {
    std::vector<InputDocument> docs;
    auto diags = readInputs({std::string(TRAINER_SHARED_DIR) + "/reference/crds/jobset.x-k8s.io_jobsets.yaml"}, docs);
    BOOST_TEST_REQUIRE(diags.ok());
    BOOST_TEST_REQUIRE(docs.size() == 1u);
    auto columns = printerColumnsFromCrd(docs[0].object);
    BOOST_TEST_REQUIRE(columns.has_value());
    BOOST_TEST(columns->first == "JobSet");
    registerPrinterColumns(columns->first, columns->second);

    auto jobset = [](const char* name) {
        return json::object{{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
                            {"kind", "JobSet"},
                            {"metadata", {{"name", name}, {"namespace", "default"}}}};
    };
    auto done = jobset("done");
    done["spec"] = json::parse(R"({"suspend":false})");
    done["status"] = json::parse(R"({"terminalState":"Completed","restarts":0,
        "conditions":[{"type":"StartupPolicyCompleted","status":"True"},{"type":"Completed","status":"True"}]})");
    auto running = jobset("run");
    running["spec"] = json::parse(R"({"suspend":true})");
    std::vector<json::object> objs{aged(running, 90s), aged(done, 48h)};
    BOOST_TEST(printTable(objs, "JobSet", false, fixedNow()) ==
               "NAME   TERMINALSTATE   RESTARTS   COMPLETED   SUSPENDED   AGE\n"
               "done   Completed       0          True        false       2d\n"
               "run                                           true        90s\n");

    // Registration never overrides the built-in TrainJob columns.
    registerPrinterColumns("TrainJob", {columns->second.front()});
    BOOST_TEST(printTable({aged(trainJob("x"), 1s)}, "TrainJob", false, fixedNow()) ==
               "NAME   STATE   SUSPENDED   AGE\n"
               "x              false       1s\n");

    BOOST_TEST(!printerColumnsFromCrd(json::object{{"kind", "CustomResourceDefinition"}}).has_value());
}

BOOST_AUTO_TEST_CASE(core_kind_tables) {
    auto cm = configMap("cfg");
    cm["binaryData"] = json::object{{"b", "AA=="}};
    auto secret = json::parse(R"({"apiVersion":"v1","kind":"Secret","type":"Opaque",
        "metadata":{"name":"s","namespace":"default"},"data":{"a":"","b":"","c":""}})").as_object();
    auto event = json::parse(R"({"apiVersion":"v1","kind":"Event","type":"Warning","reason":"TrainJobResourcesCreationFailed",
        "message":"TrainJob resources reconciliation failed: boom","involvedObject":{"kind":"TrainJob","name":"x"},
        "metadata":{"name":"x.1","namespace":"default"}})").as_object();
    event["lastTimestamp"] = formatRfc3339(fixedNow() - 7s);
    struct Case {
        const char* kind;
        json::object object;
        const char* table;
    };
    const Case cases[] = {
        {"ConfigMap", aged(cm, 10s), "NAME   DATA   AGE\ncfg    2      10s\n"},
        {"Secret", aged(secret, 10s), "NAME   TYPE     DATA   AGE\ns      Opaque   3      10s\n"},
        {"Event", event,
         "LAST SEEN   TYPE      REASON                            OBJECT       MESSAGE\n"
         "7s          Warning   TrainJobResourcesCreationFailed   trainjob/x   TrainJob resources reconciliation failed: boom\n"},
        {"Widget", json::object{{"metadata", {{"name", "w"}}}}, "NAME   AGE\nw      <unknown>\n"},
    };
    for (auto const& c : cases)
        BOOST_TEST_CONTEXT(c.kind) { BOOST_TEST(printTable({c.object}, c.kind, false, fixedNow()) == c.table); }
}
