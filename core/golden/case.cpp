#include "core/golden/case.hpp"

#include "core/api/object_set.hpp"
#include "core/controller/feature_gates.hpp"
#include "core/golden/field_path.hpp"
#include "core/golden/matcher.hpp"

#include <algorithm>
#include <set>

namespace trainer::core::golden {

namespace {

using MemberParser = void (*)(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d);

bool isStringOf(const json::value& v, std::string_view s) { return v.is_string() && v.get_string() == s; }

const json::string* stringAt(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? &v->get_string() : nullptr;
}

void text(const json::value& v, const std::string& path, std::string& out, Diagnostics& d) {
    if (v.is_string()) out = std::string(v.get_string());
    else d.add(path, "must be a string, not " + shortJson(v, 40));
}

void ignoredText(const json::value& v, const std::string& path, GoldenCase&, Diagnostics& d) {
    std::string unused;
    if (!v.is_null()) text(v, path, unused, d);
}

void name(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d) { text(v, path, c.name, d); }

void stage(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d) {
    if (isStringOf(v, "admission")) c.stage = Stage::Admission;
    else if (isStringOf(v, "build")) c.stage = Stage::Build;
    else d.add(path, "must be \"admission\" or \"build\", not " + shortJson(v, 40));
}

void featureGates(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d) {
    if (!v.is_object()) return d.add(path, "must be an object of gate names to true or false");
    std::string known;
    for (auto const& g : controller::knownFeatureGates()) known += (known.empty() ? "" : ", ") + std::string(g.name);
    for (auto const& [gate, on] : v.get_object()) {
        const std::string sub = memberPath(path, gate);
        auto const& gates = controller::knownFeatureGates();
        if (std::none_of(gates.begin(), gates.end(), [&](auto const& g) { return g.name == gate; }))
            d.add(sub, "unknown feature gate (known: " + known + ")");
        else if (!on.is_bool()) d.add(sub, "must be true or false");
        else c.featureGates[std::string(gate)] = on.get_bool();
    }
}

// An object of one of `kinds` (any kind when empty).
bool objectOfKind(const json::value& v, const std::string& path, std::initializer_list<std::string_view> kinds,
                  Diagnostics& d) {
    if (!v.is_object()) return d.add(path, "must be an object (a Kubernetes object)"), false;
    auto* kind = stringAt(v.get_object(), "kind");
    if (!kind) return d.add(memberPath(path, "kind"), "required: the object's kind"), false;
    if (kinds.size() && std::find(kinds.begin(), kinds.end(), std::string_view(*kind)) == kinds.end()) {
        std::string want;
        for (auto k : kinds) want += (want.empty() ? "" : " or ") + std::string(k);
        return d.add(memberPath(path, "kind"), "must be " + want + ", not \"" + std::string(*kind) + "\""), false;
    }
    return true;
}

void trainJob(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d) {
    if (objectOfKind(v, path, {"TrainJob"}, d)) c.trainJob = v.get_object();
}

void objects(const json::value& v, const std::string& path, std::initializer_list<std::string_view> kinds,
             std::vector<json::object>& out, Diagnostics& d) {
    if (!v.is_array()) return d.add(path, "must be a list of objects");
    for (std::size_t i = 0; i < v.get_array().size(); ++i)
        if (objectOfKind(v.get_array()[i], indexPath(path, i), kinds, d)) out.push_back(v.get_array()[i].get_object());
}

void runtimes(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d) {
    objects(v, path, {"TrainingRuntime", "ClusterTrainingRuntime"}, c.runtimes, d);
}

void existingObjects(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d) {
    objects(v, path, {}, c.existingObjects, d);
}

// Expected objects: each names its identity (apiVersion, kind, metadata.name), once.
void expectedObjects(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d) {
    std::vector<json::object> out;
    objects(v, path, {}, out, d);
    std::set<std::string> seen;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::string at = indexPath(path, i);
        auto* md = out[i].if_contains("metadata");
        if (!stringAt(out[i], "apiVersion")) d.add(memberPath(at, "apiVersion"), "required: the object's apiVersion");
        if (!md || !md->is_object() || !stringAt(md->get_object(), "name"))
            d.add(memberPath(memberPath(at, "metadata"), "name"), "required: the object's name");
        auto k = keyOf(out[i]);
        if (!seen.insert(k.apiVersion + "\n" + k.kind + "\n" + k.ns + "\n" + k.name).second)
            d.add(at, "a second expected " + k.display() + " (" + k.apiVersion + ")");
        d.append(checkDirectives(out[i], at));
    }
    c.expectedObjects = std::move(out);
}

void expectedError(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d) {
    if (v.is_null()) return;  // the upstream-parity format's "must succeed"
    std::string s;
    text(v, path, s, d);
    if (v.is_string()) c.expectedError = s;
}

std::optional<std::vector<ExpectedDiagnostic>> diagnostics(const json::value& v, const std::string& path, Diagnostics& d) {
    if (!v.is_array()) return d.add(path, "must be a list of {field, message}"), std::nullopt;
    std::vector<ExpectedDiagnostic> out;
    for (std::size_t i = 0; i < v.get_array().size(); ++i) {
        const std::string at = indexPath(path, i);
        auto* o = v.get_array()[i].if_object();
        if (!o) {
            d.add(at, "must be an object {field, message}");
            continue;
        }
        ExpectedDiagnostic e;
        for (auto const& [k, m] : *o) {
            auto& slot = k == "field" ? e.field : e.message;
            if (k != "field" && k != "message") d.add(memberPath(at, k), "unknown member (field, message)");
            else if (!m.is_string()) d.add(memberPath(at, k), "must be a string");
            else slot = std::string(m.get_string());
        }
        if (o->empty()) d.add(at, "needs field, message or both");
        out.push_back(std::move(e));
    }
    return out;
}

void expectedErrors(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d) {
    c.expectedErrors = diagnostics(v, path, d);
}

void expectedWarnings(const json::value& v, const std::string& path, GoldenCase& c, Diagnostics& d) {
    c.expectedWarnings = diagnostics(v, path, d);
}

struct MemberRule {
    std::string_view name;
    MemberParser parse;
};
constexpr MemberRule kRules[] = {
    {"name", name}, {"description", ignoredText}, {"source", ignoredText}, {"notes", ignoredText},
    {"stage", stage}, {"featureGates", featureGates}, {"trainJob", trainJob}, {"runtimes", runtimes},
    {"existingObjects", existingObjects}, {"expectedObjects", expectedObjects}, {"expectedError", expectedError},
    {"expectedErrors", expectedErrors}, {"expectedWarnings", expectedWarnings},
};
static_assert(std::size(kRules) == std::size(kCaseMembers));

// What the members say together, once each member is valid on its own.
void checkCombination(const json::object& doc, const GoldenCase& c, Diagnostics& d) {
    if (!doc.contains("trainJob")) d.add("trainJob", "required: the TrainJob of the case");
    if (!d.ok()) return;
    const bool objects = c.expectedObjects && !c.expectedObjects->empty();
    if (objects && c.stage == Stage::Admission)
        d.add("expectedObjects", "must be empty or left out in an admission case (admission builds nothing)");
    else if (objects && c.expectsError())
        d.add("expectedObjects", "must be empty or left out when errors are expected (a failed build applies nothing)");
    if (c.stage == Stage::Build && !c.expectsError() && !c.expectedObjects)
        d.add("expectedObjects", "required: a build case expects objects (write [] for none) or errors "
                                 "(expectedError, expectedErrors)");
}

}  // namespace

