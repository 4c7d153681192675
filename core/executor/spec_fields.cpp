#include "core/executor/spec_fields.hpp"

#include <cmath>

namespace trainer::core::executor {

namespace {

const json::object& emptyObject() {
    static const json::object empty;
    return empty;
}

std::string typeMismatch(const FieldReader& r, std::string_view key, const json::value& v, std::string_view type) {
    return invalidValue(r.path(key), v, std::string("must be ") + std::string(type));
}

}  // namespace

std::string invalidValue(std::string_view path, const json::value& value, std::string_view detail) {
    return std::string(path) + ": Invalid value: " + json::serialize(value) + ": " + std::string(detail);
}

std::string requiredValue(std::string_view path, std::string_view detail) {
    std::string out = std::string(path) + ": Required value";
    if (!detail.empty()) out += ": " + std::string(detail);
    return out;
}

std::string indexPath(std::string_view path, size_t i) {
    return std::string(path) + "[" + std::to_string(i) + "]";
}

const json::value* FieldReader::value(std::string_view key) const {
    auto it = object_.find(key);
    if (it == object_.end() || it->value().is_null()) return nullptr;
    return &it->value();
}

const json::object* FieldReader::object(std::string_view key) const {
    const json::value* v = value(key);
    if (v && !v->is_object()) fail(typeMismatch(*this, key, *v, "an object"));
    return v && v->is_object() ? &v->as_object() : nullptr;
}

const json::array* FieldReader::array(std::string_view key) const {
    const json::value* v = value(key);
    if (v && !v->is_array()) fail(typeMismatch(*this, key, *v, "an array"));
    return v && v->is_array() ? &v->as_array() : nullptr;
}

std::optional<std::string> FieldReader::string(std::string_view key) const {
    const json::value* v = value(key);
    if (!v) return std::nullopt;
    if (v->is_string()) return std::string(v->as_string());
    fail(typeMismatch(*this, key, *v, "a string"));
    return std::nullopt;
}

std::optional<bool> FieldReader::boolean(std::string_view key) const {
    const json::value* v = value(key);
    if (!v) return std::nullopt;
    if (v->is_bool()) return v->as_bool();
    fail(typeMismatch(*this, key, *v, "a boolean"));
    return std::nullopt;
}

std::optional<int64_t> FieldReader::integer(std::string_view key) const {
    const json::value* v = value(key);
    if (!v) return std::nullopt;
    if (v->is_int64()) return v->as_int64();
    if (v->is_uint64() && v->as_uint64() <= uint64_t(INT64_MAX)) return int64_t(v->as_uint64());
    if (v->is_double() && std::trunc(v->as_double()) == v->as_double() && std::fabs(v->as_double()) < 9e18)
        return int64_t(v->as_double());
    fail(typeMismatch(*this, key, *v, "an integer"));
    return std::nullopt;
}

FieldReader FieldReader::child(std::string_view key) const {
    const json::object* o = object(key);
    return FieldReader(o ? *o : emptyObject(), path(key), error_);
}

std::vector<FieldReader> FieldReader::elements(std::string_view key) const {
    std::vector<FieldReader> out;
    const json::array* a = array(key);
    for (size_t i = 0; a && i < a->size(); ++i) {
        const json::object* o = elementObject(*a, i, path(key), error_);
        if (!o) break;
        out.emplace_back(*o, indexPath(path(key), i), error_);
    }
    return out;
}

std::string podNamespace(const json::object& pod) {
    const json::value* meta = pod.if_contains("metadata");
    const json::value* ns = meta && meta->is_object() ? meta->as_object().if_contains("namespace") : nullptr;
    return ns && ns->is_string() && !ns->as_string().empty() ? std::string(ns->as_string()) : "default";
}

const json::object* elementObject(const json::array& a, size_t i, std::string_view path, std::string& error) {
    if (i < a.size() && a[i].is_object()) return &a[i].as_object();
    if (error.empty())
        error = invalidValue(indexPath(path, i), i < a.size() ? a[i] : json::value(), "must be an object");
    return nullptr;
}

std::string containerFieldPath(const json::object& pod, const json::object& container) {
    const json::object* spec = pod.if_contains("spec") ? pod.at("spec").if_object() : nullptr;
    const json::value* nameValue = container.if_contains("name");
    for (int byName = 0; byName < 2 && spec; ++byName)
        for (const char* list : {"containers", "initContainers"}) {
            const json::array* a = spec->if_contains(list) ? spec->at(list).if_array() : nullptr;
            for (size_t i = 0; a && i < a->size(); ++i) {
                const json::object* c = (*a)[i].if_object();
                bool match = c && (byName ? (nameValue && c->if_contains("name") &&
                                             c->at("name") == *nameValue)
                                          : c == &container);
                if (match) return indexPath(std::string("spec.") + list, i);
            }
        }
    std::string name = nameValue && nameValue->is_string() ? std::string(nameValue->as_string()) : "";
    return "container \"" + name + "\"";
}

}  // namespace trainer::core::executor
