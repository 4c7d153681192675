// Server-side apply and managedFields as kubectl sees them (expected texts are upstream's, see
// core/apiserver/field_manager.hpp for the sources).
#include <boost/test/unit_test.hpp>

#include "core/apiserver/field_manager.hpp"

#include <string>
#include <vector>

using namespace trainer::core::apiserver;

namespace {

constexpr const char* T1 = "2024-05-01T10:00:00Z";
constexpr const char* T2 = "2024-05-01T11:00:00Z";
constexpr const char* T3 = "2024-05-01T12:00:00Z";

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

std::string compact(std::string_view text) { return json::serialize(json::parse(text)); }

// The managedFields entry of `manager` (and `operation` when given), or null.
const json::object* entryOf(const json::object& obj, std::string_view manager, std::string_view operation = "") {
    auto const* mf = obj.at("metadata").as_object().if_contains("managedFields");
    if (!mf) return nullptr;
    for (auto const& e : mf->as_array()) {
        auto const& o = e.as_object();
        if (o.at("manager").as_string() == manager && (operation.empty() || o.at("operation").as_string() == operation))
            return &o;
    }
    return nullptr;
}

std::string fieldsOf(const json::object& obj, std::string_view manager, std::string_view operation = "") {
    auto const* e = entryOf(obj, manager, operation);
    return e ? json::serialize(e->at("fieldsV1")) : std::string("<no entry>");
}

std::vector<std::string> managersOf(const json::object& obj) {
    std::vector<std::string> out;
    if (auto const* mf = obj.at("metadata").as_object().if_contains("managedFields"))
        for (auto const& e : mf->as_array()) out.emplace_back(e.at("manager").as_string());
    return out;
}

const json::value* at(const json::object& obj, std::initializer_list<std::string_view> path) {
    const json::value* v = nullptr;
    const json::object* o = &obj;
    for (auto name : path) {
        v = o ? o->if_contains(name) : nullptr;
        if (!v) return nullptr;
        o = v->is_object() ? &v->as_object() : nullptr;
    }
    return v;
}

std::string textAt(const json::object& obj, std::initializer_list<std::string_view> path) {
    auto const* v = at(obj, path);
    return v ? json::serialize(*v) : std::string("<absent>");
}

struct Applier {
    ListShapeFn shapes = builtinListShapes();
    bool statusSubresource = false;

    SsaResult apply(const json::object* live, std::string_view config, std::string_view manager, bool force = false,
                    const char* time = T1, std::string_view subresource = "") const {
        return serverSideApply(live, parse(config), manager, force, time, shapes, statusSubresource, subresource);
    }
    json::object mustApply(const json::object* live, std::string_view config, std::string_view manager,
                           bool force = false, const char* time = T1, std::string_view subresource = "") const {
        SsaResult r = apply(live, config, manager, force, time, subresource);
        BOOST_REQUIRE_MESSAGE(r.ok, "apply by " << manager << " failed: " << r.message);
        return r.object;
    }
};

std::string configMap(std::string_view data, std::string_view extraMeta = "") {
    return std::string(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default")") +
           std::string(extraMeta) + "},\"data\":" + std::string(data) + "}";
}

std::string deployment(std::string_view podSpec, std::string_view spec = "") {
    return std::string(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},)"
                       R"("spec":{)") +
           std::string(spec) + R"("template":{"spec":)" + std::string(podSpec) + "}}}";
}

}  // namespace

