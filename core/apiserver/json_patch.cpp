// RFC 6902 operations as evanphx/json-patch v4.12.0 patch.go applies them; the contract is in
// json_patch.hpp.
#include "core/apiserver/json_patch.hpp"

#include "core/apiserver/go_text.hpp"
#include "core/apiserver/patch_result.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

namespace trainer::core::apiserver::patching {

namespace {

// jsonpatch.AccumulatedCopySizeLimit as the API server sets it (JSONPatchMaxCopyBytes, 3 MiB).
constexpr std::size_t kMaxAccumulatedCopyBytes = 3 * 1024 * 1024;

struct OpError {
    std::string message;  // the library's error text (github.com/pkg/errors wrapping)
    bool panic = false;   // the library would dereference nil here
};
using OpStatus = std::optional<OpError>;

OpStatus opError(std::string message) { return OpError{std::move(message), false}; }
OpStatus opPanic(std::string message) { return OpError{std::move(message), true}; }

// strconv.Atoi.
std::optional<std::int64_t> goAtoi(std::string_view s) {
    std::string_view digits = s;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    std::int64_t n = 0;
    std::string_view parse = s[0] == '+' ? s.substr(1) : s;
    auto r = std::from_chars(parse.data(), parse.data() + parse.size(), n);
    if (r.ec != std::errc()) return std::nullopt;
    return n;
}

std::string atoiError(std::string_view s) {
    std::string_view digits = s;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
    bool syntax = digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    return "strconv.Atoi: parsing " + gotext::goQuote(s) + (syntax ? ": invalid syntax" : ": value out of range");
}

std::string invalidIndex(std::int64_t idx) { return "Unable to access invalid index: " + std::to_string(idx) + ": invalid index referenced"; }

// rfc6901Decoder: "~1" -> "/", "~0" -> "~", left to right.
std::string decodePatchKey(std::string_view k) {
    std::string out;
    for (std::size_t i = 0; i < k.size(); ++i) {
        if (k[i] == '~' && i + 1 < k.size() && (k[i + 1] == '1' || k[i + 1] == '0')) {
            out += k[i + 1] == '1' ? '/' : '~';
            ++i;
        } else {
            out += k[i];
        }
    }
    return out;
}

std::vector<std::string_view> splitPath(std::string_view path) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        std::size_t slash = path.find('/', start);
        parts.push_back(path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
        if (slash == std::string_view::npos) return parts;
        start = slash + 1;
    }
}

// partialArray.get's index rules; nullopt with `err` set when out of range.
std::optional<std::size_t> arrayIndex(const json::array& a, std::string_view key, std::string& err) {
    auto idx = goAtoi(key);
    if (!idx) {
        err = atoiError(key);
        return std::nullopt;
    }
    std::int64_t i = *idx, n = static_cast<std::int64_t>(a.size());
    if (i < 0) {
        if (i < -n) {
            err = invalidIndex(i);
            return std::nullopt;
        }
        i += n;
    }
    if (i >= n) {
        err = invalidIndex(i);
        return std::nullopt;
    }
    return static_cast<std::size_t>(i);
}

struct Location {
    json::value* container = nullptr;  // an object or array
    std::string key;
};

// findObject: the container of the last path token, walking objects and arrays; a leading token
// before the first "/" is ignored like upstream does.
Location findObject(json::value& doc, std::string_view path) {
    auto split = splitPath(path);
    if (split.size() < 2) return {};
    json::value* cur = &doc;
    for (std::size_t i = 1; i + 1 < split.size(); ++i) {
        std::string part = decodePatchKey(split[i]);
        json::value* next = nullptr;
        if (cur->is_object()) {
            next = cur->get_object().if_contains(part);
        } else {
            std::string err;
            if (auto idx = arrayIndex(cur->get_array(), part, err)) next = &cur->get_array()[*idx];
        }
        if (!next || !(next->is_object() || next->is_array())) return {};
        cur = next;
    }
    return {cur, decodePatchKey(split.back())};
}

// container.get: objects answer null for a missing key, arrays check the index.
std::optional<json::value> containerGet(json::value& c, const std::string& key, std::string& err) {
    if (c.is_object()) {
        json::value* v = c.get_object().if_contains(key);
        return v ? *v : json::value(nullptr);
    }
    auto idx = arrayIndex(c.get_array(), key, err);
    if (!idx) return std::nullopt;
    return c.get_array()[*idx];
}

OpStatus containerAdd(json::value& c, const std::string& key, json::value v) {
    if (c.is_object()) {
        c.get_object()[key] = std::move(v);
        return std::nullopt;
    }
    json::array& a = c.get_array();
    if (key == "-") {
        a.push_back(std::move(v));
        return std::nullopt;
    }
    auto idx = goAtoi(key);
    if (!idx) return opError("value was not a proper array index: '" + key + "': " + atoiError(key));
    std::int64_t i = *idx, size = static_cast<std::int64_t>(a.size()) + 1;
    if (i >= size || i < -size) return opError(invalidIndex(i));
    if (i < 0) i += size;
    a.insert(a.begin() + i, std::move(v));
    return std::nullopt;
}

OpStatus containerRemove(json::value& c, const std::string& key) {
    if (c.is_object()) {
        if (!c.get_object().contains(key)) return opError("Unable to remove nonexistent key: " + key + ": missing value");
        c.get_object().erase(key);
        return std::nullopt;
    }
    json::array& a = c.get_array();
    auto idx = goAtoi(key);
    if (!idx) return opError(atoiError(key));
    std::int64_t i = *idx, n = static_cast<std::int64_t>(a.size());
    if (i >= n || i < -n) return opError(invalidIndex(i));
    if (i < 0) i += n;
    a.erase(a.begin() + i);
    return std::nullopt;
}

// lazyNode.equal: structural, with numbers equal only in the same Go representation.
bool jsonEqual(const json::value& a, const json::value& b) {
    if (a.is_object() && b.is_object()) {
        auto const& x = a.get_object();
        auto const& y = b.get_object();
        if (x.size() != y.size()) return false;
        return std::all_of(x.begin(), x.end(), [&](auto const& kv) {
            auto const* other = y.if_contains(kv.key());
            return other && jsonEqual(kv.value(), *other);
        });
    }
    if (a.is_array() && b.is_array()) {
        auto const& x = a.get_array();
        auto const& y = b.get_array();
        return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), [](auto const& l, auto const& r) { return jsonEqual(l, r); });
    }
    if (gotext::goKind(a) != gotext::goKind(b)) return false;
    if (gotext::goKind(a) == gotext::GoKind::Float64) return gotext::asDouble(a) == gotext::asDouble(b);
    return a == b;
}

