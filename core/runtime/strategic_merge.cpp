#include "core/runtime/strategic_merge.hpp"

#include <algorithm>
#include <utility>

namespace trainer::core {

namespace {

struct KeyedList {
    std::string_view field;
    std::string_view key;
};

// patchMergeKey of the JobSet / batch / core types (k8s.io/api struct tags). Field names are
// unique enough inside a JobSetSpec that the member name alone selects the key.
constexpr KeyedList kKeyedLists[] = {
    {"replicatedJobs", "name"},   // JobSet v1alpha2 ReplicatedJob
    {"containers", "name"},       {"initContainers", "name"},      {"ephemeralContainers", "name"},
    {"env", "name"},              {"volumeMounts", "mountPath"},   {"volumeDevices", "devicePath"},
    {"ports", "containerPort"},   {"volumes", "name"},             {"imagePullSecrets", "name"},
    {"schedulingGates", "name"},  {"hostAliases", "ip"},           {"resourceClaims", "name"},
    {"topologySpreadConstraints", "topologyKey"},                  {"claims", "name"},
    {"ownerReferences", "uid"},
};

// Replaced as a whole by a patch (spec §4.2 step 2), even though they are objects.
constexpr std::string_view kWholesale[] = {"affinity", "securityContext"};

constexpr std::string_view kPatch = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

bool isDirective(std::string_view key) { return !key.empty() && key.front() == '$'; }

std::string join(const std::string& path, std::string_view field) {
    return path.empty() ? std::string(field) : path + "." + std::string(field);
}

// Value equality with int64/uint64/double compared numerically.
bool sameKey(const json::value& a, const json::value& b) {
    if (a.is_number() && b.is_number()) {
        if (a.is_double() || b.is_double()) return a.to_number<double>() == b.to_number<double>();
        if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
        if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
        auto const& s = a.is_int64() ? a : b;
        auto const& u = a.is_int64() ? b : a;
        return s.get_int64() >= 0 && static_cast<uint64_t>(s.get_int64()) == u.get_uint64();
    }
    return a == b;
}

std::optional<std::string_view> patchDirective(const json::object& o) {
    auto it = o.find(kPatch);
    if (it == o.end() || !it->value().is_string()) return std::nullopt;
    return std::string_view(it->value().get_string());
}

class Merger {
public:
    explicit Merger(Diagnostics& diag) : diag_(diag) {}

    // nullopt means "delete the field that held this value".
    std::optional<json::value> value(const json::value* orig, const json::value& patch, std::string_view field,
                                     const std::string& path) {
        if (patch.is_object()) {
            static const json::object empty;
            const json::object& base = (orig && orig->is_object() && !replacedWholesale(field)) ? orig->get_object() : empty;
            auto r = object(base, patch.get_object(), path);
            if (!r) return std::nullopt;
            return json::value(std::move(*r));
        }
        if (patch.is_array()) {
            if (auto key = mergeKeyOf(field)) {
                static const json::array empty;
                const json::array& base = (orig && orig->is_array()) ? orig->get_array() : empty;
                return json::value(keyedList(base, patch.get_array(), *key, path));
            }
            return patch;  // atomic lists are replaced verbatim
        }
        return patch;
    }

    std::optional<json::object> object(const json::object& orig, const json::object& patch, const std::string& path) {
        if (auto d = patchDirective(patch)) {
            if (*d == "delete") return std::nullopt;
            if (*d == "replace") {
                static const json::object empty;
                json::object stripped = patch;
                stripped.stable_erase(kPatch);
                return object(empty, stripped, path);
            }
            if (*d != "merge") diag_.add(join(path, kPatch), "unknown patch type \"" + std::string(*d) + "\"");
        }
        json::object out = orig;
        for (auto const& kv : patch) {
            std::string_view k = kv.key();
            if (isDirective(k)) continue;
            if (kv.value().is_null()) {
                out.stable_erase(k);
                continue;
            }
            auto* cur = out.if_contains(k);
            auto merged = value(cur, kv.value(), k, join(path, k));
            if (merged) out[k] = std::move(*merged);
            else out.stable_erase(k);
        }
        for (auto const& kv : patch) {
            std::string_view k = kv.key();
            if (k.starts_with(kDeleteFromPrimitiveList)) deleteFromPrimitiveList(out, k.substr(kDeleteFromPrimitiveList.size()), kv.value());
        }
        if (auto it = patch.find(kRetainKeys); it != patch.end() && it->value().is_array()) {
            auto const& keep = it->value().get_array();
            json::object kept;
            for (auto const& kv : out)
                if (std::any_of(keep.begin(), keep.end(), [&](const json::value& v) { return v.is_string() && v.get_string() == kv.key(); }))
                    kept[kv.key()] = kv.value();
            out = std::move(kept);
        }
        return out;
    }

