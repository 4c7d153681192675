// Errors as values with field paths, aggregated like upstream's field.ErrorList.
#pragma once

#include <string>
#include <vector>

namespace trainer::core {

// Mirrors k8s.io/apimachinery field.ErrorType, so messages read like an API server's.
enum class ErrorType { Invalid, Required, Forbidden, NotSupported, Duplicate, TooLong, TooMany, TypeInvalid, Internal };

// One problem at one field path ("spec.trainer.env[0].name"). `message` is the detail only.
struct FieldError {
    std::string path;
    std::string message;
    ErrorType type = ErrorType::Invalid;
    // Where it came from when several inputs are involved ("file.yaml: TrainJob default/x"), or empty.
    std::string origin;
};

struct Warning {
    std::string path;
    std::string message;
    std::string origin;
};

using ErrorList = std::vector<FieldError>;
using WarningList = std::vector<Warning>;

// Everything a validation or build step reports.
struct Diagnostics {
    ErrorList errors;
    WarningList warnings;
    bool ok() const { return errors.empty(); }
    void add(std::string path, std::string message, ErrorType type = ErrorType::Invalid) {
        errors.push_back(FieldError{std::move(path), std::move(message), type, {}});
    }
    void warn(std::string path, std::string message) {
        warnings.push_back(Warning{std::move(path), std::move(message), {}});
    }
    void append(const Diagnostics& other) {
        errors.insert(errors.end(), other.errors.begin(), other.errors.end());
        warnings.insert(warnings.end(), other.warnings.begin(), other.warnings.end());
    }
};

// "error: <path>: <message>" as the CLI prints it (path omitted when empty).
inline std::string formatError(const FieldError& e) {
    std::string s = "error: ";
    if (!e.origin.empty()) s += e.origin + ": ";
    if (!e.path.empty()) s += e.path + ": ";
    return s + e.message;
}
inline std::string formatWarning(const Warning& w) {
    std::string s = "warning: ";
    if (!w.origin.empty()) s += w.origin + ": ";
    if (!w.path.empty()) s += w.path + ": ";
    return s + w.message;
}

}  // namespace trainer::core
