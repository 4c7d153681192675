#include "core/json/io.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace trainer::core {

namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 5> kNulls{"", "~", "null", "Null", "NULL"};
// sigs.k8s.io/yaml decodes with go-yaml v2, which keeps YAML 1.1 booleans (the "Norway problem").
constexpr std::array<std::string_view, 11> kTrues{"true", "True", "TRUE", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON"};
constexpr std::array<std::string_view, 11> kFalses{"false", "False", "FALSE", "n", "N", "no", "No", "NO", "off", "Off", "OFF"};

bool oneOf(std::string_view s, auto const& table) { return std::find(table.begin(), table.end(), s) != table.end(); }

// Integer per Go's strconv.ParseInt(s, 0, 64) after go-yaml removed underscores.
std::optional<json::value> parseInteger(std::string_view text) {
    std::string s;
    for (char c : text)
        if (c != '_') s += c;
    if (s.empty()) return std::nullopt;
    bool neg = false;
    std::size_t i = 0;
    if (s[0] == '+' || s[0] == '-') neg = s[0] == '-', i = 1;
    int base = 10;
    if (s.size() > i + 1 && s[i] == '0') {
        char p = s[i + 1];
        if (p == 'x' || p == 'X') base = 16, i += 2;
        else if (p == 'o' || p == 'O') base = 8, i += 2;
        else if (p == 'b' || p == 'B') base = 2, i += 2;
        else base = 8, i += 1;
    }
    if (i >= s.size()) return std::nullopt;
    std::uint64_t u = 0;
    auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + s.size(), u, base);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    if (!neg) {
        if (u <= static_cast<std::uint64_t>(INT64_MAX)) return json::value(static_cast<std::int64_t>(u));
        return json::value(u);
    }
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) return json::value(-static_cast<std::int64_t>(u));
    if (u == static_cast<std::uint64_t>(INT64_MAX) + 1) return json::value(INT64_MIN);
    return std::nullopt;
}

bool looksLikeFloat(std::string_view s) {
    static const std::regex re(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
    return std::regex_match(s.begin(), s.end(), re);
}

std::string position(const YAML::Mark& m) {
    return "line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1);
}

// Thrown inside the YAML event handler (which cannot return an error); parseYaml catches it.
struct YamlRefused {
    std::string message;
};

[[noreturn]] void refuse(const YAML::Mark& m, const std::string& why) { throw YamlRefused{position(m) + ": " + why}; }

std::string depthMessage() { return "nesting deeper than " + std::to_string(kMaxNestingDepth); }

std::size_t utf8Length(std::string_view s, std::size_t i);

// yaml-cpp passes the bytes of UTF-8 input through unchecked; JSON (and every reader of what the
// operator writes or stores) needs valid UTF-8, and go-yaml refuses invalid input too.
bool validUtf8(std::string_view s) {
    for (std::size_t i = 0, n = 0; i < s.size(); i += n)
        if ((n = utf8Length(s, i)) == 0) return false;
    return true;
}

// One finished node: its JSON value and what it costs when an alias repeats it.
struct Built {
    json::value value;
    std::size_t nodes = 1;
    std::size_t bytes = 0;
    std::size_t height = 0;            // collections nested inside, this one included
    std::optional<std::string> key;    // the text a mapping key takes (scalars and null only)
    std::string kind = "a scalar";     // for "mapping key must be a scalar, got a list"
};

// yaml-cpp events to JSON values, iteratively (an explicit stack, never recursion per node).
// Aliases are expanded by copy, each copy charged against kMaxYamlNodes / kMaxYamlScalarBytes
// before it is made; an alias to a collection still open is a cycle and refused.
class JsonBuilder : public YAML::EventHandler {
public:
    std::vector<json::value> docs;

    void OnDocumentStart(const YAML::Mark& m) override {
        // yaml-cpp 0.7 reports a stray top-level ',' as an endless run of empty documents at one
        // position; a document that starts no later than the one before is that (go-yaml's text).
        if (lastStart_ && m.pos <= *lastStart_) refuse(m, "did not find expected node content");
        lastStart_ = m.pos;
        stack_.clear(), anchors_.clear(), nodes_ = 0, bytes_ = 0, root_.reset();
    }
    void OnDocumentEnd() override { docs.push_back(root_ ? std::move(*root_) : json::value(nullptr)); }

    void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override {
        Built b;
        b.value = nullptr, b.key = "null", b.kind = "null";
        finish(std::move(b), m, anchor);
    }
    void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t anchor, const std::string& text) override {
        if (!validUtf8(text)) refuse(m, "invalid UTF-8 in a scalar");
        Built b;
        b.value = scalarValue(tag, text), b.bytes = text.size(), b.key = text;
        finish(std::move(b), m, anchor);
    }
    void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
        auto it = anchors_.find(anchor);
        if (it == anchors_.end()) refuse(m, "unknown anchor");
        if (!it->second) refuse(m, "alias refers to a node that contains it (an alias cycle)");
        const Built& target = *it->second;
        if (stack_.size() + target.height > kMaxNestingDepth) refuse(m, depthMessage());
        charge(m, target.nodes, target.bytes);  // before the copy is made
        place(Built(target), m);
    }
    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
        open(m, a, json::array(), "a list");
    }
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
        open(m, a, json::object(), "a mapping");
    }
    void OnSequenceEnd() override { close(); }
    void OnMapEnd() override { close(); }

