#include "core/plugin/framework.hpp"

#include "core/json/io.hpp"

#include "core/plugin/edits.hpp"
#include "core/plugin/reserved_env.hpp"
#include "core/runtime/info_builder.hpp"

#include <algorithm>
#include <set>

namespace trainer::core {

namespace {

// The policy groups a runtime configures; every member except numNodes is a policy.
struct PolicyGroup {
    const char* member;    // in Info.runtimePolicy
    const char* specPath;  // in the runtime
    const char* noun;
};
constexpr PolicyGroup kPolicyGroups[] = {
    {"mlPolicy", "spec.mlPolicy", "ML policy"},
    {"podGroupPolicy", "spec.podGroupPolicy", "pod-group policy"},
};
bool isPolicyClaim(const std::string& c) { return c.rfind("mlPolicy", 0) == 0 || c.rfind("podGroupPolicy", 0) == 0; }

// The runtime's configuration of policy `group` ("mlPolicy"), or null.
const json::object* policyGroup(const json::object& info, std::string_view group) {
    auto* rp = info.if_contains("runtimePolicy");
    auto* g = rp && rp->is_object() ? rp->as_object().if_contains(group) : nullptr;
    return g && g->is_object() ? &g->as_object() : nullptr;
}

// A member of a policy group that configures a policy: set, and not the group's numNodes.
bool configuresPolicy(std::string_view name, const json::value& v) { return name != "numNodes" && !v.is_null(); }

// Does `group` configure policy `name`?
bool policySet(const json::object* group, std::string_view name) {
    auto* v = group ? group->if_contains(name) : nullptr;
    return v && configuresPolicy(name, *v);
}

// configuredPolicies(info, group) is empty, without making it.
bool noPolicyConfigured(const json::object& info, std::string_view group) {
    if (const json::object* g = policyGroup(info, group))
        for (auto const& kv : *g)
            if (configuresPolicy(kv.key(), kv.value())) return false;
    return true;
}

// `claim` ("mlPolicy.<name>") is in configuredPolicies of its group, without making the list.
bool claimConfigured(const json::object& info, std::string_view claim) {
    const size_t dot = claim.find('.');
    if (dot == std::string_view::npos) return false;
    const std::string_view group = claim.substr(0, dot);
    for (auto const& g : kPolicyGroups)
        if (group == g.member) return policySet(policyGroup(info, group), claim.substr(dot + 1));
    return false;
}

// "mlPolicy.<name>", ... configured by the runtime.
std::vector<std::string> configuredPolicies(const json::object& info, const char* group) {
    std::vector<std::string> out;
    if (const json::object* g = policyGroup(info, group))
        for (auto const& kv : *g)
            if (configuresPolicy(kv.key(), kv.value())) out.push_back(std::string(group) + "." + std::string(kv.key()));
    return out;
}

std::string runtimeName(const json::object& info) {
    if (auto* r = info.if_contains("runtime"); r && r->is_object())
        if (auto* md = r->as_object().if_contains("metadata"); md && md->is_object())
            if (auto* n = md->as_object().if_contains("name"); n && n->is_string()) {
                std::string kind = "runtime";
                if (auto* k = r->as_object().if_contains("kind"); k && k->is_string()) kind = std::string(k->as_string());
                return kind + " \"" + std::string(n->as_string()) + "\"";
            }
    return "the runtime";
}

// "A, B" of the gates `plugin` claims.
std::string gateList(const LoadedPlugin& plugin) {
    std::string out;
    for (auto const& g : claimedFeatureGates(plugin)) out += (out.empty() ? "" : ", ") + g;
    return out;
}

// A name the operator gives one of a TrainJob's objects itself: no plugin may emit an object so
// named, whatever its kind or namespace (pipeline.cpp writes the runtime snapshot).
struct ReservedName {
    std::string name;
    std::string owner;  // what the operator keeps under that name, for the message
};
std::vector<ReservedName> reservedObjectNames(const json::object& info) {
    auto* tj = info.if_contains("trainJob");
    if (!tj || !tj->is_object()) return {};
    return {{runtimeSnapshotName(tj->as_object()), "the operator's runtime snapshot of the TrainJob"}};
}

// What the objects of one build are checked against: who claims each kind ("apiVersion/Kind"
// -> plugin), the reserved names, and who emitted each object so far.
struct ObjectChecks {
    const std::map<std::string, std::string>& kindClaims;
    std::vector<ReservedName> reserved;
    std::map<ObjectKey, std::string> producedBy;
};

// Adds one emitted document of `plugin` to `objects`, or says why not: not a JSON object, no
// identity, a kind another plugin claims, a reserved name, an identity already emitted.
std::string acceptObject(const std::string& plugin, const std::string& text, ObjectChecks& checks,
                         std::vector<json::object>& objects) {
    json::error_code ec;
    json::value v = parseReusing(text, ec);
    if (ec || !v.is_object()) return "plugin " + plugin + " emitted an object that is not valid JSON";
    auto key = keyOf(v.as_object());
    if (key.apiVersion.empty() || key.kind.empty() || key.name.empty())
        return "plugin " + plugin + " emitted an object without apiVersion, kind or metadata.name";
    auto kc = checks.kindClaims.find(key.apiVersion + "/" + key.kind);
    if (kc != checks.kindClaims.end() && kc->second != plugin)
        return "plugin " + plugin + " emitted " + key.display() + ", but kind " + key.apiVersion + "/" + key.kind +
               " is claimed by plugin " + kc->second;
    for (auto const& r : checks.reserved)
        if (key.name == r.name)
            return "plugin " + plugin + " emitted " + key.display() + ", but that name is reserved for " + r.owner;
    if (auto it = checks.producedBy.find(key); it != checks.producedBy.end())
        return it->second == plugin ? "plugin " + plugin + " emitted " + key.display() + " twice"
                                    : "plugins " + it->second + " and " + plugin + " both emitted " + key.display();
    checks.producedBy[key] = plugin;
    objects.push_back(std::move(v.as_object()));
    return {};
}

// The policy half of Framework::active: the plugin claims a policy the runtime configures (or is
// the default of a group the runtime configures nothing of), or claims no policy at all.
bool policyActive(const LoadedPlugin& plugin, const json::object& info) {
    bool hasPolicyClaim = false;
    for (auto const& c : plugin.claims) {
        if (!isPolicyClaim(c)) continue;
        hasPolicyClaim = true;
        if (c == "mlPolicy" || c == "podGroupPolicy") {
            // The default policy of a group: active when the runtime configures none of it.
            if (noPolicyConfigured(info, c)) return true;
            continue;
        }
        if (claimConfigured(info, c)) return true;
    }
    return !hasPolicyClaim;
}

}  // namespace

Framework::Framework(const PluginRegistry& registry, HookObserver observer, OperatorSettings settings)
    : registry_(registry), observer_(std::move(observer)), settings_(std::move(settings)),
      operatorMember_(operatorInfoMember(settings_)), operatorText_(json::serialize(operatorMember_)),
      claimTables_(makeClaimTables(withOperator({}))) {}

void Framework::setOperatorSettings(OperatorSettings settings) {
    settings_ = std::move(settings);
    operatorMember_ = operatorInfoMember(settings_);
    operatorText_ = json::serialize(operatorMember_);
    claimTables_ = makeClaimTables(withOperator({}));
}

json::object Framework::withOperator(json::object info) const {
    info["operator"] = operatorMember_;
    return info;
}

// json::serialize(withOperator(info)) of an Info without `operator`: withOperator appends it as
// the last member, so the text is the Info's with `,"operator":{...}` before the closing brace.
HookInput Framework::validationInput(const json::object& info) const {
    HookInput in = indexedText(info);
    in.text.pop_back();  // '}'
    appendOperator(in);
    return in;
}

void Framework::appendOperator(HookInput& in) const {
    constexpr std::string_view kName = "operator";
    in.text += in.text.size() == 1 ? "\"" : ",\"";
    const std::size_t nameAt = in.text.size();
    in.text += kName;
    in.text += "\":";
    if (!in.places.empty()) in.places.push_back({nameAt, kName.size(), in.text.size(), operatorText_.size()});
    in.text += operatorText_;
    in.text += '}';
}

HookInput Framework::splicedInput(const InfoSkeleton& s, const json::object& trainJob,
                                  const json::object& admission) const {
    constexpr std::string_view kAdmission = "admission";
    HookInput in;
    in.text.reserve(s.head.size() + s.tail.size() + operatorText_.size() + 2048);
    in.text += s.head;
    const std::size_t trainJobAt = in.text.size();
    appendJson(in.text, trainJob);
    const std::size_t tailAt = in.text.size();
    in.text += s.tail;
    const bool indexed = !s.headPlaces.empty();
    if (indexed) {
        in.places.reserve(s.headPlaces.size() + s.tailPlaces.size() + 2);
        in.places.assign(s.headPlaces.begin(), s.headPlaces.end());
        in.places.back().valueSize = tailAt - trainJobAt;  // trainJob's, the head's last
        for (MemberPlace p : s.tailPlaces) {
            p.keyAt += tailAt;
            p.valueAt += tailAt;
            in.places.push_back(p);
        }
    }
    in.text += ',';
    const std::size_t at = in.text.size();
    std::size_t valueAt = 0;
    appendMember(in.text, kAdmission, admission, valueAt);
    if (indexed) in.places.push_back({at + 1, kAdmission.size(), valueAt, in.text.size() - valueAt});
    appendOperator(in);
    return in;
}

bool Framework::gatesOpen(const LoadedPlugin& plugin, const json::object& info) const {
    if (auto* op = info.if_contains("operator"); op && op->is_object()) {
        auto* gates = op->as_object().if_contains("featureGates");
        static const json::object none;
        return featureGatesOpen(plugin, gates && gates->is_object() ? gates->as_object() : none);
    }
    return featureGatesOpen(plugin, settings_.featureGates);
}

bool Framework::active(const LoadedPlugin& plugin, const json::object& info) const {
    return gatesOpen(plugin, info) && policyActive(plugin, info);
}

bool Framework::activeUnder(const ClaimTables& claims, const LoadedPlugin& plugin, const json::object& info) const {
    const auto& closed = claims.gatesClosed;
    return std::find(closed.begin(), closed.end(), &plugin) == closed.end() && policyActive(plugin, info);
}

const Framework::ClaimTables& Framework::tablesFor(const json::object& info, ClaimTables& fresh) const {
    if (claimTables_.plugins == registry_.plugins().size()) return claimTables_;
    fresh = makeClaimTables(info);
    return fresh;
}

Diagnostics Framework::checkPolicies(const json::object& info) const {
    Diagnostics d;
    for (auto const& g : kPolicyGroups) {
        auto conf = configuredPolicies(info, g.member);
        for (auto const& c : conf) {
            auto* owner = registry_.claimOwner(c);
            if (!owner)
                d.add(g.specPath, runtimeName(info) + " configures " + c + ", but no loaded plugin claims it (loaded plugins: " +
                                      registry_.names() + ")",
                      ErrorType::NotSupported);
            else if (!featureGatesOpen(*owner, settings_.featureGates))
                d.add(g.specPath, runtimeName(info) + " configures " + c + ", but plugin " + owner->name +
                                      ", which claims it, is off: it needs feature gate(s) " + gateList(*owner) +
                                      " enabled",
                      ErrorType::NotSupported);
        }
        if (conf.size() > 1) {
            std::string list;
            for (auto const& c : conf) {
                auto* owner = registry_.claimOwner(c);
                list += (list.empty() ? "" : " and ") + c + (owner ? " (plugin " + owner->name + ")" : std::string());
            }
            d.add(g.specPath, runtimeName(info) + " configures more than one " + g.noun + ": " + list +
                                  "; Only one of the policy can be configured");
        }
    }
    return d;
}

void Framework::collect(const LoadedPlugin& p, Hook hook, const CallResult& r, Diagnostics& diag) const {
    (void)hook;
    // Plugin text is untrusted: invalid UTF-8 becomes U+FFFD before it reaches a JSON response
    // (AdmissionReview, API status, conditions) or a terminal.
    for (auto const& dg : r.diagnostics) {
        if (dg.severity == TRN_SEVERITY_WARNING) diag.warn(toValidUtf8(dg.path), toValidUtf8(dg.message));
        else diag.add(toValidUtf8(dg.path), toValidUtf8(dg.message));
    }
    (void)p;
}

template <class Text>
Diagnostics Framework::validateWith(const json::object& info, const json::object& trainJob,
                                    const ClusterReader& cluster, Text&& text) const {
    Diagnostics diag = checkPolicies(info);
    if (!diag.ok()) return diag;
    HookInput input;  // serialised once for every validator
    ClaimTables fresh;
    const ClaimTables& claims = tablesFor(info, fresh);
    for (auto const& p : registry_.plugins()) {
        if (!activeUnder(claims, *p, info)) continue;
        if (p->implements(Hook::CustomValidation)) {
            if (input.text.empty()) input = text();
            auto r = invokeHook(*p, Hook::CustomValidation, input.text, &cluster, &registry_.logSink(), &observer_,
                                input.places);
            collect(*p, Hook::CustomValidation, r, diag);
        }
        // The env names it claims, refused here for every plugin (reserved_env.hpp).
        diag.append(refuseClaimedEnv(*p, trainJob));
    }
    return diag;
}

Diagnostics Framework::validate(const json::object& info, const ClusterReader& cluster) const {
    // Validators see withOperator(info). An Info without `operator` (admission's) is not copied
    // to add it: active() reads the settings' gates when the member is absent, the same ones, and
    // the text is spliced (validationInput). One that has it (a test's) is replaced, as before.
    json::object replaced;
    const bool hasOperator = info.contains("operator");
    if (hasOperator) replaced = withOperator(info);
    const json::object& full = hasOperator ? replaced : info;
    static const json::object kNoTrainJob;
    const auto* tj = full.if_contains("trainJob");
    const json::object& trainJob = tj && tj->is_object() ? tj->as_object() : kNoTrainJob;
    return validateWith(full, trainJob, cluster,
                        [&] { return hasOperator ? indexedText(full) : validationInput(full); });
}

Diagnostics Framework::validate(const InfoSkeleton& skeleton, const json::object& trainJob,
                                const json::object& admission, const ClusterReader& cluster) const {
    return validateWith(skeleton.members, trainJob, cluster,
                        [&] { return splicedInput(skeleton, trainJob, admission); });
}

bool Framework::runEditPhase(Hook hook, Pass& pass, Diagnostics& diag) const {
    const std::string* input = nullptr;  // the phase's snapshot, serialised at most once
    std::vector<std::pair<const LoadedPlugin*, std::vector<std::string>>> pending;
    for (auto const& p : registry_.plugins()) {
        if (!p->implements(hook) || !activeUnder(pass.claims, *p, pass.info)) continue;
        if (!input) input = &pass.text.of(pass.info);
        auto r = invokeHook(*p, hook, *input, &pass.cluster, &registry_.logSink(), &observer_, pass.text.places());
        collect(*p, hook, r, diag);
        if (!r.ok()) return false;
        pending.emplace_back(p.get(), std::move(r.emitted));
    }
    std::string member;
    for (auto& [p, edits] : pending)
        for (auto const& e : edits) {
            auto err = pass.ledger.apply(pass.info, p->name, e, &member);
            if (!member.empty()) pass.text.touched(member), member.clear();
            if (!err.empty()) {
                diag.add("", err, ErrorType::Internal);
                return false;
            }
        }
    return true;
}

// Claims of plugins whose feature gates are off do not hold: upstream does not register them.
Framework::ClaimTables Framework::makeClaimTables(const json::object& info) const {
    ClaimTables t;
    auto edits = std::make_shared<EditClaims>();
    for (auto const& p : registry_.plugins()) {
        if (!gatesOpen(*p, info)) {
            t.gatesClosed.push_back(p.get());
            continue;
        }
        for (auto const& c : p->claims) {
            if (c.rfind("env:", 0) == 0 || c.rfind("volume:", 0) == 0) edits->add(c, p->name);
            else if (c.rfind("kind:", 0) == 0) t.kinds[c.substr(5)] = p->name;
        }
    }
    t.edits = std::move(edits);
    t.plugins = registry_.plugins().size();
    return t;
}

void Framework::runBuilders(Pass& pass, BuildResult& out) const {
    const std::string* input = nullptr;
    ObjectChecks checks{pass.claims.kinds, reservedObjectNames(pass.info), {}};
    for (auto const& p : registry_.plugins()) {
        if (!p->implements(Hook::ComponentBuilder) || !activeUnder(pass.claims, *p, pass.info)) continue;
        if (!input) input = &pass.text.of(pass.info);
        auto r = invokeHook(*p, Hook::ComponentBuilder, *input, &pass.cluster, &registry_.logSink(), &observer_,
                            pass.text.places());
        collect(*p, Hook::ComponentBuilder, r, out.diagnostics);
        if (!r.ok()) continue;
        for (auto const& e : r.emitted)
            if (auto err = acceptObject(p->name, e, checks, out.objects); !err.empty())
                out.diagnostics.add("", err, ErrorType::Internal);
    }
}

BuildResult Framework::build(json::object info, const ClusterReader& cluster, std::span<const Hook> phases) const {
    BuildResult out;
    for (Hook h : phases)
        if (std::find(kBuildPhases.begin(), kBuildPhases.end(), h) == kBuildPhases.end())
            out.diagnostics.add("", std::string(hookName(h)) + " is not a build phase", ErrorType::Internal);
    if (!out.diagnostics.ok()) return out;
    out.diagnostics = checkPolicies(info);
    if (!out.diagnostics.ok()) return out;
    info = withOperator(std::move(info));
    ClaimTables fresh;
    const ClaimTables& claims = tablesFor(info, fresh);
    Pass pass{info, cluster, claims, EditLedger(claims.edits), {}};
    // The phases in pipeline order, whatever order `phases` lists them in.
    for (Hook h : kBuildPhases) {
        if (std::find(phases.begin(), phases.end(), h) == phases.end()) continue;
        if (h == Hook::ComponentBuilder) runBuilders(pass, out);
        else if (!runEditPhase(h, pass, out.diagnostics)) break;
    }
    if (!out.diagnostics.ok()) out.objects.clear();
    out.info = std::move(info);
    return out;
}

std::optional<json::object> Framework::status(const json::object& trainJob, const ClusterReader& cluster,
                                              Diagnostics& diag) const {
    for (auto const& p : registry_.plugins()) {
        if (!p->implements(Hook::TrainJobStatus) || !featureGatesOpen(*p, settings_.featureGates)) continue;
        json::object input = withOperator(json::object{{"infoVersion", 1}, {"trainJob", trainJob}});
        const HookInput text = indexedText(input);
        auto r = invokeHook(*p, Hook::TrainJobStatus, text.text, &cluster, &registry_.logSink(), &observer_, text.places);
        collect(*p, Hook::TrainJobStatus, r, diag);
        if (!r.ok() || r.emitted.empty()) return std::nullopt;
        json::error_code ec;
        json::value v = parseReusing(r.emitted.back(), ec);
        if (ec || !v.is_object()) {
            diag.add("status", "plugin " + p->name + " returned a status that is not a JSON object", ErrorType::Internal);
            return std::nullopt;
        }
        return std::move(v.as_object());
    }
    return std::nullopt;
}

}  // namespace trainer::core
