// Structured logging through Boost.Log with zap's keys (level, ts, logger, caller, msg + fields),
// one JSON object per line (or zap's tab-separated console form). Thread-safe.
// Before init(): warn level, console encoder on stderr, so CLI commands stay quiet.
#pragma once

#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <ostream>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace trainer::core::log {

// zap's numbering (same as TRN_LOG_*): lower is more verbose.
enum class Level : int { Debug = -1, Info = 0, Warn = 1, Error = 2 };

enum class Encoder { Json, Console };

struct Options {
    Level level = Level::Info;
    Encoder encoder = Encoder::Json;
    // Where lines go; null = stderr.
    std::shared_ptr<std::ostream> stream;
};

// One extra key/value on a line ({"plugin", "example"}, {"attempt", 3}).
struct Field {
    Field(std::string k, boost::json::value v) : key(std::move(k)), value(std::move(v)) {}
    Field(std::string k, const std::string& v) : key(std::move(k)), value(v) {}
    Field(std::string k, std::string_view v) : key(std::move(k)), value(v) {}
    Field(std::string k, const char* v) : key(std::move(k)), value(v ? v : "") {}
    template <class T>
        requires std::is_arithmetic_v<T>
    Field(std::string k, T v) : key(std::move(k)), value(v) {}
    std::string key;
    boost::json::value value;
};
using Fields = std::vector<Field>;

// "file:line" attached to a line as `caller`.
struct Caller {
    std::string_view file;
    unsigned line = 0;
};

// Parses `debug|info|warn|error` (also dpanic|panic|fatal → error) or an integer: negative and 0
// use zap's numbering (-1 debug); a positive N is controller-runtime's verbosity V(N) → debug.
std::optional<Level> parseLevel(std::string_view text);
// Parses `json|console`.
std::optional<Encoder> parseEncoder(std::string_view text);
// Applies one controller-runtime flag (`zap-log-level`, `zap-encoder`, `zap-devel`; leading dashes
// optional) to `opts`. Returns an error message, empty on success; unknown names are an error.
std::string applyFlag(Options& opts, std::string_view name, std::string_view value);
// "debug" / "info" / "warn" / "error".
std::string_view levelName(Level level);

// Replaces the sink with one built from `opts` (may be called again, e.g. by tests).
void init(const Options& opts);
// True when a line at `level` would be written.
bool enabled(Level level);

// A named logger with fixed fields (`logger` key); cheap to copy.
class Logger {
public:
    explicit Logger(std::string name = "", Fields fields = {});
    // A logger with more fixed fields (logr's WithValues).
    Logger withValues(Fields fields) const;
    // A logger named "<name>.<suffix>" (logr's WithName).
    Logger withName(std::string_view suffix) const;
    const std::string& name() const { return name_; }

    void log(Level level, std::string_view msg, const Fields& fields, Caller caller) const;
    void debug(std::string_view msg, const Fields& fields = {},
               std::source_location loc = std::source_location::current()) const;
    void info(std::string_view msg, const Fields& fields = {},
              std::source_location loc = std::source_location::current()) const;
    void warn(std::string_view msg, const Fields& fields = {},
              std::source_location loc = std::source_location::current()) const;
    void error(std::string_view msg, const Fields& fields = {},
               std::source_location loc = std::source_location::current()) const;

private:
    std::string name_;
    Fields fields_;
};

}  // namespace trainer::core::log

// Logs with an explicit __FILE__/__LINE__ caller: TRAINER_LOG(lg, Info, "msg", {{"k", "v"}}).
#define TRAINER_LOG(logger, level, msg, ...) \
    (logger).log(::trainer::core::log::Level::level, (msg), ::trainer::core::log::Fields{__VA_ARGS__}, \
                 ::trainer::core::log::Caller{__FILE__, static_cast<unsigned>(__LINE__)})