private:
    struct Frame {
        Built built;
        YAML::Mark mark;
        YAML::anchor_t anchor = YAML::NullAnchor;
        std::size_t nodesAtStart = 0, bytesAtStart = 0;
        bool expectKey = true;  // mappings: the next node is a key
        std::string key;
    };

    static json::value scalarValue(const std::string& tag, const std::string& text) {
        if (tag == "!" || tag == "tag:yaml.org,2002:str") return json::string(text);
        if (tag == "?" || tag.starts_with("tag:yaml.org,2002:")) return resolvePlainScalar(text);
        return json::string(text);
    }

    void charge(const YAML::Mark& m, std::size_t nodes, std::size_t bytes) {
        nodes_ += nodes, bytes_ += bytes;
        if (nodes_ > kMaxYamlNodes)
            refuse(m, "document expands to more than " + std::to_string(kMaxYamlNodes) + " nodes (aliases expanded)");
        if (bytes_ > kMaxYamlScalarBytes)
            refuse(m, "document expands to more than " + std::to_string(kMaxYamlScalarBytes) +
                          " bytes of scalars (aliases expanded)");
    }

    void open(const YAML::Mark& m, YAML::anchor_t anchor, json::value container, const char* kind) {
        if (!stack_.empty() && stack_.back().built.value.is_object() && stack_.back().expectKey)
            refuse(m, std::string("mapping key must be a scalar, got ") + kind);
        if (stack_.size() + 1 > kMaxNestingDepth) refuse(m, depthMessage());
        charge(m, 1, 0);
        if (anchor != YAML::NullAnchor) anchors_[anchor] = std::nullopt;  // open: an alias to it is a cycle
        Frame f;
        f.built.value = std::move(container), f.built.kind = kind, f.built.height = 1, f.built.key.reset();
        f.mark = m, f.anchor = anchor, f.nodesAtStart = nodes_ - 1, f.bytesAtStart = bytes_;
        stack_.push_back(std::move(f));
    }

    void close() {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        f.built.nodes = nodes_ - f.nodesAtStart, f.built.bytes = bytes_ - f.bytesAtStart;
        if (f.anchor != YAML::NullAnchor) anchors_[f.anchor] = f.built;
        place(std::move(f.built), f.mark);
    }

    // A scalar, null or alias: charged, remembered under its anchor, placed in its parent.
    void finish(Built b, const YAML::Mark& m, YAML::anchor_t anchor) {
        if (stack_.size() + b.height > kMaxNestingDepth) refuse(m, depthMessage());
        charge(m, b.nodes, b.bytes);
        if (anchor != YAML::NullAnchor) anchors_[anchor] = b;
        place(std::move(b), m);
    }

    void place(Built b, const YAML::Mark& m) {
        if (stack_.empty()) return void(root_ = std::move(b.value));
        Frame& parent = stack_.back();
        parent.built.height = std::max(parent.built.height, b.height + 1);
        if (parent.built.value.is_array()) return void(parent.built.value.as_array().push_back(std::move(b.value)));
        json::object& obj = parent.built.value.as_object();
        if (parent.expectKey) {
            if (!b.key) refuse(m, "mapping key must be a scalar, got " + b.kind);
            if (obj.contains(*b.key)) refuse(m, "mapping key \"" + quoteForError(*b.key) + "\" already defined");
            parent.key = std::move(*b.key), parent.expectKey = false;
            return;
        }
        obj.emplace(parent.key, std::move(b.value));
        parent.expectKey = true;
    }

    std::vector<Frame> stack_;
    std::unordered_map<YAML::anchor_t, std::optional<Built>> anchors_;  // nullopt: still open
    std::optional<json::value> root_;
    std::optional<int> lastStart_;
    std::size_t nodes_ = 0, bytes_ = 0;
};

