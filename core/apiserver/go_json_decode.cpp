// Go-compatible decoding of PATCH bodies; the contract is in go_json_decode.hpp.
#include "core/apiserver/go_json_decode.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <system_error>
#include <utility>

namespace trainer::core::apiserver::patching {

namespace {

// sigs.k8s.io/json saveStrictError keeps at most this many findings.
constexpr std::size_t kMaxStrictErrors = 100;

// Go's encoding/json syntax check (scanner.go checkValid), state by state, with its error texts.
class GoSyntaxChecker {
public:
    // "" when `data` is one valid JSON value, else the SyntaxError text.
    std::string check(std::string_view data) {
        for (char ch : data) {
            if (!step(static_cast<unsigned char>(ch))) return err_;
        }
        if (!endTop_) step(' ');
        if (!err_.empty()) return err_;
        return endTop_ ? "" : "unexpected end of JSON input";
    }

private:
    enum class State {
        BeginValue, BeginValueOrEmpty, BeginStringOrEmpty, BeginString, EndValue, EndTop, InString, InStringEsc,
        EscU, EscU1, EscU12, EscU123, Neg, One, Zero, Dot, Dot0, E, ESign, E0, T, Tr, Tru, F, Fa, Fal, Fals, N, Nu, Nul
    };
    enum class Parse : std::uint8_t { ObjectKey, ObjectValue, ArrayValue };