BOOST_AUTO_TEST_CASE(apply_create_records_fields_v1) {
    struct Case {
        const char* name;
        std::string config;
        const char* fields;
    };
    const Case cases[] = {
        {"configmap data and labels", configMap(R"({"a":"1","b":"2"})", R"(,"labels":{"app":"x"})"),
         R"({"f:data":{"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{"f:app":{}}}})"},
        {"deployment keyed lists",
         R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":2,
            "selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{
            "containers":[{"name":"node","image":"img:1","ports":[{"containerPort":8080}],"env":[{"name":"A","value":"1"}]}],
            "tolerations":[{"key":"k","operator":"Exists"}]}}}})",
         R"({"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},)"
         R"("f:spec":{"f:containers":{"k:{\"name\":\"node\"}":{".":{},"f:env":{"k:{\"name\":\"A\"}":{".":{},)"
         R"("f:name":{},"f:value":{}}},"f:image":{},"f:name":{},"f:ports":{)"
         R"("k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}},"f:tolerations":{}}}}})"},
        {"finalizers are a set", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","finalizers":["b.io/x","a.io/y"]}})",
         R"({"f:metadata":{"f:finalizers":{"v:\"a.io/y\"":{},"v:\"b.io/x\"":{}}}})"},
        {"service ports by port and protocol",
         R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"selector":{"app":"x"},"ports":[{"port":80,"targetPort":8080}]}})",
         R"({"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:targetPort":{}}},"f:selector":{}}})"},
        {"empty maps and nulls are owned leaves", configMap(R"({"a":null})", R"(,"annotations":{})"),
         R"({"f:data":{"f:a":{}},"f:metadata":{"f:annotations":{}}})"},
        {"server-owned metadata is ignored",
         configMap(R"({"a":"1"})", R"(,"uid":"u","resourceVersion":"7","creationTimestamp":null,"generation":3)"),
         R"({"f:data":{"f:a":{}}})"},
    };
    Applier a;
    for (auto const& c : cases) BOOST_TEST_CONTEXT(c.name) {
            json::object obj = a.mustApply(nullptr, c.config, "trainer");
            BOOST_TEST(fieldsOf(obj, "trainer") == compact(c.fields));
            BOOST_TEST(managersOf(obj) == std::vector<std::string>{"trainer"});
            BOOST_TEST(!at(obj, {"metadata", "uid"}));
            BOOST_TEST(!at(obj, {"metadata", "creationTimestamp"}));
        }

    json::object obj = a.mustApply(nullptr, configMap(R"({"a":"1"})"), "trainer");
    BOOST_TEST(json::serialize(obj.at("metadata").at("managedFields")) ==
               compact(R"([{"manager":"trainer","operation":"Apply","apiVersion":"v1","time":"2024-05-01T10:00:00Z",
                           "fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}])"));
    BOOST_TEST(textAt(obj, {"data"}) == compact(R"({"a":"1"})"));
}

BOOST_AUTO_TEST_CASE(reapply_unchanged_keeps_object_and_time) {
    Applier a;
    for (auto const& config : {configMap(R"({"a":"1"})", R"(,"labels":{"app":"x"})"),
                               deployment(R"({"containers":[{"name":"node","image":"i"}]})", R"("replicas":1,)")}) {
        json::object first = a.mustApply(nullptr, config, "trainer", false, T1);
        json::object second = a.mustApply(&first, config, "trainer", false, T2);
        BOOST_TEST(json::value(second) == json::value(first));
        BOOST_TEST(entryOf(second, "trainer")->at("time") == T1);
    }
}

BOOST_AUTO_TEST_CASE(reapply_without_a_field_removes_it) {
    struct Case {
        const char* name;
        std::string first, second;
        std::initializer_list<std::string_view> path;
        const char* expected;  // value at path after the second apply
        const char* fields;
    };
    const Case cases[] = {
        {"map key", configMap(R"({"a":"1","b":"2"})"), configMap(R"({"a":"1"})"), {"data"}, R"({"a":"1"})",
         R"({"f:data":{"f:a":{}}})"},
        {"whole labels map", configMap(R"({"a":"1"})", R"(,"labels":{"app":"x","tier":"y"})"), configMap(R"({"a":"1"})"),
         {"metadata", "labels"}, "<absent>", R"({"f:data":{"f:a":{}}})"},
        {"list element", deployment(R"({"containers":[{"name":"node","image":"i"},{"name":"side","image":"s"}]})"),
         deployment(R"({"containers":[{"name":"node","image":"i"}]})"), {"spec", "template", "spec", "containers"},
         R"([{"name":"node","image":"i"}])",
         R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"node\"}":{".":{},"f:image":{},"f:name":{}}}}}}})"},
        {"nested field of an element", deployment(R"({"containers":[{"name":"node","image":"i","args":["x"]}]})"),
         deployment(R"({"containers":[{"name":"node","image":"i"}]})"), {"spec", "template", "spec", "containers"},
         R"([{"name":"node","image":"i"}])",
         R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"node\"}":{".":{},"f:image":{},"f:name":{}}}}}}})"},
        {"whole spec", deployment(R"({"containers":[{"name":"node","image":"i"}]})", R"("replicas":3,)"),
         R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default","labels":{"a":"b"}}})",
         {"spec"}, "<absent>", R"({"f:metadata":{"f:labels":{"f:a":{}}}})"},
    };
    Applier a;
    for (auto const& c : cases) BOOST_TEST_CONTEXT(c.name) {
            json::object first = a.mustApply(nullptr, c.first, "trainer", false, T1);
            json::object second = a.mustApply(&first, c.second, "trainer", false, T2);
            BOOST_TEST(textAt(second, c.path) == (c.expected[0] == '<' ? std::string(c.expected) : compact(c.expected)));
            BOOST_TEST(fieldsOf(second, "trainer") == compact(c.fields));
            BOOST_TEST(entryOf(second, "trainer")->at("time") == T2);
        }
}