Diagnostics parseCase(const json::value& doc, const std::string& fallbackName, GoldenCase& out) {
    Diagnostics d;
    out = GoldenCase{};
    out.name = fallbackName;
    if (!doc.is_object()) return d.add("", "a case is an object (YAML mapping or JSON object), not " + shortJson(doc, 40)), d;
    std::string members;
    for (auto m : kCaseMembers) members += (members.empty() ? "" : ", ") + std::string(m);
    for (auto const& [k, v] : doc.get_object()) {
        auto rule = std::find_if(std::begin(kRules), std::end(kRules), [&](auto const& r) { return r.name == k; });
        if (rule == std::end(kRules)) d.add(memberPath("", k), "unknown member; a case has " + members);
        else rule->parse(v, memberPath("", k), out, d);
    }
    checkCombination(doc.get_object(), out, d);
    return d;
}

std::vector<InputDocument> inputDocuments(const GoldenCase& c) {
    std::vector<InputDocument> docs{InputDocument{c.trainJob, "trainJob"}};
    for (std::size_t i = 0; i < c.runtimes.size(); ++i) docs.push_back({c.runtimes[i], indexPath("runtimes", i)});
    for (std::size_t i = 0; i < c.existingObjects.size(); ++i)
        docs.push_back({c.existingObjects[i], indexPath("existingObjects", i)});
    return docs;
}

}  // namespace trainer::core::golden
