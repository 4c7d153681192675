#define BOOST_TEST_MODULE core_log_test
#include <boost/test/unit_test.hpp>

#include "core/log/log.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <sstream>
#include <thread>

namespace lg = trainer::core::log;
namespace json = boost::json;

namespace {

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        if (!l.empty()) out.push_back(l);
    return out;
}

std::shared_ptr<std::ostringstream> capture(lg::Level level, lg::Encoder encoder = lg::Encoder::Json) {
    auto out = std::make_shared<std::ostringstream>();
    lg::init(lg::Options{level, encoder, out});
    return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    for (;;) {
        auto next = s.find(sep, pos);
        out.push_back(s.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
        if (next == std::string::npos) return out;
        pos = next + 1;
    }
}

}  // namespace

// Must run first: before init() only warnings and errors are written.
BOOST_AUTO_TEST_CASE(default_level_before_init_is_warn) {
    BOOST_TEST(!lg::enabled(lg::Level::Debug));
    BOOST_TEST(!lg::enabled(lg::Level::Info));
    BOOST_TEST(lg::enabled(lg::Level::Warn));
    BOOST_TEST(lg::enabled(lg::Level::Error));
}

BOOST_AUTO_TEST_CASE(json_line_has_zap_keys_and_fields) {
    auto out = capture(lg::Level::Info);
    auto epoch = [] { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); };
    double before = epoch();
    lg::Logger logger("loader");
    unsigned line = __LINE__ + 1;
    logger.info("plugin loaded", {{"plugin", "x"}, {"priority", 10}, {"threadSafe", true}, {"ratio", 0.5}});
    double after = epoch();
    auto got = lines(out->str());
    BOOST_TEST_REQUIRE(got.size() == 1u);
    auto v = json::parse(got[0]).as_object();
    BOOST_TEST(v.at("level").as_string() == "info");
    BOOST_TEST_REQUIRE(v.at("ts").is_double());
    // Epoch seconds of the moment the line was logged: between the reads taken around the call
    // (an order, not a window; 1 µs for the six printed decimals).
    BOOST_TEST(v.at("ts").as_double() >= before - 1e-6);
    BOOST_TEST(v.at("ts").as_double() <= after + 1e-6);
    BOOST_TEST(v.at("logger").as_string() == "loader");
    BOOST_TEST(std::string(v.at("caller").as_string()) == "log/log_test.cpp:" + std::to_string(line));
    BOOST_TEST(v.at("msg").as_string() == "plugin loaded");
    BOOST_TEST(v.at("plugin").as_string() == "x");
    BOOST_TEST(v.at("priority").to_number<int>() == 10);
    BOOST_TEST(v.at("threadSafe").as_bool());
    BOOST_TEST(v.at("ratio").as_double() == 0.5);
    // zap's key order: level, ts, logger, caller, msg, then fields.
    std::vector<std::string> keys;
    for (const auto& kv : v) keys.emplace_back(kv.key());
    std::vector<std::string> want{"level", "ts", "logger", "caller", "msg", "plugin", "priority", "threadSafe", "ratio"};
    BOOST_TEST(keys == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(with_values_and_name_carry_reconcile_keys) {
    auto out = capture(lg::Level::Debug);
    auto reconciler = lg::Logger("controller")
                          .withName("trainjob")
                          .withValues({{"controller", "trainjob_controller"}, {"reconcileID", "abc-123"}});
    reconciler.debug("reconciling", {{"trainJob", "default/mnist"}});
    auto got = lines(out->str());
    BOOST_TEST_REQUIRE(got.size() == 1u);
    auto v = json::parse(got[0]).as_object();
    BOOST_TEST(v.at("level").as_string() == "debug");
    BOOST_TEST(v.at("logger").as_string() == "controller.trainjob");
    BOOST_TEST(v.at("controller").as_string() == "trainjob_controller");
    BOOST_TEST(v.at("reconcileID").as_string() == "abc-123");
    BOOST_TEST(v.at("trainJob").as_string() == "default/mnist");
}

BOOST_AUTO_TEST_CASE(reserved_keys_and_special_characters_stay_valid_json) {
    auto out = capture(lg::Level::Info);
    lg::Logger("x").info("quote \" backslash \\ newline \n tab \t", {{"msg", "shadow"}, {"level", "shadow"}});
    auto got = lines(out->str());
    BOOST_TEST_REQUIRE(got.size() == 1u);
    auto v = json::parse(got[0]).as_object();
    BOOST_TEST(v.at("msg").as_string() == "quote \" backslash \\ newline \n tab \t");
    BOOST_TEST(v.at("level").as_string() == "info");
    BOOST_TEST(v.at("msg_").as_string() == "shadow");
    BOOST_TEST(v.at("level_").as_string() == "shadow");
}

// A line's fields are written as Boost.JSON serialises the object the logger's and the call's
// fields make together (a key given twice: its first place, its last value), but for DEL, which
// a string escapes (core/json/io.hpp's appendJsonString): every value kind, every byte an escape
// may need, both encoders.
BOOST_AUTO_TEST_CASE(fields_read_as_boost_json_writes_them) {
    std::string everyByte;  // every ASCII byte but DEL, and UTF-8 beyond (written as itself)
    for (int c = 1; c < 127; ++c) everyByte += static_cast<char>(c);
    everyByte += "\xe2\x98\x83 \xf0\x9f\x9a\x80";
    json::array list{1, "two", nullptr, json::object{{"k", 3.25}}};
    lg::Fields fixed{{"kept", "first"}, {"twice", "old"}, {"ts", 7}};
    lg::Fields call{{"text", everyByte}, {"negative", std::int64_t{-9223372036854775807LL - 1}},
                    {"huge", std::uint64_t{18446744073709551615ULL}}, {"real", 1.0 / 3}, {"tiny", 5e-324},
                    {"yes", true}, {"no", false}, {"none", json::value(nullptr)}, {"list", json::value(list)},
                    {"twice", "new"}, {"", "empty key"}, {"caller", "\u2603 \xe2\x98\x83"}};
    json::object want;
    for (const auto* fields : {&fixed, &call})
        for (auto const& f : *fields) {
            std::string key = f.key;
            for (std::string_view r : {"level", "ts", "logger", "caller", "msg"})
                if (key == r) key += '_';
            want[key] = f.value;
        }
    std::string pairs = json::serialize(want);
    pairs = pairs.substr(1, pairs.size() - 2) + ",\"del\":\"a\\u007fb\"";  // without the braces
    call.emplace_back("del", "a\x7f" "b");
    for (auto encoder : {lg::Encoder::Json, lg::Encoder::Console}) {
        auto out = capture(lg::Level::Info, encoder);
        lg::Logger("x", fixed).info("fields", call);
        auto got = lines(out->str());
        BOOST_TEST_REQUIRE(got.size() == 1u);
        const std::string tail = encoder == lg::Encoder::Json ? "," + pairs + "}" : "\t{" + pairs + "}";
        BOOST_TEST_REQUIRE(got[0].size() > tail.size());
        BOOST_TEST(got[0].substr(got[0].size() - tail.size()) == tail);
        if (encoder == lg::Encoder::Json) {
            auto v = json::parse(got[0]).as_object();
            BOOST_TEST(v.at("text").as_string() == everyByte);
            BOOST_TEST(v.at("twice").as_string() == "new");
        }
    }
}

struct LevelCase {
    lg::Level configured;
    std::vector<std::string> written;
};

BOOST_AUTO_TEST_CASE(level_filters_lines) {
    const std::vector<LevelCase> cases{
        {lg::Level::Debug, {"debug", "info", "warn", "error"}},
        {lg::Level::Info, {"info", "warn", "error"}},
        {lg::Level::Warn, {"warn", "error"}},
        {lg::Level::Error, {"error"}},
    };
    for (const auto& c : cases) {
        auto out = capture(c.configured);
        lg::Logger l("t");
        l.debug("d");
        l.info("i");
        l.warn("w");
        l.error("e");
        std::vector<std::string> levels;
        for (const auto& line : lines(out->str())) levels.emplace_back(json::parse(line).at("level").as_string());
        BOOST_TEST(levels == c.written, boost::test_tools::per_element());
    }
}

BOOST_AUTO_TEST_CASE(parse_level_table) {
    const std::vector<std::pair<std::string, std::optional<lg::Level>>> cases{
        {"debug", lg::Level::Debug}, {"info", lg::Level::Info},   {"warn", lg::Level::Warn},
        {"error", lg::Level::Error}, {"-1", lg::Level::Debug},    {"0", lg::Level::Info},
        {"1", lg::Level::Debug},     {"5", lg::Level::Debug},     {"-3", lg::Level::Debug},
        {"panic", lg::Level::Error}, {"bogus", std::nullopt},     {"", std::nullopt},
        {"1x", std::nullopt},        {"warning", lg::Level::Warn},
    };
    for (const auto& [text, want] : cases) {
        BOOST_TEST_CONTEXT("level " << text) { BOOST_TEST((lg::parseLevel(text) == want)); }
    }
}

BOOST_AUTO_TEST_CASE(apply_flag_table) {
    struct Case {
        std::string name, value;
        bool ok;
        lg::Level level;
        lg::Encoder encoder;
    };
    const std::vector<Case> cases{
        {"--zap-log-level", "debug", true, lg::Level::Debug, lg::Encoder::Json},
        {"zap-log-level", "error", true, lg::Level::Error, lg::Encoder::Json},
        {"--zap-encoder", "console", true, lg::Level::Info, lg::Encoder::Console},
        {"--zap-devel", "", true, lg::Level::Debug, lg::Encoder::Console},
        {"--zap-devel", "false", true, lg::Level::Info, lg::Encoder::Json},
        {"--zap-encoder", "xml", false, lg::Level::Info, lg::Encoder::Json},
        {"--zap-log-level", "loud", false, lg::Level::Info, lg::Encoder::Json},
        {"--zap-stacktrace-level", "error", false, lg::Level::Info, lg::Encoder::Json},
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT(c.name << "=" << c.value) {
            lg::Options o;
            auto err = lg::applyFlag(o, c.name, c.value);
            BOOST_TEST(err.empty() == c.ok);
            BOOST_TEST((o.level == c.level));
            BOOST_TEST((o.encoder == c.encoder));
        }
    }
}

BOOST_AUTO_TEST_CASE(console_encoder_is_tab_separated) {
    auto out = capture(lg::Level::Info, lg::Encoder::Console);
    lg::Logger("webhook").warn("certificate reload failed", {{"error", "bad pem"}});
    auto got = lines(out->str());
    BOOST_TEST_REQUIRE(got.size() == 1u);
    auto cols = split(got[0], '\t');
    BOOST_TEST_REQUIRE(cols.size() == 6u);
    BOOST_TEST(cols[0].size() == 24u);  // 2026-01-02T03:04:05.678Z
    BOOST_TEST(cols[0].back() == 'Z');
    BOOST_TEST(cols[1] == "WARN");
    BOOST_TEST(cols[2] == "webhook");
    BOOST_TEST(cols[3].starts_with("log/log_test.cpp:"));
    BOOST_TEST(cols[4] == "certificate reload failed");
    BOOST_TEST(json::parse(cols[5]).at("error").as_string() == "bad pem");
}

BOOST_AUTO_TEST_CASE(macro_records_file_and_line) {
    auto out = capture(lg::Level::Info);
    lg::Logger l("m");
    unsigned line = __LINE__ + 1;
    TRAINER_LOG(l, Error, "boom", {"k", "v"});
    auto v = json::parse(lines(out->str()).at(0)).as_object();
    BOOST_TEST(std::string(v.at("caller").as_string()) == "log/log_test.cpp:" + std::to_string(line));
    BOOST_TEST(v.at("level").as_string() == "error");
    BOOST_TEST(v.at("k").as_string() == "v");
}

BOOST_AUTO_TEST_CASE(concurrent_lines_never_interleave) {
    auto out = capture(lg::Level::Info);
    constexpr int kThreads = 8, kLines = 200;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([t] {
            lg::Logger l("worker", {{"thread", t}});
            for (int i = 0; i < kLines; ++i) l.info("line", {{"i", i}, {"payload", std::string(100, 'x')}});
        });
    for (auto& t : threads) t.join();
    auto got = lines(out->str());
    BOOST_TEST(got.size() == static_cast<std::size_t>(kThreads * kLines));
    std::size_t parsed = 0;
    for (const auto& l : got) {
        boost::system::error_code ec;
        auto v = json::parse(l, ec);
        if (!ec && v.is_object() && v.as_object().contains("thread")) ++parsed;
    }
    BOOST_TEST(parsed == got.size());
}