    static bool isSpace(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
    static bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }
    static bool isHex(unsigned char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

    bool error(unsigned char c, std::string_view context) {
        err_ = "invalid character " + gotext::goQuoteChar(c) + " " + std::string(context);
        return false;
    }
    bool push(unsigned char c, Parse p) {
        stack_.push_back(p);
        return stack_.size() <= kMaxNestingDepth || error(c, "exceeded max depth");
    }
    void pop() {
        stack_.pop_back();
        state_ = stack_.empty() ? State::EndTop : State::EndValue;
        endTop_ = stack_.empty();
    }
    bool literal(unsigned char c, char want, State next, std::string_view context) {
        if (c == static_cast<unsigned char>(want)) {
            state_ = next;
            return true;
        }
        return error(c, context);
    }

    bool beginValue(unsigned char c) {
        if (isSpace(c)) return true;
        switch (c) {
        case '{': state_ = State::BeginStringOrEmpty; return push(c, Parse::ObjectKey);
        case '[': state_ = State::BeginValueOrEmpty; return push(c, Parse::ArrayValue);
        case '"': state_ = State::InString; return true;
        case '-': state_ = State::Neg; return true;
        case '0': state_ = State::Zero; return true;
        case 't': state_ = State::T; return true;
        case 'f': state_ = State::F; return true;
        case 'n': state_ = State::N; return true;
        default: break;
        }
        if (c >= '1' && c <= '9') {
            state_ = State::One;
            return true;
        }
        return error(c, "looking for beginning of value");
    }

    bool endValue(unsigned char c) {
        if (stack_.empty()) {
            state_ = State::EndTop;
            endTop_ = true;
            return endTop(c);
        }
        if (isSpace(c)) {
            state_ = State::EndValue;
            return true;
        }
        switch (stack_.back()) {
        case Parse::ObjectKey:
            if (c == ':') {
                stack_.back() = Parse::ObjectValue;
                state_ = State::BeginValue;
                return true;
            }
            return error(c, "after object key");
        case Parse::ObjectValue:
            if (c == ',') {
                stack_.back() = Parse::ObjectKey;
                state_ = State::BeginString;
                return true;
            }
            if (c == '}') {
                pop();
                return true;
            }
            return error(c, "after object key:value pair");
        case Parse::ArrayValue:
            if (c == ',') {
                state_ = State::BeginValue;
                return true;
            }
            if (c == ']') {
                pop();
                return true;
            }
            return error(c, "after array element");
        }
        return error(c, "");
    }

    bool endTop(unsigned char c) { return isSpace(c) || error(c, "after top-level value"); }
    // One byte in the current state; false once an error is recorded.
    bool step(unsigned char c) {
        if (!err_.empty()) return false;
        switch (state_) {
        case State::BeginValue:
        case State::BeginValueOrEmpty:
        case State::BeginStringOrEmpty:
        case State::BeginString:
        case State::EndValue:
        case State::EndTop: return stepBetweenValues(c);
        case State::InString:
        case State::InStringEsc:
        case State::EscU:
        case State::EscU1:
        case State::EscU12:
        case State::EscU123: return stepString(c);
        case State::Neg:
        case State::One:
        case State::Zero:
        case State::Dot:
        case State::Dot0:
        case State::E:
        case State::ESign:
        case State::E0: return stepNumber(c);
        case State::T:
        case State::Tr:
        case State::Tru:
        case State::F:
        case State::Fa:
        case State::Fal:
        case State::Fals:
        case State::N:
        case State::Nu:
        case State::Nul: return stepLiteral(c);
        }
        return false;
    }

    // Outside any literal: before a value, an object key, or after a value.
    bool stepBetweenValues(unsigned char c) {
        switch (state_) {
        case State::BeginValue: return beginValue(c);
        case State::BeginValueOrEmpty:
            if (isSpace(c)) return true;
            return c == ']' ? endValue(c) : beginValue(c);
        case State::BeginStringOrEmpty:
            if (isSpace(c)) return true;
            if (c == '}') {
                stack_.back() = Parse::ObjectValue;
                return endValue(c);
            }
            [[fallthrough]];
        case State::BeginString:
            if (isSpace(c)) return true;
            if (c == '"') {
                state_ = State::InString;
                return true;
            }
            return error(c, "looking for beginning of object key string");
        case State::EndValue: return endValue(c);
        case State::EndTop: return endTop(c);
        default: return false;
        }
    }

    // Inside a string literal, its escapes included.
    bool stepString(unsigned char c) {
        switch (state_) {
        case State::InString:
            if (c == '"') state_ = State::EndValue;
            else if (c == '\\') state_ = State::InStringEsc;
            else if (c < 0x20) return error(c, "in string literal");
            return true;
        case State::InStringEsc:
            if (std::strchr("bfnrt\\/\"", c) && c != 0) {
                state_ = State::InString;
                return true;
            }
            if (c == 'u') {
                state_ = State::EscU;
                return true;
            }
            return error(c, "in string escape code");
        case State::EscU:
        case State::EscU1:
        case State::EscU12:
        case State::EscU123: {
            if (!isHex(c)) return error(c, "in \\u hexadecimal character escape");
            static constexpr State kNext[] = {State::EscU1, State::EscU12, State::EscU123, State::InString};
            state_ = kNext[static_cast<int>(state_) - static_cast<int>(State::EscU)];
            return true;
        }
        default: return false;
        }
    }

    // Inside a number literal.
    bool stepNumber(unsigned char c) {
        switch (state_) {
        case State::Neg:
            if (c == '0') state_ = State::Zero;
            else if (c >= '1' && c <= '9') state_ = State::One;
            else return error(c, "in numeric literal");
            return true;
        case State::One:
            if (isDigit(c)) return true;
            [[fallthrough]];
        case State::Zero:
            if (c == '.') state_ = State::Dot;
            else if (c == 'e' || c == 'E') state_ = State::E;
            else return endValue(c);
            return true;
        case State::Dot:
            if (!isDigit(c)) return error(c, "after decimal point in numeric literal");
            state_ = State::Dot0;
            return true;
        case State::Dot0:
            if (isDigit(c)) return true;
            if (c == 'e' || c == 'E') {
                state_ = State::E;
                return true;
            }
            return endValue(c);
        case State::E:
            if (c == '+' || c == '-') {
                state_ = State::ESign;
                return true;
            }
            [[fallthrough]];
        case State::ESign:
            if (!isDigit(c)) return error(c, "in exponent of numeric literal");
            state_ = State::E0;
            return true;
        case State::E0: return isDigit(c) || endValue(c);
        default: return false;
        }
    }

    // Inside true, false or null.
    bool stepLiteral(unsigned char c) {
        switch (state_) {
        case State::T: return literal(c, 'r', State::Tr, "in literal true (expecting 'r')");
        case State::Tr: return literal(c, 'u', State::Tru, "in literal true (expecting 'u')");
        case State::Tru: return literal(c, 'e', State::EndValue, "in literal true (expecting 'e')");
        case State::F: return literal(c, 'a', State::Fa, "in literal false (expecting 'a')");
        case State::Fa: return literal(c, 'l', State::Fal, "in literal false (expecting 'l')");
        case State::Fal: return literal(c, 's', State::Fals, "in literal false (expecting 's')");
        case State::Fals: return literal(c, 'e', State::EndValue, "in literal false (expecting 'e')");
        case State::N: return literal(c, 'u', State::Nu, "in literal null (expecting 'u')");
        case State::Nu: return literal(c, 'l', State::Nul, "in literal null (expecting 'l')");
        case State::Nul: return literal(c, 'l', State::EndValue, "in literal null (expecting 'l')");
        default: return false;
        }
    }


    State state_ = State::BeginValue;
    std::vector<Parse> stack_;
    bool endTop_ = false;
    std::string err_;
};

// Decoding a syntactically valid body like Go's Unmarshal into the Go type the server uses,
// collecting the first type error and (in strict mode) sigs.k8s.io/json's strict findings.
class GoDecoder {
public:
    GoDecoder(std::string_view data, bool strict) : s_(data), strict_(strict) {}

