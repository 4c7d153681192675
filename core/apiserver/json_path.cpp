#include "core/apiserver/json_path.hpp"

#include <algorithm>
#include <charconv>

namespace trainer::core {

namespace {

const json::value* member(const json::value& v, std::string_view k) {
    auto const* o = v.if_object();
    return o ? o->if_contains(k) : nullptr;
}

struct Segment {
    enum Type { Field, Index, Slice, All, Filter } type = Field;
    std::string field;
    int64_t start = 0;
    std::optional<int64_t> end;
    bool hasStart = false;
    // Filter: @<path> <op> <literal>, or existence of @<path> when op is empty.
    std::string path;
    std::string op;
    json::value literal;
};

bool parseInt(std::string_view s, int64_t& out) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return !s.empty() && std::from_chars(s.data(), s.data() + s.size(), out).ec == std::errc{} &&
           std::from_chars(s.data(), s.data() + s.size(), out).ptr == s.data() + s.size();
}

bool parseFilter(std::string_view body, Segment& seg) {
    // body is "@.type==\"Completed\"" (spaces allowed around the operator).
    if (body.empty() || body.front() != '@') return false;
    body.remove_prefix(1);
    size_t opPos = std::min(body.find("=="), body.find("!="));
    if (opPos == std::string_view::npos) {
        seg.path = std::string(body);
        return true;
    }
    seg.op = std::string(body.substr(opPos, 2));
    auto lhs = body.substr(0, opPos), rhs = body.substr(opPos + 2);
    while (!lhs.empty() && lhs.back() == ' ') lhs.remove_suffix(1);
    while (!rhs.empty() && rhs.front() == ' ') rhs.remove_prefix(1);
    while (!rhs.empty() && rhs.back() == ' ') rhs.remove_suffix(1);
    seg.path = std::string(lhs);
    if (rhs.size() >= 2 && (rhs.front() == '"' || rhs.front() == '\'') && rhs.back() == rhs.front()) {
        seg.literal = json::string(rhs.substr(1, rhs.size() - 2));
        return true;
    }
    boost::system::error_code ec;
    seg.literal = json::parse(rhs, ec);
    return !ec;
}

std::optional<std::vector<Segment>> parsePath(std::string_view p) {
    if (p.size() >= 2 && p.front() == '{' && p.back() == '}') p = p.substr(1, p.size() - 2);
    std::vector<Segment> segs;
    size_t i = 0;
    while (i < p.size()) {
        if (p[i] == '.') {
            size_t j = i + 1;
            while (j < p.size() && p[j] != '.' && p[j] != '[') ++j;
            if (j == i + 1) return std::nullopt;
            Segment s;
            s.field = std::string(p.substr(i + 1, j - i - 1));
            if (s.field == "*") s.type = Segment::All;
            segs.push_back(std::move(s));
            i = j;
        } else if (p[i] == '[') {
            // Find the matching ']' outside quotes.
            size_t j = i + 1;
            char quote = 0;
            for (; j < p.size(); ++j) {
                if (quote) {
                    if (p[j] == quote) quote = 0;
                } else if (p[j] == '"' || p[j] == '\'') {
                    quote = p[j];
                } else if (p[j] == ']') {
                    break;
                }
            }
            if (j >= p.size()) return std::nullopt;
            auto body = p.substr(i + 1, j - i - 1);
            Segment s;
            if (body == "*") {
                s.type = Segment::All;
            } else if (body.size() >= 3 && body.substr(0, 2) == "?(" && body.back() == ')') {
                s.type = Segment::Filter;
                if (!parseFilter(body.substr(2, body.size() - 3), s)) return std::nullopt;
            } else if (body.size() >= 2 && (body.front() == '\'' || body.front() == '"') && body.back() == body.front()) {
                s.field = std::string(body.substr(1, body.size() - 2));
            } else if (auto colon = body.find(':'); colon != std::string_view::npos) {
                s.type = Segment::Slice;
                auto a = body.substr(0, colon), b = body.substr(colon + 1);
                int64_t v = 0;
                if (!a.empty()) {
                    if (!parseInt(a, v)) return std::nullopt;
                    s.start = v;
                }
                if (!b.empty()) {
                    if (!parseInt(b, v)) return std::nullopt;
                    s.end = v;
                }
            } else {
                s.type = Segment::Index;
                if (!parseInt(body, s.start)) return std::nullopt;
            }
            segs.push_back(std::move(s));
            i = j + 1;
        } else {
            return std::nullopt;
        }
    }
    return segs;
}

void evalSegments(const json::value& v, const std::vector<Segment>& segs, size_t at, std::vector<json::value>& out);

bool filterMatches(const json::value& item, const Segment& s) {
    std::vector<json::value> found;
    auto segs = parsePath(s.path);
    if (!segs) return false;
    evalSegments(item, *segs, 0, found);
    if (s.op.empty()) return !found.empty();
    bool equal = !found.empty() && found.front() == s.literal;
    return s.op == "==" ? equal : !equal;
}

void evalSegments(const json::value& v, const std::vector<Segment>& segs, size_t at, std::vector<json::value>& out) {
    if (at == segs.size()) {
        out.push_back(v);
        return;
    }
    auto const& s = segs[at];
    auto next = [&](const json::value& x) { evalSegments(x, segs, at + 1, out); };
    switch (s.type) {
        case Segment::Field:
            if (auto const* m = member(v, s.field)) next(*m);
            return;
        case Segment::All:
            if (auto const* a = v.if_array())
                for (auto const& x : *a) next(x);
            if (auto const* o = v.if_object())
                for (auto const& kv : *o) next(kv.value());
            return;
        case Segment::Index:
        case Segment::Slice: {
            auto const* a = v.if_array();
            if (!a) return;
            auto n = static_cast<int64_t>(a->size());
            auto norm = [n](int64_t i) { return std::clamp(i < 0 ? i + n : i, int64_t{0}, n); };
            if (s.type == Segment::Index) {
                int64_t i = s.start < 0 ? s.start + n : s.start;
                if (i >= 0 && i < n) next((*a)[static_cast<size_t>(i)]);
                return;
            }
            for (int64_t i = norm(s.start), e = s.end ? norm(*s.end) : n; i < e; ++i) next((*a)[static_cast<size_t>(i)]);
            return;
        }
        case Segment::Filter:
            if (auto const* a = v.if_array())
                for (auto const& x : *a)
                    if (filterMatches(x, s)) next(x);
            return;
    }
}

}  // namespace

std::optional<std::vector<json::value>> tryEvalJsonPath(const json::value& obj, std::string_view jsonPath) {
    auto segs = parsePath(jsonPath);
    if (!segs) return std::nullopt;
    std::vector<json::value> out;
    evalSegments(obj, *segs, 0, out);
    return out;
}

std::vector<json::value> evalJsonPath(const json::value& obj, std::string_view jsonPath) {
    return tryEvalJsonPath(obj, jsonPath).value_or(std::vector<json::value>{});
}

bool isJsonPath(std::string_view jsonPath) { return parsePath(jsonPath).has_value(); }

}  // namespace trainer::core
