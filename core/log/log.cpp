#include "core/log/log.hpp"

#include "core/log/fd_line_stream.hpp"

#include "core/json/io.hpp"

#include <boost/core/null_deleter.hpp>
#include <boost/json.hpp>
#include <boost/log/attributes/value_extraction.hpp>
#include <boost/log/core.hpp>
#include <boost/log/sinks/sync_frontend.hpp>
#include <boost/log/sinks/text_ostream_backend.hpp>
#include <boost/log/sources/logger.hpp>
#include <boost/log/sources/record_ostream.hpp>

#include <algorithm>
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

// `v` as JSON: strings as appendJsonString writes them, other scalars as json::serialize does,
// doubles and containers by json::serialize itself.
void appendValue(std::string& out, const json::value& v) {
    std::array<char, 24> buf{};
    switch (v.kind()) {
        case json::kind::string: return appendJsonString(out, v.get_string());
        case json::kind::int64: out.append(buf.data(), std::to_chars(buf.data(), buf.data() + buf.size(), v.get_int64()).ptr); return;
        case json::kind::uint64: out.append(buf.data(), std::to_chars(buf.data(), buf.data() + buf.size(), v.get_uint64()).ptr); return;
        case json::kind::bool_: out += v.get_bool() ? "true" : "false"; return;
        case json::kind::null: out += "null"; return;
        default: out += json::serialize(v);
    }
}

// "dir/file.cpp:line" (the file's last two path parts), appended to `out`.
void appendCaller(std::string& out, std::string_view file, unsigned line) {
    auto last = file.rfind('/');
    auto prev = last == std::string_view::npos || last == 0 ? std::string_view::npos : file.rfind('/', last - 1);
    out += prev == std::string_view::npos ? file : file.substr(prev + 1);
    out += ':';
    std::array<char, 12> buf{};
    out.append(buf.data(), std::to_chars(buf.data(), buf.data() + buf.size(), line).ptr);
}

void appendEpochSeconds(std::string& out, double ts) {
    std::array<char, 64> buf{};
    auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), ts, std::chars_format::fixed, 6);
    if (ec == std::errc()) out.append(buf.data(), end);
    else out += '0';
}

void appendIsoTime(std::string& out, double ts) {
    auto secs = static_cast<std::time_t>(ts);
    auto millis = static_cast<int>((ts - static_cast<double>(secs)) * 1000.0);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    std::array<char, 64> buf{};
    int n = std::snprintf(buf.data(), buf.size(), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                          tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
    out.append(buf.data(), static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(buf.size()) - 1)));
}

bool reserved(std::string_view key) {
    for (auto k : kReserved)
        if (k == key) return true;
    return false;
}

// A line's fields: the logger's, then the call's; a key given twice keeps its first place and
// its last value (as assigning both into one JSON object would).
using LineFields = std::vector<std::pair<std::string_view, const json::value*>>;
LineFields lineFields(const Fields& fixed, const Fields& call) {
    LineFields out;
    out.reserve(fixed.size() + call.size());
    for (const auto* list : {&fixed, &call})
        for (const auto& f : *list) {
            auto it = std::find_if(out.begin(), out.end(), [&](auto const& e) { return e.first == f.key; });
            if (it != out.end()) it->second = &f.value;
            else out.emplace_back(f.key, &f.value);
        }
    return out;
}

// Fields as `"k":v` pairs, comma-separated, no braces; a reserved key is written "<key>_".
void appendFieldPairs(std::string& out, const LineFields& fields) {
    bool first = true;
    for (const auto& [key, value] : fields) {
        if (!first) out += ',';
        first = false;
        if (reserved(key)) appendJsonString(out, std::string(key) + "_");
        else appendJsonString(out, key);
        out += ':';
        appendValue(out, *value);
    }
}

// One line in the configured encoding. Made by the logging thread, so that the record carries
// one string (the sink only writes it): a record of attributes extracted again at the sink cost
// more than the line itself (issue 14 P4: ~8 us a line in the controller's worker). Written in
// place: a line of seven fields cost the controller ~26 k instructions when each part was a
// string of its own and the fields a JSON object (issue 14 P4).
std::string formatLine(int level, double ts, std::string_view logger, Caller caller, const LineFields& fields,
                       std::string_view msg) {
    const auto& name = nameOf(level);
    std::string line;
    line.reserve(160 + msg.size());
    if (state().encoder.load() == static_cast<int>(Encoder::Console)) {
        appendIsoTime(line, ts);
        (line += '\t') += name.upper;
        if (!logger.empty()) (line += '\t') += logger;
        if (!caller.file.empty()) appendCaller(line += '\t', caller.file, caller.line);
        (line += '\t') += msg;
        if (!fields.empty()) {
            line += "\t{";
            appendFieldPairs(line, fields);
            line += '}';
        }
        return line;
    }
    line += "{\"level\":";
    appendJsonString(line, name.lower);
    line += ",\"ts\":";
    appendEpochSeconds(line, ts);
    if (!logger.empty()) appendJsonString(line += ",\"logger\":", logger);
    if (!caller.file.empty()) {
        std::string where;
        appendCaller(where, caller.file, caller.line);
        appendJsonString(line += ",\"caller\":", where);
    }
    appendJsonString(line += ",\"msg\":", msg);
    if (!fields.empty()) appendFieldPairs(line += ',', fields);
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
        double ts = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        auto& lg = source();
        BOOST_LOG(lg) << formatLine(static_cast<int>(level), ts, name_, caller, lineFields(fields_, fields), msg);
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