    Decoded run(Shape top) {
        beginValue(top, "");
        while (!done_) {
            Frame& f = frames_.back();
            skipSpace();
            char c = s_[i_];
            if (c == '}' || c == ']') {
                ++i_;
                json::value v = std::move(f.node);
                path_.resize(f.pathMark);
                frames_.pop_back();
                deliver(std::move(v));
                continue;
            }
            if (c == ',') {
                ++i_;
                skipSpace();
            }
            path_.resize(f.pathMark);
            if (f.node.is_object()) member(f);
            else element(f);
        }
        return std::move(out_);
    }

private:
    struct Frame {
        json::value node;
        Shape shape;
        std::size_t pathMark;
        std::string key;
        std::size_t index = 0;
    };

    void skipSpace() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\n')) ++i_;
    }

    void member(Frame& f) {
        f.key = readString();
        skipSpace();
        ++i_;  // ':'
        Shape child = memberShape(f);
        std::string field = f.key;
        beginValue(child, field);
    }

    void element(Frame& f) {
        Shape child = elementShape(f.shape);
        if (strict_ && child != Shape::Raw) appendPath("[" + std::to_string(f.index) + "]", false);
        ++f.index;
        beginValue(child, "");
    }

    Shape elementShape(Shape s) const {
        switch (s) {
        case Shape::Any: return Shape::Any;
        case Shape::OpValue: return Shape::OpValue;
        case Shape::OpList: return Shape::Op;
        case Shape::RawPatch: return Shape::RawOp;
        default: return Shape::Raw;
        }
    }

    // The destination of the value of f.key, with the duplicate / unknown-field findings.
    Shape memberShape(Frame& f) {
        const std::string& key = f.key;
        bool seen = f.node.get_object().contains(key);
        switch (f.shape) {
        case Shape::Any:
        case Shape::OpValue:
        case Shape::MapAny:
            if (seen) strictError("duplicate field", key);
            appendPath(key, true);
            return f.shape == Shape::OpValue ? Shape::OpValue : Shape::Any;
        case Shape::Op:
            if (key == "op" || key == "path" || key == "from" || key == "value") {
                if (seen) strictError("duplicate field", key);
                appendPath(key, true);
                return key == "value" ? Shape::OpValue : Shape::OpField;
            }
            strictError("unknown field", key);
            return Shape::Raw;
        default: return Shape::Raw;
        }
    }

    void appendPath(const std::string& part, bool isKey) {
        if (!strict_) return;
        if (isKey && !path_.empty()) path_ += '.';
        path_ += part;
    }

    void strictError(std::string_view type, const std::string& field) {
        if (!strict_ || out_.strictErrors.size() >= kMaxStrictErrors) return;
        std::string where = path_.empty() ? field : path_ + "." + field;
        std::string text = std::string(type) + " " + gotext::goQuote(where);
        if (std::find(out_.strictErrors.begin(), out_.strictErrors.end(), text) == out_.strictErrors.end())
            out_.strictErrors.push_back(std::move(text));
    }

    // The Go type name and struct context a shape reports in UnmarshalTypeError.
    static std::pair<std::string_view, bool> goTypeOf(Shape s) {
        switch (s) {
        case Shape::MapAny: return {"map[string]interface {}", false};
        case Shape::OpList: return {"[]handlers.jsonPatchOp", false};
        case Shape::Op: return {"handlers.jsonPatchOp", false};
        case Shape::OpField: return {"string", true};
        case Shape::RawPatch: return {"jsonpatch.Patch", false};
        case Shape::RawOp: return {"jsonpatch.Operation", false};
        default: return {"", false};
        }
    }

    static bool accepts(Shape s, char c) {
        switch (s) {
        case Shape::MapAny:
        case Shape::Op:
        case Shape::RawOp: return c == '{' || c == 'n';
        case Shape::OpList:
        case Shape::RawPatch: return c == '[' || c == 'n';
        case Shape::OpField: return c == '"' || c == 'n';
        default: return true;
        }
    }

    static std::string_view kindWord(char c) {
        switch (c) {
        case '{': return "object";
        case '[': return "array";
        case '"': return "string";
        case 't':
        case 'f': return "bool";
        default: return "number";
        }
    }

    void typeError(std::string_view value, std::string_view type, std::string_view field) {
        if (!out_.typeError.empty()) return;
        out_.typeError = "json: cannot unmarshal " + std::string(value) + " into Go ";
        if (field.empty()) out_.typeError += "value of type " + std::string(type);
        else out_.typeError += "struct field jsonPatchOp." + std::string(field) + " of type " + std::string(type);
    }