// A JSON field path ("spec.env[2]") for messages.
std::string fieldPath(const std::vector<std::string>& segments) {
    std::string out;
    for (auto const& s : segments) {
        if (!out.empty() && s.front() != '[') out += '.';
        out += s;
    }
    return out;
}

// basic_parser handler building the value in one pass (json::value_stack) as Go's encoding/json
// reads it: duplicate keys refused with their field path, a number beyond float64 refused, and
// every double read correctly rounded from its text with std::from_chars (Boost.JSON 1.81's own
// conversion can be 1 ulp off, test/fuzz/README.md finding 7).
// Without `tracking`, keys are only counted (`keys`) and no field path is kept: value_stack keeps
// one member of a duplicated key, so parseJson compares the count with the members built, and
// parses again with tracking for a duplicate's or any other error's message.
struct ValueBuilder {
    static constexpr std::size_t max_array_size = -1, max_object_size = -1, max_string_size = -1, max_key_size = -1;
    // Objects with more keys than this check duplicates in a hash set; smaller ones (nearly all)
    // scan their keys, which allocates nothing once the level's slots exist.
    static constexpr std::size_t kLinearKeys = 16;
    // One open object or array. Levels past `depth` are kept, so their key slots are reused.
    struct Level {
        bool object = false;
        std::size_t index = 0;          // an array: elements begun so far
        std::size_t count = 0;          // an object: keys so far, in keys[0, count)
        std::vector<std::string> keys;  // slots, reused across the objects opened at this depth
        std::unordered_set<std::string> many;  // every key, once count passes kLinearKeys

        bool seen(const std::string& key) const {
            if (count > kLinearKeys) return many.count(key) > 0;
            return std::find(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(count), key) !=
                   keys.begin() + static_cast<std::ptrdiff_t>(count);
        }
        void add(const std::string& key) {
            if (count < keys.size()) keys[count].assign(key);
            else keys.push_back(key);
            if (++count == kLinearKeys + 1) many.insert(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(count));
            else if (count > kLinearKeys + 1) many.insert(key);
        }
    };
    json::value_stack stack;
    std::vector<Level> levels;
    std::size_t depth = 0;  // levels[0, depth) are open
    std::string key, number, message;
    bool tracking = true;
    std::size_t keys = 0;  // without tracking: on_key calls