// An explicit null over fields the same manager owned: structured-merge-diff keeps the emptied
// member as null and the stored form drops null members, so applying the same body again changes
// nothing (test/fuzz/README.md finding 8: the first apply used to drop spec.template, the second
// put spec.template.spec back as null).
BOOST_AUTO_TEST_CASE(explicit_null_over_owned_children_is_idempotent) {
    Applier a;
    const std::string nullSpec =
        R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},)"
        R"("spec":{"template":{"spec":null}}})";
    json::object first = a.mustApply(nullptr, deployment(R"({"containers":[{"name":"node","image":"i"}]})"), "trainer", false, T1);
    json::object second = a.mustApply(&first, nullSpec, "trainer", false, T2);
    BOOST_TEST(textAt(second, {"spec", "template"}) == "{}");
    json::object third = a.mustApply(&second, nullSpec, "trainer", false, T3);
    BOOST_TEST(json::value(third.at("spec")) == json::value(second.at("spec")),
               json::serialize(second) << " became " << json::serialize(third));
    BOOST_TEST(fieldsOf(third, "trainer") == fieldsOf(second, "trainer"));
    BOOST_TEST(fieldsOf(third, "trainer") == compact(R"({"f:spec":{"f:template":{"f:spec":{}}}})"));
    // Over nothing: the same stored form.
    json::object fresh = a.mustApply(nullptr, nullSpec, "trainer", false, T1);
    BOOST_TEST(textAt(fresh, {"spec", "template"}) == "{}");
    BOOST_TEST(textAt(fresh, {"spec", "template", "spec"}) == "<absent>");
}

BOOST_AUTO_TEST_CASE(conflicting_appliers_get_upstreams_message) {
    struct Step {
        const char* manager;
        std::string config;
    };
    struct Case {
        const char* name;
        std::vector<Step> before;
        Step conflicting;
        const char* message;
        std::vector<std::pair<std::string, std::string>> conflicts;  // manager, path
    };
    const Case cases[] = {
        {"single",
         {{"a", configMap(R"({"a":"1"})")}},
         {"b", configMap(R"({"a":"2"})")},
         R"(Apply failed with 1 conflict: conflict with "a": .data.a)",
         {{"a", ".data.a"}}},
        {"two fields of one manager",
         {{"a", configMap(R"({"a":"1","b":"1"})")}},
         {"b", configMap(R"({"a":"2","b":"2","c":"2"})")},
         "Apply failed with 2 conflicts: conflicts with \"a\":\n- .data.a\n- .data.b",
         {{"a", ".data.a"}, {"a", ".data.b"}}},
        {"two managers",
         {{"m2", configMap(R"({"c":"1"})")}, {"m1", configMap(R"({"a":"1"})")}},
         {"b", configMap(R"({"a":"2","c":"2"})")},
         "Apply failed with 2 conflicts: conflicts with \"m1\":\n- .data.a\nconflicts with \"m2\":\n- .data.c",
         {{"m1", ".data.a"}, {"m2", ".data.c"}}},
        {"container image",
         {{"trainer", deployment(R"({"containers":[{"name":"node","image":"v1"}]})")}},
         {"kubectl", deployment(R"({"containers":[{"name":"node","image":"v2"}]})")},
         R"(Apply failed with 1 conflict: conflict with "trainer": .spec.template.spec.containers[name="node"].image)",
         {{"trainer", R"(.spec.template.spec.containers[name="node"].image)"}}},
        {"multi-key element",
         {{"a", deployment(R"({"containers":[{"name":"node","ports":[{"containerPort":80,"name":"http"}]}]})")}},
         {"b", deployment(R"({"containers":[{"name":"node","ports":[{"containerPort":80,"name":"web"}]}]})")},
         "Apply failed with 1 conflict: conflict with \"a\": "
         R"(.spec.template.spec.containers[name="node"].ports[containerPort=80,protocol="TCP"].name)",
         {{"a", R"(.spec.template.spec.containers[name="node"].ports[containerPort=80,protocol="TCP"].name)"}}},
    };
    Applier a;
    for (auto const& c : cases) BOOST_TEST_CONTEXT(c.name) {
            json::object live;
            bool first = true;
            for (auto const& s : c.before) {
                live = a.mustApply(first ? nullptr : &live, s.config, s.manager);
                first = false;
            }
            SsaResult r = a.apply(&live, c.conflicting.config, c.conflicting.manager);
            BOOST_TEST(!r.ok);
            BOOST_TEST(r.code == 409u);
            BOOST_TEST(r.reason == "Conflict");
            BOOST_TEST(r.message == c.message);
            BOOST_TEST_REQUIRE(r.conflicts.size() == c.conflicts.size());
            for (std::size_t i = 0; i < c.conflicts.size(); ++i) {
                BOOST_TEST(r.conflicts[i].manager == c.conflicts[i].first);
                BOOST_TEST(r.conflicts[i].path == c.conflicts[i].second);
                BOOST_TEST(r.conflicts[i].cause == "conflict with \"" + c.conflicts[i].first + "\"");
            }
        }
}