    void beginValue(Shape shape, const std::string& field) {
        skipSpace();
        char c = s_[i_];
        if (!accepts(shape, c)) {
            auto [type, inStruct] = goTypeOf(shape);
            typeError(kindWord(c), type, inStruct ? field : "");
            shape = Shape::Raw;
        }
        if (c == '{' || c == '[') {
            ++i_;
            json::value node = c == '{' ? json::value(json::object()) : json::value(json::array());
            frames_.push_back(Frame{std::move(node), shape, path_.size(), {}, 0});
            return;
        }
        deliver(scalar(shape));
    }

    void deliver(json::value v) {
        if (frames_.empty()) {
            out_.value = std::move(v);
            done_ = true;
            return;
        }
        Frame& f = frames_.back();
        if (f.node.is_object()) f.node.get_object()[f.key] = std::move(v);
        else f.node.get_array().push_back(std::move(v));
    }

    json::value scalar(Shape shape) {
        char c = s_[i_];
        if (c == '"') return json::value(readString());
        if (c == 't' || c == 'f' || c == 'n') {
            i_ += c == 'f' ? 5 : 4;
            return c == 'n' ? json::value(nullptr) : json::value(c == 't');
        }
        std::size_t start = i_;
        while (i_ < s_.size() && std::strchr("+-0123456789.eE", s_[i_]) && s_[i_] != 0) ++i_;
        return number(s_.substr(start, i_ - start), shape);
    }

    // convertNumber with PreserveInts: int64 when the literal has no '.' and fits, else float64.
    json::value number(std::string_view lit, Shape shape) {
        if (lit.find('.') == std::string_view::npos) {
            std::int64_t n = 0;
            auto r = std::from_chars(lit.data(), lit.data() + lit.size(), n);
            if (r.ec == std::errc() && r.ptr == lit.data() + lit.size()) return json::value(n);
        }
        double d = std::strtod(std::string(lit).c_str(), nullptr);
        if (std::isinf(d)) {
            if (shape == Shape::Any || shape == Shape::OpValue)
                typeError("number " + std::string(lit), "float64", shape == Shape::OpValue ? "value" : "");
            d = d > 0 ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
        }
        return json::value(d);
    }

    static int hexValue(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return c - 'A' + 10;
    }

    std::int32_t readU4(std::size_t at) const {
        if (at + 6 > s_.size() || s_[at] != '\\' || s_[at + 1] != 'u') return -1;
        std::int32_t r = 0;
        for (std::size_t k = at + 2; k < at + 6; ++k) {
            if (!std::isxdigit(static_cast<unsigned char>(s_[k]))) return -1;
            r = r * 16 + hexValue(s_[k]);
        }
        return r;
    }

    // decode.go unquote: escapes decoded, invalid UTF-8 and unpaired surrogates become U+FFFD.
    std::string readString() {
        std::string out;
        ++i_;  // opening quote
        while (s_[i_] != '"') {
            char c = s_[i_];
            if (c == '\\') {
                char e = s_[i_ + 1];
                if (e == 'u') {
                    std::int32_t r = readU4(i_);
                    i_ += 6;
                    if (r >= 0xD800 && r < 0xE000) {
                        std::int32_t r2 = readU4(i_);
                        if (r < 0xDC00 && r2 >= 0xDC00 && r2 < 0xE000) {
                            gotext::appendUtf8(out, 0x10000 + ((static_cast<std::uint32_t>(r) - 0xD800) << 10) +
                                                        (static_cast<std::uint32_t>(r2) - 0xDC00));
                            i_ += 6;
                            continue;
                        }
                        r = 0xFFFD;
                    }
                    gotext::appendUtf8(out, static_cast<std::uint32_t>(r));
                    continue;
                }
                static constexpr std::pair<char, char> kEscapes[] = {{'b', '\b'}, {'f', '\f'}, {'n', '\n'}, {'r', '\r'},
                                                                     {'t', '\t'}, {'\\', '\\'}, {'/', '/'}, {'"', '"'}};
                for (auto const& [from, to] : kEscapes)
                    if (e == from) out += to;
                i_ += 2;
                continue;
            }
            gotext::Rune r = gotext::decodeRune(s_, i_);
            if (r.valid) out.append(s_.substr(i_, r.size));
            else gotext::appendUtf8(out, 0xFFFD);
            i_ += r.size;
        }
        ++i_;  // closing quote
        return out;
    }

    std::string_view s_;
    bool strict_;
    std::size_t i_ = 0;
    bool done_ = false;
    std::vector<Frame> frames_;
    std::string path_;
    Decoded out_;
};

}  // namespace

Body decodeBody(std::string_view data, Shape top, bool strict) {
    Body b;
    b.syntaxError = GoSyntaxChecker().check(data);
    if (b.syntaxError.empty()) b.decoded = GoDecoder(data, strict).run(top);
    return b;
}

}  // namespace trainer::core::apiserver::patching
