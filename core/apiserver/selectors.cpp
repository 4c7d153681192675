// Label selectors: the lexer and recursive-descent parser of k8s.io/apimachinery/pkg/labels
// (selector.go), the label key and value checks of pkg/util/validation, and matching.
#include "core/apiserver/selectors.hpp"

#include "core/apiserver/label_validation.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace trainer::core::apiserver {

namespace {

enum class Token {
    Error, EndOfString, ClosedPar, Comma, DoesNotExist, DoubleEquals, Equals, GreaterThan,
    Identifier, In, LessThan, NotEquals, NotIn, OpenPar,
};

const std::map<std::string, Token, std::less<>>& string2token() {
    static const std::map<std::string, Token, std::less<>> table{
        {")", Token::ClosedPar},  {",", Token::Comma},      {"!", Token::DoesNotExist}, {"==", Token::DoubleEquals},
        {"=", Token::Equals},     {">", Token::GreaterThan}, {"in", Token::In},          {"<", Token::LessThan},
        {"!=", Token::NotEquals}, {"notin", Token::NotIn},   {"(", Token::OpenPar},
    };
    return table;
}

struct Scanned {
    Token tok;
    std::string literal;
};

bool isWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool isSpecialSymbol(char c) { return std::string_view("=!(),><").find(c) != std::string_view::npos; }

// Reads byte by byte; a NUL byte or the end reads as 0, as the upstream lexer does.
class Lexer {
public:
    explicit Lexer(std::string_view s) : s_(s) {}

    Scanned lex() {
        char c = read();
        while (isWhitespace(c)) c = read();
        if (c == 0) return {Token::EndOfString, ""};
        unread();
        return isSpecialSymbol(c) ? scanSpecialSymbol() : scanIdOrKeyword();
    }

private:
    char read() { return pos_ < s_.size() ? s_[pos_++] : 0; }
    void unread() { --pos_; }

    Scanned scanIdOrKeyword() {
        std::string buffer;
        for (char c = read(); c != 0; c = read()) {
            if (isSpecialSymbol(c) || isWhitespace(c)) {
                unread();
                break;
            }
            buffer += c;
        }
        auto it = string2token().find(buffer);
        return {it != string2token().end() ? it->second : Token::Identifier, buffer};
    }

    // The longest operator the special symbols spell ("!=" rather than "!").
    Scanned scanSpecialSymbol() {
        std::optional<Scanned> last;
        std::string buffer;
        for (char c = read(); c != 0; c = read()) {
            if (!isSpecialSymbol(c)) {
                unread();
                break;
            }
            buffer += c;
            if (auto it = string2token().find(buffer); it != string2token().end()) {
                last = Scanned{it->second, buffer};
            } else if (last) {
                unread();
                break;
            }
        }
        if (!last) return {Token::Error, "error expected: keyword found '" + buffer + "'"};
        return *last;
    }

