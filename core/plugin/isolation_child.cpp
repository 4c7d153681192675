// `trainer-operator plugin-host` (isolation_child.hpp).
#include "core/plugin/isolation_child.hpp"

#include "core/plugin/call.hpp"
#include "core/plugin/crash_context.hpp"
#include "core/plugin/isolation_descriptor.hpp"
#include "core/plugin/isolation_wire.hpp"
#include "core/plugin/registry_internal.hpp"

#include <boost/json.hpp>

#include <filesystem>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>

namespace trainer::core::isolation {

namespace {

// The operator's cluster, read through Lookup frames (answered by LookupReply).
class WireCluster : public ClusterReader {
public:
    WireCluster(int fd, FrameReader& reader) : fd_(fd), reader_(reader) {}
    // A channel failure or a garbled answer is an Error, never "absent".
    core::ReadResult get(const ObjectKey& key) const override {
        Frame ask{FrameType::Lookup, {key.apiVersion, key.kind, key.ns, key.name}};
        Frame reply;
        if (!writeAll(fd_, encodeFrame(ask)) || reader_.read(reply) != WireStatus::Ok ||
            reply.type != FrameType::LookupReply || reply.fields.size() != 2)
            return core::ReadResult::error("the operator did not answer the plugin host's lookup");
        if (reply.fields[0] == std::to_string(TRN_LOOKUP_NOT_FOUND)) return core::ReadResult::absent();
        if (reply.fields[0] == std::to_string(TRN_LOOKUP_ERROR)) return core::ReadResult::error(reply.fields[1]);
        boost::system::error_code ec;
        auto v = boost::json::parse(reply.fields[1], ec);
        if (reply.fields[0] != std::to_string(TRN_LOOKUP_FOUND) || ec || !v.is_object())
            return core::ReadResult::error("the operator's lookup answer is malformed");
        return core::ReadResult::of(std::move(v.as_object()));
    }
    core::ListResult list(const std::string&, const std::string&, const std::optional<std::string>&) const override {
        return core::ListResult::failure("the plugin host API has no list (abi.h trn_host_api)");
    }

private:
    int fd_;
    FrameReader& reader_;
};

struct Served {
    std::unique_ptr<LoadedPlugin> plugin;
    trn_instance* instance = nullptr;
};

// Diagnostics and emits of one finished call, then Done.
bool sendResult(int fd, const trn_call& call, trn_status status) {
    std::string out;
    for (auto const& d : call.diagnostics)
        out += encodeFrame(Frame{FrameType::Diagnostic, {std::to_string(d.severity), d.path, d.message}});
    for (auto const& e : call.emitted) out += encodeFrame(Frame{FrameType::Emit, {e}});
    out += encodeFrame(Frame{FrameType::Done, {std::to_string(status)}});
    return writeAll(fd, out);
}

std::optional<Hook> hookNamed(const std::string& name) {
    for (auto const& h : kHooks)
        if (name == h.name) return h.hook;
    return std::nullopt;
}

trn_status runCreate(Served& s, trn_call& call, const std::string& config) {
    HookScope attribution(s.plugin->name, "create");  // a crash report in the child names it too
    try {
        s.instance = s.plugin->descriptor->create(&call, trn_str{config.data(), config.size()});
    } catch (...) {
        call.diagnostics.push_back({TRN_SEVERITY_ERROR, "", "its create function threw an exception (ABI rule 7)"});
        return TRN_ERROR;
    }
    return s.instance ? TRN_OK : TRN_ERROR;
}

trn_status runHook(Served& s, trn_call& call, const std::string& hook, const std::string& input) {
    auto h = hookNamed(hook);
    const trn_hook_fn fn = h ? s.plugin->hooks.get(*h) : nullptr;
    if (!s.instance || !fn) {
        call.diagnostics.push_back({TRN_SEVERITY_ERROR, "", "plugin-host: no hook " + hook + " to call"});
        return TRN_ERROR;
    }
    HookScope attribution(s.plugin->name, hook);
    try {
        return fn(s.instance, &call, trn_str{input.data(), input.size()});
    } catch (...) {
        call.diagnostics.push_back({TRN_SEVERITY_ERROR, "",
                                    "plugin " + s.plugin->name + " let an exception escape from " + hook +
                                        " (ABI rule 7); its result is discarded"});
        return TRN_ERROR;
    }
}

// Loads the file and sends Described (or Refused); the plugin on success.
std::unique_ptr<LoadedPlugin> loadAndDescribe(const ChildArgs& a) {
    auto refuse = [&](const detail::Refusal& r) {
        writeAll(a.socketFd, encodeFrame(Frame{FrameType::Refused, {r.why, r.code}}));
        return nullptr;
    };
    HookScope attribution(a.path, "load");
    auto file = detail::TrustedFile::adopt(a.fileFd);
    detail::EntryFn* entry = nullptr;
    if (auto r = detail::loadLibrary(file, a.path, entry)) return refuse(*r);
    const trn_plugin_descriptor* d = nullptr;
    if (auto r = detail::callEntry(entry, detail::hostInfo(), d)) return refuse(*r);
    if (auto r = detail::headerProblem(d, detail::hostInfo())) return refuse(*r);
    auto p = detail::makePlugin(d, std::filesystem::absolute(a.path).lexically_normal().string(), "", PluginOptions{});
    if (auto r = detail::readDescriptor(d, *p)) return refuse(*r);
    if (!writeAll(a.socketFd, encodeFrame(Frame{FrameType::Described, {describe(*p, d->create && d->destroy)}})))
        return nullptr;
    return p;
}

void limitSelf(const ChildArgs& a) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (a.parentPid > 0 && ::getppid() != a.parentPid) ::_exit(0);  // the operator is already gone
#if !defined(__SANITIZE_ADDRESS__)
    // A backstop only (the operator watches resident memory): address space is larger than use.
    if (a.memoryBytes > 0) {
        rlimit rl{2 * a.memoryBytes + (1ull << 30), 2 * a.memoryBytes + (1ull << 30)};
        ::setrlimit(RLIMIT_AS, &rl);
    }
#endif
}

}  // namespace

int runPluginHost(const ChildArgs& a) {
    limitSelf(a);
    ::signal(SIGPIPE, SIG_IGN);
    Served s;
    s.plugin = loadAndDescribe(a);
    if (!s.plugin) return 2;
    FrameReader reader(a.socketFd, SIZE_MAX / 2);
    WireCluster cluster(a.socketFd, reader);
    const int fd = a.socketFd;
    PluginLogSink sink = [fd](const std::string&, int32_t level, std::string_view message) {
        writeAll(fd, encodeFrame(Frame{FrameType::Log, {std::to_string(level), std::string(message)}}));
    };
    for (Frame f;;) {
        if (reader.read(f) != WireStatus::Ok) break;
        trn_call call;
        call.plugin = s.plugin.get();
        call.logSink = &sink;
        call.cluster = &cluster;
        trn_status status = TRN_ERROR;
        if (f.type == FrameType::Create && f.fields.size() == 1 && !s.instance) status = runCreate(s, call, f.fields[0]);
        else if (f.type == FrameType::Call && f.fields.size() == 2) status = runHook(s, call, f.fields[0], f.fields[1]);
        else return 3;  // the operator broke the protocol: nothing sensible to answer
        if (!sendResult(fd, call, status)) break;
    }
    if (s.instance) s.plugin->descriptor->destroy(s.instance);
    return 0;
}

}  // namespace trainer::core::isolation