BOOST_AUTO_TEST_CASE(force_moves_ownership) {
    Applier a;
    json::object live = a.mustApply(nullptr, configMap(R"({"a":"1","b":"1"})"), "a");
    json::object forced = a.mustApply(&live, configMap(R"({"a":"2"})"), "b", true, T2);
    BOOST_TEST(textAt(forced, {"data"}) == compact(R"({"a":"2","b":"1"})"));
    BOOST_TEST(fieldsOf(forced, "a") == compact(R"({"f:data":{"f:b":{}}})"));
    BOOST_TEST(fieldsOf(forced, "b") == compact(R"({"f:data":{"f:a":{}}})"));

    SsaResult back = a.apply(&forced, configMap(R"({"a":"1","b":"1"})"), "a", false, T3);
    BOOST_TEST(back.message == R"(Apply failed with 1 conflict: conflict with "b": .data.a)");

    // Losing every field removes the entry.
    json::object all = a.mustApply(&forced, configMap(R"({"a":"3","b":"3"})"), "b", true, T3);
    BOOST_TEST(managersOf(all) == std::vector<std::string>{"b"});
}

BOOST_AUTO_TEST_CASE(same_value_is_shared_not_a_conflict) {
    Applier a;
    json::object live = a.mustApply(nullptr, configMap(R"({"a":"1"})"), "a");
    json::object shared = a.mustApply(&live, configMap(R"({"a":"1","b":"1"})"), "b", false, T2);
    BOOST_TEST(fieldsOf(shared, "a") == compact(R"({"f:data":{"f:a":{}}})"));
    BOOST_TEST(fieldsOf(shared, "b") == compact(R"({"f:data":{"f:a":{},"f:b":{}}})"));
    BOOST_TEST(entryOf(shared, "b")->at("time") == T2);

    // An apply that changes nothing records ownership without a time (managedFieldsUpdater only
    // stamps entries when the object changed).
    json::object noop = a.mustApply(&live, configMap(R"({"a":"1"})"), "c", false, T2);
    BOOST_TEST(fieldsOf(noop, "c") == compact(R"({"f:data":{"f:a":{}}})"));
    BOOST_TEST(!entryOf(noop, "c")->contains("time"));
    BOOST_TEST(managersOf(noop) == (std::vector<std::string>{"c", "a"}));

    // The first applier dropping the shared field keeps it: "b" still owns it.
    json::object dropped = a.mustApply(&shared, configMap(R"({"z":"1"})"), "a", false, T3);
    BOOST_TEST(textAt(dropped, {"data"}) == compact(R"({"a":"1","b":"1","z":"1"})"));
    // Once its last owner drops it, it goes.
    json::object gone = a.mustApply(&dropped, configMap(R"({"b":"1"})"), "b", false, T3);
    BOOST_TEST(textAt(gone, {"data"}) == compact(R"({"b":"1","z":"1"})"));
}

