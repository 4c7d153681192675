// Fuzz target 3: plugin outputs applied by the edit ledger (core/plugin/edits.cpp), as
// Framework::runEditPhase applies what each plugin emitted. The input is one edit document per
// line; the first byte of a line names the plugin that emitted it (byte % 3: alpha, beta, gamma),
// the rest is the edit, arbitrary bytes. One ledger, claims env:ALPHA_ENV (alpha) and
// volume:beta-data (beta), applies every line to a fixed Info: the one the host builds for
// examples/local/22-trainjob-mpi-hello.yaml on examples/local/11-runtime-openmpi.yaml.
// Unlike the framework, which stops a phase at the first refused edit, every line is applied
// (the ledger promises nothing else about a refusal), so refusals are followed by more edits.
#include "core/json/io.hpp"
#include "core/plugin/edits.hpp"
#include "core/runtime/info_builder.hpp"
#include "test/fuzz/fuzz_support.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

using namespace trainer::core;

namespace {

// The object of `kind` in a file of the checkout.
json::object loadObject(std::string_view relative, std::string_view kind) {
    std::vector<InputDocument> docs;
    Diagnostics d = parseInputText(fuzz::repoFile(relative), std::string(relative), docs);
    fuzz::require(d.ok(), "a fixture does not read", relative);
    for (auto& doc : docs)
        if (keyOf(doc.object).kind == kind) return std::move(doc.object);
    fuzz::finding("a fixture lacks its object", relative);
}

const json::object& fixedInfo() {
    static const json::object info = [] {
        json::object runtime = loadObject("examples/local/11-runtime-openmpi.yaml", "TrainingRuntime");
        json::object trainJob = loadObject("examples/local/22-trainjob-mpi-hello.yaml", "TrainJob");
        Diagnostics d;
        json::object built = buildInfo(trainJob, runtime, d);
        fuzz::require(d.ok() && built.contains("podSets"), "the fixed Info does not build");
        return built;
    }();
    return info;
}

constexpr std::array<const char*, 3> kPlugins{"alpha", "beta", "gamma"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(data), size);
    json::object info = fixedInfo();
    EditLedger ledger;
    ledger.addClaim("env:ALPHA_ENV", "alpha");
    ledger.addClaim("volume:beta-data", "beta");
    while (!input.empty()) {
        auto nl = input.find('\n');
        std::string_view line = input.substr(0, nl);
        input = nl == input.npos ? std::string_view() : input.substr(nl + 1);
        if (line.empty()) continue;
        std::string plugin = kPlugins[static_cast<unsigned char>(line.front()) % kPlugins.size()];
        std::string_view edit = line.substr(1);
        std::string error = ledger.apply(info, plugin, edit);
        if (!error.empty()) {
            fuzz::require(error.find(plugin) != std::string::npos, "a refused edit does not name its plugin", error);
            continue;
        }
        // An accepted set leaves the value where its path points (appending "-" aside).
        json::value parsed = json::parse(edit);
        auto const& e = parsed.as_object();
        std::vector<std::string> path;
        fuzz::require(splitPointer(e.at("path").as_string(), path), "an accepted edit has a malformed path");
        if (e.at("op").as_string() == "set" && path.back() != "-") {
            json::value root(info);
            const json::value* now = resolve(root, path);
            fuzz::require(now && *now == e.at("value"), "an accepted set is not at its path", edit);
        }
    }
    return 0;
}
