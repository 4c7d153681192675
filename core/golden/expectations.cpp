#include "core/golden/expectations.hpp"

#include "core/api/object_set.hpp"
#include "core/golden/matcher.hpp"

#include <functional>
#include <map>
#include <optional>

namespace trainer::core::golden {

namespace {

// One reported error or warning as the comparison sees it.
struct Reported {
    std::string path;
    std::string message;
    std::string line;  // origin, path and message, for reports
};

std::string lineOf(const std::string& origin, const std::string& path, const std::string& message) {
    return (origin.empty() ? "" : origin + ": ") + (path.empty() ? "" : path + ": ") + message;
}

bool satisfies(const ExpectedDiagnostic& e, const Reported& r) {
    return (!e.field || *e.field == r.path) && (!e.message || r.message.find(*e.message) != std::string::npos);
}

std::string describe(const ExpectedDiagnostic& e) {
    std::string s = e.field ? "field " + (e.field->empty() ? std::string("\"\"") : *e.field) : "any field";
    return s + (e.message ? ", message containing \"" + *e.message + "\"" : "");
}

// Pairs each expected entry with a distinct reported one (a maximum bipartite matching, so the
// order of the entries never matters); the rest on either side are the differences.
void pairUp(const std::vector<ExpectedDiagnostic>& expected, const std::vector<Reported>& reported,
            const std::string& what, std::vector<std::string>& out) {
    std::vector<int> owner(reported.size(), -1);  // reported index -> expected index
    std::function<bool(size_t, std::vector<bool>&)> place = [&](size_t i, std::vector<bool>& seen) {
        for (size_t j = 0; j < reported.size(); ++j) {
            if (seen[j] || !satisfies(expected[i], reported[j])) continue;
            seen[j] = true;
            if (owner[j] < 0 || place(static_cast<size_t>(owner[j]), seen)) return owner[j] = static_cast<int>(i), true;
        }
        return false;
    };
    std::vector<bool> placed(expected.size(), false);
    for (size_t i = 0; i < expected.size(); ++i) {
        std::vector<bool> seen(reported.size(), false);
        placed[i] = place(i, seen);
    }
    for (size_t i = 0; i < expected.size(); ++i)
        if (!placed[i]) out.push_back("expected " + what + " not reported: " + describe(expected[i]));
    for (size_t j = 0; j < reported.size(); ++j)
        if (owner[j] < 0) out.push_back("unexpected " + what + ": " + reported[j].line);
}

std::string stageName(Stage s) { return s == Stage::Admission ? "admission" : "the build"; }

void compareErrors(const GoldenCase& c, const Diagnostics& d, std::vector<std::string>& out) {
    std::vector<Reported> errors;
    std::string all;
    for (auto const& e : d.errors) {
        errors.push_back({e.path, e.message, lineOf(e.origin, e.path, e.message)});
        all += formatError(e) + "\n";
    }
    if (!c.expectsError()) {
        for (auto const& e : errors) out.push_back("unexpected error: " + e.line);
        return;
    }
    if (errors.empty()) {
        out.push_back("expected an error" + (c.expectedError && !c.expectedError->empty()
                                                 ? " containing \"" + *c.expectedError + "\""
                                                 : std::string()) + ", but " + stageName(c.stage) + " succeeded");
        return;
    }
    if (c.expectedError && all.find(*c.expectedError) == std::string::npos) {
        out.push_back("no error contains \"" + *c.expectedError + "\"; the errors:");
        for (auto const& e : errors) out.push_back("  " + e.line);
    }
    if (c.expectedErrors) pairUp(*c.expectedErrors, errors, "error", out);
}

void compareWarnings(const GoldenCase& c, const Diagnostics& d, std::vector<std::string>& out) {
    if (!c.expectedWarnings) return;
    std::vector<Reported> warnings;
    for (auto const& w : d.warnings) warnings.push_back({w.path, w.message, lineOf(w.origin, w.path, w.message)});
    pairUp(*c.expectedWarnings, warnings, "warning", out);
}

std::string identity(const ObjectKey& k) { return k.apiVersion + " " + k.display(); }

void compareObjects(const GoldenCase& c, const std::vector<json::object>& objects, std::vector<std::string>& out) {
    std::map<ObjectKey, const json::object*> want, got;
    for (auto const& o : *c.expectedObjects) want.emplace(keyOf(o), &o);
    // The runtime snapshot ConfigMap is the operator's own: compared only when expected.
    const ObjectKey tj = keyOf(c.trainJob);
    const ObjectKey snapshot{"v1", "ConfigMap", tj.ns.empty() ? "default" : tj.ns, tj.name + "-runtime-snapshot"};
    for (auto const& o : objects) {
        auto k = keyOf(o);
        if (k.kind == "ConfigMap" && k.name == snapshot.name && !want.count(k)) continue;
        got.emplace(std::move(k), &o);
    }
    for (auto const& [k, o] : want)
        if (!got.count(k)) out.push_back("missing object " + identity(k));
    for (auto const& [k, o] : got)
        if (!want.count(k)) out.push_back("unexpected object " + identity(k));
    for (auto const& [k, o] : want)
        if (auto it = got.find(k); it != got.end())
            for (auto const& m : matchSubset(*o, *it->second))
                out.push_back(k.display() + ": " + (m.path.empty() ? "" : m.path + ": ") + m.message);
}

}  // namespace

std::vector<std::string> compareOutcome(const GoldenCase& c, const CaseOutcome& outcome) {
    std::vector<std::string> out;
    compareErrors(c, outcome.diagnostics, out);
    compareWarnings(c, outcome.diagnostics, out);
    if (outcome.diagnostics.ok() && !c.expectsError() && c.stage == Stage::Build && c.expectedObjects)
        compareObjects(c, outcome.objects, out);
    return out;
}

}  // namespace trainer::core::golden