// One decoded operation: its members are raw JSON (json.RawMessage); JSON null members count as absent.
class Operation {
public:
    explicit Operation(const json::value& op) : op_(op.is_object() ? &op.get_object() : nullptr) {}

    std::string kind() const {
        const json::value* v = member("op");
        return v && v->is_string() ? std::string(v->get_string()) : "unknown";
    }
    std::optional<std::string> path() const { return stringMember("path"); }
    std::optional<std::string> from() const { return stringMember("from"); }
    bool hasValue() const { return op_ && op_->contains("value"); }
    json::value value() const { return hasValue() ? op_->at("value") : json::value(nullptr); }

private:
    const json::value* member(std::string_view k) const {
        const json::value* v = op_ ? op_->if_contains(k) : nullptr;
        return v && !v->is_null() ? v : nullptr;
    }
    std::optional<std::string> stringMember(std::string_view k) const {
        const json::value* v = member(k);
        if (!v || !v->is_string()) return std::nullopt;
        return std::string(v->get_string());
    }
    const json::object* op_;
};

class JsonPatcher {
public:
    explicit JsonPatcher(json::value doc) : doc_(std::move(doc)) {}

    OpStatus apply(const Operation& op) {
        static const std::unordered_map<std::string, OpStatus (JsonPatcher::*)(const Operation&)> kOps = {
            {"add", &JsonPatcher::add},   {"remove", &JsonPatcher::remove}, {"replace", &JsonPatcher::replace},
            {"move", &JsonPatcher::move}, {"test", &JsonPatcher::test},     {"copy", &JsonPatcher::copy},
        };
        auto it = kOps.find(op.kind());
        if (it == kOps.end()) return opError("Unexpected kind: " + op.kind());
        return (this->*it->second)(op);
    }

    json::value& document() { return doc_; }

private:
    OpStatus add(const Operation& op) {
        auto path = op.path();
        if (!path) return opError("add operation failed to decode path: missing value");
        Location loc = findObject(doc_, *path);
        if (!loc.container) return opError("add operation does not apply: doc is missing path: \"" + *path + "\": missing value");
        if (auto err = containerAdd(*loc.container, loc.key, op.value()))
            return opError("error in add for path: '" + *path + "': " + err->message);
        return std::nullopt;
    }

    OpStatus remove(const Operation& op) {
        auto path = op.path();
        if (!path) return opError("remove operation failed to decode path: missing value");
        Location loc = findObject(doc_, *path);
        if (!loc.container) return opError("remove operation does not apply: doc is missing path: \"" + *path + "\": missing value");
        if (auto err = containerRemove(*loc.container, loc.key))
            return opError("error in remove for path: '" + *path + "': " + err->message);
        return std::nullopt;
    }

