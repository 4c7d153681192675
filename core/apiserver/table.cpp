#include "core/apiserver/table.hpp"

#include "core/apiserver/json_path.hpp"
#include "core/apiserver/label_validation.hpp"

namespace trainer::core::apiserver {

namespace {

std::string kindOf(const json::object& o) {
    auto const* k = o.if_contains("kind");
    return k && k->is_string() ? std::string(k->as_string()) : std::string();
}

json::value rowObject(const json::object& obj, IncludeObject include) {
    switch (include) {
        case IncludeObject::None: return nullptr;
        case IncludeObject::Object: return obj;
        case IncludeObject::Metadata: break;
    }
    auto const* m = obj.if_contains("metadata");
    return json::object{{"kind", "PartialObjectMetadata"},
                        {"apiVersion", "meta.k8s.io/v1"},
                        {"metadata", m && m->is_object() ? *m : json::value(json::object())}};
}

json::object row(const json::object& obj, const std::vector<TableColumn>& columns, IncludeObject include,
                 std::chrono::system_clock::time_point now) {
    json::array cells;
    for (auto const& c : columns) cells.push_back(c.cell ? c.cell(obj, now) : json::value(nullptr));
    json::object r{{"cells", std::move(cells)}};
    if (auto conditions = rowConditions(kindOf(obj), obj); !conditions.empty()) r["conditions"] = std::move(conditions);
    r["object"] = rowObject(obj, include);
    return r;
}

}  // namespace

std::optional<IncludeObject> parseIncludeObject(std::string_view text, std::string& error) {
    if (text.empty() || text == "Metadata") return IncludeObject::Metadata;
    if (text == "None") return IncludeObject::None;
    if (text == "Object") return IncludeObject::Object;
    error = "unrecognized includeObject value: " + goQuote(text);
    return std::nullopt;
}

std::vector<TableColumn> tableColumns(std::string_view kind, bool builtinKind, const json::array& additionalPrinterColumns) {
    if (builtinKind) return builtinPrinterColumns(kind).value_or(defaultBuiltinColumns());
    auto columns = defaultCustomResourceColumns();
    if (additionalPrinterColumns.empty()) return columns;
    columns.resize(1);  // Name
    for (auto const& def : additionalPrinterColumns) {
        auto column = def.is_object() ? crdColumn(def.as_object()) : std::nullopt;
        if (!column) break;
        columns.push_back(std::move(*column));
    }
    return columns;
}

json::array crdPrinterColumns(const json::object& crd, std::string_view version) {
    for (auto const& v : evalJsonPath(json::value(crd), ".spec.versions[*]")) {
        auto const* o = v.if_object();
        auto const* name = o ? o->if_contains("name") : nullptr;
        if (!name || !name->is_string() || name->as_string() != version) continue;
        auto const* cols = o->if_contains("additionalPrinterColumns");
        return cols && cols->is_array() ? cols->as_array() : json::array();
    }
    return {};
}

json::object buildTable(const std::vector<json::object>& objects, const std::vector<TableColumn>& columns,
                        IncludeObject includeObject, std::string_view resourceVersion, std::string_view continueToken,
                        std::chrono::system_clock::time_point now, bool withHeaders) {
    json::object metadata;
    if (!resourceVersion.empty()) metadata["resourceVersion"] = resourceVersion;
    if (!continueToken.empty()) metadata["continue"] = continueToken;
    json::value definitions = nullptr;
    if (withHeaders) {
        json::array defs;
        for (auto const& c : columns) defs.push_back(columnDefinition(c));
        definitions = std::move(defs);
    }
    json::array rows;
    for (auto const& o : objects) rows.push_back(row(o, columns, includeObject, now));
    return {{"kind", "Table"},
            {"apiVersion", "meta.k8s.io/v1"},
            {"metadata", std::move(metadata)},
            {"columnDefinitions", std::move(definitions)},
            {"rows", std::move(rows)}};
}

}  // namespace trainer::core::apiserver
