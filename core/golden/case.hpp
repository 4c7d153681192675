// One golden case (sdk/docs/golden-tests.md): the inputs of one admission or one reconcile's
// build (a TrainJob, the runtimes and other objects that exist) and what must come out: the
// objects (subset matches, matcher.hpp), or errors with field paths, and optionally warnings.
// A superset of the upstream-parity case format (test/golden/upstream/README.md).
#pragma once

#include "core/api/errors.hpp"
#include "core/json/io.hpp"

#include <boost/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::golden {

namespace json = boost::json;

// admission: schema + CEL, the webhook's rules and the plugins' CustomValidation, as
// `validate` runs them; build: admission, then one reconcile's build, as `render` runs it.
enum class Stage { Admission, Build };

// An expected error or warning: `field` equals its field path (any when unset; "" for none),
// `message` is a substring of its message (any when unset).
struct ExpectedDiagnostic {
    std::optional<std::string> field;
    std::optional<std::string> message;
};

struct GoldenCase {
    std::string name;  // the `name` member, else the file name without its extension
    Stage stage = Stage::Build;
    json::object trainJob;
    std::vector<json::object> runtimes;
    std::vector<json::object> existingObjects;
    std::optional<std::vector<json::object>> expectedObjects;
    std::optional<std::string> expectedError;  // a substring of some error line; "" = any error
    std::optional<std::vector<ExpectedDiagnostic>> expectedErrors;    // exactly these, any order
    std::optional<std::vector<ExpectedDiagnostic>> expectedWarnings;  // exactly these, any order
    std::map<std::string, bool> featureGates;  // overrides of the runner's gates for this case

    // Must admission or the build fail? (`expectedErrors: []` says there are none.)
    bool expectsError() const { return expectedError.has_value() || (expectedErrors && !expectedErrors->empty()); }
};

// The members of a case document, in the order the format documents them.
inline constexpr std::string_view kCaseMembers[] = {
    "name", "description", "source", "notes", "stage", "featureGates", "trainJob", "runtimes", "existingObjects",
    "expectedObjects", "expectedError", "expectedErrors", "expectedWarnings"};

// Reads a case document; every problem is an error at its path in the document
// ("expectedErrors[0].field: must be a string"). `fallbackName` names a case without `name`.
Diagnostics parseCase(const json::value& doc, const std::string& fallbackName, GoldenCase& out);

// The case's objects as the host reads inputs, each with its place in the case as origin
// ("trainJob", "runtimes[0]", "existingObjects[1]").
std::vector<InputDocument> inputDocuments(const GoldenCase& c);

}  // namespace trainer::core::golden
