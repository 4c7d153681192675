// A plugin's own block of the runtime's policy: `spec.mlPolicy.<name>` or
// `spec.podGroupPolicy.<name>` as the Info carries it (`runtimePolicy`, sdk/docs/info.md).
// Header-only.
#pragma once

#include <trainer/plugin.hpp>

#include <string_view>

namespace trainer::sdk {

// runtimePolicy.mlPolicy.<name> ("torch", "paddle" ...), or nullptr when the runtime has no
// mlPolicy, has no such member, or holds something other than an object there (`null`
// included: the host does not count a null member as configured). The host calls a plugin's
// EnforceMLPolicy only when the member it claims is configured, so there it is never null;
// CustomValidation and hooks of plugins without a policy claim must check.
inline const json::object* mlPolicyConfig(const Info& info, std::string_view name) {
    const json::object* ml = info.mlPolicy();
    return ml ? getObject(*ml, name) : nullptr;
}

// runtimePolicy.podGroupPolicy.<name> ("coscheduling", "volcano" ...), nullptr as above.
inline const json::object* podGroupPolicyConfig(const Info& info, std::string_view name) {
    const json::object* pg = info.podGroupPolicy();
    return pg ? getObject(*pg, name) : nullptr;
}

}  // namespace trainer::sdk