    json::array keyedList(const json::array& orig, const json::array& patch, std::string_view key, const std::string& path) {
        // `{"$patch": "replace"}` anywhere in the list: the other patch elements become the list.
        bool replace = std::any_of(patch.begin(), patch.end(), [](const json::value& e) {
            return e.is_object() && patchDirective(e.get_object()) == std::optional<std::string_view>("replace") &&
                   e.get_object().size() == 1;
        });
        static const json::array emptyList;
        json::array out = replace ? emptyList : orig;
        for (size_t i = 0; i < patch.size(); ++i) {
            std::string ep = path + "[" + std::to_string(i) + "]";
            auto const& e = patch[i];
            if (!e.is_object()) {
                diag_.add(ep, "list element must be an object with merge key \"" + std::string(key) + "\"");
                continue;
            }
            auto const& eo = e.get_object();
            auto d = patchDirective(eo);
            if (d == std::optional<std::string_view>("replace") && eo.size() == 1) continue;
            auto* kv = eo.if_contains(key);
            if (!kv || kv->is_null()) {
                diag_.add(ep, "list element does not contain the merge key \"" + std::string(key) + "\"");
                continue;
            }
            auto pos = std::find_if(out.begin(), out.end(), [&](const json::value& o) {
                return o.is_object() && o.get_object().contains(key) && sameKey(o.get_object().at(key), *kv);
            });
            if (d == std::optional<std::string_view>("delete")) {
                out.erase(std::remove_if(out.begin(), out.end(), [&](const json::value& o) {
                              return o.is_object() && o.get_object().contains(key) && sameKey(o.get_object().at(key), *kv);
                          }), out.end());
                continue;
            }
            static const json::object empty;
            auto merged = object(pos != out.end() ? pos->get_object() : empty, eo, ep);
            if (!merged) continue;
            if (pos != out.end()) *pos = std::move(*merged);
            else out.push_back(std::move(*merged));
        }
        return out;
    }

private:
    static void deleteFromPrimitiveList(json::object& out, std::string_view field, const json::value& values) {
        auto* list = out.if_contains(field);
        if (!list || !list->is_array() || !values.is_array()) return;
        auto& a = list->get_array();
        a.erase(std::remove_if(a.begin(), a.end(), [&](const json::value& v) {
                    return std::any_of(values.get_array().begin(), values.get_array().end(),
                                       [&](const json::value& d) { return sameKey(v, d); });
                }), a.end());
    }

    Diagnostics& diag_;
};

}  // namespace

std::optional<std::string_view> mergeKeyOf(std::string_view field) {
    for (auto const& k : kKeyedLists)
        if (k.field == field) return k.key;
    return std::nullopt;
}

bool replacedWholesale(std::string_view field) {
    return std::find(std::begin(kWholesale), std::end(kWholesale), field) != std::end(kWholesale);
}

json::value strategicMerge(const json::value& original, const json::value& patch, Diagnostics& diag,
                           const std::string& fieldPath) {
    Merger m(diag);
    if (patch.is_null()) return nullptr;
    if (patch.is_object()) {
        static const json::object empty;
        auto r = m.object(original.is_object() ? original.get_object() : empty, patch.get_object(), fieldPath);
        if (!r) return nullptr;
        return json::value(std::move(*r));
    }
    return patch;
}

}  // namespace trainer::core
