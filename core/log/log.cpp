#include "core/log/log.hpp"

#include "core/log/fd_line_stream.hpp"

#include <boost/core/null_deleter.hpp>
#include <boost/json.hpp>
#include <boost/log/attributes/value_extraction.hpp>
#include <boost/log/core.hpp>
#include <boost/log/sinks/sync_frontend.hpp>
#include <boost/log/sinks/text_ostream_backend.hpp>
#include <boost/log/sources/logger.hpp>
#include <boost/log/sources/record_ostream.hpp>

#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <ctime>
#include <mutex>

namespace trainer::core::log {
namespace {

namespace bl = boost::log;
namespace json = boost::json;
using Sink = bl::sinks::synchronous_sink<bl::sinks::text_ostream_backend>;

struct LevelName {
    Level level;
    std::string_view lower;
    std::string_view upper;
};
constexpr std::array<LevelName, 4> kLevels{{
    {Level::Debug, "debug", "DEBUG"},
    {Level::Info, "info", "INFO"},
    {Level::Warn, "warn", "WARN"},
    {Level::Error, "error", "ERROR"},
}};
// Accepted spellings beyond the four names (zap's levels above error have no meaning here).
constexpr std::array<std::pair<std::string_view, Level>, 4> kLevelAliases{{
    {"warning", Level::Warn}, {"dpanic", Level::Error}, {"panic", Level::Error}, {"fatal", Level::Error},
}};
// Keys every line owns; a field with one of these names is written as "<key>_".
constexpr std::array<std::string_view, 5> kReserved{"level", "ts", "logger", "caller", "msg"};

struct State {
    std::mutex mu;
    boost::shared_ptr<Sink> sink;
    std::atomic<int> level{static_cast<int>(Level::Warn)};
    std::atomic<int> encoder{static_cast<int>(Encoder::Console)};
};

State& state() {
    static State s;
    return s;
}

bl::sources::logger_mt& source() {
    static bl::sources::logger_mt lg;
    return lg;
}

const LevelName& nameOf(int level) {
    for (const auto& l : kLevels)
        if (static_cast<int>(l.level) == level) return l;
    return level < 0 ? kLevels.front() : kLevels.back();
}

std::string quoted(std::string_view s) { return json::serialize(json::string(s)); }

std::string shortCaller(const std::string& file, unsigned line) {
    if (file.empty()) return {};
    auto last = file.rfind('/');
    auto prev = last == std::string::npos || last == 0 ? std::string::npos : file.rfind('/', last - 1);
    std::string shortFile = prev == std::string::npos ? file : file.substr(prev + 1);
    return shortFile + ":" + std::to_string(line);
}

std::string epochSeconds(double ts) {
    std::array<char, 64> buf{};
    auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), ts, std::chars_format::fixed, 6);
    return ec == std::errc() ? std::string(buf.data(), end) : std::string("0");
}

std::string isoTime(double ts) {
    auto secs = static_cast<std::time_t>(ts);
    auto millis = static_cast<int>((ts - static_cast<double>(secs)) * 1000.0);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
    return buf.data();
}

bool reserved(std::string_view key) {
    for (auto k : kReserved)
        if (k == key) return true;
    return false;
}

// Fields as `"k":v` pairs, comma-separated, no braces.
std::string fieldPairs(const json::object& fields) {
    std::string out;
    for (const auto& kv : fields) {
        if (!out.empty()) out += ',';
        std::string key(kv.key());
        if (reserved(key)) key += '_';
        out += quoted(key) + ":" + json::serialize(kv.value());
    }
    return out;
}

// One line in the configured encoding. Made by the logging thread, so that the record carries
// one string (the sink only writes it): a record of attributes extracted again at the sink cost
// more than the line itself (issue 14 P4: ~8 us a line in the controller's worker).
std::string formatLine(int level, double ts, const std::string& logger, const std::string& caller,
                       const json::object& fields, std::string_view msg) {
    const auto& name = nameOf(level);
    if (state().encoder.load() == static_cast<int>(Encoder::Console)) {
        std::string line = isoTime(ts) + "\t" + std::string(name.upper);
        if (!logger.empty()) line += "\t" + logger;
        if (!caller.empty()) line += "\t" + caller;
        (line += "\t") += msg;
        if (!fields.empty()) line += "\t{" + fieldPairs(fields) + "}";
        return line;
    }
    std::string line = "{\"level\":" + quoted(name.lower) + ",\"ts\":" + epochSeconds(ts);
    if (!logger.empty()) line += ",\"logger\":" + quoted(logger);
    if (!caller.empty()) line += ",\"caller\":" + quoted(caller);
    line += ",\"msg\":" + quoted(msg);
    if (!fields.empty()) line += "," + fieldPairs(fields);
    line += '}';
    return line;
}

// The sink's formatter: the record's message is the whole line (formatLine).
void formatRecord(const bl::record_view& rec, bl::formatting_ostream& os) {
    if (auto line = bl::extract<std::string>("Message", rec)) os << *line;
}