BOOST_AUTO_TEST_CASE(associative_list_elements_belong_to_their_appliers) {
    Applier a;
    json::object live = a.mustApply(nullptr, deployment(R"({"containers":[{"name":"node","image":"n"}]})"), "a");
    json::object both = a.mustApply(&live, deployment(R"({"containers":[{"name":"side","image":"s"}]})"), "b", false, T2);
    BOOST_TEST(textAt(both, {"spec", "template", "spec", "containers"}) ==
               compact(R"([{"name":"node","image":"n"},{"name":"side","image":"s"}])"));
    BOOST_TEST(fieldsOf(both, "b") ==
               compact(R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"side\"}":{".":{},"f:image":{},"f:name":{}}}}}}})"));

    // "a" stops applying its container: only the one "b" owns is left.
    json::object after = a.mustApply(&both, deployment(R"({"containers":[]})", R"("replicas":1,)"), "a", false, T3);
    BOOST_TEST(textAt(after, {"spec", "template", "spec", "containers"}) == compact(R"([{"name":"side","image":"s"}])"));
    BOOST_TEST(fieldsOf(after, "a") == compact(R"({"f:spec":{"f:replicas":{}}})"));

    // Config order places a new element relative to the shared ones.
    json::object ordered = a.mustApply(
        &both, deployment(R"({"containers":[{"name":"first","image":"f"},{"name":"node","image":"n"}]})"), "a", false, T3);
    std::vector<std::string> names;
    for (auto const& c : at(ordered, {"spec", "template", "spec", "containers"})->as_array())
        names.emplace_back(c.at("name").as_string());
    BOOST_TEST(names == (std::vector<std::string>{"first", "node", "side"}));
}

BOOST_AUTO_TEST_CASE(set_lists_merge_by_value) {
    Applier a;
    auto fin = [](const char* list) {
        return std::string(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","finalizers":)") + list + "}}";
    };
    json::object live = a.mustApply(nullptr, fin(R"(["a.io/x"])"), "a");
    json::object both = a.mustApply(&live, fin(R"(["b.io/y"])"), "b", false, T2);
    BOOST_TEST(textAt(both, {"metadata", "finalizers"}) == compact(R"(["a.io/x","b.io/y"])"));
    json::object dropped = a.mustApply(&both, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}})", "a", false, T3);
    BOOST_TEST(textAt(dropped, {"metadata", "finalizers"}) == compact(R"(["b.io/y"])"));
    BOOST_TEST(!entryOf(dropped, "a"));
}

BOOST_AUTO_TEST_CASE(atomic_lists_are_one_field) {
    Applier a;
    auto tol = [](const char* list) {
        return deployment(std::string(R"({"containers":[{"name":"node"}],"tolerations":)") + list + "}");
    };
    json::object live = a.mustApply(nullptr, tol(R"([{"key":"x"},{"key":"y"}])"), "a");
    SsaResult r = a.apply(&live, tol(R"([{"key":"z"}])"), "b");
    BOOST_TEST(r.message == R"(Apply failed with 1 conflict: conflict with "a": .spec.template.spec.tolerations)");
    json::object forced = a.mustApply(&live, tol(R"([{"key":"z"}])"), "b", true, T2);
    BOOST_TEST(textAt(forced, {"spec", "template", "spec", "tolerations"}) == compact(R"([{"key":"z"}])"));
    BOOST_TEST(fieldsOf(forced, "a") ==
               compact(R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"node\"}":{".":{},"f:name":{}}}}}}})"));
}

