// Printer columns as the API server defines them (metav1.TableColumnDefinition plus how to compute
// a cell) and kubectl-like tables for `get`: built-in columns of the core kinds as
// kubernetes/pkg/printers/internalversion/printers.go defines them, the default "Name / Created
// At" of built-in kinds without printer (k8s.io/apiserver/pkg/registry/rest/table.go), columns of
// a CRD's additionalPrinterColumns as the apiextensions-apiserver table convertor computes them
// (k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor), `NAME AGE` otherwise.
#pragma once

#include "core/apiserver/json_path.hpp"

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

// One table column: its definition (names as upstream sends them, "Name", "Data", "Age";
// kubectl upper-cases them) and how to compute a cell.
struct PrinterColumn {
    std::string name;
    std::string type = "string";  // string | integer | number | boolean | date
    std::string format;           // "name" for the object's name column
    std::string description;
    int priority = 0;  // > 0: shown only with -o wide
    // A typed cell: a string, an integer, a number, a bool, or null (printed empty).
    std::function<json::value(const json::object&, std::chrono::system_clock::time_point now)> cell;
};

// The metav1.TableColumnDefinition object {name, type, format, description, priority}.
json::object columnDefinition(const PrinterColumn& column);

// A cell as text, as the CLI prints it: strings bare, null empty, numbers like Go's %v.
std::string cellText(const json::value& cell);

// A column read by a JSONPath as the CRD table convertor reads it (".status.x",
// ".status.conditions[?(@.type==\"Completed\")].status", "[-1:]", "[0]", "[*]"): the first match;
// type "string" prints it (scalars bare, objects and arrays as JSON), "integer"/"number"/"boolean"
// keep a value of that type, "date" prints the age of an RFC 3339 string ("<invalid>" when it is
// not one); anything else, or no match, is null.
PrinterColumn jsonPathColumn(std::string name, std::string_view jsonPath, std::string_view type = "string",
                             int priority = 0);

// One additionalPrinterColumns entry {name, type, format, description, priority, jsonPath} as a
// column (description defaulted as upstream does); nullopt when the jsonPath does not parse.
std::optional<PrinterColumn> crdColumn(const json::object& columnDefinition);

// The columns of a CustomResourceDefinition object: {spec.names.kind, Name + its
// additionalPrinterColumns} for its storage (else first) version; nullopt when it has none.
std::optional<std::pair<std::string, std::vector<PrinterColumn>>> printerColumnsFromCrd(const json::object& crd);

// Columns of the built-in kinds the API server prints (Namespace, Pod, Service, Secret,
// ConfigMap, Event, ServiceAccount, Lease, PriorityClass, RuntimeClass, Job; LimitRange and
// CustomResourceDefinition use defaultBuiltinColumns); nullopt for other kinds.
std::optional<std::vector<PrinterColumn>> builtinPrinterColumns(std::string_view kind);

// What the API server prints for a built-in kind without a printer: Name and "Created At"
// (type date, the creation time in RFC 3339 form, not an age).
std::vector<PrinterColumn> defaultBuiltinColumns();

// What the API server prints for a custom resource without additionalPrinterColumns: Name and
// Age (a date column over .metadata.creationTimestamp).
std::vector<PrinterColumn> defaultCustomResourceColumns();

// The metav1.TableRowCondition list of a row (a Succeeded or Failed pod is Completed); empty
// for other kinds and objects.
json::array rowConditions(std::string_view kind, const json::object& obj);

// Sets the full columns (Name included, as printerColumnsFromCrd returns them) printTable uses
// for `kind`, replacing earlier ones; kinds with built-in columns keep theirs.
void registerPrinterColumns(std::string kind, std::vector<PrinterColumn> columns);

// Age like kubectl (`45s`, `3m20s`, `5h`, `2d`, `<invalid>` for the future).
std::string humanDuration(std::chrono::system_clock::duration d);

// The table `kubectl get` prints for `objects` of `kind` (sorted by namespace and name; a
// NAMESPACE column first when they span namespaces); "" for no objects. TrainJob keeps the CLI's
// own columns (STATE, SUSPENDED, AGE, RUNTIME with -o wide).
std::string printTable(const std::vector<json::object>& objects, std::string_view kind, bool wide,
                       std::chrono::system_clock::time_point now);
// The same with explicit columns (Name is not added).
std::string printTable(const std::vector<json::object>& objects, const std::vector<PrinterColumn>& columns, bool wide,
                       std::chrono::system_clock::time_point now);

}  // namespace trainer::core