    OpStatus replace(const Operation& op) {
        auto path = op.path();
        if (!path) return opError("replace operation failed to decode path: missing value");
        if (path->empty()) {
            if (!op.hasValue()) return opPanic("replace of the whole document without a value");
            json::value v = op.value();
            // A scalar here is silently ignored upstream (errors.Wrapf of a nil error).
            if (v.is_object() || v.is_array()) doc_ = std::move(v);
            return std::nullopt;
        }
        Location loc = findObject(doc_, *path);
        if (!loc.container) return opError("replace operation does not apply: doc is missing path: " + *path + ": missing value");
        std::string err;
        if (!containerGet(*loc.container, loc.key, err))
            return opError("replace operation does not apply: doc is missing key: " + *path + ": missing value");
        if (loc.container->is_object()) loc.container->get_object()[loc.key] = op.value();
        else loc.container->get_array()[*arrayIndex(loc.container->get_array(), loc.key, err)] = op.value();
        return std::nullopt;
    }

    OpStatus move(const Operation& op) {
        auto from = op.from();
        if (!from) return opError("move operation failed to decode from: missing value");
        Location src = findObject(doc_, *from);
        if (!src.container) return opError("move operation does not apply: doc is missing from path: " + *from + ": missing value");
        std::string err;
        auto val = containerGet(*src.container, src.key, err);
        if (!val) return opError("error in move for path: '" + src.key + "': " + err);
        if (auto e = containerRemove(*src.container, src.key)) return opError("error in move for path: '" + src.key + "': " + e->message);
        auto path = op.path();
        if (!path) return opError("move operation failed to decode path: missing value");
        Location dst = findObject(doc_, *path);
        if (!dst.container) return opError("move operation does not apply: doc is missing destination path: " + *path + ": missing value");
        if (auto e = containerAdd(*dst.container, dst.key, std::move(*val))) return opError("error in move for path: '" + *path + "': " + e->message);
        return std::nullopt;
    }

    OpStatus copy(const Operation& op) {
        auto from = op.from();
        if (!from) return opError("copy operation failed to decode from: missing value");
        Location src = findObject(doc_, *from);
        if (!src.container) return opError("copy operation does not apply: doc is missing from path: " + *from + ": missing value");
        std::string err;
        auto val = containerGet(*src.container, src.key, err);
        if (!val) return opError("error in copy for from: '" + *from + "': " + err);
        auto path = op.path();
        if (!path) return opError("copy operation failed to decode path: missing value");
        Location dst = findObject(doc_, *path);
        if (!dst.container) return opError("copy operation does not apply: doc is missing destination path: " + *path + ": missing value");
        if (!val->is_null()) copied_ += gotext::goJson(*val).size();  // deepCopy of a nil node copies nothing
        if (copied_ > kMaxAccumulatedCopyBytes)
            return opError("Unable to complete the copy, the accumulated size increase of copy is " + std::to_string(copied_) +
                           ", exceeding the limit " + std::to_string(kMaxAccumulatedCopyBytes));
        if (auto e = containerAdd(*dst.container, dst.key, std::move(*val))) return opError("error while adding value during copy: " + e->message);
        return std::nullopt;
    }

    OpStatus test(const Operation& op) {
        auto path = op.path();
        if (!path) return opError("test operation failed to decode path: missing value");
        if (path->empty()) {
            if (!op.hasValue()) return opPanic("test of the whole document without a value");
            if (jsonEqual(doc_, op.value())) return std::nullopt;
            return opError("testing value  failed: test failed");
        }
        Location loc = findObject(doc_, *path);
        if (!loc.container) return opError("test operation does not apply: is missing path: " + *path + ": missing value");
        std::string err;
        auto val = containerGet(*loc.container, loc.key, err);
        if (!val) return opError("error in test for path: '" + *path + "': " + err);
        if (val->is_null()) {
            if (!op.hasValue()) return opPanic("test of a missing value without a value");
            if (op.value().is_null()) return std::nullopt;
        } else if (op.hasValue() && jsonEqual(*val, op.value())) {
            return std::nullopt;
        }
        return opError("testing value " + *path + " failed: test failed");
    }

    json::value doc_;
    std::size_t copied_ = 0;
};

}  // namespace

PatchResult applyJsonPatch(json::value doc, const json::array& ops) {
    JsonPatcher patcher(std::move(doc));
    for (auto const& op : ops) {
        if (auto err = patcher.apply(Operation(op)))
            return err->panic ? panicked(err->message) : genericInvalid(err->message);
    }
    return success(std::move(patcher.document()), {});
}

}  // namespace trainer::core::apiserver::patching
