// Descriptor reading (rule 4): every field is read only when struct_size covers it, each hook
// table only when its own struct_size covers the function.
#include "core/plugin/registry_internal.hpp"

namespace trainer::core::detail {

namespace {

// Field `member` of a size-prefixed struct is present when struct_size covers it.
template <class S, class M>
bool has(const S* s, M S::*member) {
    auto offset = reinterpret_cast<size_t>(&(static_cast<S*>(nullptr)->*member));
    return s->struct_size >= offset + sizeof(M);
}

std::optional<Refusal> bad(std::string why) { return Refusal{std::move(why), "bad_descriptor"}; }

std::optional<Refusal> readClaims(const trn_plugin_descriptor* d, LoadedPlugin& p) {
    if (!has(d, &trn_plugin_descriptor::claim_count) || d->claim_count == 0) return std::nullopt;
    if (!d->claims) return bad("its descriptor lists claims but no claim array");
    for (size_t i = 0; i < d->claim_count; ++i) {
        if (!d->claims[i] || !*d->claims[i]) return bad("its claim #" + std::to_string(i) + " is empty");
        p.claims.emplace_back(d->claims[i]);
    }
    return std::nullopt;
}

template <class Table, class Fn>
void addHook(const trn_plugin_descriptor* d, const Table* trn_plugin_descriptor::*tableMember, Hook h,
             Fn Table::*fnMember, LoadedPlugin& p) {
    if (!has(d, tableMember)) return;
    const Table* table = d->*tableMember;
    if (!table || !has(table, fnMember)) return;  // older table without this function: not provided
    if (auto fn = table->*fnMember) p.hooks.set(h, fn);
}

void readHooks(const trn_plugin_descriptor* d, LoadedPlugin& p) {
    using D = trn_plugin_descriptor;
    addHook(d, &D::custom_validation, Hook::CustomValidation, &trn_custom_validation::validate, p);
    addHook(d, &D::enforce_ml_policy, Hook::EnforceMLPolicy, &trn_enforce_ml_policy::enforce, p);
    addHook(d, &D::enforce_pod_group_policy, Hook::EnforcePodGroupPolicy, &trn_enforce_pod_group_policy::enforce, p);
    addHook(d, &D::enforce_pod_spec, Hook::EnforcePodSpec, &trn_enforce_pod_spec::enforce, p);
    addHook(d, &D::pre_component_builder, Hook::PreComponentBuilder, &trn_pre_component_builder::build, p);
    addHook(d, &D::component_builder, Hook::ComponentBuilder, &trn_component_builder::build, p);
    addHook(d, &D::trainjob_status, Hook::TrainJobStatus, &trn_trainjob_status::status, p);
}

std::optional<Refusal> readWatch(const trn_watch* w, size_t i, LoadedPlugin& p) {
    if (!w || !has(w, &trn_watch::kind) || !w->api_version || !w->kind)
        return bad("its watch #" + std::to_string(i) + " has no apiVersion or kind");
    WatchSpec ws{w->api_version, w->kind, TRN_WATCH_OWNED, {}};
    if (has(w, &trn_watch::mode)) ws.mode = w->mode;
    if (has(w, &trn_watch::match_field) && w->match_field) ws.matchField = w->match_field;
    if (ws.mode < TRN_WATCH_OWNED || ws.mode > TRN_WATCH_SUSPENDED_MATCHING)
        return bad("its watch of " + ws.kind + " has unknown mode " + std::to_string(ws.mode));
    p.watches.push_back(std::move(ws));
    return std::nullopt;
}

std::optional<Refusal> readWatches(const trn_plugin_descriptor* d, LoadedPlugin& p) {
    if (!has(d, &trn_plugin_descriptor::watch_extension) || !d->watch_extension) return std::nullopt;
    auto* we = d->watch_extension;
    if (!has(we, &trn_watch_extension::watch_count) || we->watch_count == 0) return std::nullopt;
    if (!we->watches) return bad("its WatchExtension lists watches but no array");
    for (size_t i = 0; i < we->watch_count; ++i)
        if (auto r = readWatch(we->watches[i], i, p)) return r;
    return std::nullopt;
}

// Is `claim` a policy of `group`: the group's default ("mlPolicy") or one member ("mlPolicy.x")?
bool claimsPolicyOf(const LoadedPlugin& p, std::string_view group) {
    for (std::string_view c : p.claims)
        if (c == group || (c.size() > group.size() + 1 && c.starts_with(group) && c[group.size()] == '.')) return true;
    return false;
}

}  // namespace

std::string abiString(uint32_t v) { return std::to_string(v >> 16) + "." + std::to_string(v & 0xffffu); }

std::optional<Refusal> readDescriptor(const trn_plugin_descriptor* d, LoadedPlugin& p) {
    if (auto r = readClaims(d, p)) return r;
    readHooks(d, p);
    return readWatches(d, p);
}

// A policy hook runs only where its policy is configured (Framework::active): without a claim of
// that policy's group it would run on every runtime, whichever policy that runtime configures.
std::optional<Refusal> policyHookProblem(const LoadedPlugin& p) {
    struct Rule {
        Hook hook;
        const char* group;
        const char* noun;
        const char* forms;
    };
    static const Rule rules[] = {
        {Hook::EnforceMLPolicy, "mlPolicy", "ML policy", "\"mlPolicy.<name>\", or \"mlPolicy\" for the default one"},
        {Hook::EnforcePodGroupPolicy, "podGroupPolicy", "pod-group policy", "\"podGroupPolicy.<name>\""},
    };
    for (auto const& r : rules)
        if (p.implements(r.hook) && !claimsPolicyOf(p, r.group))
            return Refusal{std::string("it implements ") + hookName(r.hook) + " but claims no " + r.noun + " (" +
                               r.forms + "), so its hook would run whatever " + r.noun + " a runtime configures",
                           "unclaimed_policy_hook"};
    return std::nullopt;
}

}  // namespace trainer::core::detail
