#include "core/api/overlay_reader.hpp"

#include <map>

namespace trainer::core {

ReadResult OverlayReader::get(const ObjectKey& key) const {
    if (auto* o = overlay_.find(key)) return ReadResult::of(*o);
    return base_.get(key);
}

std::shared_ptr<const ReadResult> OverlayReader::share(const ObjectKey& key) const {
    if (overlay_.find(key)) return overlay_.share(key);
    return base_.share(key);
}

ListResult OverlayReader::list(const std::string& apiVersion, const std::string& kind,
                               const std::optional<std::string>& ns) const {
    auto base = base_.list(apiVersion, kind, ns);
    if (!base.ok()) return base;
    std::map<ObjectKey, json::object> merged;
    for (auto& o : base.value) merged[keyOf(o)] = std::move(o);
    for (auto& o : overlay_.list(apiVersion, kind, ns).value) merged[keyOf(o)] = std::move(o);
    std::vector<json::object> out;
    for (auto& [k, o] : merged) out.push_back(std::move(o));
    return ListResult::of(std::move(out));
}

}  // namespace trainer::core
