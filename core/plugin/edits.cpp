#include "core/plugin/edits.hpp"

#include "core/json/io.hpp"
#include "core/json/lent_value.hpp"
#include "core/plugin/claims.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace trainer::core {

namespace {

struct KeyedList {
    const char* list;
    const char* key;
};
// The keyed lists of the Info document (sdk/docs/info.md).
constexpr std::array<KeyedList, 11> kKeyedLists{{
    {"podSets", "name"},
    {"replicatedJobs", "name"},
    {"containers", "name"},
    {"initContainers", "name"},
    {"env", "name"},
    {"volumes", "name"},
    {"imagePullSecrets", "name"},
    {"schedulingGates", "name"},
    {"volumeMounts", "mountPath"},
    {"ports", "containerPort"},
    {"dependsOn", "name"},
}};

// Does element `e` of a keyed list have key value `seg`?
bool keyMatches(const json::value& e, const char* key, const std::string& seg) {
    if (!e.is_object()) return false;
    auto it = e.as_object().find(key);
    if (it == e.as_object().end()) return false;
    if (it->value().is_string()) return it->value().as_string() == seg;
    if (it->value().is_int64()) return std::to_string(it->value().as_int64()) == seg;
    if (it->value().is_uint64()) return std::to_string(it->value().as_uint64()) == seg;
    return false;
}

bool isIndex(const std::string& s) {
    return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string joinPath(const std::vector<std::string>& p) {
    std::string out;
    for (auto const& s : p) {
        out += '/';
        for (char c : s) {
            if (c == '~') out += "~0";
            else if (c == '/') out += "~1";
            else out += c;
        }
    }
    return out;
}

bool isPrefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

const char* listKey(std::string_view listName) {
    for (auto const& k : kKeyedLists)
        if (listName == k.list) return k.key;
    return nullptr;
}

// Each segment is copied whole unless it has an escape (every plugin edit's path is split: issue 14).
bool splitPointer(std::string_view path, std::vector<std::string>& out) {
    out.clear();
    if (path.empty() || path[0] != '/') return false;
    out.reserve(static_cast<size_t>(std::count(path.begin(), path.end(), '/')));
    for (size_t start = 1;;) {
        const size_t end = std::min(path.find('/', start), path.size());
        const std::string_view raw = path.substr(start, end - start);
        std::string& segment = out.emplace_back();
        if (raw.find('~') == std::string_view::npos) {
            segment.assign(raw);
        } else {
            for (size_t i = 0; i < raw.size(); ++i) {
                if (raw[i] != '~') {
                    segment += raw[i];
                    continue;
                }
                const char n = i + 1 < raw.size() ? raw[++i] : '\0';  // "~" ends the segment: malformed
                if (n == '0') segment += '~';
                else if (n == '1') segment += '/';
                else return false;
            }
        }
        if (end == path.size()) return true;
        start = end + 1;
    }
}

const json::value* resolve(const json::value& root, const std::vector<std::string>& path) {
    const json::value* cur = &root;
    std::string parent;
    for (auto const& seg : path) {
        if (cur->is_object()) {
            auto it = cur->as_object().find(seg);
            if (it == cur->as_object().end()) return nullptr;
            cur = &it->value();
        } else if (cur->is_array()) {
            const json::value* next = nullptr;
            if (const char* key = listKey(parent)) {
                for (auto const& e : cur->as_array())
                    if (keyMatches(e, key, seg)) {
                        next = &e;
                        break;
                    }
            } else if (isIndex(seg) && std::stoul(seg) < cur->as_array().size()) {
                next = &cur->as_array()[std::stoul(seg)];
            }
            if (!next) return nullptr;
            cur = next;
        } else {
            return nullptr;
        }
        parent = seg;
    }
    return cur;
}

std::string EditLedger::checkClaims(const std::string& plugin, const std::vector<std::string>& path) const {
    // .../env/<NAME> and .../volumes/<NAME> are claimable names (claims.hpp: also by prefix).
    for (size_t i = 0; i + 1 < path.size(); ++i) {
        std::string_view kind;
        if (path[i] == "env") kind = kEnvClaimPrefix;
        else if (path[i] == "volumes") kind = kVolumeClaimPrefix;
        else continue;
        auto refusal = [&](const std::string& claim, const std::string& owner) {
            return "plugin " + plugin + " wrote " + joinPath(path) + ", but \"" + claim + "\" is claimed by plugin " + owner;
        };
        if (auto it = claims_->exact.find(std::string(kind) + path[i + 1]); it != claims_->exact.end() && it->second != plugin)
            return refusal(it->first, it->second);
        for (auto const& [claim, owner] : claims_->prefix)
            if (owner != plugin && claimCovers(claim, kind, path[i + 1])) return refusal(claim, owner);
    }
    return {};
}

namespace {

// One edit document, read and checked (sdk/docs/info.md "Edits").
struct Edit {
    bool set = false;  // else remove
    std::vector<std::string> path;
    json::value value;  // a set's
};

// Reads `editJson` into `out`; "" or why it is no edit `plugin` may make.
std::string parseEdit(const std::string& plugin, std::string_view editJson, Edit& out) {
    json::error_code ec;
    json::value edit = parseReusing(editJson, ec);
    if (ec || !edit.is_object()) return "plugin " + plugin + " emitted an edit that is not a JSON object";
    auto& e = edit.as_object();
    auto op = e.if_contains("op");
    auto pathV = e.if_contains("path");
    if (!op || !op->is_string() || !pathV || !pathV->is_string())
        return "plugin " + plugin + " emitted an edit without \"op\" and \"path\" strings";
    std::string opName(op->as_string());
    if (opName != "set" && opName != "remove")
        return "plugin " + plugin + " emitted an edit with unknown op \"" + opName + "\" (set, remove)";
    if (!splitPointer(pathV->as_string(), out.path) || out.path.empty())
        return "plugin " + plugin + " emitted an edit with malformed path \"" + std::string(pathV->as_string()) + "\"";
    // Host-provided members (sdk/docs/info.md): the version, the admission request and the
    // operator's identity and feature gates.
    const std::string& top = out.path[0];
    if (top == "infoVersion" || top == "admission" || top == "operator")
        return "plugin " + plugin + " may not edit " + joinPath(out.path);
    out.set = opName == "set";
    if (out.set) {
        auto v = e.if_contains("value");
        if (!v) return "plugin " + plugin + " emitted a set of " + joinPath(out.path) + " without a value";
        out.value = std::move(*v);
    }
    return {};
}

// The value holding the edit's last segment: `root` walked along the path, object members
// created on the way (a remove of something absent stops with no error and no parent).
// `parentName` gets the segment naming it.
json::value* parentOf(json::value& root, const Edit& e, const std::string& plugin, std::string& parentName, std::string& error) {
    json::value* cur = &root;
    const auto& path = e.path;
    for (size_t i = 0; i + 1 < path.size(); ++i) {
        const std::string& seg = path[i];
        json::value* next = nullptr;
        if (cur->is_object()) {
            auto& o = cur->as_object();
            auto it = o.find(seg);
            if (it == o.end()) {
                if (!e.set) return nullptr;
                next = &o[seg];
                *next = json::object{};
            } else {
                next = &it->value();
                if (next->is_null()) *next = json::object{};
            }
        } else if (cur->is_array()) {
            if (const char* key = listKey(parentName)) {
                for (auto& el : cur->as_array())
                    if (keyMatches(el, key, seg)) {
                        next = &el;
                        break;
                    }
                if (!next) {
                    error = "plugin " + plugin + " edited " + joinPath(path) + ", but " + parentName + " has no element with " +
                            key + " \"" + seg + "\"";
                    return nullptr;
                }
            } else if (isIndex(seg) && std::stoul(seg) < cur->as_array().size()) {
                next = &cur->as_array()[std::stoul(seg)];
            } else {
                error = "plugin " + plugin + " edited " + joinPath(path) + ", but index \"" + seg + "\" does not exist";
                return nullptr;
            }
        } else {
            error = "plugin " + plugin + " edited " + joinPath(path) + ", but " + parentName + " is not an object or list";
            return nullptr;
        }
        cur = next;
        parentName = seg;
    }
    return cur;
}

// Sets or removes the last segment of the edit's path in `parent`; "" or why it cannot.
std::string applyAt(json::value& parent, const std::string& parentName, const Edit& e, const std::string& plugin) {
    const std::string& last = e.path.back();
    if (parent.is_object()) {
        auto& o = parent.as_object();
        if (e.set) o[last] = e.value;
        else o.erase(last);
        return {};
    }
    if (!parent.is_array()) return "plugin " + plugin + " edited " + joinPath(e.path) + ", but its parent is not an object or list";
    auto& a = parent.as_array();
    if (const char* key = listKey(parentName)) {
        if (e.set && !keyMatches(e.value, key, last))
            return "plugin " + plugin + " set " + joinPath(e.path) + " to an element whose " + key + " is not \"" + last + "\"";
        auto it = std::find_if(a.begin(), a.end(), [&](auto const& el) { return keyMatches(el, key, last); });
        if (e.set) {
            if (it != a.end()) *it = e.value;  // replaced in place
            else a.push_back(e.value);         // new items appended in emit order
        } else if (it != a.end()) {
            a.erase(it);
        }
    } else if (last == "-" && e.set) {
        a.push_back(e.value);
    } else if (isIndex(last) && std::stoul(last) < a.size()) {
        if (e.set) a[std::stoul(last)] = e.value;
        else a.erase(a.begin() + static_cast<std::ptrdiff_t>(std::stoul(last)));
    } else {
        return "plugin " + plugin + " edited " + joinPath(e.path) + ", but index \"" + last + "\" does not exist";
    }
    return {};
}

}  // namespace

// The edit is made on the Info moved into a json::value (the walk needs one) and moved back,
// whatever happens.
std::string EditLedger::apply(json::object& info, const std::string& plugin, std::string_view editJson,
                              std::string* touched) {
    Edit e;
    if (auto why = parseEdit(plugin, editJson, e); !why.empty()) return why;
    if (auto c = checkClaims(plugin, e.path); !c.empty()) return c;

    LentValue held(info);
    std::string parentName, error;
    json::value* parent = parentOf(held.value(), e, plugin, parentName, error);
    if (!parent) return error;  // empty: a remove of something absent
    if (touched) *touched = e.path.front();  // never empty: parseEdit refuses an empty path
    if (auto why = applyAt(*parent, parentName, e, plugin); !why.empty()) return why;
    if (auto why = conflictAfter(held.value(), plugin, e.path); !why.empty()) return why;
    writes_.push_back(Write{plugin, std::move(e.path), e.set ? std::move(e.value) : json::value(nullptr)});
    return {};
}

// Conflicts: a write by another plugin at, inside or around `path` whose value changed.
std::string EditLedger::conflictAfter(const json::value& root, const std::string& plugin,
                                      const std::vector<std::string>& path) const {
    for (auto const& w : writes_) {
        if (w.plugin == plugin) continue;
        if (!isPrefix(w.path, path) && !isPrefix(path, w.path)) continue;
        const json::value* now = resolve(root, w.path);
        if (now ? (*now == w.value) : w.value.is_null()) continue;
        return "plugins " + w.plugin + " and " + plugin + " both write " + joinPath(w.path.size() >= path.size() ? w.path : path) +
               " with different values (" + w.plugin + ": " + json::serialize(w.value) + ", " + plugin + ": " +
               (now ? json::serialize(*now) : std::string("removed")) + ")";
    }
    return {};
}

}  // namespace trainer::core
