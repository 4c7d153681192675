// The meta.k8s.io/v1 Table the API server answers with for
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` (kubectl get): column definitions and
// one row of typed cells per object, as k8s.io/apiserver/pkg/endpoints/handlers/response.go
// (asTable) and the resource's table convertor build it.
#pragma once

#include "core/apiserver/printers.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::apiserver {

namespace json = boost::json;

using TableColumn = trainer::core::PrinterColumn;

// The includeObject query parameter: what each row's `object` holds.
enum class IncludeObject {
    None,      // null
    Metadata,  // a meta.k8s.io/v1 PartialObjectMetadata {kind, apiVersion, metadata}
    Object,    // the whole object
};

// "" and "Metadata" (the default), "None", "Object"; anything else: nullopt and `error` is the
// 400 BadRequest message `unrecognized includeObject value: "<v>"`.
std::optional<IncludeObject> parseIncludeObject(std::string_view text, std::string& error);

// The columns the API server prints for a resource: a built-in kind's printer columns (the
// default Name / Created At when it has none); a custom resource's additionalPrinterColumns of
// the served version after Name (Name / Age when there are none; columns after the first with a
// jsonPath that does not parse are dropped, as upstream falls back).
std::vector<TableColumn> tableColumns(std::string_view kind, bool builtinKind, const json::array& additionalPrinterColumns);

// The additionalPrinterColumns of a CustomResourceDefinition object's `version` (empty when the
// version has none or is not there).
json::array crdPrinterColumns(const json::object& crd, std::string_view version);

// The Table of `objects` (a list's items in order, or the one object of a get): metadata
// {resourceVersion, continue} (each only when non-empty), columnDefinitions (null when
// `withHeaders` is false, as with TableOptions.noHeaders), rows {cells, conditions (pods that
// completed), object}. Cells are typed ("date" cells of custom resources are ages like "5m",
// computed from `now`).
json::object buildTable(const std::vector<json::object>& objects, const std::vector<TableColumn>& columns,
                        IncludeObject includeObject, std::string_view resourceVersion, std::string_view continueToken,
                        std::chrono::system_clock::time_point now, bool withHeaders = true);

}  // namespace trainer::core::apiserver
