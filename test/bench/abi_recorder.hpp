// The texts that cross the plugin ABI, for the lower bound of issue 14's P1: a plugin's entry point
// wrapped so that each of its pipeline hooks records its input (the Info document the host
// serialised for it) and what it emitted (edits and objects, which the host parses), and answers
// what the real hook answers. In-process plugins only: it reads the host's side of the call
// (core/plugin/call.hpp) after the real hook returns.
//   registry.loadEntry(RecordingPlugin<I>::wrapping(realEntry), file);
// One instantiation per wrapped plugin (I distinct), since a C hook has no closure to find the
// real one by.
#pragma once

#include "core/plugin/call.hpp"

#include <trainer/abi.h>

#include <array>
#include <string>
#include <vector>

namespace trainer::bench {

struct AbiTraffic {
    bool recording = false;
    std::size_t calls = 0;
    std::vector<std::string> inputs;   // one Info text per hook call
    std::vector<std::string> emitted;  // one text per emit
    void clear() { calls = 0, inputs.clear(), emitted.clear(); }
};

inline AbiTraffic& abiTraffic() {
    static AbiTraffic traffic;
    return traffic;
}

template <std::size_t I>
class RecordingPlugin {
public:
    static trn_plugin_entry_fn wrapping(trn_plugin_entry_fn real) {
        real_ = real;
        return &entry;
    }

private:
    enum Slot { kValidate, kMl, kPodGroup, kPodSpec, kPreBuild, kBuild, kStatus, kSlots };

    static const trn_plugin_descriptor* entry(const trn_host_info* host) {
        const trn_plugin_descriptor* real = real_(host);
        if (!real) return nullptr;
        desc_ = *real;
        wrap<kValidate, &trn_custom_validation::validate>(desc_.custom_validation, validation_);
        wrap<kMl, &trn_enforce_ml_policy::enforce>(desc_.enforce_ml_policy, ml_);
        wrap<kPodGroup, &trn_enforce_pod_group_policy::enforce>(desc_.enforce_pod_group_policy, podGroup_);
        wrap<kPodSpec, &trn_enforce_pod_spec::enforce>(desc_.enforce_pod_spec, podSpec_);
        wrap<kPreBuild, &trn_pre_component_builder::build>(desc_.pre_component_builder, preBuild_);
        wrap<kBuild, &trn_component_builder::build>(desc_.component_builder, build_);
        wrap<kStatus, &trn_trainjob_status::status>(desc_.trainjob_status, status_);
        return &desc_;
    }

    // Points the descriptor's table at a copy whose hook records, then calls the real one.
    template <Slot S, auto Fn, class Table>
    static void wrap(const Table*& table, Table& copy) {
        if (!table) return;
        copy = *table;
        hooks_[S] = table->*Fn;
        copy.*Fn = &hook<S>;
        table = &copy;
    }

    template <Slot S>
    static trn_status hook(trn_instance* self, trn_call* call, trn_str input) {
        const std::size_t before = call->emitted.size();
        const trn_status status = hooks_[S](self, call, input);
        AbiTraffic& t = abiTraffic();
        if (t.recording) {
            ++t.calls;
            t.inputs.emplace_back(input.data, input.size);
            for (std::size_t i = before; i < call->emitted.size(); ++i) t.emitted.push_back(call->emitted[i]);
        }
        return status;
    }

    static inline trn_plugin_entry_fn real_ = nullptr;
    static inline trn_plugin_descriptor desc_{};
    static inline std::array<trn_hook_fn, kSlots> hooks_{};
    static inline trn_custom_validation validation_{};
    static inline trn_enforce_ml_policy ml_{};
    static inline trn_enforce_pod_group_policy podGroup_{};
    static inline trn_enforce_pod_spec podSpec_{};
    static inline trn_pre_component_builder preBuild_{};
    static inline trn_component_builder build_{};
    static inline trn_trainjob_status status_{};
};

}  // namespace trainer::bench
