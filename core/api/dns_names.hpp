// The character rule of a Kubernetes DNS-1123 label, [a-z0-9]([-a-z0-9]*[a-z0-9])?
// (k8s.io/apimachinery/pkg/util/validation), without its length limit: callers that validate
// Kubernetes names add the 63-character limit; plugin names (registry_library.cpp) have none.
#pragma once
#include <algorithm>
#include <string_view>

namespace trainer::core {

inline bool isDns1123LabelChars(std::string_view s) {
    auto lowerAlnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (s.empty() || !lowerAlnum(s.front()) || !lowerAlnum(s.back())) return false;
    return std::all_of(s.begin(), s.end(), [&](char c) { return lowerAlnum(c) || c == '-'; });
}

}  // namespace trainer::core
