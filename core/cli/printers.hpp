// kubectl-like tables for `get`: built-in columns for core kinds, columns registered for
// others (from a CRD's additionalPrinterColumns or by a caller), `NAME AGE` otherwise.
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::core {

namespace json = boost::json;

// One table column: its header (printed upper-case) and how to compute a cell.
struct PrinterColumn {
    std::string name;
    std::function<std::string(const json::object&, std::chrono::system_clock::time_point now)> cell;
    // Shown only with -o wide (a CRD column with priority > 0).
    bool wide = false;
};

// A column read by a JSONPath as additionalPrinterColumns write it (".status.x",
// ".status.conditions[?(@.type==\"Completed\")].status", "[-1:]", "[0]", "[*]"); type "date"
// prints an age. Missing values print as empty cells.
PrinterColumn jsonPathColumn(std::string name, std::string_view jsonPath, std::string_view type = "string",
                             bool wide = false);

// Values at `jsonPath` in `obj` (empty when absent or the path is malformed).
std::vector<json::value> evalJsonPath(const json::value& obj, std::string_view jsonPath);

// The columns of a CustomResourceDefinition object: {spec.names.kind, NAME + its
// additionalPrinterColumns} for its storage (else first) version; nullopt when it has none.
std::optional<std::pair<std::string, std::vector<PrinterColumn>>> printerColumnsFromCrd(const json::object& crd);

// Sets the full columns (NAME included, as printerColumnsFromCrd returns them) printTable uses
// for `kind`, replacing earlier ones; kinds with built-in columns (TrainJob, Event, ConfigMap,
// Secret) keep theirs.
void registerPrinterColumns(std::string kind, std::vector<PrinterColumn> columns);

// Age like kubectl (`45s`, `3m20s`, `5h`, `2d`, `<invalid>` for the future).
std::string humanDuration(std::chrono::system_clock::duration d);

// The table `kubectl get` prints for `objects` of `kind` (sorted by namespace and name; a
// NAMESPACE column first when they span namespaces); "" for no objects.
std::string printTable(const std::vector<json::object>& objects, std::string_view kind, bool wide,
                       std::chrono::system_clock::time_point now);
// The same with explicit columns (NAME is not added).
std::string printTable(const std::vector<json::object>& objects, const std::vector<PrinterColumn>& columns, bool wide,
                       std::chrono::system_clock::time_point now);

}  // namespace trainer::core