    std::string_view s_;
    size_t pos_ = 0;
};

// strconv.ParseInt(s, 10, 64).
std::optional<int64_t> parseGoInt(std::string_view s) {
    if (s.size() > 1 && s.front() == '+' && s[1] != '-') s.remove_prefix(1);
    int64_t v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc{} || r.ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

const std::map<LabelOperator, std::string>& operatorText() {
    static const std::map<LabelOperator, std::string> table{
        {LabelOperator::Equals, "="},       {LabelOperator::DoubleEquals, "=="}, {LabelOperator::NotEquals, "!="},
        {LabelOperator::In, " in "},        {LabelOperator::NotIn, " notin "},   {LabelOperator::GreaterThan, ">"},
        {LabelOperator::LessThan, "<"},     {LabelOperator::Exists, ""},         {LabelOperator::DoesNotExist, ""},
    };
    return table;
}

// A checked requirement, as labels.NewRequirement makes it (its error texts and paths).
std::optional<LabelRequirement> makeLabelRequirement(const std::string& key, LabelOperator op, std::vector<std::string> values,
                                                     std::string& error) {
    std::vector<std::string> errors;
    if (auto bad = labelKeyError(key, "key")) errors.push_back(*bad);
    bool set = op == LabelOperator::In || op == LabelOperator::NotIn;
    bool unary = op == LabelOperator::Exists || op == LabelOperator::DoesNotExist;
    bool compare = op == LabelOperator::GreaterThan || op == LabelOperator::LessThan;
    if (set && values.empty())
        errors.push_back("values: Invalid value: " + goSliceText(values) + ": for 'in', 'notin' operators, values set can't be empty");
    if (!set && !unary && !compare && values.size() != 1)
        errors.push_back("values: Invalid value: " + goSliceText(values) + ": exact-match compatibility requires one single value");
    if (unary && !values.empty())
        errors.push_back("values: Invalid value: " + goSliceText(values) + ": values set must be empty for exists and does not exist");
    if (compare && values.size() != 1)
        errors.push_back("values: Invalid value: " + goSliceText(values) + ": for 'Gt', 'Lt' operators, exactly one value is required");
    for (size_t i = 0; compare && i < values.size(); ++i)
        if (!parseGoInt(values[i]))
            errors.push_back("values[" + std::to_string(i) + "]: Invalid value: " + goQuote(values[i]) +
                             ": for 'Gt', 'Lt' operators, the value must be an integer");
    for (size_t i = 0; i < values.size(); ++i)
        if (auto bad = labelValueError(values[i], "values[" + std::to_string(i) + "][" + key + "]")) errors.push_back(*bad);
    if (!errors.empty()) {
        error = aggregateText(errors);
        return std::nullopt;
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return LabelRequirement{key, op, std::move(values)};
}

// "in" and "notin" are identifiers where values are expected.
enum class Context { KeyAndOperator, Values };

using Values = std::set<std::string>;

class Parser {
public:
    explicit Parser(std::string_view text) {
        Lexer lexer(text);
        for (;;) {
            items_.push_back(lexer.lex());
            if (items_.back().tok == Token::EndOfString) break;
        }
    }

    std::optional<LabelSelector> parse(std::string& error);

private:
    Scanned lookahead(Context ctx) const { return inContext(items_[std::min(position_, items_.size() - 1)], ctx); }
    Scanned consume(Context ctx) {
        auto s = lookahead(ctx);
        ++position_;
        return s;
    }
    static Scanned inContext(Scanned s, Context ctx) {
        if (ctx == Context::Values && (s.tok == Token::In || s.tok == Token::NotIn)) s.tok = Token::Identifier;
        return s;
    }

    std::optional<LabelRequirement> parseRequirement(std::string& error);
    bool parseKeyAndInferOperator(std::string& key, std::optional<LabelOperator>& op, std::string& error);
    std::optional<LabelOperator> parseOperator(std::string& error);
    std::optional<Values> parseValues(std::string& error);
    std::optional<Values> parseIdentifiersList(std::string& error);
    std::optional<Values> parseExactValue(std::string& error);

    std::vector<Scanned> items_;
    size_t position_ = 0;
};

std::optional<LabelSelector> Parser::parse(std::string& error) {
    LabelSelector selector;
    for (;;) {
        auto [tok, lit] = lookahead(Context::Values);
        if (tok == Token::EndOfString) break;
        if (tok != Token::Identifier && tok != Token::DoesNotExist) {
            error = "found '" + lit + "', expected: !, identifier, or 'end of string'";
            return std::nullopt;
        }
        auto r = parseRequirement(error);
        if (!r) {
            error = "unable to parse requirement: " + error;
            return std::nullopt;
        }
        selector.requirements.push_back(std::move(*r));
        auto [t, l] = consume(Context::Values);
        if (t == Token::EndOfString) break;
        if (t != Token::Comma) {
            error = "found '" + l + "', expected: ',' or 'end of string'";
            return std::nullopt;
        }
        if (auto next = lookahead(Context::Values); next.tok != Token::Identifier && next.tok != Token::DoesNotExist) {
            error = "found '" + next.literal + "', expected: identifier after ','";
            return std::nullopt;
        }
    }
    std::stable_sort(selector.requirements.begin(), selector.requirements.end(),
                     [](auto const& a, auto const& b) { return a.key < b.key; });
    return selector;
}

std::optional<LabelRequirement> Parser::parseRequirement(std::string& error) {
    std::string key;
    std::optional<LabelOperator> op;
    if (!parseKeyAndInferOperator(key, op, error)) return std::nullopt;
    if (op) return makeLabelRequirement(key, *op, {}, error);
    op = parseOperator(error);
    if (!op) return std::nullopt;
    bool set = *op == LabelOperator::In || *op == LabelOperator::NotIn;
    auto values = set ? parseValues(error) : parseExactValue(error);
    if (!values) return std::nullopt;
    return makeLabelRequirement(key, *op, std::vector<std::string>(values->begin(), values->end()), error);
}

// A key, and Exists / DoesNotExist when nothing follows it ("!" makes it DoesNotExist anyway).
bool Parser::parseKeyAndInferOperator(std::string& key, std::optional<LabelOperator>& op, std::string& error) {
    auto s = consume(Context::Values);
    if (s.tok == Token::DoesNotExist) {
        op = LabelOperator::DoesNotExist;
        s = consume(Context::Values);
    }
    if (s.tok != Token::Identifier) {
        error = "found '" + s.literal + "', expected: identifier";
        return false;
    }
    if (auto bad = labelKeyError(s.literal, "<nil>")) {
        error = *bad;
        return false;
    }
    key = s.literal;
    if (auto t = lookahead(Context::Values).tok; (t == Token::EndOfString || t == Token::Comma) && !op)
        op = LabelOperator::Exists;
    return true;
}

std::optional<LabelOperator> Parser::parseOperator(std::string& error) {
    static const std::map<Token, LabelOperator> ops{
        {Token::In, LabelOperator::In},
        {Token::Equals, LabelOperator::Equals},
        {Token::DoubleEquals, LabelOperator::DoubleEquals},
        {Token::GreaterThan, LabelOperator::GreaterThan},
        {Token::LessThan, LabelOperator::LessThan},
        {Token::NotIn, LabelOperator::NotIn},
        {Token::NotEquals, LabelOperator::NotEquals},
    };
    auto s = consume(Context::KeyAndOperator);
    if (auto it = ops.find(s.tok); it != ops.end()) return it->second;
    error = "found '" + s.literal + "', expected: in, notin, =, ==, !=, gt, lt";
    return std::nullopt;
}

std::optional<Values> Parser::parseValues(std::string& error) {
    auto open = consume(Context::Values);
    if (open.tok != Token::OpenPar) {
        error = "found '" + open.literal + "' expected: '('";
        return std::nullopt;
    }
    auto next = lookahead(Context::Values);
    if (next.tok == Token::ClosedPar) {  // "()"
        consume(Context::Values);
        return Values{""};
    }
    if (next.tok != Token::Identifier && next.tok != Token::Comma) {
        error = "found '" + next.literal + "', expected: ',', ')' or identifier";
        return std::nullopt;
    }
    auto values = parseIdentifiersList(error);
    if (values && consume(Context::Values).tok != Token::ClosedPar) {
        error = "found '" + next.literal + "', expected: ')'";
        return std::nullopt;
    }
    return values;
}

// A (possibly empty) comma-separated list of (possibly empty) values, up to the ')'.
std::optional<Values> Parser::parseIdentifiersList(std::string& error) {
    Values values;
    for (;;) {
        auto s = consume(Context::Values);
        if (s.tok == Token::Identifier) {
            values.insert(s.literal);
            auto next = lookahead(Context::Values);
            if (next.tok == Token::ClosedPar) return values;
            if (next.tok == Token::Comma) continue;
            error = "found '" + next.literal + "', expected: ',' or ')'";
            return std::nullopt;
        }
        if (s.tok != Token::Comma) {
            error = "found '" + s.literal + "', expected: ',', or identifier";
            return std::nullopt;
        }
        if (values.empty()) values.insert("");  // "(,"
        auto next = lookahead(Context::Values).tok;
        if (next == Token::ClosedPar || next == Token::Comma) values.insert("");  // ",)" and ",,"
        if (next == Token::ClosedPar) return values;
    }
}

std::optional<Values> Parser::parseExactValue(std::string& error) {
    if (auto t = lookahead(Context::Values).tok; t == Token::EndOfString || t == Token::Comma) return Values{""};
    auto s = consume(Context::Values);
    if (s.tok == Token::Identifier) return Values{s.literal};
    error = "found '" + s.literal + "', expected: identifier";
    return std::nullopt;
}

}  // namespace

bool LabelRequirement::matches(const json::object& labels) const {
    auto const* v = labels.if_contains(key);
    bool has = v != nullptr;
    std::string_view value = v && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
    bool listed = v && v->is_string() && std::binary_search(values.begin(), values.end(), value);
    switch (op) {
        case LabelOperator::In:
        case LabelOperator::Equals:
        case LabelOperator::DoubleEquals: return listed;
        case LabelOperator::NotIn:
        case LabelOperator::NotEquals: return !listed;
        case LabelOperator::Exists: return has;
        case LabelOperator::DoesNotExist: return !has;
        case LabelOperator::GreaterThan:
        case LabelOperator::LessThan: {
            auto have = v && v->is_string() ? parseGoInt(value) : std::nullopt;
            auto want = values.size() == 1 ? parseGoInt(values.front()) : std::nullopt;
            if (!have || !want) return false;
            return op == LabelOperator::GreaterThan ? *have > *want : *have < *want;
        }
    }
    return false;
}

std::string LabelRequirement::toString() const {
    std::string s = (op == LabelOperator::DoesNotExist ? "!" : "") + key;
    if (op == LabelOperator::Exists || op == LabelOperator::DoesNotExist) return s;
    s += operatorText().at(op);
    bool set = op == LabelOperator::In || op == LabelOperator::NotIn;
    std::string joined;
    for (size_t i = 0; i < values.size(); ++i) joined += (i ? "," : "") + values[i];
    return s + (set ? "(" + joined + ")" : joined);
}

bool LabelSelector::matches(const json::object& labels) const {
    return std::all_of(requirements.begin(), requirements.end(), [&](auto const& r) { return r.matches(labels); });
}

std::string LabelSelector::toString() const {
    std::string s;
    for (auto const& r : requirements) s += (s.empty() ? "" : ",") + r.toString();
    return s;
}

std::optional<LabelSelector> parseLabelSelector(std::string_view text, std::string& error) {
    return Parser(text).parse(error);
}

std::optional<LabelSelector> labelSelectorFromObject(const json::object& selector, std::string& error) {
    static const std::map<std::string, LabelOperator, std::less<>> ops{
        {"In", LabelOperator::In}, {"NotIn", LabelOperator::NotIn}, {"Exists", LabelOperator::Exists},
        {"DoesNotExist", LabelOperator::DoesNotExist}};
    LabelSelector out;
    auto add = [&](const std::string& key, LabelOperator op, std::vector<std::string> values) {
        auto r = makeLabelRequirement(key, op, std::move(values), error);
        if (r) out.requirements.push_back(std::move(*r));
        return r.has_value();
    };
    if (auto const* m = selector.if_contains("matchLabels"); m && m->is_object())
        for (auto const& kv : m->as_object())
            if (!add(kv.key(), LabelOperator::Equals, {kv.value().is_string() ? std::string(kv.value().as_string()) : ""}))
                return std::nullopt;
    if (auto const* exprs = selector.if_contains("matchExpressions"); exprs && exprs->is_array())
        for (auto const& e : exprs->as_array()) {
            auto text = [&](std::string_view k) {
                auto const* v = e.is_object() ? e.as_object().if_contains(k) : nullptr;
                return v && v->is_string() ? std::string(v->as_string()) : std::string();
            };
            auto op = ops.find(text("operator"));
            if (op == ops.end()) {
                error = goQuote(text("operator")) + " is not a valid label selector operator";
                return std::nullopt;
            }
            std::vector<std::string> values;
            if (auto const* vs = e.is_object() ? e.as_object().if_contains("values") : nullptr; vs && vs->is_array())
                for (auto const& v : vs->as_array()) values.push_back(v.is_string() ? std::string(v.as_string()) : "");
            if (!add(text("key"), op->second, std::move(values))) return std::nullopt;
        }
    std::stable_sort(out.requirements.begin(), out.requirements.end(), [](auto const& a, auto const& b) { return a.key < b.key; });
    return out;
}

}  // namespace trainer::core::apiserver