    bool fail(boost::system::error_code& ec, std::string why) {
        message = std::move(why);
        ec = make_error_code(boost::system::errc::invalid_argument);
        return false;
    }
    // "spec.env[1]: ", the open levels' current members but the innermost `skip`; built only for
    // an error message.
    std::string where(std::size_t skip = 0) const {
        std::vector<std::string> segments;
        for (std::size_t i = 0; i + skip < depth; ++i) {
            const Level& l = levels[i];
            if (l.object) segments.push_back(l.count ? l.keys[l.count - 1] : std::string());
            else segments.push_back(l.index ? "[" + std::to_string(l.index - 1) + "]" : std::string());
        }
        std::string w = fieldPath(segments);
        return w.empty() ? w : w + ": ";
    }
    // Called before any value: in an array it is the next element.
    void value() {
        if (tracking && depth && !levels[depth - 1].object) ++levels[depth - 1].index;
    }
    bool begin(bool object) {
        if (!tracking) return true;
        value();
        if (depth == levels.size()) levels.emplace_back();
        Level& l = levels[depth++];
        l.object = object;
        l.index = l.count = 0;
        l.many.clear();
        return true;
    }
    bool end() {
        if (tracking) --depth;
        return true;
    }
    // Before a document: what an earlier one, maybe failed halfway, left behind.
    void clear(bool track) {
        tracking = track;
        keys = 0;
        depth = 0;
        key.clear();
        number.clear();
        message.clear();
    }
    bool on_document_begin(boost::system::error_code&) { return stack.reset(), true; }
    bool on_document_end(boost::system::error_code&) { return true; }
    bool on_array_begin(boost::system::error_code&) { return begin(false); }
    bool on_array_end(std::size_t n, boost::system::error_code&) { return stack.push_array(n), end(); }
    bool on_object_begin(boost::system::error_code&) { return begin(true); }
    bool on_object_end(std::size_t n, boost::system::error_code&) { return stack.push_object(n), end(); }
    bool on_string_part(json::string_view s, std::size_t, boost::system::error_code&) { return stack.push_chars(s), true; }
    bool on_string(json::string_view s, std::size_t, boost::system::error_code&) {
        value();
        return stack.push_string(s), true;
    }
    bool on_key_part(json::string_view s, std::size_t, boost::system::error_code&) {
        stack.push_chars(s);
        if (tracking) key.append(s);
        return true;
    }
    bool on_key(json::string_view s, std::size_t, boost::system::error_code& ec) {
        stack.push_key(s);
        if (!tracking) return ++keys, true;
        key.append(s);
        Level& l = levels[depth - 1];
        if (l.seen(key)) return fail(ec, where(1) + "duplicate key \"" + quoteForError(key) + "\"");
        l.add(key);
        key.clear();
        return true;
    }
    bool on_number_part(json::string_view s, boost::system::error_code&) { return number.append(s), true; }
    bool on_int64(std::int64_t i, json::string_view, boost::system::error_code&) {
        value();
        number.clear();
        return stack.push_int64(i), true;
    }
    bool on_uint64(std::uint64_t u, json::string_view, boost::system::error_code&) {
        value();
        number.clear();
        return stack.push_uint64(u), true;
    }
    // Go's encoding/json refuses a number beyond float64 ("cannot unmarshal number 1e400").
    bool on_double(double approx, json::string_view s, boost::system::error_code& ec) {
        value();
        number.append(s);
        if (!std::isfinite(approx)) return fail(ec, where() + "number " + quoteForError(number) + " is out of range");
        double d = approx;  // kept for an underflow, which from_chars leaves to us: 0 or a subnormal, as in Go
        auto [ptr, err] = std::from_chars(number.data(), number.data() + number.size(), d);
        if ((err != std::errc() && err != std::errc::result_out_of_range) || ptr != number.data() + number.size() ||
            !std::isfinite(d))
            return fail(ec, where() + "number " + quoteForError(number) + " is out of range");
        number.clear();
        return stack.push_double(d), true;
    }
    bool on_bool(bool b, boost::system::error_code&) {
        value();
        return stack.push_bool(b), true;
    }
    bool on_null(boost::system::error_code&) {
        value();
        return stack.push_null(), true;
    }
    bool on_comment_part(json::string_view, boost::system::error_code&) { return true; }
    bool on_comment(json::string_view, boost::system::error_code&) { return true; }
};

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is invalid.
std::size_t utf8Length(std::string_view s, std::size_t i) {
    auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = at(i);
    if (c < 0x80) return 1;
    std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (c >= 0xF5 || n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((at(i + k) & 0xC0) != 0x80) return 0;
    unsigned char c1 = at(i + 1);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
        return 0;  // overlong, surrogate or beyond U+10FFFF
    return n;
}

std::string kindOfValue(const json::value& v) {
    switch (v.kind()) {
        case json::kind::array: return "a list";
        case json::kind::string: return "a string";
        case json::kind::bool_: return "a boolean";
        case json::kind::null: return "null";
        case json::kind::object: return "a mapping";
        default: return "a number";
    }
}

// Checks one object has apiVersion and kind; appends it or reports.
void acceptObject(json::object obj, const std::string& origin, Diagnostics& d, std::vector<InputDocument>& out) {
    bool good = true;
    for (std::string_view field : {"apiVersion", "kind"}) {
        auto it = obj.find(field);
        if (it == obj.end() || (it->value().is_string() && it->value().as_string().empty())) {
            d.errors.push_back(FieldError{std::string(field), "Required value", ErrorType::Required, origin});
            good = false;
        } else if (!it->value().is_string()) {
            d.errors.push_back(FieldError{std::string(field), "must be a string, got " + kindOfValue(it->value()),
                                          ErrorType::TypeInvalid, origin});
            good = false;
        }
    }
    if (good) out.push_back(InputDocument{std::move(obj), origin});
}

bool isListKind(const json::object& o) {
    auto it = o.find("kind");
    if (it == o.end() || !it->value().is_string()) return false;
    std::string_view k = it->value().as_string();
    return k == "List" || (k.ends_with("List") && o.contains("items"));
}

void acceptDocument(json::value doc, const std::string& origin, Diagnostics& d, std::vector<InputDocument>& out) {
    if (doc.is_null()) return;
    if (!doc.is_object()) {
        d.errors.push_back(FieldError{"", "document is not a mapping (got " + kindOfValue(doc) + ")", ErrorType::Invalid, origin});
        return;
    }
    json::object& obj = doc.as_object();
    if (!isListKind(obj)) return acceptObject(std::move(obj), origin, d, out);
    auto it = obj.find("items");
    if (it == obj.end() || it->value().is_null()) return;
    if (!it->value().is_array()) {
        d.errors.push_back(FieldError{"items", "must be a list, got " + kindOfValue(it->value()), ErrorType::TypeInvalid, origin});
        return;
    }
    json::array& items = it->value().as_array();
    std::string base = origin.ends_with(")") ? origin.substr(0, origin.size() - 1) + ", " : origin + " (";
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::string itemOrigin = base + "item " + std::to_string(i + 1) + ")";
        if (!items[i].is_object()) {
            d.errors.push_back(FieldError{"items[" + std::to_string(i) + "]",
                                          "list item is not a mapping (got " + kindOfValue(items[i]) + ")",
                                          ErrorType::Invalid, origin});
            continue;
        }
        acceptObject(std::move(items[i].as_object()), itemOrigin, d, out);
    }
}

