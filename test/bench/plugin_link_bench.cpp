// P2 of issue 14: the shipped plugins loaded as `.so` files against the same plugin objects linked
// statically into this program (rule 5: the <name>_obj libraries the modules are made of).
//   plugin_link_bench [--n N] [--runs R] [--runtimes torch,mpi] [--plugin-dir DIR]
// One process holds both plugin sets, each behind its own PluginRegistry and Framework:
//   so       PluginRegistry::loadDirectory(DIR): the built modules, in this process (the build
//            directory's shipped manifest lists them);
//   static   PluginRegistry::loadEntry of each plugin class's entry point compiled in here.
// For each runtime (torch: examples/10-runtime-torch-distributed.yaml; MPI:
// examples/11-runtime-deepspeed-distributed.yaml) N TrainJobs (default 2,000) go through what
// `render` does to each: admission (admitTrainJob) and one reconcile's build (buildTrainJob).
// Both sets must produce the same objects (compared as text once, not timed; the MPI plugin's
// SSH keys are random, so its Secret's data is left out of the comparison). Measured as CPU
// time of this process (CLOCK_PROCESS_CPUTIME_ID) per pass; passes alternate between the two
// sets, the first of each is a warm-up; medians of R runs (default 5), the ratio the median of
// each run's own .so/static ratio.
// Then, for P1 (rows without a target, abiBound below): what the JSON crossing the plugin ABI
// costs per TrainJob in today's design (the host serialises every hook's Info, the SDK parses it
// whole; each emit is serialised and parsed back), recorded from a third, wrapped copy of the
// static set (abi_recorder.hpp), and for MPI the P-521 key pair each TrainJob gets; each against
// P1's JSON floor of the same TrainJobs measured here.
#include "abi_recorder.hpp"
#include "bench_objects.hpp"
#include "nettle_p521.hpp"

#include "core/api/object_set.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/pipeline.hpp"
#include "core/plugin/registry.hpp"

#include "plugins/coscheduling/coscheduling.hpp"
#include "plugins/flux/flux.hpp"
#include "plugins/jax/jax.hpp"
#include "plugins/jobset/jobset.hpp"
#include "plugins/mpi/mpi.hpp"
#include "plugins/plainml/plainml.hpp"
#include "plugins/torch/torch.hpp"
#include "plugins/trainjobstatus/trainjobstatus.hpp"
#include "plugins/volcano/volcano.hpp"
#include "plugins/xgboost/xgboost.hpp"

#include "plugins/mpi/ssh_key.hpp"

#include <trainer/testing/real_host.hpp>

#include <utility>

using namespace trainer;
using namespace trainer::bench;
namespace plg = trainer::plugins;
using sdk::testing::entryOf;  // the entry point TRAINER_PLUGIN(P) defines in P's module

namespace {

struct StaticPlugin {
    trn_plugin_entry_fn entry;
    const char* file;  // the module it stands for, as listings would show it
};
// Every shipped plugin (plugins/*/entry.cpp); the build fails when one is renamed.
const StaticPlugin kStatic[] = {
    {entryOf<plg::coscheduling::Coscheduling>, "coscheduling.so"},
    {entryOf<plg::flux::FluxPlugin>, "flux.so"},
    {entryOf<plg::jax::Jax>, "jax.so"},
    {entryOf<plg::jobset::JobSet>, "jobset.so"},
    {entryOf<plg::mpi::MpiPlugin>, "mpi.so"},
    {entryOf<plg::plainml::PlainML>, "plainml.so"},
    {entryOf<plg::torch::Torch>, "torch.so"},
    {entryOf<plg::trainjobstatus::TrainJobStatusPlugin>, "trainjobstatus.so"},
    {entryOf<plg::volcano::Volcano>, "volcano.so"},
    {entryOf<plg::xgboost::XGBoost>, "xgboost.so"},
};

// The static set again, each plugin's hooks recording what crosses the ABI (abi_recorder.hpp).
template <std::size_t... I>
void loadRecording(core::PluginRegistry& registry, std::index_sequence<I...>) {
    (registry.loadEntry(RecordingPlugin<I>::wrapping(kStatic[I].entry), kStatic[I].file), ...);
}

// One plugin set and the pipeline around it.
struct Host {
    explicit Host(std::string l) : label(std::move(l)) {}
    std::string label;
    std::unique_ptr<core::PluginRegistry> registry = std::make_unique<core::PluginRegistry>();
    std::unique_ptr<core::Framework> framework;