BOOST_AUTO_TEST_CASE(update_entries_and_using_wording) {
    const ListShapeFn shapes = builtinListShapes();
    json::object created = parse(configMap(R"({"a":"1"})", R"(,"labels":{"app":"x"})"));
    recordUpdate(nullptr, created, "kubectl-client-side-apply", T1, shapes);
    BOOST_TEST(json::serialize(created.at("metadata").at("managedFields")) ==
               compact(R"([{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1",
                 "time":"2024-05-01T10:00:00Z","fieldsType":"FieldsV1",
                 "fieldsV1":{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}])"));

    Applier a;
    SsaResult r = a.apply(&created, configMap(R"({"a":"2"})"), "trainer", false, T2);
    BOOST_TEST(r.message == R"(Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a)");
    BOOST_TEST(r.conflicts.at(0).cause == R"(conflict with "kubectl-client-side-apply" using v1)");

    // An apply of other fields coexists; entries list Apply before Update.
    json::object applied = a.mustApply(&created, configMap(R"({"b":"1"})"), "trainer", false, T2);
    BOOST_TEST(managersOf(applied) == (std::vector<std::string>{"trainer", "kubectl-client-side-apply"}));

    // Another writer's change takes the field from its previous owner.
    json::object edited = applied;
    edited["data"].as_object()["a"] = "3";
    recordUpdate(&applied, edited, "kubectl-edit", T3, shapes);
    BOOST_TEST(fieldsOf(edited, "kubectl-edit") == compact(R"({"f:data":{"f:a":{}}})"));
    // It keeps the map it added (".", now without sub-fields), as upstream does.
    BOOST_TEST(fieldsOf(edited, "kubectl-client-side-apply") ==
               compact(R"({"f:data":{},"f:metadata":{"f:labels":{".":{},"f:app":{}}}})"));
    BOOST_TEST(entryOf(edited, "kubectl-edit")->at("time") == T3);
    BOOST_TEST(managersOf(edited) == (std::vector<std::string>{"trainer", "kubectl-client-side-apply", "kubectl-edit"}));

    // A write that changes nothing leaves entries alone; an apps/v1 writer is quoted with its version.
    json::object same = edited;
    recordUpdate(&edited, same, "kubectl-label", T3, shapes);
    BOOST_TEST(!entryOf(same, "kubectl-label"));
    json::object dep = parse(deployment(R"({"containers":[{"name":"node","image":"v1"}]})", R"("replicas":1,)"));
    recordUpdate(nullptr, dep, "kubectl-create", T1, shapes);
    SsaResult d = a.apply(&dep, deployment(R"({"containers":[{"name":"node","image":"v1"}]})", R"("replicas":2,)"), "trainer");
    BOOST_TEST(d.message == R"(Apply failed with 1 conflict: conflict with "kubectl-create" using apps/v1: .spec.replicas)");
}

BOOST_AUTO_TEST_CASE(update_managed_fields_sent_by_client) {
    const ListShapeFn shapes = builtinListShapes();
    Applier a;
    json::object live = a.mustApply(nullptr, configMap(R"({"a":"1"})"), "trainer");
    live["metadata"].as_object()["uid"] = "u-1";

    json::object reset = live;
    reset["metadata"].as_object()["managedFields"] = json::array();
    recordUpdate(&live, reset, "kubectl-edit", T2, shapes);
    BOOST_TEST(!at(reset, {"metadata", "managedFields"}));

    // Untracked existing objects stay untracked on writes...
    json::object untracked = reset;
    untracked["data"].as_object()["a"] = "2";
    recordUpdate(&reset, untracked, "kubectl-edit", T2, shapes);
    BOOST_TEST(!at(untracked, {"metadata", "managedFields"}));
    // ...and their first apply attributes what exists to "before-first-apply".
    SsaResult r = a.apply(&untracked, configMap(R"({"a":"3"})"), "trainer", false, T3);
    BOOST_TEST(r.message == R"(Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a)");
    json::object forced = a.mustApply(&untracked, configMap(R"({"a":"3"})"), "trainer", true, T3);
    BOOST_TEST(managersOf(forced) == (std::vector<std::string>{"trainer", "before-first-apply"}));
    BOOST_TEST(fieldsOf(forced, "before-first-apply") == compact(R"({"f:data":{}})"));
    BOOST_TEST(entryOf(forced, "before-first-apply")->at("time") == T3);
}

BOOST_AUTO_TEST_CASE(update_entries_are_capped) {
    const ListShapeFn shapes = builtinListShapes();
    json::object obj = parse(configMap(R"({"k0":"v"})"));
    recordUpdate(nullptr, obj, "m0", "2024-05-01T10:00:00Z", shapes);
    for (int i = 1; i < 12; ++i) {
        json::object next = obj;
        next["data"].as_object()["k" + std::to_string(i)] = "v";
        char time[32];
        std::snprintf(time, sizeof time, "2024-05-01T10:%02d:00Z", i);
        recordUpdate(&obj, next, "m" + std::to_string(i), time, shapes);
        obj = next;
    }
    auto managers = managersOf(obj);
    BOOST_TEST(managers.size() == 10u);
    BOOST_TEST(managers.front() == "ancient-changes");
    BOOST_TEST(fieldsOf(obj, "ancient-changes") == compact(R"({"f:data":{".":{},"f:k0":{},"f:k1":{},"f:k2":{}}})"));
    BOOST_TEST(entryOf(obj, "ancient-changes")->at("time") == "2024-05-01T10:02:00Z");
}