bool readFile(const std::string& path, std::string& text, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = std::strerror(errno);
        return false;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) {
        error = "read error";
        return false;
    }
    text = ss.str();
    return true;
}

void readOnePath(const std::string& path, Diagnostics& d, std::vector<InputDocument>& out) {
    if (path == "-") {
        std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
        d.append(parseInputText(text, "<stdin>", out));
        return;
    }
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        d.errors.push_back(FieldError{"", "the path \"" + path + "\" does not exist", ErrorType::Invalid, path});
        return;
    }
    if (fs::is_directory(st)) {
        std::vector<std::string> files;
        for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
            auto ext = it->path().extension().string();
            if ((ext == ".yaml" || ext == ".yml" || ext == ".json") && !fs::is_directory(it->path(), ec))
                files.push_back((fs::path(path) / it->path().filename()).string());
        }
        if (ec) {
            d.errors.push_back(FieldError{"", "cannot list directory: " + ec.message(), ErrorType::Invalid, path});
            return;
        }
        std::sort(files.begin(), files.end());
        if (files.empty()) d.warnings.push_back(Warning{"", "directory has no .yaml, .yml or .json files", path});
        for (auto const& f : files) readOnePath(f, d, out);
        return;
    }
    std::string text, error;
    if (!readFile(path, text, error)) {
        d.errors.push_back(FieldError{"", "cannot read file: " + error, ErrorType::Invalid, path});
        return;
    }
    d.append(parseInputText(text, path, out));
}

// ---- output ----

// True for a byte written as itself inside a JSON string.
constexpr bool plainJsonByte(unsigned char c) { return c >= 0x20 && c != '"' && c != '\\' && c != 0x7f; }

void writeEscaped(std::string& out, std::string_view s) {
    out += '"';
    std::size_t run = 0;  // start of the pending run of bytes written as themselves
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (plainJsonByte(c)) continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default: {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            }
        }
    }
    out.append(s.data() + run, s.size() - run);
    out += '"';
}

void writeScalar(std::string& out, const json::value& v) {
    switch (v.kind()) {
        case json::kind::null: out += "null"; break;
        case json::kind::bool_: out += v.get_bool() ? "true" : "false"; break;
        case json::kind::int64: out += std::to_string(v.get_int64()); break;
        case json::kind::uint64: out += std::to_string(v.get_uint64()); break;
        case json::kind::double_: {
            double d = v.get_double();
            if (!std::isfinite(d)) {
                out += "null";
                break;
            }
            char buf[64];
            auto r = std::to_chars(buf, buf + sizeof buf, d);
            out.append(buf, r.ptr);
            break;
        }
        case json::kind::string: writeEscaped(out, v.get_string()); break;
        default: break;
    }
}

void writeJson(std::string& out, const json::value& v, bool pretty, int indent);

