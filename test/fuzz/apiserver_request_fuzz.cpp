// Fuzz target 4a: what the embedded API server reads from a request before a verb runs
// (core/apiserver/api_server.cpp ApiServer::handle, read_handlers.cpp parseSelectors): the
// query (parseQuery), the path (parseRequestInfo), discovery and OpenAPI documents named by the
// path, the boolean flags, the resource lookup, then labelSelector and fieldSelector parsed for
// that resource and matched against fixed objects (examples/), and the Table of the matches.
// Input: the first line is "METHOD TARGET" (TARGET = path[?query]); the rest, when present, is a
// CustomResourceDefinition body (JSON or YAML) the registry serves for this input only, as a
// client creating a CRD makes it served (its printer columns and selectable fields included).
// A parsed label selector must print (toString) as text that parses to the same selector.
#include "core/apiserver/discovery.hpp"
#include "core/apiserver/openapi.hpp"
#include "core/apiserver/request_info.hpp"
#include "core/apiserver/resources.hpp"
#include "core/apiserver/selectors.hpp"
#include "core/apiserver/table.hpp"
#include "core/json/io.hpp"
#include "test/fuzz/fuzz_support.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>

using namespace trainer::core;
using namespace trainer::core::apiserver;

namespace {

struct State {
    ResourceRegistry registry;
    std::vector<json::object> crds;  // the embedded trainer CRDs, to restore one a fuzz CRD replaced
    std::vector<json::object> objects;
};

State& state() {
    static State* s = [] {
        auto* st = new State();  // lives for the process
        st->crds = embeddedTrainerCrds();
        for (auto const& crd : st->crds) st->registry.addCrd(crd);
        std::vector<InputDocument> docs;
        std::string root = TRAINER_SOURCE_DIR;
        fuzz::require(readInputs({root + "/examples", root + "/examples/local"}, docs).ok(), "examples/ do not read");
        for (auto& d : docs) st->objects.push_back(std::move(d.object));
        st->objects.push_back(json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-0","namespace":"default",
            "labels":{"app":"x","tier":"7"}},"spec":{"nodeName":"n1","restartPolicy":"Never","containers":[{"name":"c","image":"i"}]},
            "status":{"phase":"Running","podIP":"10.0.0.7"}})").as_object());
        return st;
    }();
    return *s;
}

void checkLabelSelector(const LabelSelector& sel, const std::vector<json::object>& objects) {
    std::string text = sel.toString(), error;
    auto again = parseLabelSelector(text, error);
    fuzz::require(again.has_value(), "a label selector's toString does not parse: " + error, text);
    fuzz::require(again->toString() == text, "a label selector's toString parses to another selector", text + "\n" + again->toString());
    static const json::object empty;
    for (auto const& o : objects) {
        auto const* md = o.if_contains("metadata");
        auto const* labels = md && md->is_object() ? md->as_object().if_contains("labels") : nullptr;
        auto const& l = labels && labels->is_object() ? labels->as_object() : empty;
        fuzz::require(sel.matches(l) == again->matches(l), "a label selector and its toString match differently", text);
    }
}

