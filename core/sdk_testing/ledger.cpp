// Ledger and applyEdits of the SDK's testing library: the operator's EditLedger.
#include "core/plugin/edits.hpp"

#include <trainer/testing/real_host.hpp>

namespace trainer::sdk::testing {

struct Ledger::Impl {
    core::EditLedger ledger;
};

Ledger::Ledger() : impl_(std::make_unique<Impl>()) {}
Ledger::~Ledger() = default;

void Ledger::claim(std::string_view claim, std::string_view plugin) {
    impl_->ledger.addClaim(std::string(claim), std::string(plugin));
}

Outcome Ledger::apply(json::object info, std::string_view plugin, const std::vector<json::value>& edits) {
    Outcome out;
    out.info = std::move(info);
    const std::string who(plugin);
    for (auto const& e : edits)
        if (auto err = impl_->ledger.apply(out.info, who, json::serialize(e)); !err.empty()) {
            // As Framework::runEditPhase reports a refused edit: no field path, the sentence.
            out.diagnostics.push_back({TRN_SEVERITY_ERROR, "", std::move(err)});
            break;
        }
    return out;
}

Outcome applyEdits(json::object info, const std::vector<json::value>& edits, std::string_view plugin) {
    Ledger ledger;
    return ledger.apply(std::move(info), plugin, edits);
}

}  // namespace trainer::sdk::testing
