#include "core/controller/feature_gates.hpp"

namespace trainer::core::controller {

const std::vector<FeatureGate>& knownFeatureGates() {
    // TrainJobStatus: training processes report progress to the status server
    // (https://github.com/kubeflow/trainer/blob/master/proposals/2779-trainjob-progress/README.md).
    static const std::vector<FeatureGate> gates{
        {"TrainJobStatus", false, "Alpha"},
    };
    return gates;
}

std::map<std::string, bool> defaultFeatureGates() {
    std::map<std::string, bool> out;
    for (auto const& g : knownFeatureGates()) out.emplace(std::string(g.name), g.enabledByDefault);
    return out;
}

void overrideFeatureGates(std::map<std::string, bool>& gates, const std::map<std::string, bool>& overrides,
                          Diagnostics& diag, std::string_view path) {
    for (auto const& [name, value] : overrides) {
        auto it = gates.find(name);
        if (it == gates.end()) {
            diag.add(std::string(path) + "[" + name + "]", "unrecognized feature gate: " + name, ErrorType::NotSupported);
            continue;
        }
        it->second = value;
    }
}

std::map<std::string, bool> resolveFeatureGates(const std::map<std::string, bool>& overrides, Diagnostics& diag) {
    auto out = defaultFeatureGates();
    overrideFeatureGates(out, overrides, diag, "featureGates");
    return out;
}

std::map<std::string, bool> parseFeatureGatesFlag(std::string_view text, Diagnostics& diag) {
    std::map<std::string, bool> out;
    auto trim = [](std::string_view s) {
        while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
        return s;
    };
    while (!text.empty()) {
        auto comma = text.find(',');
        std::string_view pair = trim(text.substr(0, comma));
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        if (pair.empty()) continue;
        auto eq = pair.find('=');
        std::string name(trim(pair.substr(0, eq)));
        if (eq == std::string_view::npos) {
            diag.add("--feature-gates", "missing bool value for " + name);
            continue;
        }
        std::string value(trim(pair.substr(eq + 1)));
        if (value != "true" && value != "false") {
            diag.add("--feature-gates", "invalid value of " + name + "=" + value + ", err: must be true or false");
            continue;
        }
        out[name] = value == "true";
    }
    return out;
}

}  // namespace trainer::core::controller
