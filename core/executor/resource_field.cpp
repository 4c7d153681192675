// resourceFieldValue (declared in downward_api.hpp): pkg/fieldpath/fieldpath.go
// ExtractContainerResourceValue with the kubelet's limit defaulting
// (pkg/kubelet/kubelet_resources.go defaultPodLimitsForDownwardAPI).
#include "core/executor/downward_api.hpp"

#include <trainer/quantity.hpp>

namespace trainer::core::executor {

namespace {

using sdk::Quantity;

const json::object* findContainer(const json::object& pod, std::string_view name) {
    const json::object* spec = pod.if_contains("spec") ? pod.at("spec").if_object() : nullptr;
    for (const char* list : {"containers", "initContainers"}) {
        const json::array* a = spec && spec->if_contains(list) ? spec->at(list).if_array() : nullptr;
        for (size_t i = 0; a && i < a->size(); ++i) {
            const json::object* c = (*a)[i].if_object();
            if (c && c->if_contains("name") && c->at("name") == json::string_view(name.data(), name.size())) return c;
        }
    }
    return nullptr;
}

// container.resources.<kind>[name], nullopt when unset; an unparsable quantity fails `r`.
std::optional<Quantity> specQuantity(const json::object& container, std::string_view kind, std::string_view name,
                                     const FieldReader& r) {
    const json::value* res = container.if_contains("resources");
    const json::value* list = res && res->is_object() ? res->as_object().if_contains(kind) : nullptr;
    const json::value* v = list && list->is_object() ? list->as_object().if_contains(name) : nullptr;
    if (!v || v->is_null()) return std::nullopt;
    auto q = Quantity::fromJson(*v);
    if (!q)
        r.fail(invalidValue("resources." + std::string(kind) + "[" + std::string(name) + "]", *v,
                            "must be a valid resource quantity"));
    return q;
}

Quantity effectiveQuantity(const json::object& container, std::string_view kind, std::string_view name,
                           const PodRuntimeFacts& facts, const FieldReader& r) {
    auto limit = specQuantity(container, "limits", name, r);
    if (kind == "requests") {
        auto request = specQuantity(container, "requests", name, r);
        return request ? *request : limit ? *limit : Quantity();
    }
    if (limit && !limit->isZero()) return *limit;
    if (name == "cpu" && facts.allocatableMilliCpu > 0)
        return *Quantity::parse(std::to_string(facts.allocatableMilliCpu) + "m");
    if (name == "memory" && facts.allocatableMemoryBytes > 0) return Quantity::fromInt(facts.allocatableMemoryBytes);
    return limit ? *limit : Quantity();
}

int64_t ceilDiv(int64_t a, int64_t b) {
    if (b <= 0) b = 1;
    __int128 q = (__int128(a) + (a >= 0 ? b - 1 : 0)) / b;
    return int64_t(q);
}

bool supportedName(std::string_view name) {
    return name == "cpu" || name == "memory" || name == "ephemeral-storage" || name.starts_with("hugepages-");
}

}  // namespace

std::optional<std::string> resourceFieldValue(const json::object& pod, const json::object* container,
                                              const FieldReader& selector, const PodRuntimeFacts& facts) {
    auto resource = selector.string("resource");
    auto containerName = selector.string("containerName");
    const json::value* divisorValue = selector.value("divisor");
    if (!selector.ok()) return std::nullopt;
    if (!resource || resource->empty()) return selector.fail(requiredValue(selector.path("resource"))), std::nullopt;
    if (containerName && !containerName->empty() && !(container = findContainer(pod, *containerName)))
        return selector.fail("container " + *containerName + " not found"), std::nullopt;
    if (!container) return selector.fail(requiredValue(selector.path("containerName"))), std::nullopt;
    Quantity divisor = Quantity::fromInt(1);
    if (divisorValue) {
        auto d = Quantity::fromJson(*divisorValue);
        if (!d) {
            selector.fail(invalidValue(selector.path("divisor"), *divisorValue, "must be a valid resource quantity"));
            return std::nullopt;
        }
        if (!d->isZero()) divisor = *d;
    }
    size_t dot = resource->find('.');
    std::string kind = resource->substr(0, dot), name = dot == std::string::npos ? "" : resource->substr(dot + 1);
    if ((kind != "limits" && kind != "requests") || !supportedName(name))
        return selector.fail("unsupported container resource : " + *resource), std::nullopt;
    Quantity q = effectiveQuantity(*container, kind, name, facts, selector);
    if (!selector.ok()) return std::nullopt;
    if (name == "cpu") return std::to_string(ceilDiv(q.milliValue(), divisor.milliValue()));
    return std::to_string(ceilDiv(q.ceilToInt(), divisor.ceilToInt()));
}

}  // namespace trainer::core::executor
