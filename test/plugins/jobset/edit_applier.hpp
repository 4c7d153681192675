// Test helper (not shipped): applies Info edit operations (sdk/docs/info.md "Edits") to an
// Info document, the way the host does between phases. Lenient: creates missing parents.
#pragma once

#include <boost/json.hpp>

#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::testkit {

namespace json = boost::json;

inline std::vector<std::string> splitPointer(std::string_view path) {
    std::vector<std::string> out;
    if (path.empty() || path.front() != '/') throw std::invalid_argument("bad pointer: " + std::string(path));
    std::string cur;
    for (size_t i = 1; i <= path.size(); ++i) {
        if (i == path.size() || path[i] == '/') {
            out.push_back(cur);
            cur.clear();
        } else if (path[i] == '~' && i + 1 < path.size()) {
            cur += path[i + 1] == '1' ? '/' : '~';
            ++i;
        } else {
            cur += path[i];
        }
    }
    return out;
}

// The key member of a keyed list named `list`, or "" for index-addressed lists.
inline std::string_view listKey(std::string_view list) {
    static const std::set<std::string_view> byName = {"podSets", "replicatedJobs", "containers", "initContainers",
                                                      "env", "volumes", "imagePullSecrets", "schedulingGates"};
    if (byName.contains(list)) return "name";
    if (list == "volumeMounts") return "mountPath";
    if (list == "ports") return "containerPort";
    return {};
}

inline bool keyMatches(const json::value& e, std::string_view key, std::string_view token) {
    if (!e.is_object()) return false;
    auto it = e.as_object().find(key);
    if (it == e.as_object().end()) return false;
    if (it->value().is_string()) return it->value().as_string() == token;
    if (it->value().is_int64()) return std::to_string(it->value().as_int64()) == token;
    return false;
}

// Element of `arr` addressed by `token`; appends a new one when `create`.
inline json::value* arrayChild(json::array& arr, std::string_view listName, const std::string& token, bool create) {
    auto key = listKey(listName);
    if (key.empty()) {
        size_t i = std::stoul(token);
        if (i < arr.size()) return &arr[i];
        if (!create || i != arr.size()) return nullptr;
        arr.emplace_back(json::object{});
        return &arr.back();
    }
    for (auto& e : arr)
        if (keyMatches(e, key, token)) return &e;
    if (!create) return nullptr;
    json::object fresh;
    if (key == "containerPort") fresh[key] = std::stoll(token);
    else fresh[key] = token;
    arr.emplace_back(std::move(fresh));
    return &arr.back();
}

// Applies one {"op","path","value"} edit to `doc`.
inline void applyEdit(json::object& doc, const json::object& edit) {
    std::string op(edit.at("op").as_string());
    auto tokens = splitPointer(edit.at("path").as_string());
    json::value root = std::move(doc);
    json::value* cur = &root;
    std::string parentName;
    for (size_t i = 0; i < tokens.size(); ++i) {
        bool last = i + 1 == tokens.size();
        const std::string& t = tokens[i];
        if (cur->is_object()) {
            auto& o = cur->as_object();
            if (last) {
                if (op == "remove") o.erase(t);
                else o[t] = edit.at("value");
                break;
            }
            if (!o.contains(t)) o[t] = listKey(t).empty() ? json::value(json::object{}) : json::value(json::array{});
            cur = &o[t];
        } else if (cur->is_array()) {
            auto& a = cur->as_array();
            if (last && op == "remove") {
                auto key = listKey(parentName);
                for (auto it = a.begin(); it != a.end(); ++it)
                    if (key.empty() ? std::to_string(it - a.begin()) == t : keyMatches(*it, key, t)) {
                        a.erase(it);
                        break;
                    }
                break;
            }
            json::value* child = arrayChild(a, parentName, t, true);
            if (!child) throw std::invalid_argument("bad index in " + std::string(edit.at("path").as_string()));
            if (last) {
                *child = edit.at("value");
                break;
            }
            cur = child;
        } else {
            throw std::invalid_argument("path through a scalar: " + std::string(edit.at("path").as_string()));
        }
        parentName = t;
    }
    doc = std::move(root.as_object());
}

// Applies every emitted edit in order.
inline void applyEdits(json::object& doc, const std::vector<json::value>& edits) {
    for (auto const& e : edits) applyEdit(doc, e.as_object());
}

}  // namespace trainer::testkit
