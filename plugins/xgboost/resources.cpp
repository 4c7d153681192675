#include "resources.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <string>
#include <utility>

namespace trainer::plugins::xgboost {

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
using U128 = unsigned __int128;

// Suffix → (power of ten, power of 1024).
struct Suffix {
    std::string_view text;
    int dec;
    int bin;
};
constexpr std::array<Suffix, 16> kSuffixes{{{"n", -9, 0}, {"u", -6, 0}, {"m", -3, 0}, {"", 0, 0},
                                            {"k", 3, 0}, {"M", 6, 0}, {"G", 9, 0}, {"T", 12, 0},
                                            {"P", 15, 0}, {"E", 18, 0}, {"Ki", 0, 1}, {"Mi", 0, 2},
                                            {"Gi", 0, 3}, {"Ti", 0, 4}, {"Pi", 0, 5}, {"Ei", 0, 6}}};

U128 saturatingMul(U128 a, U128 b) {
    const U128 cap = static_cast<U128>(kMax) + 1;
    if (a == 0 || b == 0) return 0;
    return a > cap / b ? cap : a * b;
}

// Exact decimal parse, then ceil; values beyond int64 saturate.
std::optional<int64_t> parseQuantity(std::string_view s) {
    size_t i = 0;
    if (i < s.size() && s[i] == '+') ++i;
    if (i < s.size() && s[i] == '-') return std::nullopt;
    U128 mantissa = 0;
    int scale = 0;                // fraction digits kept in the mantissa
    bool digits = false, point = false, overflow = false, droppedFraction = false;
    for (; i < s.size(); ++i) {
        char c = s[i];
        if (c == '.' && !point) {
            point = true;
            continue;
        }
        if (!std::isdigit(static_cast<unsigned char>(c))) break;
        digits = true;
        if (mantissa > static_cast<U128>(kMax)) {
            if (!point) overflow = true;
            else if (c != '0') droppedFraction = true;
            continue;
        }
        mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
        if (point) ++scale;
    }
    if (!digits) return std::nullopt;
    std::string_view rest = s.substr(i);
    int dec = 0, bin = 0;
    if (rest.size() > 1 && (rest[0] == 'e' || rest[0] == 'E')) {
        size_t j = 1;
        bool neg = false;
        if (rest[j] == '+' || rest[j] == '-') neg = rest[j++] == '-';
        if (j >= rest.size()) return std::nullopt;
        int e = 0;
        for (; j < rest.size(); ++j) {
            if (!std::isdigit(static_cast<unsigned char>(rest[j]))) return std::nullopt;
            e = std::min(e * 10 + (rest[j] - '0'), 1000);
        }
        dec = neg ? -e : e;
    } else {
        bool found = false;
        for (auto const& sfx : kSuffixes)
            if (sfx.text == rest) {
                dec = sfx.dec;
                bin = sfx.bin;
                found = true;
            }
        if (!found) return std::nullopt;
    }
    if (overflow) return kMax;
    dec -= scale;
    U128 num = mantissa;
    for (int k = 0; k < bin; ++k) num = saturatingMul(num, 1024);
    for (; dec > 0; --dec) num = saturatingMul(num, 10);
    U128 den = 1;
    for (; dec < 0 && den <= static_cast<U128>(kMax); ++dec) den *= 10;
    if (dec < 0) return (num == 0 && !droppedFraction) ? 0 : 1;  // tiny but positive rounds up
    bool exact = num % den == 0 && !droppedFraction;
    U128 q = num / den + (exact ? 0 : 1);
    return q > static_cast<U128>(kMax) ? kMax : static_cast<int64_t>(q);
}

}  // namespace

std::optional<int64_t> ceilQuantity(const json::value& q) {
    if (q.is_string()) return parseQuantity(std::string_view(q.as_string()));
    if (q.is_int64()) return q.as_int64() < 0 ? std::nullopt : std::optional<int64_t>(q.as_int64());
    if (q.is_uint64()) return q.as_uint64() > static_cast<uint64_t>(kMax) ? kMax : static_cast<int64_t>(q.as_uint64());
    if (q.is_double()) {
        double d = q.as_double();
        if (!(d >= 0)) return std::nullopt;
        if (d >= static_cast<double>(kMax)) return kMax;
        auto t = static_cast<int64_t>(d);
        return static_cast<double>(t) < d ? t + 1 : t;
    }
    return std::nullopt;
}

int64_t gpuInList(const json::object* list) {
    if (!list) return 0;
    for (auto const& kv : *list) {
        std::string lower(kv.key());
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower.find("gpu") != std::string::npos) return ceilQuantity(kv.value()).value_or(0);
    }
    return 0;
}

int64_t gpuCount(const json::object* resources) {
    if (!resources) return 0;
    int64_t g = gpuInList(sdk::getObject(*resources, "requests"));
    return g != 0 ? g : gpuInList(sdk::getObject(*resources, "limits"));
}

int64_t cpuCount(const json::object* resources) {
    if (!resources) return 0;
    for (auto key : {"requests", "limits"}) {
        auto* list = sdk::getObject(*resources, key);
        if (!list) continue;
        auto it = list->find("cpu");
        if (it == list->end()) continue;
        if (auto v = ceilQuantity(it->value()); v && *v != 0) return *v;
    }
    return 0;
}

const json::object* runtimeTrainerResources(const sdk::Info& info) {
    auto* jobs = sdk::getArray(info.jobSetSpec(), "replicatedJobs");
    if (!jobs) return nullptr;
    for (auto const& j : *jobs) {
        if (!j.is_object()) continue;
        auto const& job = j.as_object();
        bool named = sdk::getString(job, "name").value_or("") == "node";
        auto* labels = sdk::getPath(job, {"template", "metadata", "labels"});
        bool trainer = labels && sdk::getString(*labels, "trainer.kubeflow.org/trainjob-ancestor-step").value_or("") ==
                                     "trainer";
        if (!named && !trainer) continue;
        auto* pod = sdk::getPath(job, {"template", "spec", "template", "spec"});
        if (!pod) continue;
        auto* containers = sdk::getArray(*pod, "containers");
        if (!containers) continue;
        for (auto const& c : *containers)
            if (c.is_object() && sdk::getString(c.as_object(), "name").value_or("") == "node")
                if (auto* res = sdk::getObject(c.as_object(), "resources")) return res;
    }
    return nullptr;
}

const json::object* effectiveResources(const sdk::Info& info) {
    if (auto* t = info.trainer())
        if (auto* r = sdk::getObject(*t, "resourcesPerNode")) return r;
    return runtimeTrainerResources(info);
}

}  // namespace trainer::plugins::xgboost
