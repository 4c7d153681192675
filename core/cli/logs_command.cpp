// logs: a container's output from the local executor's log files (core/executor/pod_logs.hpp),
// read through the embedded store as `kubectl logs` reads it through the API server.
// `logs POD` shows one container; `logs trainjob/NAME` every container of the TrainJob's pods
// (label jobset.sigs.k8s.io/jobset-name=NAME), each line prefixed `[<pod>] `, or
// `[<pod>/<container>] ` when the pod has several containers; pods in name order.
#include "core/cli/cli.hpp"
#include "core/executor/file_watch.hpp"
#include "core/executor/log_reader.hpp"
#include "core/store/poll_waiter.hpp"
#include "core/store/sqlite_store.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <memory>

namespace trainer::core::cli {

namespace {

constexpr std::string_view kTrainJobPrefix = "trainjob/";
constexpr const char* kJobNameLabel = "jobset.sigs.k8s.io/jobset-name";

// --tail, --limit-bytes, -c, -f and --previous as LogOptions; false (after saying why) when malformed.
bool logOptions(const Args& args, Io& io, executor::LogOptions& o) {
    if (args.has("tail")) {
        auto n = parseInt(args.get("tail"));
        if (!n || *n < -1) {
            io.err << "error: --tail: must be an integer >= -1, got \"" << args.get("tail") << "\"\n";
            return false;
        }
        if (*n >= 0) o.tailLines = *n;
    }
    if (args.has("limit-bytes")) {
        auto n = parseInt(args.get("limit-bytes"));
        if (!n || *n < 1) {
            io.err << "error: --limit-bytes: must be a positive integer, got \"" << args.get("limit-bytes") << "\"\n";
            return false;
        }
        o.limitBytes = *n;
    }
    o.container = args.get("container");
    o.follow = args.has("follow");
    o.previous = args.has("previous");
    return true;
}

// Complete lines of one container, each with its prefix; a last partial line waits for its end
// (or for the container's end, when it gets a newline).
struct PrefixedLines {
    std::string prefix;
    std::string pending;
    std::string take(std::string_view data, bool final) {
        std::string out;
        pending.append(data);
        size_t from = 0;
        for (size_t nl; (nl = pending.find('\n', from)) != std::string::npos; from = nl + 1)
            out += prefix + pending.substr(from, nl + 1 - from);
        pending.erase(0, from);
        if (final && !pending.empty()) out += prefix + std::exchange(pending, {}) + "\n";
        return out;
    }
};

struct Source {
    std::unique_ptr<executor::LogReader> reader;
    PrefixedLines lines;
    bool done = false;
};

// Polls every source until all are done (or once each, without follow, until each is read).
// Between polls that found nothing it waits up to kPollInterval (the pod's status, written by
// another process, is seen by polling), less when a watched log file is written.
void pump(const Store& store, std::vector<Source>& sources, Io& io) {
    PollWaiter waiter(store, std::chrono::milliseconds(0));
    // Each source's once it started; destroyed before the waiter their calls wake.
    std::vector<std::unique_ptr<executor::FileWatch>> files(sources.size());
    for (;;) {
        bool any = false, pending = false;
        for (size_t i = 0; i < sources.size(); ++i) {
            auto& s = sources[i];
            if (s.done) continue;
            std::string ignored;  // not watchable yet: polled
            if (!files[i] && s.reader->started())
                files[i] = executor::FileWatch::start(s.reader->target().path, [&waiter] { waiter.wake(); }, ignored);
            auto c = s.reader->poll();
            s.done = c.done;
            pending = pending || !c.done;
            auto text = s.lines.take(c.data, c.done);
            if (text.empty()) continue;
            any = true;
            io.out << text << std::flush;
        }
        if (!pending) return;
        if (!any) waiter.wait(executor::kPollInterval);
    }
}

std::string errorText(const executor::LogError& e) { return "error: " + e.message + "\n"; }

int podLogs(const Store& store, const std::filesystem::path& state, const Args& args, Io& io,
            const executor::LogOptions& o, std::string name) {
    for (auto prefix : {"pod/", "pods/", "po/"})
        if (name.starts_with(prefix)) name = name.substr(std::string_view(prefix).size());
    const std::string ns = args.get("namespace", "default");
    std::vector<Source> sources;
    sources.push_back({std::make_unique<executor::LogReader>(store, state, ObjectKey{"v1", "Pod", ns, name}, o), {}});
    if (auto const& e = sources.front().reader->error(); e.failed()) {
        io.err << errorText(e);
        return 1;
    }
    pump(store, sources, io);
    return 0;
}

// Every container of the TrainJob's pods, prefixed; with -f all followed at once, containers not
// started yet waited for.
int trainJobLogs(const Store& store, const std::filesystem::path& state, const Args& args, Io& io,
                 executor::LogOptions o, const std::string& job) {
    const std::string ns = args.get("namespace", "default");
    ObjectKey key{"trainer.kubeflow.org/v1alpha1", "TrainJob", ns, job};
    auto trainJob = store.get(key);
    if (trainJob.failed()) {
        io.err << "error: " << readFailureMessage(key, trainJob.message) << "\n";
        return 1;
    }
    if (trainJob.notFound()) {
        io.err << "error: trainjobs.trainer.kubeflow.org \"" << job << "\" not found\n";
        return 1;
    }
    auto listed = store.list("v1", "Pod", ns);
    if (!listed.ok()) {
        io.err << "error: listing the pods in " << ns << ": " << *listed.error << "\n";
        return 1;
    }
    std::vector<json::object> pods;
    for (auto& p : listed.value) {
        auto* meta = p.if_contains("metadata");
        auto* labels = meta && meta->is_object() ? meta->as_object().if_contains("labels") : nullptr;
        auto* v = labels && labels->is_object() ? labels->as_object().if_contains(kJobNameLabel) : nullptr;
        if (v && v->is_string() && v->as_string() == job) pods.push_back(std::move(p));
    }
    if (pods.empty()) {
        io.err << "No resources found in " << ns << " namespace.\n";
        return 0;
    }
    std::sort(pods.begin(), pods.end(), [](auto const& a, auto const& b) { return keyOf(a).name < keyOf(b).name; });
    o.waitForStart = o.follow;
    int rc = 0;
    std::vector<Source> sources;
    for (auto const& p : pods) {
        auto key = keyOf(p);
        auto containers = executor::podMainContainerNames(p);
        const bool several = containers.size() > 1;
        if (!o.container.empty()) containers = {o.container};
        for (auto const& c : containers) {
            auto co = o;
            co.container = c;
            auto reader = std::make_unique<executor::LogReader>(store, state, key, co);
            if (reader->error().failed()) {
                io.err << errorText(reader->error());
                rc = 1;
                continue;
            }
            sources.push_back({std::move(reader), {"[" + key.name + (several ? "/" + c : "") + "] ", {}}});
            if (o.follow) continue;
            pump(store, sources, io);  // without -f one container after the other
            sources.clear();
        }
    }
    pump(store, sources, io);
    return rc;
}

}  // namespace

int cmdLogs(const Args& args, Io& io) {
    executor::LogOptions o;
    if (!logOptions(args, io, o)) return 1;
    const std::string storePath = args.get("store", kDefaultStorePath);
    auto opened = SqliteStore::open(storePath);
    if (!opened.store) {
        io.err << "error: " << opened.error << "\n";
        return 1;
    }
    const auto state = executor::executorStateDir(storePath);
    const std::string& target = args.positional.at(0);
    if (target.starts_with(kTrainJobPrefix) || target.starts_with("trainjobs/"))
        return trainJobLogs(*opened.store, state, args, io, o, target.substr(target.find('/') + 1));
    if (auto slash = target.find('/');
        slash != std::string::npos && !target.starts_with("pod/") && !target.starts_with("pods/") &&
        !target.starts_with("po/")) {
        io.err << "error: logs of \"" << target.substr(0, slash) << "\" are not supported: name a pod or trainjob/NAME\n";
        return 1;
    }
    return podLogs(*opened.store, state, args, io, o, target);
}

}  // namespace trainer::core::cli
