#include "core/executor/workload_json.hpp"

#include <cmath>

namespace trainer::core::executor::workload {

const json::object* objectAt(const json::object* o, std::string_view k) {
    auto* v = o ? o->if_contains(k) : nullptr;
    return v && v->is_object() ? &v->get_object() : nullptr;
}

const json::array* arrayAt(const json::object* o, std::string_view k) {
    auto* v = o ? o->if_contains(k) : nullptr;
    return v && v->is_array() ? &v->get_array() : nullptr;
}

std::string stringAt(const json::object* o, std::string_view k) {
    auto* v = o ? o->if_contains(k) : nullptr;
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::optional<int64_t> intAt(const json::object* o, std::string_view k) {
    auto* v = o ? o->if_contains(k) : nullptr;
    if (!v) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64() && v->get_uint64() <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(v->get_uint64());
    if (v->is_double() && std::isfinite(v->get_double()) && std::trunc(v->get_double()) == v->get_double() &&
        std::fabs(v->get_double()) < 9.0e15)
        return static_cast<int64_t>(v->get_double());
    return std::nullopt;
}

std::optional<bool> boolAt(const json::object* o, std::string_view k) {
    auto* v = o ? o->if_contains(k) : nullptr;
    if (!v || !v->is_bool()) return std::nullopt;
    return v->get_bool();
}

json::object& ensureObject(json::object& o, std::string_view k) {
    auto& v = o[k];
    if (!v.is_object()) v = json::object();
    return v.get_object();
}

const json::object& metadataOf(const json::object& o) {
    static const json::object kEmpty;
    auto* m = objectAt(&o, "metadata");
    return m ? *m : kEmpty;
}

std::string uidOf(const json::object& o) { return stringAt(&metadataOf(o), "uid"); }

std::string labelOf(const json::object& o, std::string_view key) {
    return stringAt(objectAt(&metadataOf(o), "labels"), key);
}

std::string annotationOf(const json::object& o, std::string_view key) {
    return stringAt(objectAt(&metadataOf(o), "annotations"), key);
}

bool hasDeletionTimestamp(const json::object& o) {
    auto* v = metadataOf(o).if_contains("deletionTimestamp");
    return v && !v->is_null();
}

bool hasFinalizer(const json::object& o, std::string_view finalizer) {
    for (auto const& f : stringsAt(&metadataOf(o), "finalizers"))
        if (f == finalizer) return true;
    return false;
}

const json::object* controllerRefOf(const json::object& o) {
    auto* refs = arrayAt(&metadataOf(o), "ownerReferences");
    if (!refs) return nullptr;
    for (auto const& r : *refs)
        if (r.is_object() && boolAt(&r.get_object(), "controller").value_or(false)) return &r.get_object();
    return nullptr;
}

bool controlledBy(const json::object& o, std::string_view kind, std::string_view uid) {
    auto* ref = controllerRefOf(o);
    return ref && stringAt(ref, "kind") == kind && stringAt(ref, "uid") == uid;
}

json::object controllerRefTo(const json::object& owner) {
    return json::object{{"apiVersion", stringAt(&owner, "apiVersion")},
                        {"kind", stringAt(&owner, "kind")},
                        {"name", stringAt(&metadataOf(owner), "name")},
                        {"uid", uidOf(owner)},
                        {"controller", true},
                        {"blockOwnerDeletion", true}};
}

const json::object* conditionOf(const json::object* status, std::string_view type) {
    auto* conds = arrayAt(status, "conditions");
    if (!conds) return nullptr;
    for (auto const& c : *conds)
        if (c.is_object() && stringAt(&c.get_object(), "type") == type) return &c.get_object();
    return nullptr;
}

bool conditionTrue(const json::object* status, std::string_view type) {
    auto* c = conditionOf(status, type);
    return c && stringAt(c, "status") == "True";
}

std::vector<std::string> stringsAt(const json::object* o, std::string_view k) {
    std::vector<std::string> out;
    if (auto* a = arrayAt(o, k))
        for (auto const& v : *a)
            if (v.is_string()) out.emplace_back(v.get_string());
    return out;
}

}  // namespace trainer::core::executor::workload
