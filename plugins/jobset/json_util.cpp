#include "json_util.hpp"

#include <trainer/plugin.hpp>

namespace trainer::plugins::jobset::util {

json::object& ensureObject(json::object& o, std::string_view key) {
    json::value& v = o[key];
    if (!v.is_object()) v = json::object{};
    return v.as_object();
}

json::array& ensureArray(json::object& o, std::string_view key) {
    json::value& v = o[key];
    if (!v.is_array()) v = json::array{};
    return v.as_array();
}

json::object& ensurePath(json::object& o, std::initializer_list<std::string_view> keys) {
    json::object* cur = &o;
    for (auto k : keys) cur = &ensureObject(*cur, k);
    return *cur;
}

static std::string_view keyOf(const json::value& v, std::string_view key) {
    if (!v.is_object()) return {};
    return sdk::getString(v.as_object(), key).value_or("");
}

void upsertByKey(json::array& list, const json::value& item, std::string_view key) {
    auto k = keyOf(item, key);
    for (auto& e : list)
        if (keyOf(e, key) == k) {
            e = item;
            return;
        }
    list.push_back(item);
}

void upsertAllByKey(json::array& list, const json::array* items, std::string_view key) {
    if (!items) return;
    for (auto const& i : *items) upsertByKey(list, i, key);
}

void upsertPort(json::array& list, const json::value& port) {
    if (!port.is_object()) return;
    auto p = sdk::getInt(port.as_object(), "containerPort");
    auto n = keyOf(port, "name");
    for (auto& e : list) {
        if (!e.is_object()) continue;
        auto ep = sdk::getInt(e.as_object(), "containerPort");
        if ((p && ep && *p == *ep) || (!n.empty() && keyOf(e, "name") == n)) {
            e = port;
            return;
        }
    }
    list.push_back(port);
}

static void dropEmptyListsIn(json::value& v);

void dropEmptyLists(json::object& o) {
    for (auto it = o.begin(); it != o.end();) {
        dropEmptyListsIn(it->value());
        bool empty = it->value().is_array() && it->value().as_array().empty();
        it = empty ? o.stable_erase(it) : it + 1;
    }
}

static void dropEmptyListsIn(json::value& v) {
    if (v.is_array())
        for (auto& e : v.as_array()) dropEmptyListsIn(e);
    else if (v.is_object())
        dropEmptyLists(v.as_object());
}

std::string_view ancestorOf(const json::object& replicatedJob) {
    const auto* labels = sdk::getPath(replicatedJob, {"template", "metadata", "labels"});
    if (!labels) return {};
    return sdk::getString(*labels, "trainer.kubeflow.org/trainjob-ancestor-step").value_or("");
}

bool isEmpty(const json::value* v) {
    if (!v || v->is_null()) return true;
    if (v->is_array()) return v->as_array().empty();
    if (v->is_object()) return v->as_object().empty();
    return false;
}

bool semanticEqual(const json::value* a, const json::value* b) {
    if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
    return *a == *b;
}

}  // namespace trainer::plugins::jobset::util
