#include "core/apiserver/printers.hpp"

#include "core/apiserver/json_path.hpp"
#include "core/store/store.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>

namespace trainer::core {

namespace {

using Clock = std::chrono::system_clock;

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

const json::value* member(const json::value& v, std::string_view k) {
    auto const* o = v.if_object();
    return o ? o->if_contains(k) : nullptr;
}

std::string stringAt(const json::object& o, std::string_view path) {
    auto values = evalJsonPath(o, path);
    return values.empty() ? std::string() : cellText(values.front());
}

// Go's %v of a float64: shortest digits, exponent form below 1e-4 and from 1e21 on.
std::string goFloat(double d) {
    char buf[64];
    auto sci = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view s(buf, static_cast<size_t>(sci.ptr - buf));
    int exp = 0;
    auto e = s.find('e');
    std::from_chars(s.data() + e + (s[e + 1] == '+' ? 2 : 1), s.data() + s.size(), exp);
    if (exp < -4 || exp >= 21) return std::string(s);
    auto fixed = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed);
    return std::string(buf, fixed.ptr);
}

// "integer" / "number" / "boolean" cells keep a value of that type, as cellForJSONValue does.
json::value typedCell(std::string_view type, const json::value& v) {
    if (type == "integer") {
        if (v.is_int64() || v.is_uint64()) return v;
        // Go's int64(f); outside int64's range (and for NaN) amd64 gives math.MinInt64.
        if (v.is_double())
            return std::fabs(v.as_double()) < 9223372036854775808.0 ? static_cast<int64_t>(v.as_double()) : INT64_MIN;
    } else if (type == "number") {
        if (v.is_number()) {
            double d = v.to_number<double>();
            if (d > -9.0e15 && d < 9.0e15 && d == static_cast<double>(static_cast<int64_t>(d))) return static_cast<int64_t>(d);
            return d;
        }
    } else if (type == "boolean") {
        if (v.is_bool()) return v;
    }
    return nullptr;
}

// A "date" cell: the age of an RFC 3339 string, "<unknown>" for "" or "null" (the zero time).
json::value dateCell(const json::value& v, Clock::time_point now) {
    if (!v.is_string()) return nullptr;
    if (v.as_string().empty() || v.as_string() == "null") return "<unknown>";
    auto t = parseRfc3339(v.as_string());
    return t ? json::value(humanDuration(now - *t)) : json::value("<invalid>");
}

// ---- columns of the CLI only ----

PrinterColumn nameColumn() {
    return {"Name", "string", "name", "", 0,
            [](const json::object& o, Clock::time_point) -> json::value { return json::string(stringAt(o, ".metadata.name")); }};
}

PrinterColumn ageColumn() {
    return {"Age", "string", "", "", 0, [](const json::object& o, Clock::time_point now) -> json::value {
                auto const* m = o.if_contains("metadata");
                auto const* ts = m ? member(*m, "creationTimestamp") : nullptr;
                auto t = ts && ts->is_string() ? parseRfc3339(ts->as_string()) : std::nullopt;
                return json::string(t ? humanDuration(now - *t) : "<unknown>");
            }};
}

PrinterColumn stringColumn(std::string name, std::string path, int priority = 0) {
    return {std::move(name), "string", "", "", priority,
            [path](const json::object& o, Clock::time_point) -> json::value { return json::string(stringAt(o, path)); }};
}

// `trainer-operator get trainjob`: the last true condition, not the CRD's `.status.conditions[-1:].type`.
std::vector<PrinterColumn> trainJobCliColumns() {
    PrinterColumn state{"State", "string", "", "", 0, [](const json::object& o, Clock::time_point) -> json::value {
                            std::string s;
                            for (auto const& c : evalJsonPath(o, ".status.conditions[?(@.status==\"True\")].type"))
                                s = cellText(c);
                            return json::string(s);
                        }};
    PrinterColumn suspended{"Suspended", "string", "", "", 0, [](const json::object& o, Clock::time_point) -> json::value {
                                auto v = evalJsonPath(o, ".spec.suspend");
                                return json::string(v.empty() || v.front().is_null() ? "false" : cellText(v.front()));
                            }};
    return {nameColumn(), std::move(state), std::move(suspended), ageColumn(), stringColumn("Runtime", ".spec.runtimeRef.name", 1)};
}

// Kinds whose CLI columns differ from what the API server prints.
const std::map<std::string, std::vector<PrinterColumn>>& cliColumns() {
    static const std::map<std::string, std::vector<PrinterColumn>> table{{"trainjob", trainJobCliColumns()}};
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

std::optional<std::vector<PrinterColumn>> registeredColumns(const std::string& kind) {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.columns.find(kind);
    return it == r.columns.end() ? std::nullopt : std::optional(it->second);
}

size_t displayWidth(std::string_view s) {
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string metaString(const json::object& o, std::string_view k) {
    auto const* m = o.if_contains("metadata");
    auto const* v = m ? member(*m, k) : nullptr;
    return (v && v->is_string()) ? std::string(v->as_string()) : std::string();
}

// Like kubectl's tabwriter (minwidth 6, padding 3); the last column is not padded.
std::string layout(const std::vector<std::vector<std::string>>& rows) {
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

}  // namespace

json::object columnDefinition(const PrinterColumn& c) {
    return {{"name", c.name}, {"type", c.type}, {"format", c.format}, {"description", c.description}, {"priority", c.priority}};
}

std::string cellText(const json::value& v) {
    switch (v.kind()) {
        case json::kind::string: return std::string(v.get_string());
        case json::kind::null: return "";
        case json::kind::double_: return goFloat(v.get_double());
        default: return json::serialize(v);
    }
}

PrinterColumn jsonPathColumn(std::string name, std::string_view jsonPath, std::string_view type, int priority) {
    std::string path(jsonPath), t(type);
    return {std::move(name), t, "", "", priority, [path, t](const json::object& o, Clock::time_point now) -> json::value {
                auto values = evalJsonPath(o, path);
                if (values.empty() || values.front().is_null()) return nullptr;
                auto const& v = values.front();
                if (t == "string") return json::string(cellText(v));
                if (t == "date") return dateCell(v, now);
                return typedCell(t, v);
            }};
}

std::optional<PrinterColumn> crdColumn(const json::object& def) {
    auto text = [&](std::string_view k) {
        auto const* v = def.if_contains(k);
        return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    std::string path = text("jsonPath");
    if (!isJsonPath("{" + path + "}")) return std::nullopt;
    auto const* priority = def.if_contains("priority");
    auto column = jsonPathColumn(text("name"), path, text("type"),
                                 priority && priority->is_number() ? priority->to_number<int>() : 0);
    column.format = text("format");
    column.description = text("description");
    if (column.description.empty()) column.description = "Custom resource definition column (in JSONPath format): " + path;
    return column;
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
        auto column = c.is_object() ? crdColumn(c.as_object()) : std::nullopt;
        if (!column) break;  // upstream keeps the columns before an unparseable one
        out.push_back(std::move(*column));
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
    if (auto it = cliColumns().find(k); it != cliColumns().end()) return printTable(objects, it->second, wide, now);
    if (auto columns = builtinPrinterColumns(kind)) return printTable(objects, *columns, wide, now);
    if (auto columns = registeredColumns(k)) return printTable(objects, *columns, wide, now);
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
        if (wide || c.priority == 0) shown.push_back(&c);
    bool withNamespace = namespaces.size() > 1;

    std::vector<std::vector<std::string>> rows(1);
    if (withNamespace) rows[0].push_back("NAMESPACE");
    for (auto const* c : shown) rows[0].push_back(upper(c->name));
    for (auto const* o : sorted) {
        auto& row = rows.emplace_back();
        if (withNamespace) row.push_back(metaString(*o, "namespace"));
        for (auto const* c : shown) {
            auto cell = c->cell ? cellText(c->cell(*o, now)) : std::string();
            std::replace(cell.begin(), cell.end(), '\n', ' ');
            std::replace(cell.begin(), cell.end(), '\t', ' ');
            row.push_back(std::move(cell));
        }
    }
    return layout(rows);
}

}  // namespace trainer::core
