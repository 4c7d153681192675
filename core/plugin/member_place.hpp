// Where one top-level member of a hook's input lies in its text: what the host answers a
// plugin's trn_host_api.input_members with (core/plugin/registry_host_api.cpp), so the plugin
// need not scan the input to find its members (sdk/include/trainer/info_members.hpp).
#pragma once

#include <cstddef>

namespace trainer::core {

// Byte offsets into the input: the member's name (between its quotes) and its value's JSON text.
struct MemberPlace {
    std::size_t keyAt = 0, keySize = 0;
    std::size_t valueAt = 0, valueSize = 0;
};

}  // namespace trainer::core
