// What `render` of one TrainJob costs through every loaded plugin, against the floor of
// parsing its inputs and printing its outputs once (issue: "a small multiple").
//   render_bench [iterations] [plugin-dir] [input files...]
// Prints per-iteration medians over 5 runs and the ratio. Plugin loading is start-up cost and
// is measured separately.
#include "core/api/admission.hpp"
#include "core/api/schema.hpp"
#include "core/cli/session.hpp"
#include "core/json/io.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/pipeline.hpp"
#include "core/plugin/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace trainer::core;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The floor: parse the inputs and print the result once.
size_t parseAndPrint(const std::vector<std::string>& files, const std::vector<json::object>& result) {
    std::vector<InputDocument> docs;
    auto d = readInputs(files, docs);
    if (!d.ok()) std::abort();
    json::array items(result.begin(), result.end());
    return docs.size() + toJson(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}, true).size();
}

// What render does per invocation after the plugins are loaded.
std::vector<json::object> render(const std::vector<std::string>& files, const Framework& fw, size_t& bytes) {
    std::vector<InputDocument> docs;
    if (!readInputs(files, docs).ok()) std::abort();
    ObjectSet cluster;
    std::vector<json::object> trainJobs;
    for (auto& doc : docs) {
        cli::completeMetadata(doc.object);
        auto kind = kindOf(doc.object);
        if (kind == ObjectKind::TrainJob) {
            applyDefaults(doc.object);
            if (!validateSchema(doc.object).ok()) std::abort();
            trainJobs.push_back(doc.object);
        } else if (kind != ObjectKind::Other) {
            applyDefaults(doc.object);
            if (!validateRuntime(doc.object, true, nullptr).ok()) std::abort();
        }
        cluster.put(doc.object);
    }
    std::vector<json::object> out;
    for (auto const& tj : trainJobs) {
        if (!admitTrainJob(fw, tj, nullptr, cluster).ok()) std::abort();
        auto b = buildTrainJob(fw, tj, cluster);
        if (!b.diagnostics.ok()) std::abort();
        if (b.snapshot) out.push_back(*b.snapshot);
        out.insert(out.end(), b.objects.begin(), b.objects.end());
    }
    json::array items(out.begin(), out.end());
    bytes = toJson(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}, true).size();
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    int iterations = argc > 1 ? std::atoi(argv[1]) : 200;
    std::string pluginDir = argc > 2 ? argv[2] : TRAINER_PLUGIN_BUILD_DIR;
    std::vector<std::string> files;
    for (int i = 3; i < argc; ++i) files.push_back(argv[i]);
    if (files.empty())
        files = {std::string(TRAINER_SOURCE_DIR) + "/examples/13-runtime-torch-coscheduling.yaml",
                 std::string(TRAINER_SOURCE_DIR) + "/examples/23-trainjob-torch-coscheduling.yaml"};

    auto t0 = Clock::now();
    PluginRegistry registry;
    registry.loadDirectory(pluginDir);
    double loadMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    Framework fw(registry);

    size_t bytes = 0;
    auto result = render(files, fw, bytes);
    std::vector<double> floorRuns, renderRuns;
    for (int run = 0; run < 5; ++run) {
        auto a = Clock::now();
        size_t sink = 0;
        for (int i = 0; i < iterations; ++i) sink += parseAndPrint(files, result);
        auto b = Clock::now();
        for (int i = 0; i < iterations; ++i) sink += render(files, fw, bytes).size();
        auto c = Clock::now();
        if (sink == 0) std::abort();
        floorRuns.push_back(std::chrono::duration<double, std::micro>(b - a).count() / iterations);
        renderRuns.push_back(std::chrono::duration<double, std::micro>(c - b).count() / iterations);
    }
    double f = median(floorRuns), r = median(renderRuns);
    std::printf("plugins loaded: %zu in %.1f ms\n", registry.plugins().size(), loadMs);
    std::printf("inputs: %zu files; output: %zu objects, %zu bytes of JSON\n", files.size(), result.size(), bytes);
    std::printf("parse inputs + print output once: %.1f us (median of 5 runs x %d)\n", f, iterations);
    std::printf("render (admission + build through every plugin + print): %.1f us\n", r);
    std::printf("ratio: %.2fx\n", r / f);
    return 0;
}