void newline(std::string& out, bool pretty, int indent) {
    if (!pretty) return;
    out += '\n';
    out.append(static_cast<std::size_t>(indent), ' ');
}

void writeObject(std::string& out, const json::object& o, bool pretty, int indent) {
    if (o.empty()) return void(out += "{}");
    out += '{';
    bool first = true;
    for (auto const& kv : o) {
        if (!first) out += ',';
        first = false;
        newline(out, pretty, indent + 2);
        writeEscaped(out, kv.key());
        out += pretty ? ": " : ":";
        writeJson(out, kv.value(), pretty, indent + 2);
    }
    newline(out, pretty, indent);
    out += '}';
}

void writeJson(std::string& out, const json::value& v, bool pretty, int indent) {
    if (v.is_object()) {
        writeObject(out, v.get_object(), pretty, indent);
    } else if (v.is_array()) {
        auto const& a = v.get_array();
        if (a.empty()) return void(out += "[]");
        out += '[';
        bool first = true;
        for (auto const& x : a) {
            if (!first) out += ',';
            first = false;
            newline(out, pretty, indent + 2);
            writeJson(out, x, pretty, indent + 2);
        }
        newline(out, pretty, indent);
        out += ']';
    } else {
        writeScalar(out, v);
    }
}

// True when `s` may be written as a plain YAML scalar and reads back as the same string.
bool plainSafe(std::string_view s) {
    if (s.empty() || !resolvePlainScalar(s).is_string()) return false;
    static const std::regex special(R"(^([-+]?\.(inf|Inf|INF|nan|NaN|NAN)|<<|=|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*)$)");
    if (std::regex_match(s.begin(), s.end(), special)) return false;
    unsigned char first = s.front();
    if (std::strchr("?:,[]{}#&*!|>'\"%@`", first)) return false;
    if (first == '-' && (s.size() == 1 || s[1] == ' ')) return false;
    if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
    if (s.find(": ") != s.npos || s.find(" #") != s.npos) return false;
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f) return false;
    return true;
}

// Literal block scalars need content that survives re-indentation exactly.
bool literalSafe(std::string_view s) {
    if (s.find('\n') == s.npos || s.front() == ' ' || s.front() == '\n' || s.front() == '\t') return false;
    for (unsigned char c : s)
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return false;
    return s.find_first_not_of('\n') != s.npos;
}

std::string yamlScalar(const json::value& v) {
    if (v.is_object()) return "{}";
    if (v.is_array()) return "[]";
    std::string out;
    if (v.is_string() && plainSafe(v.get_string())) out = v.get_string();
    else writeScalar(out, v);
    return out;
}

bool isEmptyCollection(const json::value& v) {
    return (v.is_object() && v.get_object().empty()) || (v.is_array() && v.get_array().empty());
}

std::string yamlBlock(const json::value& v, int indent);

// The text after "key:" or "-": " scalar\n", " |-\n<block>", or "\n<nested block>".
std::string yamlAfterIndicator(const json::value& v, int indent, bool inList) {
    if (v.is_string() && literalSafe(v.get_string())) {
        std::string_view s = v.get_string();
        std::size_t trailing = s.size() - (s.find_last_not_of('\n') + 1);
        std::string out = trailing == 0 ? " |-\n" : trailing == 1 ? " |\n" : " |+\n";
        std::string_view body = s.substr(0, s.size() - std::min<std::size_t>(trailing, 1));
        std::size_t pos = 0;
        while (pos <= body.size()) {
            std::size_t nl = body.find('\n', pos);
            std::string_view line = body.substr(pos, nl == body.npos ? body.npos : nl - pos);
            if (!line.empty()) out.append(static_cast<std::size_t>(indent + 2), ' ');
            out += line;
            out += '\n';
            if (nl == body.npos) break;
            pos = nl + 1;
        }
        return out;
    }
    if (v.is_object() && !isEmptyCollection(v)) return "\n" + yamlBlock(v, indent + 2);
    if (v.is_array() && !isEmptyCollection(v)) return "\n" + yamlBlock(v, inList ? indent + 2 : indent);
    return " " + yamlScalar(v) + "\n";
}