// Installs a sink for `opts`, replacing ours (caller holds the state mutex).
void installLocked(State& s, const Options& opts) {
    auto backend = boost::make_shared<bl::sinks::text_ostream_backend>();
    if (opts.stream)
        backend->add_stream(boost::shared_ptr<std::ostream>(opts.stream.get(), [keep = opts.stream](std::ostream*) {}));
    else
        backend->add_stream(boost::shared_ptr<std::ostream>(&stderrLines(), boost::null_deleter()));
    backend->auto_flush(true);
    auto sink = boost::make_shared<Sink>(backend);
    sink->set_formatter(&formatRecord);
    auto core = bl::core::get();
    if (s.sink) core->remove_sink(s.sink);
    core->add_sink(sink);
    s.sink = sink;
    s.level.store(static_cast<int>(opts.level));
    s.encoder.store(static_cast<int>(opts.encoder));
}

void ensureDefault() {
    static std::once_flag once;
    std::call_once(once, [] {
        auto& s = state();
        std::lock_guard lock(s.mu);
        if (!s.sink) installLocked(s, Options{Level::Warn, Encoder::Console, nullptr});
    });
}

std::optional<bool> parseBool(std::string_view v) {
    if (v.empty() || v == "true" || v == "1" || v == "t" || v == "True" || v == "TRUE") return true;
    if (v == "false" || v == "0" || v == "f" || v == "False" || v == "FALSE") return false;
    return std::nullopt;
}

}  // namespace

std::optional<Level> parseLevel(std::string_view text) {
    for (const auto& l : kLevels)
        if (l.lower == text || l.upper == text) return l.level;
    for (const auto& [alias, level] : kLevelAliases)
        if (alias == text) return level;
    int n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    if (n > 0 || n <= -1) return Level::Debug;  // V(n) and zap's negative levels: debug
    return Level::Info;
}

std::optional<Encoder> parseEncoder(std::string_view text) {
    if (text == "json") return Encoder::Json;
    if (text == "console") return Encoder::Console;
    return std::nullopt;
}

std::string applyFlag(Options& opts, std::string_view name, std::string_view value) {
    while (!name.empty() && name.front() == '-') name.remove_prefix(1);
    if (name == "zap-log-level") {
        auto l = parseLevel(value);
        if (!l) return "invalid value \"" + std::string(value) + "\" for --zap-log-level: want debug, info, warn, error or an integer";
        opts.level = *l;
        return {};
    }
    if (name == "zap-encoder") {
        auto e = parseEncoder(value);
        if (!e) return "invalid value \"" + std::string(value) + "\" for --zap-encoder: want json or console";
        opts.encoder = *e;
        return {};
    }
    if (name == "zap-devel") {
        auto b = parseBool(value);
        if (!b) return "invalid value \"" + std::string(value) + "\" for --zap-devel: want true or false";
        if (*b) {
            opts.encoder = Encoder::Console;
            opts.level = Level::Debug;
        }
        return {};
    }
    return "unknown logging flag --" + std::string(name);
}

std::string_view levelName(Level level) { return nameOf(static_cast<int>(level)).lower; }

void init(const Options& opts) {
    ensureDefault();
    auto& s = state();
    std::lock_guard lock(s.mu);
    installLocked(s, opts);
}

bool enabled(Level level) {
    ensureDefault();
    return static_cast<int>(level) >= state().level.load();
}

Logger::Logger(std::string name, Fields fields) : name_(std::move(name)), fields_(std::move(fields)) {}

Logger Logger::withValues(Fields fields) const {
    Fields all = fields_;
    all.insert(all.end(), std::make_move_iterator(fields.begin()), std::make_move_iterator(fields.end()));
    return Logger(name_, std::move(all));
}

Logger Logger::withName(std::string_view suffix) const {
    return Logger(name_.empty() ? std::string(suffix) : name_ + "." + std::string(suffix), fields_);
}

void Logger::log(Level level, std::string_view msg, const Fields& fields, Caller caller) const {
    if (!enabled(level)) return;
    try {
        json::object all;
        for (const auto* list : {&fields_, &fields})
            for (const auto& f : *list) all[f.key] = f.value;
        double ts = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        auto& lg = source();
        BOOST_LOG(lg) << formatLine(static_cast<int>(level), ts, name_, shortCaller(std::string(caller.file), caller.line),
                                    all, msg);
    } catch (...) {
        // Logging never takes the process down.
    }
}

void Logger::debug(std::string_view msg, const Fields& fields, std::source_location loc) const {
    log(Level::Debug, msg, fields, Caller{loc.file_name(), loc.line()});
}
void Logger::info(std::string_view msg, const Fields& fields, std::source_location loc) const {
    log(Level::Info, msg, fields, Caller{loc.file_name(), loc.line()});
}
void Logger::warn(std::string_view msg, const Fields& fields, std::source_location loc) const {
    log(Level::Warn, msg, fields, Caller{loc.file_name(), loc.line()});
}
void Logger::error(std::string_view msg, const Fields& fields, std::source_location loc) const {
    log(Level::Error, msg, fields, Caller{loc.file_name(), loc.line()});
}

}  // namespace trainer::core::log
