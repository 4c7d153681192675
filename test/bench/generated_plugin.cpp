// The template of startup_bench's generated plugins: a small plugin built with the SDK like any
// third party's (an EnforcePodSpec hook that sets one env var, claiming it). startup_bench copies
// the built file 200 times and rewrites the five X of each marker below with the copy's number,
// so every copy has its own name and claim (and its own bytes, so its own sha256).
#include <trainer/plugin.hpp>

namespace {

using namespace trainer::sdk;

// Markers: rewritten in each copy (same length, so the ELF file stays valid).
constexpr char kName[] = "bench-gen-XXXXX";
constexpr char kClaim[] = "env:BENCH_GEN_XXXXX";

struct Generated : Plugin, EnforcePodSpec {
    Generated(const json::object&, Context&) {}
    static PluginMeta meta() {
        return {kName, "0.1.0", "A generated plugin for the start-up benchmark.", 500, true, {kClaim}, {}};
    }
    void enforcePodSpec(const Info& info, Edits& edits, Context&) override {
        for (auto const& ps : info.podSets())
            if (auto name = getString(ps.as_object(), "name"))
                edits.upsertEnv(*name, "node", kClaim + 4, "1");
    }
};

}  // namespace

TRAINER_PLUGIN(Generated)