std::string yamlBlock(const json::value& v, int indent) {
    std::string pad(static_cast<std::size_t>(indent), ' ');
    std::string out;
    if (v.is_object() && !isEmptyCollection(v)) {
        for (auto const& kv : v.get_object()) {
            std::string key = yamlScalar(json::value(kv.key()));
            out += pad;
            // YAML allows an implicit key at most 1024 characters: a longer one is written explicit.
            if (key.size() > 1024) out += "? " + key + "\n" + pad;
            else out += key;
            out += ':';
            out += yamlAfterIndicator(kv.value(), indent, false);
        }
    } else if (v.is_array() && !isEmptyCollection(v)) {
        for (auto const& item : v.get_array()) {
            if (!isEmptyCollection(item) && (item.is_object() || item.is_array())) {
                std::string sub = yamlBlock(item, indent + 2);
                out += pad + "- " + sub.substr(static_cast<std::size_t>(indent + 2));
            } else {
                out += pad + "-" + yamlAfterIndicator(item, indent, true);
            }
        }
    } else {
        std::string rest = yamlAfterIndicator(v, indent, false);
        out += rest.substr(1);  // drop the space that follows an indicator
    }
    return out;
}

}  // namespace

json::value resolvePlainScalar(std::string_view s) {
    if (oneOf(s, kNulls)) return nullptr;
    if (oneOf(s, kTrues)) return true;
    if (oneOf(s, kFalses)) return false;
    if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+' || s[0] == '.')) {
        if (auto i = parseInteger(s)) return *i;
        if (looksLikeFloat(s)) {
            double d = 0;
            auto [ptr, ec] = std::from_chars(s.data() + (s[0] == '+' ? 1 : 0), s.data() + s.size(), d);
            if (ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(d)) return d;
        }
    }
    return json::string(s);
}

bool parseYaml(std::string_view text, std::vector<json::value>& docs, std::string& error) {
    try {
        std::istringstream in{std::string(text)};
        YAML::Parser parser(in);
        JsonBuilder builder;
        while (parser.HandleNextDocument(builder)) {
        }
        for (auto& d : builder.docs) docs.push_back(std::move(d));
        return true;
    } catch (const YamlRefused& e) {
        error = e.message;
    } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's own guard, should ours ever be above it
        error = position(e.mark) + ": " + depthMessage();
    } catch (const YAML::Exception& e) {
        error = position(e.mark) + ": " + e.msg;
    } catch (const std::exception& e) {
        error = e.what();
    }
    return false;
}

// The thread's parser, kept between calls: its value stack and key slots are reused, so a small
// document (a stored object, a plugin's answer) allocates only the value it becomes. A document
// over kReusedParserLimit gets a parser of its own, so a thread keeps no large buffers (a few
// hundred KB at most, however many threads parse).
constexpr std::size_t kReusedParserLimit = std::size_t{256} << 10;

json::parse_options strictOptions() {
    json::parse_options o;
    o.max_depth = kMaxNestingDepth;
    return o;
}

json::basic_parser<ValueBuilder>& threadParser() {
    thread_local json::basic_parser<ValueBuilder> parser(strictOptions());
    return parser;
}

namespace {

// The members of every object in `v`.
std::size_t memberCount(const json::value& v) {
    std::size_t n = 0;
    if (v.is_object()) {
        n = v.get_object().size();
        for (auto const& kv : v.get_object()) n += memberCount(kv.value());
    } else if (v.is_array()) {
        for (auto const& x : v.get_array()) n += memberCount(x);
    }
    return n;
}

// One pass over `text` (ValueBuilder); `keys` gets how many keys it read.
bool parsePass(std::string_view text, bool tracking, json::value& out, std::string& error, bool* limitHit,
               std::size_t& keys) {
    std::optional<json::basic_parser<ValueBuilder>> own;
    json::basic_parser<ValueBuilder>* parser = &threadParser();
    if (text.size() > kReusedParserLimit) parser = &own.emplace(strictOptions());
    parser->reset();
    parser->handler().clear(tracking);
    boost::system::error_code ec;
    std::size_t used = parser->write_some(false, text.data(), text.size(), ec);
    if (!ec && text.find_first_not_of(" \t\r\n", used) != std::string_view::npos) ec = json::error::extra_data;
    const std::string& why = parser->handler().message;
    if (limitHit) *limitHit = ec && (ec == json::error::too_deep || !why.empty());
    if (ec == json::error::too_deep) return error = depthMessage(), false;
    if (ec) return error = why.empty() ? ec.message() : why, false;
    keys = parser->handler().keys;
    out = parser->handler().stack.release();
    return true;
}

}  // namespace

