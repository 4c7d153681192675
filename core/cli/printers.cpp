#include "core/cli/printers.hpp"

#include "core/store/store.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <mutex>
#include <set>

namespace trainer::core {

namespace {

using Clock = std::chrono::system_clock;

const json::value* member(const json::value& v, std::string_view k) {
    auto const* o = v.if_object();
    return o ? o->if_contains(k) : nullptr;
}

std::string lower(std::string_view s) {
    std::string out;
    for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string upper(std::string_view s) {
    std::string out;
    for (char c : s) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

// A value as a table cell: strings bare, everything else as JSON.
std::string cellText(const json::value& v) {
    if (v.is_string()) return std::string(v.as_string());
    if (v.is_null()) return "";
    return json::serialize(v);
}

std::string ageOf(const json::value* ts, Clock::time_point now) {
    if (!ts || !ts->is_string()) return "<unknown>";
    auto t = parseRfc3339(ts->as_string());
    return t ? humanDuration(now - *t) : "<unknown>";
}

std::string stringAt(const json::object& o, std::string_view path) {
    auto values = evalJsonPath(o, path);
    return values.empty() ? std::string() : cellText(values.front());
}

// ---- JSONPath subset ----

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

// ---- built-in columns ----

PrinterColumn nameColumn() {
    return {"NAME", [](const json::object& o, Clock::time_point) { return stringAt(o, ".metadata.name"); }, false};
}

PrinterColumn ageColumn(std::string header = "AGE") {
    return {std::move(header),
            [](const json::object& o, Clock::time_point now) {
                auto const* m = o.if_contains("metadata");
                return ageOf(m ? member(*m, "creationTimestamp") : nullptr, now);
            },
            false};
}

std::string countKeys(const json::object& o, std::initializer_list<std::string_view> keys) {
    size_t n = 0;
    for (auto k : keys)
        if (auto const* m = o.if_contains(k); m && m->is_object()) n += m->as_object().size();
    return std::to_string(n);
}

std::vector<PrinterColumn> trainJobColumns() {
    return {
        nameColumn(),
        {"STATE",
         [](const json::object& o, Clock::time_point) {
             std::string state;
             for (auto const& c : evalJsonPath(o, ".status.conditions[?(@.status==\"True\")].type")) state = cellText(c);
             return state;
         },
         false},
        {"SUSPENDED",
         [](const json::object& o, Clock::time_point) {
             auto v = evalJsonPath(o, ".spec.suspend");
             return v.empty() || v.front().is_null() ? std::string("false") : cellText(v.front());
         },
         false},
        ageColumn(),
        {"RUNTIME", [](const json::object& o, Clock::time_point) { return stringAt(o, ".spec.runtimeRef.name"); }, true},
    };
}

std::vector<PrinterColumn> eventColumns() {
    return {
        {"LAST SEEN",
         [](const json::object& o, Clock::time_point now) {
             for (auto path : {".lastTimestamp", ".eventTime", ".metadata.creationTimestamp"}) {
                 auto v = evalJsonPath(o, path);
                 if (!v.empty() && v.front().is_string()) return ageOf(&v.front(), now);
             }
             return std::string("<unknown>");
         },
         false},
        {"TYPE", [](const json::object& o, Clock::time_point) { return stringAt(o, ".type"); }, false},
        {"REASON", [](const json::object& o, Clock::time_point) { return stringAt(o, ".reason"); }, false},
        {"OBJECT",
         [](const json::object& o, Clock::time_point) {
             return lower(stringAt(o, ".involvedObject.kind")) + "/" + stringAt(o, ".involvedObject.name");
         },
         false},
        {"MESSAGE", [](const json::object& o, Clock::time_point) { return stringAt(o, ".message"); }, false},
    };
}

std::vector<PrinterColumn> configMapColumns() {
    return {nameColumn(),
            {"DATA", [](const json::object& o, Clock::time_point) { return countKeys(o, {"data", "binaryData"}); }, false},
            ageColumn()};
}

std::vector<PrinterColumn> secretColumns() {
    return {nameColumn(),
            {"TYPE", [](const json::object& o, Clock::time_point) { return stringAt(o, ".type"); }, false},
            {"DATA", [](const json::object& o, Clock::time_point) { return countKeys(o, {"data", "stringData"}); }, false},
            ageColumn()};
}

// Columns of kinds the core defines; they win over registered ones.
const std::map<std::string, std::vector<PrinterColumn>>& builtinColumns() {
    static const std::map<std::string, std::vector<PrinterColumn>> table{
        {"trainjob", trainJobColumns()},
        {"event", eventColumns()},
        {"configmap", configMapColumns()},
        {"secret", secretColumns()},
    };
    return table;
}

struct Registry {
    std::mutex mutex;
    std::map<std::string, std::vector<PrinterColumn>> columns;
};

Registry& registry() {
    static Registry r;
    return r;
}

size_t displayWidth(std::string_view s) {
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string metaString(const json::object& o, std::string_view k) {
    auto const* m = o.if_contains("metadata");
    auto const* v = m ? member(*m, k) : nullptr;
    return (v && v->is_string()) ? std::string(v->as_string()) : std::string();
}

}  // namespace

std::vector<json::value> evalJsonPath(const json::value& obj, std::string_view jsonPath) {
    std::vector<json::value> out;
    auto segs = parsePath(jsonPath);
    if (segs) evalSegments(obj, *segs, 0, out);
    return out;
}

PrinterColumn jsonPathColumn(std::string name, std::string_view jsonPath, std::string_view type, bool wide) {
    std::string path(jsonPath);
    if (type == "date")
        return {std::move(name),
                [path](const json::object& o, Clock::time_point now) {
                    auto v = evalJsonPath(o, path);
                    return v.empty() ? std::string() : ageOf(&v.front(), now);
                },
                wide};
    return {std::move(name),
            [path](const json::object& o, Clock::time_point) {
                std::string s;
                for (auto const& v : evalJsonPath(o, path)) s += (s.empty() ? "" : ",") + cellText(v);
                return s;
            },
            wide};
}

std::optional<std::pair<std::string, std::vector<PrinterColumn>>> printerColumnsFromCrd(const json::object& crd) {
    json::value doc(crd);
    auto kind = evalJsonPath(doc, ".spec.names.kind");
    auto versions = evalJsonPath(doc, ".spec.versions[*]");
    if (kind.empty() || !kind.front().is_string() || versions.empty()) return std::nullopt;
    const json::value* chosen = &versions.front();
    for (auto const& v : versions)
        if (auto const* s = member(v, "storage"); s && s->is_bool() && s->as_bool()) chosen = &v;
    auto const* cols = member(*chosen, "additionalPrinterColumns");
    if (!cols || !cols->is_array() || cols->as_array().empty()) return std::nullopt;
    std::vector<PrinterColumn> out{nameColumn()};
    for (auto const& c : cols->as_array()) {
        auto const* name = member(c, "name");
        auto const* path = member(c, "jsonPath");
        if (!name || !name->is_string() || !path || !path->is_string()) continue;
        auto const* type = member(c, "type");
        auto const* priority = member(c, "priority");
        bool wide = priority && priority->is_number() && priority->to_number<double>() > 0;
        out.push_back(jsonPathColumn(std::string(name->as_string()), path->as_string(),
                                     type && type->is_string() ? std::string_view(type->as_string()) : "string", wide));
    }
    return std::make_pair(std::string(kind.front().as_string()), std::move(out));
}

void registerPrinterColumns(std::string kind, std::vector<PrinterColumn> columns) {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    r.columns[lower(kind)] = std::move(columns);
}

std::string humanDuration(Clock::duration d) {
    using namespace std::chrono;
    auto secs = duration_cast<seconds>(d).count();
    if (secs < -1) return "<invalid>";
    if (secs < 0) return "0s";
    if (secs < 60 * 2) return std::to_string(secs) + "s";
    auto mins = secs / 60;
    if (mins < 10) return std::to_string(mins) + "m" + (secs % 60 ? std::to_string(secs % 60) + "s" : "");
    if (mins < 60 * 3) return std::to_string(mins) + "m";
    auto hrs = mins / 60;
    if (hrs < 8) return std::to_string(hrs) + "h" + (mins % 60 ? std::to_string(mins % 60) + "m" : "");
    if (hrs < 48) return std::to_string(hrs) + "h";
    if (hrs < 24 * 8) return std::to_string(hrs / 24) + "d" + (hrs % 24 ? std::to_string(hrs % 24) + "h" : "");
    if (hrs < 24 * 365 * 2) return std::to_string(hrs / 24) + "d";
    auto days = hrs / 24;
    if (hrs < 24 * 365 * 8) return std::to_string(days / 365) + "y" + (days % 365 ? std::to_string(days % 365) + "d" : "");
    return std::to_string(days / 365) + "y";
}

std::string printTable(const std::vector<json::object>& objects, std::string_view kind, bool wide, Clock::time_point now) {
    auto k = lower(kind);
    if (auto it = builtinColumns().find(k); it != builtinColumns().end()) return printTable(objects, it->second, wide, now);
    {
        auto& r = registry();
        std::unique_lock lock(r.mutex);
        if (auto it = r.columns.find(k); it != r.columns.end()) {
            auto columns = it->second;
            lock.unlock();
            return printTable(objects, columns, wide, now);
        }
    }
    return printTable(objects, std::vector<PrinterColumn>{nameColumn(), ageColumn()}, wide, now);
}

std::string printTable(const std::vector<json::object>& objects, const std::vector<PrinterColumn>& columns, bool wide,
                       Clock::time_point now) {
    if (objects.empty()) return "";
    std::vector<const json::object*> sorted;
    std::set<std::string> namespaces;
    for (auto const& o : objects) {
        sorted.push_back(&o);
        namespaces.insert(metaString(o, "namespace"));
    }
    std::stable_sort(sorted.begin(), sorted.end(), [](const json::object* a, const json::object* b) {
        return std::pair(metaString(*a, "namespace"), metaString(*a, "name")) <
               std::pair(metaString(*b, "namespace"), metaString(*b, "name"));
    });
    std::vector<const PrinterColumn*> shown;
    for (auto const& c : columns)
        if (wide || !c.wide) shown.push_back(&c);
    bool withNamespace = namespaces.size() > 1;

    std::vector<std::vector<std::string>> rows(1);
    if (withNamespace) rows[0].push_back("NAMESPACE");
    for (auto const* c : shown) rows[0].push_back(upper(c->name));
    for (auto const* o : sorted) {
        auto& row = rows.emplace_back();
        if (withNamespace) row.push_back(metaString(*o, "namespace"));
        for (auto const* c : shown) {
            auto cell = c->cell ? c->cell(*o, now) : std::string();
            std::replace(cell.begin(), cell.end(), '\n', ' ');
            std::replace(cell.begin(), cell.end(), '\t', ' ');
            row.push_back(std::move(cell));
        }
    }
    // Like kubectl's tabwriter (minwidth 6, padding 3); the last column is not padded.
    size_t ncols = rows[0].size();
    std::vector<size_t> widths(ncols, 0);
    for (auto const& row : rows)
        for (size_t i = 0; i < ncols; ++i) widths[i] = std::max(widths[i], displayWidth(row[i]) + 3);
    std::string out;
    for (auto const& row : rows) {
        for (size_t i = 0; i < ncols; ++i) {
            out += row[i];
            if (i + 1 < ncols) out.append(std::max<size_t>(widths[i], 6) - displayWidth(row[i]), ' ');
        }
        out += '\n';
    }
    return out;
}

}  // namespace trainer::core
