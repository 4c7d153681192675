// Field selectors: the term syntax of k8s.io/apimachinery/pkg/fields/selector.go, then each
// field label through the kind's conversion (a table of the built-in kinds this server serves;
// custom resources as apiextensions-apiserver's crConverter), matched against the kind's
// selectable field set.
#include "core/apiserver/selectors.hpp"

#include "core/apiserver/json_path.hpp"
#include "core/apiserver/label_validation.hpp"
#include "core/apiserver/printers.hpp"

#include <algorithm>
#include <map>

namespace trainer::core::apiserver {

namespace {

using Reader = std::function<std::string(const json::object&)>;

// The first value of the first of `paths` the object has, as fmt.Sprint prints it; "" when none.
Reader firstOf(std::vector<std::string> paths, std::string fallback = "") {
    return [paths = std::move(paths), fallback = std::move(fallback)](const json::object& o) {
        json::value doc(o);
        for (auto const& p : paths) {
            auto values = evalJsonPath(doc, p);
            if (!values.empty() && !values.front().is_null()) return cellText(values.front());
        }
        return fallback;
    };
}

Reader at(std::string path) { return firstOf({"." + path}); }

// Status.PodIPs[0].IP, as ToSelectableFields has status.podIP.
Reader podIP() { return firstOf({".status.podIPs[0].ip"}); }

// How a kind's conversion rejects a label it does not know.
enum class Reject { NotSupported, BatchJob, MetaOnly };

struct FieldLabel {
    std::string label;     // as the client writes it
    std::string internal;  // the selectable field it converts to
    Reader read;
};

struct FieldKind {
    std::string group;
    std::string kind;
    Reject reject;
    std::vector<FieldLabel> labels;
};

FieldLabel same(std::string label) { return {label, label, at(label)}; }
FieldLabel same(std::string label, Reader read) { return {label, label, std::move(read)}; }

std::vector<FieldLabel> metaLabels() { return {same("metadata.name"), same("metadata.namespace")}; }

std::vector<FieldLabel> withMeta(std::vector<FieldLabel> labels) {
    auto out = metaLabels();
    out.insert(out.end(), labels.begin(), labels.end());
    return out;
}

// involvedObject.* as the core Event has it, regarding.* as events.k8s.io writes it.
Reader involved(const std::string& field) { return firstOf({".involvedObject." + field, ".regarding." + field}); }

std::vector<FieldLabel> eventLabels(bool eventsGroup) {
    std::vector<FieldLabel> out;
    for (std::string f : {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"})
        out.push_back({(eventsGroup ? "regarding." : "involvedObject.") + f, "involvedObject." + f, involved(f)});
    Reader reporting = firstOf({".reportingComponent", ".reportingController"});
    Reader source = firstOf({".source.component", ".deprecatedSource.component", ".reportingComponent", ".reportingController"});
    out.push_back(same("reason"));
    out.push_back({eventsGroup ? "reportingController" : "reportingComponent", "reportingComponent", reporting});
    out.push_back(same("source", source));
    out.push_back(same("type"));
    return withMeta(std::move(out));
}

// The kinds with their own field label conversion (kubernetes/pkg/apis/*/v1/conversion.go);
// every other built-in kind accepts metadata.name and metadata.namespace only.
const std::vector<FieldKind>& fieldKinds() {
    static const std::vector<FieldKind> table{
        {"", "Pod", Reject::NotSupported,
         withMeta({same("spec.nodeName"), same("spec.restartPolicy"), same("spec.schedulerName"),
                   same("spec.serviceAccountName"), same("spec.hostNetwork", firstOf({".spec.hostNetwork"}, "false")),
                   same("status.phase"), same("status.podIP", podIP()), same("status.podIPs", [](auto const&) { return std::string(); }),
                   same("status.nominatedNodeName"), {"spec.host", "spec.nodeName", at("spec.nodeName")}})},
        {"", "Node", Reject::NotSupported,
         {same("metadata.name"), same("spec.unschedulable", firstOf({".spec.unschedulable"}, "false"))}},
        {"", "ReplicationController", Reject::NotSupported, withMeta({same("status.replicas", firstOf({".status.replicas"}, "0"))})},
        {"", "Event", Reject::NotSupported, eventLabels(false)},
        {"events.k8s.io", "Event", Reject::NotSupported, eventLabels(true)},
        {"", "Namespace", Reject::NotSupported, {same("status.phase"), same("metadata.name")}},
        {"", "Secret", Reject::NotSupported, withMeta({same("type")})},
        {"", "Service", Reject::NotSupported, withMeta({same("spec.clusterIP"), same("spec.type")})},
        {"batch", "Job", Reject::BatchJob, withMeta({same("status.successful", firstOf({".status.succeeded"}, "0"))})},
    };
    return table;
}

FieldKind builtinFieldKind(std::string_view kind, const std::optional<std::string>& group) {
    for (auto const& k : fieldKinds())
        if (k.kind == kind && (!group || *group == k.group)) return k;
    return {group.value_or(""), std::string(kind), Reject::MetaOnly, metaLabels()};
}

// apiextensions-apiserver's crConverter.ConvertFieldLabel and the strategy's selectable fields.
FieldKind customFieldKind(std::string_view kind, const FieldLabelScope& scope) {
    FieldKind k{"", std::string(kind), Reject::NotSupported, {same("metadata.name")}};
    if (scope.namespaced) k.labels.push_back(same("metadata.namespace"));
    for (auto const& f : scope.selectableFields) k.labels.push_back(same(f));
    return k;
}

std::string rejection(Reject reject, const std::string& label) {
    switch (reject) {
        case Reject::NotSupported: return "field label not supported: " + label;
        case Reject::BatchJob: return "field label " + goQuote(label) + " not supported for batchv1.Job";
        case Reject::MetaOnly: break;
    }
    return goQuote(label) + " is not a known field selector: only \"metadata.name\", \"metadata.namespace\"";
}

// The comma-separated terms; a backslash keeps the next character (and stays in the term).
std::vector<std::string> splitTerms(std::string_view s) {
    std::vector<std::string> terms;
    if (s.empty()) return terms;
    size_t start = 0;
    bool inSlash = false;
    for (size_t i = 0; i < s.size(); ++i) {
        if (inSlash) inSlash = false;
        else if (s[i] == '\\') inSlash = true;
        else if (s[i] == ',') {
            terms.emplace_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    terms.emplace_back(s.substr(start));
    return terms;
}

struct Term {
    std::string lhs, op, rhs;
};

// Split at the first "!=", "==" or "=".
std::optional<Term> splitTerm(std::string_view term) {
    for (size_t i = 0; i < term.size(); ++i)
        for (std::string_view op : {"!=", "==", "="})
            if (term.substr(i).starts_with(op))
                return Term{std::string(term.substr(0, i)), std::string(op), std::string(term.substr(i + op.size()))};
    return std::nullopt;
}

size_t runeLength(std::string_view s, size_t i) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
    return std::min(n, s.size() - i);
}

// fields.UnescapeValue: `\\`, `\,`, `\=` are the only escapes; bare ',' and '=' are errors.
std::optional<std::string> unescapeValue(std::string_view s, std::string& error) {
    std::string out;
    for (size_t i = 0; i < s.size(); i += runeLength(s, i)) {
        char c = s[i];
        if (c == ',' || c == '=') {
            error = "invalid field selector: unescaped character in value: " + std::to_string(static_cast<int>(c));
            return std::nullopt;
        }
        if (c != '\\') {
            out.append(s.substr(i, runeLength(s, i)));
            continue;
        }
        if (i + 1 >= s.size()) {
            error = "invalid field selector: invalid escape sequence: \\";
            return std::nullopt;
        }
        i += 1;
        if (s[i] != '\\' && s[i] != ',' && s[i] != '=') {
            error = "invalid field selector: invalid escape sequence: \\" + std::string(s.substr(i, runeLength(s, i)));
            return std::nullopt;
        }
        out += s[i];
    }
    return out;
}

// fields.ParseSelector: the terms in sorted order, empty ones (and "=") dropped.
std::optional<std::vector<Term>> parseTerms(std::string_view text, std::string& error) {
    auto parts = splitTerms(text);
    std::sort(parts.begin(), parts.end());
    std::vector<Term> terms;
    for (auto const& part : parts) {
        if (part.empty()) continue;
        auto term = splitTerm(part);
        if (!term) {
            error = "invalid selector: '" + std::string(text) + "'; can't understand '" + part + "'";
            return std::nullopt;
        }
        auto value = unescapeValue(term->rhs, error);
        if (!value) return std::nullopt;
        term->rhs = std::move(*value);
        if (!term->lhs.empty() || !term->rhs.empty()) terms.push_back(std::move(*term));
    }
    return terms;
}

}  // namespace

bool FieldSelector::matches(const json::object& obj) const {
    return std::all_of(requirements.begin(), requirements.end(),
                       [&](auto const& r) { return (r.read ? r.read(obj) : std::string()) == r.value ? r.equals : !r.equals; });
}

std::optional<std::string> FieldSelector::requiresExactMatch(std::string_view field) const {
    for (auto const& r : requirements)
        if (r.field == field && r.equals) return r.value;
    return std::nullopt;
}

std::optional<FieldSelector> parseFieldSelector(std::string_view text, std::string_view kind, bool builtinKind,
                                                std::string& error, const FieldLabelScope& scope) {
    auto terms = parseTerms(text, error);
    if (!terms) return std::nullopt;
    auto fieldKind = builtinKind ? builtinFieldKind(kind, scope.group) : customFieldKind(kind, scope);
    FieldSelector selector;
    for (auto const& t : *terms) {
        auto label = std::find_if(fieldKind.labels.begin(), fieldKind.labels.end(), [&](auto const& l) { return l.label == t.lhs; });
        if (label == fieldKind.labels.end()) {
            error = rejection(fieldKind.reject, t.lhs);
            return std::nullopt;
        }
        selector.requirements.push_back({label->internal, t.op != "!=", t.rhs, label->read});
    }
    return selector;
}

std::vector<std::string> crdSelectableFields(const json::object& crd, std::string_view version) {
    std::vector<std::string> out;
    for (auto const& v : evalJsonPath(json::value(crd), ".spec.versions[*]")) {
        auto const* name = v.is_object() ? v.as_object().if_contains("name") : nullptr;
        if (!name || !name->is_string() || name->as_string() != version) continue;
        for (auto const& path : evalJsonPath(v, ".selectableFields[*].jsonPath"))
            if (path.is_string()) out.push_back(std::string(std::string_view(path.as_string()).substr(path.as_string().starts_with(".") ? 1 : 0)));
    }
    return out;
}

}  // namespace trainer::core::apiserver
