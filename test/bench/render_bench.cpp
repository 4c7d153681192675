// P1 of issue 14: `trainer-operator render` of N TrainJobs (default 10,000) against one runtime
// (torch: examples/10-runtime-torch-distributed.yaml; MPI: examples/11-runtime-deepspeed-distributed.yaml),
// against the floor of the same work measured in the same run: Boost.JSON parsing the same input
// bytes, then parsing and serialising the same output bytes (in this process, from memory).
//   render_bench [--n N] [--runs R] [--runtimes torch,mpi] [--operator BIN] [--plugin-dir DIR]
//                [--write-inputs DIR]
// Each run spawns `render -f in.json -o json` with its output in a file; its CPU time (user +
// system) and peak RSS come from wait4, the floor's CPU time from CLOCK_PROCESS_CPUTIME_ID: CPU
// time, not wall time, because the machines this runs on are shared and wall time counts the
// waits for a core (wall time is printed too). Render and floor runs alternate, so noise from
// other work falls on both; medians of R runs (default 5) are reported. The output must hold
// one JobSet per TrainJob. --write-inputs writes the generated inputs (in-<runtime>.json) and
// exits: what the byte-identity checks of README "Benchmarks" render before and after a change.
#include "bench_objects.hpp"

#include <unistd.h>

#include <cstdlib>

using namespace trainer;
using namespace trainer::bench;
namespace {

// A List of the runtime and N TrainJobs, as one JSON document.
std::string inputList(const Runtime& rt, long n) {
    json::array items{runtimeObject(rt)};
    for (long i = 0; i < n; ++i) items.push_back(trainJob(rt, i));
    return json::serialize(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}});
}

constexpr const char* kGnuTime = "/usr/bin/time";

size_t sink = 0;  // keeps the floor's work from being optimised away

// The floor: parse the input, parse the output and serialise it again.
double floorSeconds(const std::string& input, const std::string& output) {
    json::parse_options o;
    o.max_depth = 1024;
    const double start = cpuSeconds();
    json::value in = json::parse(input, {}, o);
    json::value out = json::parse(output, {}, o);
    std::string printed = json::serialize(out);
    double s = cpuSeconds() - start;
    sink += printed.size() + in.as_object().size();
    return s;
}

// JobSets in a render output.
size_t jobSets(const std::string& output) {
    json::parse_options o;
    o.max_depth = 1024;
    size_t n = 0;
    const json::value list = json::parse(output, {}, o);
    for (auto const& item : list.at("items").as_array())
        if (item.at("kind") == "JobSet") ++n;
    return n;
}

void benchRuntime(const Runtime& rt, long n, int runs, const std::string& op, const std::string& plugins, const std::string& dir) {
    const std::string in = dir + "/in-" + rt.id + ".json", out = dir + "/out-" + rt.id + ".json",
                      err = dir + "/err-" + rt.id + ".txt";
    const std::string input = inputList(rt, n);
    writeFile(in, input);
    // The peak RSS comes from GNU time, which forks render from its own small process: wait4's
    // ru_maxrss of a child spawned from this one counts this process's peak too (the kernel
    // keeps the high-water mark of the address space a vfork'd child execs from), so render
    // looked as large as the bench holding its input and output (206 MB whatever render did).
    const std::string rssFile = dir + "/rss-" + rt.id + ".txt";
    if (::access(kGnuTime, X_OK) != 0) fail(std::string(kGnuTime) + " is missing: scripts/bench.sh installs Debian's time");
    const std::vector<std::string> argv{kGnuTime, "-f", "%M", "-o", rssFile, op, "render", "-f", in, "-o", "json",
                                        "--plugin-dir", plugins};
    std::vector<double> renderUs, wallUs, floorUs, rssMb;
    std::string output;
    for (int i = 0; i <= runs; ++i) {  // run 0 warms the page cache and yields the output
        auto r = runChild(argv, out, err);
        if (r.exitCode != 0) fail("render exited " + std::to_string(r.exitCode) + ": " + readFile(err));
        if (i == 0) {
            output = readFile(out);
            if (size_t js = jobSets(output); js != static_cast<size_t>(n))
                fail("render output holds " + std::to_string(js) + " JobSets, not " + std::to_string(n));
            continue;
        }
        renderUs.push_back(r.cpuSeconds * 1e6 / n);
        wallUs.push_back(r.seconds * 1e6 / n);
        rssMb.push_back(std::atof(readFile(rssFile).c_str()) / 1024.0);  // GNU time's %M: KiB
        floorUs.push_back(floorSeconds(input, output) * 1e6 / n);
    }
    const double r = median(renderUs), f = median(floorUs), rss = median(rssMb), outMb = output.size() / 1048576.0;
    const std::string what = "P1 render " + rt.id + " N=" + std::to_string(n);
    std::fprintf(stderr, "%s: input %.1f MB, output %.1f MB; render CPU us/TrainJob %s (wall %s); floor %s; RSS MB %s\n",
                 what.c_str(), input.size() / 1048576.0, outMb, fixed(r, 1).c_str(), fixed(median(wallUs), 1).c_str(),
                 fixed(f, 1).c_str(), fixed(rss, 1).c_str());
    row(what + ": CPU per TrainJob", fixed(r, 1) + " us", fixed(f, 1) + " us (JSON floor)", fixed(r / f) + "x",
        "<= 3.00x", yesNo(r / f <= 3.0));
    row(what + ": peak RSS", fixed(rss, 1) + " MB", fixed(outMb, 1) + " MB (output)", fixed(rss / outMb) + "x",
        "<= 1.50x", yesNo(rss / outMb <= 1.5));
}

}  // namespace

int main(int argc, char** argv) {
    Flags flags(argc, argv);
    const long n = flags.number("n", 10000);
    const int runs = static_cast<int>(flags.number("runs", 5));
    const std::string op = flags.get("operator", std::string(TRAINER_BINARY_DIR) + "/bin/trainer-operator");
    const std::string plugins = flags.get("plugin-dir", TRAINER_PLUGIN_BUILD_DIR);
    const std::string selected = flags.get("runtimes", "torch,mpi");
    if (n < 1 || runs < 1) fail("--n and --runs must be at least 1");
    if (flags.has("write-inputs")) {
        const std::string dir = flags.get("write-inputs", ".");
        for (auto const& rt : runtimes()) writeFile(dir + "/in-" + rt.id + ".json", inputList(rt, n));
        return 0;
    }
    const std::string dir = tempDir("render_bench");
    for (auto const& rt : runtimes())
        if (("," + selected + ",").find("," + rt.id + ",") != std::string::npos) benchRuntime(rt, n, runs, op, plugins, dir);
    if (flags.has("keep")) std::fprintf(stderr, "kept %s\n", dir.c_str());
    else std::filesystem::remove_all(dir);
    return sink == 0;
}