bool parseJson(std::string_view text, json::value& out, std::string& error, bool* limitHit) {
    std::size_t keys = 0;
    if (parsePass(text, /*tracking=*/false, out, error, limitHit, keys) && memberCount(out) == keys) return true;
    // An error, or a key given twice (the value kept one of them): again, keeping each open
    // object's keys and place, for the message and its field path.
    return parsePass(text, /*tracking=*/true, out, error, limitHit, keys);
}

json::value parseReusing(std::string_view text, json::error_code& ec, std::size_t maxDepth) {
    json::parse_options opts;
    opts.max_depth = maxDepth;
    if (text.size() > kReusedParserLimit) return json::parse(text, ec, {}, opts);
    struct Reused {
        Reused(std::size_t d, const json::parse_options& o) : depth(d), parser({}, o) {}
        std::size_t depth;
        json::parser parser;
    };
    thread_local std::vector<std::unique_ptr<Reused>> parsers;  // one per depth asked for
    auto it = std::find_if(parsers.begin(), parsers.end(), [&](auto const& r) { return r->depth == maxDepth; });
    if (it == parsers.end()) it = parsers.insert(parsers.end(), std::make_unique<Reused>(maxDepth, opts));
    json::parser& p = (*it)->parser;
    p.reset();
    p.write(text.data(), text.size(), ec);
    if (ec) return nullptr;
    return p.release();
}

std::string toValidUtf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        std::size_t n = utf8Length(s, i);
        if (n == 0) out += "\xEF\xBF\xBD", ++i;
        else out.append(s.substr(i, n)), i += n;
    }
    return out;
}

std::string quoteForError(std::string_view s) {
    if (s.size() <= kMaxEchoBytes) return toValidUtf8(s);
    std::size_t cut = kMaxEchoBytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    return toValidUtf8(s.substr(0, cut)) + "... (" + std::to_string(s.size()) + " bytes)";
}

Diagnostics parseInputText(std::string_view text, const std::string& fileName, std::vector<InputDocument>& out) {
    Diagnostics d;
    auto first = text.find_first_not_of(" \t\r\n");
    if (first != text.npos && (text[first] == '{' || text[first] == '[')) {
        json::value v;
        std::string error;
        bool limitHit = false;
        if (parseJson(text, v, error, &limitHit)) {
            acceptDocument(std::move(v), fileName, d, out);
            return d;
        }
        if (limitHit) {
            d.errors.push_back(FieldError{"", "invalid JSON: " + error, ErrorType::Invalid, fileName});
            return d;
        }
        // Not strict JSON: YAML is a superset and reports line and column.
    }
    std::vector<json::value> docs;
    std::string error;
    if (!parseYaml(text, docs, error)) {
        d.errors.push_back(FieldError{"", "malformed YAML: " + error, ErrorType::Invalid, fileName});
        return d;
    }
    for (std::size_t i = 0; i < docs.size(); ++i) {
        std::string origin = docs.size() > 1 ? fileName + " (document " + std::to_string(i + 1) + ")" : fileName;
        acceptDocument(std::move(docs[i]), origin, d, out);
    }
    return d;
}

Diagnostics readInputs(const std::vector<std::string>& paths, std::vector<InputDocument>& out) {
    Diagnostics d;
    for (auto const& p : paths) readOnePath(p, d, out);
    return d;
}

std::optional<json::object> parseJsonObject(std::string_view text) {
    boost::system::error_code ec;
    auto v = parseReusing(text, ec, 2 * kMaxNestingDepth);
    if (ec || !v.is_object()) return std::nullopt;
    return std::move(v.as_object());
}

std::string toJson(const json::value& v, bool pretty) {
    std::string out;
    writeJson(out, v, pretty, 0);
    return out;
}

std::string toJson(const json::object& o, bool pretty) {
    std::string out;
    writeObject(out, o, pretty, 0);
    return out;
}

void appendJsonString(std::string& out, std::string_view s) { writeEscaped(out, s); }

void appendJson(std::string& out, const json::value& v, bool pretty, int indent) { writeJson(out, v, pretty, indent); }

void appendJson(std::string& out, const json::object& o, bool pretty, int indent) { writeObject(out, o, pretty, indent); }

std::string toYaml(const json::value& v) { return yamlBlock(v, 0); }

}  // namespace trainer::core