BOOST_AUTO_TEST_CASE(status_subresource_apply) {
    Applier a;
    a.statusSubresource = true;
    const char* job = R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{"name":"j","namespace":"ns"},
        "spec":{"suspend":false},"status":{"phase":"Ignored"}})";
    json::object live = a.mustApply(nullptr, job, "kubectl");
    BOOST_TEST(!at(live, {"status"}));
    BOOST_TEST(fieldsOf(live, "kubectl") == compact(R"({"f:spec":{"f:suspend":{}}})"));

    const char* status = R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{"name":"j","namespace":"ns"},
        "spec":{"suspend":true},"status":{"phase":"Running"}})";
    json::object updated = a.mustApply(&live, status, "trainer", true, T2, "status");
    BOOST_TEST(textAt(updated, {"status"}) == compact(R"({"phase":"Running"})"));
    BOOST_TEST(textAt(updated, {"spec"}) == compact(R"({"suspend":false})"));
    BOOST_TEST(json::serialize(*entryOf(updated, "trainer")) ==
               compact(R"({"manager":"trainer","operation":"Apply","apiVersion":"trainer.kubeflow.org/v1alpha1",
                 "time":"2024-05-01T11:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:phase":{}}},
                 "subresource":"status"})"));
    BOOST_TEST(fieldsOf(updated, "kubectl") == compact(R"({"f:spec":{"f:suspend":{}}})"));

    SsaResult other = a.apply(&updated, status, "other", false, T3, "status");
    BOOST_TEST(other.ok);  // same value: shared
    const char* failed = R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{"name":"j","namespace":"ns"},
        "status":{"phase":"Failed"}})";
    SsaResult conflict = a.apply(&updated, failed, "other", false, T3, "status");
    BOOST_TEST(conflict.message ==
               R"(Apply failed with 1 conflict: conflict with "trainer" with subresource "status": .status.phase)");

    SsaResult missing = a.apply(nullptr, failed, "trainer", true, T1, "status");
    BOOST_TEST(missing.code == 404u);
    BOOST_TEST(missing.reason == "NotFound");
}

BOOST_AUTO_TEST_CASE(bad_apply_configurations_are_rejected) {
    struct Case {
        const char* name;
        std::string config;
        unsigned code;
        const char* reason;
        const char* message;
    };
    const Case cases[] = {
        {"managedFields sent", configMap(R"({})", R"(,"managedFields":[{"manager":"x"}])"), 400, "BadRequest",
         "metadata.managedFields must be nil"},
        {"other kind", R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"cm","namespace":"default"}})", 400,
         "BadRequest", "invalid object type: apps/v1, Kind=Deployment"},
        {"element without its key", configMap(R"({})", R"(,"ownerReferences":[{"name":"o"}])"), 500, "",
         "failed to create typed patch object (default/cm; /v1, Kind=ConfigMap): .metadata.ownerReferences: element 0: "
         R"(associative list with keys has an element that omits all key fields ["uid"] (and doesn't have default values for any key fields))"},
        {"duplicate keys", configMap(R"({})", R"(,"finalizers":["a","a"])"), 500, "",
         "failed to create typed patch object (default/cm; /v1, Kind=ConfigMap): .metadata.finalizers: duplicate entries "
         R"(for key [="a"])"},
        {"two errors", configMap(R"({})", R"(,"finalizers":[{"x":1}],"ownerReferences":[1])"), 500, "",
         "failed to create typed patch object (default/cm; /v1, Kind=ConfigMap): errors:\n"
         "  .metadata.finalizers: element 0: associative list without keys has an element that's a map type\n"
         "  .metadata.ownerReferences: element 0: associative list with keys may not have non-map elements"},
    };
    Applier a;
    json::object live = a.mustApply(nullptr, configMap(R"({"a":"1"})"), "trainer");
    for (auto const& c : cases) BOOST_TEST_CONTEXT(c.name) {
            SsaResult r = a.apply(&live, c.config, "trainer");
            BOOST_TEST(!r.ok);
            BOOST_TEST(r.code == c.code);
            BOOST_TEST(r.reason == c.reason);
            BOOST_TEST(r.message == c.message);
        }
}

