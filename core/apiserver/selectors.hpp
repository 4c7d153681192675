// The labelSelector and fieldSelector query parameters of list and watch, parsed, checked and
// matched as the real API server does it, with its error texts (the message of the 400
// BadRequest Status):
//   labels: k8s.io/apimachinery/pkg/labels/selector.go (Parse) and pkg/util/validation;
//   fields: k8s.io/apimachinery/pkg/fields/selector.go (ParseSelector), then each label through
//   the kind's field label conversion (kubernetes/pkg/apis/core/v1/conversion.go,
//   pkg/apis/batch/v1/conversion.go, pkg/apis/events/v1/conversion.go,
//   k8s.io/apimachinery/pkg/runtime/conversion.go DefaultMetaV1FieldSelectorConversion,
//   k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/converter.go for custom resources)
//   and matched against the kind's selectable fields (pkg/registry/*/strategy.go ToSelectableFields).
#pragma once

#include <boost/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::apiserver {

namespace json = boost::json;

// selection.Operator.
enum class LabelOperator { Equals, DoubleEquals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan };

// One requirement (labels.Requirement): `key` compared by `op` with `values` (sorted, distinct).
struct LabelRequirement {
    std::string key;
    LabelOperator op = LabelOperator::Exists;
    std::vector<std::string> values;

    // As labels.Requirement.Matches; `labels` is metadata.labels (non-string values never match).
    bool matches(const json::object& labels) const;
    // "a=b", "a!=b", "a in (x,y)", "a notin (x)", "a", "!a", "a>1".
    std::string toString() const;
};

// A parsed label selector: requirements sorted by key, all of which must hold.
struct LabelSelector {
    std::vector<LabelRequirement> requirements;

    bool matches(const json::object& labels) const;
    // Selects everything.
    bool empty() const { return requirements.empty(); }
    // The requirements joined by ",", as labels.Selector.String().
    std::string toString() const;
};

// Parses a labelSelector: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>1`,
// `k<1`, comma-separated (AND); keys and values are checked as label keys and values. On error:
// nullopt and `error` reads like the API server's, e.g. "unable to parse requirement: <nil>:
// Invalid value: \"-a\": name part must consist of ...", "found ')', expected: ...".
std::optional<LabelSelector> parseLabelSelector(std::string_view text, std::string& error);

// A metav1.LabelSelector object {matchLabels, matchExpressions} as LabelSelectorAsSelector
// converts it; nullopt and `error` for an invalid key, value or operator. (A missing selector
// selects nothing: the caller decides.)
std::optional<LabelSelector> labelSelectorFromObject(const json::object& selector, std::string& error);

// One term of a field selector: `field` (after the kind's label conversion) equal or not to `value`.
struct FieldRequirement {
    std::string field;
    bool equals = true;
    std::string value;
    // The field's value in an object, as the kind's selectable field set has it ("" when absent).
    std::function<std::string(const json::object&)> read;
};

// A parsed field selector: every term must hold.
struct FieldSelector {
    std::vector<FieldRequirement> requirements;

    bool matches(const json::object& obj) const;
    bool empty() const { return requirements.empty(); }
    // The value a term `field=value` or `field==value` requires, as RequiresExactMatch.
    std::optional<std::string> requiresExactMatch(std::string_view field) const;
};

// What besides the kind decides which field labels a resource accepts.
struct FieldLabelScope {
    // Built-in kinds are looked up by kind, and by group too when given ("" core, "batch",
    // "events.k8s.io", ...).
    std::optional<std::string> group = std::nullopt;
    // Custom resources accept metadata.namespace only when namespaced.
    bool namespaced = true;
    // A CRD version's selectableFields, jsonPaths without the leading '.' ("spec.color").
    std::vector<std::string> selectableFields = {};
};

// Parses a fieldSelector: `f=v`, `f==v`, `f!=v`, comma-separated (AND), `\,` `\=` `\\` escapes
// in values; each field must be one the kind supports. On error: nullopt and `error` reads like
// the API server's, e.g. "field label not supported: spec.x", "\"spec.x\" is not a known field
// selector: only \"metadata.name\", \"metadata.namespace\"", "invalid selector: 'a'; can't
// understand 'a'".
std::optional<FieldSelector> parseFieldSelector(std::string_view text, std::string_view kind, bool builtinKind,
                                                std::string& error, const FieldLabelScope& scope = {});

// The selectableFields of a CRD object's `version` (jsonPaths without the leading '.').
std::vector<std::string> crdSelectableFields(const json::object& crd, std::string_view version);

}  // namespace trainer::core::apiserver