    void ready(size_t expected) {
        for (auto const& r : registry->rejected()) fail(label + ": " + r.reason);
        if (registry->plugins().size() != expected)
            fail(label + ": " + std::to_string(registry->plugins().size()) + " plugins loaded, not " +
                 std::to_string(expected) + " (" + registry->names() + ")");
        for (auto const& p : registry->plugins())
            if (p->isolation != core::Isolation::InProcess) fail(label + ": plugin " + p->name + " is not in this process");
        framework = std::make_unique<core::Framework>(*registry);
    }
};

// What `render` builds of one TrainJob after admission, as text (the MPI SSH key's Secret data
// left out: the key is random).
std::string objectsText(std::vector<json::object>& objects) {
    std::string out;
    for (auto& o : objects) {
        if (o["kind"] == "Secret") o.erase("data");
        out += json::serialize(o);
        out += '\n';
    }
    return out;
}

// Admission and build of every TrainJob; CPU seconds. `text` collects the objects when set.
double pass(const Host& host, const std::vector<json::object>& trainJobs, const core::ObjectSet& cluster,
            std::string* text) {
    const double start = cpuSeconds();
    size_t objects = 0;
    for (auto const& tj : trainJobs) {
        core::Diagnostics admitted = core::admitTrainJob(*host.framework, tj, nullptr, cluster);
        if (!admitted.ok()) fail(host.label + ": admission failed: " + admitted.errors.front().message);
        core::ReconcileBuild built = core::buildTrainJob(*host.framework, tj, cluster);
        if (!built.diagnostics.ok()) fail(host.label + ": build failed: " + built.diagnostics.errors.front().message);
        objects += built.objects.size();
        if (text) *text += objectsText(built.objects);
    }
    const double seconds = cpuSeconds() - start;
    if (objects < trainJobs.size()) fail(host.label + ": fewer objects than TrainJobs");
    return seconds;
}

// CPU seconds Boost.JSON takes to parse each text, as P1's floor parses.
double parseSeconds(const std::vector<std::string>& texts) {
    json::parse_options o;
    o.max_depth = 1024;
    std::size_t values = 0;
    const double start = cpuSeconds();
    for (auto const& t : texts) values += json::parse(t, {}, o).is_object();
    const double s = cpuSeconds() - start;
    if (values != texts.size()) fail("a recorded text is not a JSON object");
    return s;
}

// CPU seconds to serialise each text's value (parsed before the clock starts).
double printSeconds(const std::vector<std::string>& texts) {
    std::vector<json::value> values;
    for (auto const& t : texts) values.push_back(json::parse(t));
    std::size_t bytes = 0;
    const double start = cpuSeconds();
    for (auto const& v : values) bytes += json::serialize(v).size();
    const double s = cpuSeconds() - start;
    if (bytes < texts.size()) fail("nothing serialised");
    return s;
}

// P1's lower bound under the ABI, against P1's floor of the same TrainJobs in this process. The
// floor: parse each TrainJob as render reads it, parse and serialise what is built of it. The
// ABI's share of the pipeline: the host serialises each phase's Info and each plugin parses it;
// the plugin serialises each edit and object it emits and the host parses it. With MPI, each
// TrainJob also gets a new ECDSA P-521 key pair (as upstream), timed with the MPI plugin's own
// generator. Rows without a target: a render built as the twelfth session's (a whole parse of
// each Info in the SDK, a whole serialise of it per phase) costs at least their sum, whatever
// else it saves. Since 8b7d90c the SDK parses only the members a hook reads, reusing unchanged
// ones (sdk/include/trainer/info_members.hpp), and since 062ebbe the host re-serialises only the
// members edits changed: the rows bound that earlier design, not today's.
void abiBound(const Runtime& rt, int runs, const Host& recorded, const std::vector<json::object>& trainJobs,
              const core::ObjectSet& cluster) {
    const std::size_t m = std::min<std::size_t>(trainJobs.size(), 200);
    std::vector<std::string> floorIn, floorOut;
    AbiTraffic& traffic = abiTraffic();
    traffic.clear();
    traffic.recording = true;
    for (std::size_t i = 0; i < m; ++i) {
        floorIn.push_back(json::serialize(trainJob(rt, static_cast<long>(i))));
        if (!core::admitTrainJob(*recorded.framework, trainJobs[i], nullptr, cluster).ok()) fail("recorded: admission failed");
        core::ReconcileBuild built = core::buildTrainJob(*recorded.framework, trainJobs[i], cluster);
        if (!built.diagnostics.ok()) fail("recorded: build failed");
        for (auto const& o : built.objects) floorOut.push_back(json::serialize(o));
    }
    traffic.recording = false;
    std::size_t in = 0, out = 0;
    for (auto const& t : traffic.inputs) in += t.size();
    for (auto const& t : traffic.emitted) out += t.size();
    // The host serialises a phase's Info once for all its plugins (the validators share one).
    std::vector<std::string> phaseInfos;
    for (auto const& t : traffic.inputs)
        if (phaseInfos.empty() || phaseInfos.back() != t) phaseInfos.push_back(t);
    const double per = static_cast<double>(m);
    std::vector<double> abiUs, floorUs, keyUs, nettleUs;
    for (int i = 0; i <= runs; ++i) {  // run 0 is a warm-up
        const double f = (parseSeconds(floorIn) + parseSeconds(floorOut) + printSeconds(floorOut)) * 1e6 / per;
        const double a = (printSeconds(phaseInfos) + parseSeconds(traffic.inputs) + printSeconds(traffic.emitted) +
                          parseSeconds(traffic.emitted)) * 1e6 / per;
        double k = 0, nk = 0;
        if (rt.id == "mpi") {
            const double start = cpuSeconds();
            for (std::size_t j = 0; j < m; ++j) {
                std::string error;
                if (!plugins::mpi::generateSshKeyPair(error)) fail("P-521 key pair: " + error);
            }
            k = (cpuSeconds() - start) * 1e6 / per;
            nk = nettleP521KeyPairSeconds(m) * 1e6 / per;
        }
        if (i == 0) continue;
        floorUs.push_back(f), abiUs.push_back(a), keyUs.push_back(k), nettleUs.push_back(nk);
    }
    const double f = median(floorUs), a = median(abiUs), k = median(keyUs);
    row("P1 bound " + rt.id + ": JSON across the plugin ABI per TrainJob, each Info parsed whole (" +
            fixed(traffic.calls / per, 1) + " hook calls, " + std::to_string(static_cast<long>(in / per)) +
            " B of Info in, " + std::to_string(static_cast<long>(out / per)) + " B emitted)",
        fixed(a, 1) + " us", fixed(f, 1) + " us (JSON floor)", fixed(a / f) + "x", "-", "-");
    if (rt.id != "mpi") return;
    // The key alone against P1's own target: above 3x the floor, the MPI row cannot be met while
    // each TrainJob gets upstream's key, however little the rest of render costs. Nettle's row
    // shows whether that is OpenSSL's cost or the curve's.
    row("P1 bound mpi: one ECDSA P-521 key pair per TrainJob (the MPI plugin's generator)", fixed(k, 1) + " us",
        fixed(f, 1) + " us (JSON floor)", fixed(k / f) + "x", "-", "-");
    row("P1 bound mpi: the two together", fixed(a + k, 1) + " us", fixed(f, 1) + " us (JSON floor)",
        fixed((a + k) / f) + "x", "-", "-");
    const double nk = median(nettleUs);
    row("P1 bound mpi: one P-521 key pair by Nettle (Debian's other implementation; no encoding)", fixed(nk, 1) + " us",
        fixed(f, 1) + " us (JSON floor)", fixed(nk / f) + "x", "-", "-");
}

void benchRuntime(const Runtime& rt, long n, int runs, const Host& so, const Host& linked, const Host& recorded) {
    core::ObjectSet cluster;
    json::object runtime = runtimeObject(rt);
    core::applyDefaults(runtime);
    cluster.put(runtime);
    std::vector<json::object> trainJobs;
    for (long i = 0; i < n; ++i) {
        json::object tj = trainJob(rt, i);
        tj["metadata"].as_object()["uid"] = "00000000-0000-4000-8000-" + std::to_string(100000000000 + i);
        core::applyDefaults(tj);
        trainJobs.push_back(std::move(tj));
    }
    std::string soText, staticText;
    const size_t sample = std::min<size_t>(trainJobs.size(), 50);
    std::vector<json::object> few(trainJobs.begin(), trainJobs.begin() + static_cast<long>(sample));
    pass(so, few, cluster, &soText);
    pass(linked, few, cluster, &staticText);
    if (soText != staticText) fail(rt.id + ": the .so and the statically linked plugins built different objects");

    // Each run times both sets back to back (their order alternating); the ratio is the median
    // of the runs' own ratios, so a slow minute of the shared machine falls on both sides of one.
    std::vector<double> soUs, staticUs, ratios;
    for (int i = 0; i <= runs; ++i) {  // run 0 is a warm-up
        const bool soFirst = i % 2 == 0;
        double a = pass(soFirst ? so : linked, trainJobs, cluster, nullptr);
        double b = pass(soFirst ? linked : so, trainJobs, cluster, nullptr);
        if (i == 0) continue;
        const double soRun = (soFirst ? a : b) * 1e6 / static_cast<double>(n);
        const double staticRun = (soFirst ? b : a) * 1e6 / static_cast<double>(n);
        soUs.push_back(soRun);
        staticUs.push_back(staticRun);
        ratios.push_back(soRun / staticRun);
        std::fprintf(stderr, "plugin_link_bench %s run %d: so %.1f us, static %.1f us per TrainJob (%.3fx)\n",
                     rt.id.c_str(), i, soRun, staticRun, ratios.back());
    }
    const double ratio = median(ratios);
    row("P2 " + rt.id + " admission+build N=" + std::to_string(n) + ": .so vs static, CPU per TrainJob",
        fixed(median(soUs), 1) + " us", fixed(median(staticUs), 1) + " us (static)", fixed(ratio, 3) + "x",
        "<= 1.05x", yesNo(ratio <= 1.05));
    abiBound(rt, runs, recorded, trainJobs, cluster);
}

}  // namespace

