// Fuzz target 1: an input file as `render`, `validate` and `apply -f` read it
// (core/cli/session.cpp, core/cli/store_commands.cpp): parseInputText (YAML, multi-document, JSON,
// `kind: List`), then checkInputSet when it parsed. Every object read must print as JSON and as
// YAML (what `render -o json|yaml` writes) that reads back as the same object (core/json/io.hpp:
// toYaml quotes strings that would read back as another type).
#include "core/cli/input_checks.hpp"
#include "core/json/io.hpp"
#include "test/fuzz/fuzz_support.hpp"

#include <cstddef>
#include <cstdint>

using namespace trainer::core;

namespace {

void checkJsonRoundTrip(const json::object& obj) {
    std::string text = toJson(obj);
    json::value back;
    std::string error;
    fuzz::require(parseJson(text, back, error), "toJson wrote text parseJson refuses: " + error, text);
    fuzz::require(fuzz::sameJson(back, obj), "toJson text reads back as another value", text);
    std::string pretty = toJson(obj, /*pretty=*/true);
    fuzz::require(parseJson(pretty, back, error) && fuzz::sameJson(back, obj), "pretty toJson does not read back", pretty);
}

void checkYamlRoundTrip(const json::object& obj) {
    std::string text = toYaml(obj);
    std::vector<json::value> docs;
    std::string error;
    fuzz::require(parseYaml(text, docs, error), "toYaml wrote text parseYaml refuses: " + error, text);
    fuzz::require(docs.size() == 1, "toYaml text reads back as " + std::to_string(docs.size()) + " documents", text);
    fuzz::require(fuzz::sameJson(docs.front(), obj), "toYaml text reads back as another value", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<InputDocument> docs;
    Diagnostics d = parseInputText(text, "fuzz.yaml", docs);
    if (d.ok()) d.append(cli::checkInputSet(docs));
    for (auto const& e : d.errors) fuzz::require(!e.origin.empty(), "an input error names no file", e.message);
    for (auto const& doc : docs) {
        checkJsonRoundTrip(doc.object);
        checkYamlRoundTrip(doc.object);
    }
    return 0;
}
