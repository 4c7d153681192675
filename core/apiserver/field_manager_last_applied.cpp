// The client-side-apply upgrade; the contract is in field_manager_last_applied.hpp.
#include "core/apiserver/field_manager_last_applied.hpp"

#include "core/apiserver/field_manager_go_text.hpp"
#include "core/apiserver/smd_to_field_set.hpp"
#include "core/apiserver/smd_validate.hpp"

#include <optional>
#include <utility>
#include <vector>

namespace trainer::core::apiserver::smd {

namespace {

constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

const json::string* lastAppliedOf(const json::value& obj) {
    auto const* o = asObject(&obj);
    auto const* m = o ? metadataOf(*o) : nullptr;
    auto const* a = m ? m->if_contains("annotations") : nullptr;
    auto const* v = a && a->is_object() ? a->get_object().if_contains(kLastApplied) : nullptr;
    return v && v->is_string() && !v->get_string().empty() ? &v->get_string() : nullptr;
}

// lastAppliedManager.allowedConflictsFromLastApplied: fields the client-side apply annotation sets
// to the values live still has.
std::optional<FieldSet> allowedFromLastApplied(const json::value& live, std::string_view apiVersion,
                                               const Shapes& sh) {
    auto const* text = lastAppliedOf(live);
    if (!text) return std::nullopt;
    boost::system::error_code ec;
    json::value last = json::parse(*text, ec);
    if (ec || !last.is_object() || stringAt(last.get_object(), "apiVersion") != apiVersion) return std::nullopt;
    std::vector<ValidationError> errs;
    Names names;
    validateValue(last, "", names, sh, errs);
    if (!errs.empty()) return std::nullopt;
    Comparison c = compareObjects(last, live, sh);
    return subtract(subtract(subtract(toFieldSet(last, sh), c.modified), c.added), c.removed);
}

}  // namespace

ApplyRun applyUpgradingClientSide(const json::value& live, const json::value& applied, const Managers& managers,
                                  const Entry& applier, bool force, const FieldSet& ignored, std::string_view time,
                                  const Shapes& sh) {
    ApplyRun run = applyTracked(live, applied, managers, applier, force, ignored, time, sh);
    if (applier.manager != "kubectl" || run.conflicts.empty()) return run;
    auto allowed = allowedFromLastApplied(live, applier.apiVersion, sh);
    if (!allowed) return run;
    Conflicts rest;
    for (auto& c : run.conflicts)
        if (!allowed->has(c.path)) rest.push_back(std::move(c));
    if (!rest.empty()) return run.conflicts = std::move(rest), run;
    return applyTracked(live, applied, managers, applier, true, ignored, time, sh);
}

void syncLastApplied(json::object& obj, const json::object& config) {
    if (!lastAppliedOf(obj)) return;
    json::object copy = config;
    if (auto* m = copy.if_contains("metadata"); m && m->is_object())
        if (auto* a = m->get_object().if_contains("annotations"); a && a->is_object()) a->get_object().erase(kLastApplied);
    obj["metadata"].get_object()["annotations"].get_object()[kLastApplied] = goJson(copy) + "\n";
}

}  // namespace trainer::core::apiserver::smd