int main(int argc, char** argv) {
    long n = 2000;
    int runs = 5;
    std::string runtimeList = "torch,mpi", pluginDir = TRAINER_PLUGIN_BUILD_DIR;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) fail(a + " needs a value");
            return argv[++i];
        };
        if (a == "--n") n = std::stol(next());
        else if (a == "--runs") runs = std::stoi(next());
        else if (a == "--runtimes") runtimeList = next();
        else if (a == "--plugin-dir") pluginDir = next();
        else fail("unknown argument " + a + " (--n N, --runs R, --runtimes torch,mpi, --plugin-dir DIR)");
    }
    if (n < 1 || runs < 1) fail("--n and --runs must be at least 1");

    Host so("so"), linked("static");
    so.registry->loadDirectory(pluginDir);
    so.ready(std::size(kStatic));
    for (auto const& p : kStatic) linked.registry->loadEntry(p.entry, p.file);
    linked.ready(std::size(kStatic));
    Host recorded("recorded");
    loadRecording(*recorded.registry, std::make_index_sequence<std::size(kStatic)>());
    recorded.ready(std::size(kStatic));

    std::stringstream ids(runtimeList);
    for (std::string id; std::getline(ids, id, ',');) benchRuntime(runtimeById(id), n, runs, so, linked, recorded);
    return 0;
}
