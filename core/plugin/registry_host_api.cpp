// The host API table every plugin receives (trn_host_api): log, diagnostic, emit, lookup,
// input_members.
#include "core/plugin/call.hpp"
#include "core/plugin/registry.hpp"

#include <boost/json.hpp>

namespace trainer::core {

namespace {

std::string text(trn_str x) { return std::string(x.data ? x.data : "", x.size); }

void hostLog(trn_call* call, int32_t level, trn_str message) {
    if (!call || !call->logSink || !*call->logSink || !call->plugin) return;
    (*call->logSink)(call->plugin->name, level, std::string_view(message.data ? message.data : "", message.size));
}

void hostDiagnostic(trn_call* call, int32_t severity, trn_str path, trn_str message) {
    if (!call) return;
    call->diagnostics.push_back({severity, text(path), text(message)});
}

void hostEmit(trn_call* call, trn_str doc) {
    if (!call) return;
    call->emitted.push_back(text(doc));
}

// A read that failed answers TRN_LOOKUP_ERROR and also fails the call with an error diagnostic,
// so a plugin that treats every non-FOUND answer as "absent" (and would, say, generate a key that
// already exists) still has its result discarded.
int32_t hostLookup(trn_call* call, trn_str apiVersion, trn_str kind, trn_str ns, trn_str name, trn_str* out) {
    if (!call || !call->cluster || !out) return TRN_LOOKUP_NOT_FOUND;
    ObjectKey key{text(apiVersion), text(kind), text(ns), text(name)};
    auto obj = call->cluster->share(key);  // a reader that keeps its answers hands one out, uncopied
    if (obj->failed()) {
        call->diagnostics.push_back({TRN_SEVERITY_ERROR, "", readFailureMessage(key, obj->message)});
        return TRN_LOOKUP_ERROR;
    }
    if (obj->notFound()) return TRN_LOOKUP_NOT_FOUND;
    call->lookups.push_back(boost::json::serialize(obj->object));
    *out = trn_str{call->lookups.back().data(), call->lookups.back().size()};
    return TRN_LOOKUP_FOUND;
}

// The places the caller of invokeHook gave, as trn_members into the input, made on the first ask.
// Places that do not lie inside the input (a host bug) offer no index rather than wild pointers.
std::size_t hostInputMembers(trn_call* call, const trn_member** out) {
    if (!call || !out || call->places.empty()) return 0;
    if (call->members.empty()) {
        const std::string_view in = call->input;
        call->members.reserve(call->places.size());
        for (auto const& p : call->places) {
            if (p.keyAt > in.size() || p.keySize > in.size() - p.keyAt || p.valueAt > in.size() ||
                p.valueSize > in.size() - p.valueAt) {
                call->members.clear();
                return 0;
            }
            call->members.push_back({trn_str{in.data() + p.keyAt, p.keySize}, trn_str{in.data() + p.valueAt, p.valueSize}});
        }
    }
    *out = call->members.data();
    return call->members.size();
}

const trn_host_api kHostApi{sizeof(trn_host_api), &hostLog, &hostDiagnostic, &hostEmit, &hostLookup, &hostInputMembers};

}  // namespace

const trn_host_api* PluginRegistry::hostApi() { return &kHostApi; }

}  // namespace trainer::core