// The selectors of a list or watch of `resource` (read_handlers.cpp parseSelectors), matched.
void selectAndTabulate(const std::map<std::string, std::string>& query, const ApiResource& resource) {
    State& st = state();
    std::optional<LabelSelector> labels;
    std::optional<FieldSelector> fields;
    std::string error;
    if (auto it = query.find("labelSelector"); it != query.end() && !it->second.empty()) {
        labels = parseLabelSelector(it->second, error);
        if (labels) checkLabelSelector(*labels, st.objects);
    }
    if (auto it = query.find("fieldSelector"); it != query.end() && !it->second.empty()) {
        FieldLabelScope scope{resource.builtin ? std::optional<std::string>(resource.group) : std::nullopt, resource.namespaced,
                              {}};
        fields = parseFieldSelector(it->second, resource.kind, resource.builtin, error, scope);
        if (fields) (void)fields->requiresExactMatch("metadata.name");
    }
    std::vector<json::object> selected;
    static const json::object empty;
    for (auto const& o : st.objects) {
        auto const* md = o.if_contains("metadata");
        auto const* l = md && md->is_object() ? md->as_object().if_contains("labels") : nullptr;
        if (labels && !labels->matches(l && l->is_object() ? l->as_object() : empty)) continue;
        if (fields && !fields->matches(o)) continue;
        selected.push_back(o);
    }
    auto include = IncludeObject::Metadata;
    if (auto it = query.find("includeObject"); it != query.end())
        include = parseIncludeObject(it->second, error).value_or(IncludeObject::Metadata);
    auto columns = tableColumns(resource.kind, resource.builtin, resource.printerColumns);
    (void)buildTable(selected, columns, include, "1", "", std::chrono::system_clock::time_point(std::chrono::seconds(1735689600)));
}

void route(std::string_view method, std::string_view target) {
    State& st = state();
    auto q = target.find('?');
    std::string_view path = target.substr(0, q), rawQuery = q == target.npos ? std::string_view() : target.substr(q + 1);
    if (path.starts_with("/openapi/v3/")) (void)openApiV3Document(st.registry, path.substr(12));
    auto query = parseQuery(rawQuery);
    auto info = parseRequestInfo(method, path, query);
    if (!info) return;
    if (!info->resourceRequest) {
        if (info->version.empty()) (void)apiGroup(st.registry, info->group);
        else (void)apiResourceList(st.registry, info->group, info->version);
        return;
    }
    for (auto flag : {"watch", "allowWatchBookmarks", "force", "sendInitialEvents"})
        if (auto it = query.find(flag); it != query.end() && !parseBool(it->second)) return;
    auto resource = st.registry.find(info->group, info->version, info->resource);
    if (!resource || (info->hasNamespace && !resource->namespaced)) return;
    if (info->verb == "list" || info->verb == "watch" || info->verb == "deletecollection") selectAndTabulate(query, *resource);
}

// The name the registry serves a CRD under ("<plural>.<group>", resources.cpp addCrd).
std::string crdName(const json::object& crd) {
    auto member = [](const json::object& o, std::string_view k) -> const json::object& {
        static const json::object empty;
        auto const* v = o.if_contains(k);
        return v && v->is_object() ? v->as_object() : empty;
    };
    auto text = [](const json::object& o, std::string_view k) {
        auto const* v = o.if_contains(k);
        return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    auto const& spec = member(crd, "spec");
    return text(member(spec, "names"), "plural") + "." + text(spec, "group");
}

// The CRD a client posted, served for this input; returns its name when it was taken.
std::string serveCrd(std::string_view body) {
    std::vector<InputDocument> docs;
    if (!parseInputText(body, "body", docs).ok() || docs.size() != 1) return {};
    auto const& crd = docs.front().object;
    if (!state().registry.addCrd(crd)) return {};
    for (auto const& version : {"v1", "v1alpha1", "v1beta1"}) (void)crdSelectableFields(crd, version);
    return crdName(crd);
}

void unserveCrd(const std::string& name) {
    State& st = state();
    st.registry.removeCrd(name);
    for (auto const& crd : st.crds)
        if (crdName(crd) == name) st.registry.addCrd(crd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(data), size);
    auto nl = input.find('\n');
    std::string_view line = input.substr(0, nl), body = nl == input.npos ? std::string_view() : input.substr(nl + 1);
    auto sp = line.find(' ');
    std::string_view method = line.substr(0, sp), target = sp == line.npos ? std::string_view() : line.substr(sp + 1);
    state();
    std::string crd = body.empty() ? std::string() : serveCrd(body);
    route(method, target);
    if (!crd.empty()) unserveCrd(crd);
    return 0;
}