BOOST_AUTO_TEST_CASE(kubectl_takes_over_client_side_applied_fields) {
    const ListShapeFn shapes = builtinListShapes();
    const std::string annotation =
        R"(,"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\",\"namespace\":\"default\"}}\n"})";
    json::object live = parse(configMap(R"({"a":"1"})", annotation));
    recordUpdate(nullptr, live, "kubectl-client-side-apply", T1, shapes);

    Applier a;
    SsaResult other = a.apply(&live, configMap(R"({"a":"2"})"), "trainer", false, T2);
    BOOST_TEST(!other.ok);  // only "kubectl" gets the upgrade
    json::object upgraded = a.mustApply(&live, configMap(R"({"a":"2"})"), "kubectl", false, T2);
    BOOST_TEST(textAt(upgraded, {"data"}) == compact(R"({"a":"2"})"));
    BOOST_TEST(fieldsOf(upgraded, "kubectl") == compact(R"({"f:data":{"f:a":{}}})"));
    BOOST_TEST(upgraded.at("metadata").at("annotations").at("kubectl.kubernetes.io/last-applied-configuration") ==
               R"({"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"}})"
               "\n");

    // A field edited since the client-side apply is a real conflict.
    json::object edited = live;
    edited["data"].as_object()["a"] = "edited";
    recordUpdate(&live, edited, "kubectl-edit", T2, shapes);
    SsaResult r = a.apply(&edited, configMap(R"({"a":"2"})"), "kubectl", false, T3);
    BOOST_TEST(r.message == R"(Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.a)");
}

BOOST_AUTO_TEST_CASE(shapes_from_crd_schema) {
    const json::object schema = parse(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
        "items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","port"],
                 "items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer","default":80}}}},
        "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
        "args":{"type":"array","items":{"type":"string"}},
        "labels":{"type":"object","additionalProperties":{"type":"string"}},
        "selector":{"type":"object","x-kubernetes-map-type":"atomic","properties":{"a":{"type":"string"}}},
        "raw":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}})");
    const ListShapeFn shapes = listShapeFromSchema(&schema, builtinListShapes());
    struct Case {
        std::vector<std::string> path;
        ListShape::Kind kind;
        std::vector<std::string> keys;
        ListShape::ObjectKind object;
    };
    const Case cases[] = {
        {{"spec"}, ListShape::Atomic, {}, ListShape::Struct},
        {{"spec", "items"}, ListShape::Map, {"name", "port"}, ListShape::Struct},
        {{"spec", "tags"}, ListShape::Set, {}, ListShape::Struct},
        {{"spec", "args"}, ListShape::Atomic, {}, ListShape::Struct},
        {{"spec", "labels"}, ListShape::Atomic, {}, ListShape::FreeForm},
        {{"spec", "selector"}, ListShape::Atomic, {}, ListShape::AtomicObject},
        {{"spec", "raw"}, ListShape::Atomic, {}, ListShape::FreeForm},
        {{"spec", "raw", "deep", "er"}, ListShape::Atomic, {}, ListShape::FreeForm},
        {{"metadata", "ownerReferences"}, ListShape::Map, {"uid"}, ListShape::Struct},
        {{"metadata", "labels"}, ListShape::Atomic, {}, ListShape::FreeForm},
        {{"spec", "undeclared", "containers"}, ListShape::Map, {"name"}, ListShape::Struct},
    };
    for (auto const& c : cases) {
        std::string name;
        for (auto const& p : c.path) name += "." + p;
        BOOST_TEST_CONTEXT(name) {
            ListShape s = shapes(c.path);
            BOOST_TEST(int(s.kind) == int(c.kind));
            BOOST_TEST(s.keys == c.keys);
            BOOST_TEST(int(s.object) == int(c.object));
        }
    }
    BOOST_TEST(shapes({"spec", "items"}).keyDefaults.at("port") == 80);

    Applier a;
    a.shapes = shapes;
    json::object obj = a.mustApply(nullptr, R"({"apiVersion":"x.io/v1","kind":"X","metadata":{"name":"x"},
        "spec":{"items":[{"name":"a"}],"labels":{"k":"v"},"selector":{"a":"b"},"raw":{"n":{"m":1}}}})",
                                   "trainer");
    BOOST_TEST(fieldsOf(obj, "trainer") ==
               compact(R"({"f:spec":{"f:items":{"k:{\"name\":\"a\",\"port\":80}":{".":{},"f:name":{}}},"f:labels":{"f:k":{}},)"
                       R"("f:raw":{"f:n":{".":{},"f:m":{}}},"f:selector":{}}})"));
}
