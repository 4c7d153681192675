// The Info's text across a build's phases (core/plugin/info_text.hpp): whatever edits change,
// add or remove, the text is byte for byte json::serialize of the document (and parses back to it), and
// with the edits that EditLedger reports (its `touched` member) too.
#define BOOST_TEST_MODULE test_core_plugin_info_text
#include <boost/test/unit_test.hpp>

#include "core/plugin/edits.hpp"
#include "core/plugin/info_text.hpp"

#include <random>
#include <span>
#include <string>

using namespace trainer::core;

namespace {

json::value randomValue(std::mt19937& rng, int depth) {
    switch (rng() % (depth > 0 ? 6 : 4)) {
    case 0: return nullptr;
    case 1: return static_cast<std::int64_t>(rng() % 100);
    case 2: return rng() % 3 == 0 ? 0.25 : 1e21;
    case 3: return json::string(rng() % 2 ? "x\"y" : "caf\xc3\xa9");
    case 4: {
        json::array a;
        for (unsigned i = rng() % 3; i > 0; --i) a.push_back(randomValue(rng, depth - 1));
        return a;
    }
    default: {
        json::object o;
        for (unsigned i = rng() % 3; i > 0; --i) o["k" + std::to_string(rng() % 5)] = randomValue(rng, depth - 1);
        return o;
    }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_text_follows_every_kind_of_change) {
    std::mt19937 rng(14);
    for (int doc = 0; doc < 200; ++doc) {
        json::object info;
        for (int i = 0; i < 6; ++i) info["m" + std::to_string(i)] = randomValue(rng, 3);
        InfoText text;
        BOOST_REQUIRE_EQUAL(text.of(info), json::serialize(info));
        for (int step = 0; step < 12; ++step) {
            const std::string key = "m" + std::to_string(rng() % 8);  // m6, m7: added
            switch (rng() % 4) {
            case 0: info[key] = randomValue(rng, 3); break;                           // set or add
            case 1: info.erase(key); break;                                           // remove
            case 2:                                                                   // inside
                if (auto* v = info.if_contains(key); v && v->is_object()) (*v).as_object()["in"] = 1;
                else info[key] = json::array{1, 2};
                break;
            default: break;  // no change: the text stays
            }
            text.touched(key);
            BOOST_REQUIRE_EQUAL(text.of(info), json::serialize(info));
            BOOST_REQUIRE_EQUAL(text.of(info), json::serialize(info));  // again, unchanged
            BOOST_REQUIRE(json::parse(text.of(info)) == info);
        }
    }
}

// A member no edit touched keeps its text: a change the InfoText is not told of does not show,
// which is what spares the build re-serialising the members its phases leave alone.
BOOST_AUTO_TEST_CASE(an_untouched_member_is_not_serialised_again) {
    json::object info{{"trainJob", {{"name", "a"}}}, {"podSets", json::array{}}};
    InfoText text;
    (void)text.of(info);
    info["trainJob"].as_object()["name"] = "b";
    info["podSets"].as_array().push_back(1);
    text.touched("podSets");
    BOOST_TEST(text.of(info) == R"({"trainJob":{"name":"a"},"podSets":[1]})");
}

// With EditLedger's report of what each edit changed, as Framework::build uses it.
BOOST_AUTO_TEST_CASE(the_ledger_reports_the_member_each_edit_changes) {
    json::object info = json::parse(R"({"trainJob":{"spec":{}},"podSets":[{"name":"node","env":[]}],
        "jobSetSpec":{"replicatedJobs":[]}})").as_object();
    InfoText text;
    (void)text.of(info);
    EditLedger ledger;
    const char* edits[] = {
        R"({"op":"set","path":"/podSets/node/count","value":4})",
        R"({"op":"set","path":"/jobSetSpec/network","value":{"enableDNSHostnames":true}})",
        R"({"op":"remove","path":"/jobSetSpec/network"})",
        R"({"op":"remove","path":"/jobSetSpec/absent"})",
    };
    for (const char* e : edits) {
        std::string member;
        BOOST_REQUIRE_EQUAL(ledger.apply(info, "p", e, &member), "");
        if (!member.empty()) text.touched(member);
        BOOST_TEST(text.of(info) == json::serialize(info), e);
    }
    std::string member = "unchanged";
    BOOST_REQUIRE_EQUAL(ledger.apply(info, "p", R"({"op":"remove","path":"/jobSetSpec/absent/x"})", &member), "");
    BOOST_TEST(member == "unchanged");  // no parent, nothing removed, nothing reported
    BOOST_TEST(ledger.apply(info, "p", R"({"op":"set","path":"/operator/x","value":1})", &member) != "");
    BOOST_TEST(member == "unchanged");  // refused
}

namespace {

// Each place names its member and holds json::serialize of its value, in document order.
void checkPlaces(const std::string& text, std::span<const MemberPlace> places, const json::object& o) {
    BOOST_REQUIRE_EQUAL(places.size(), o.size());
    std::size_t i = 0;
    for (auto const& kv : o) {
        const MemberPlace& p = places[i++];
        BOOST_TEST(text.substr(p.keyAt, p.keySize) == std::string(kv.key()));
        BOOST_TEST(text.substr(p.valueAt, p.valueSize) == json::serialize(kv.value()));
    }
}

}  // namespace

// Where each member lies (the index the host offers plugins, member_place.hpp), through edits,
// and in indexedText, which writes what json::serialize writes.
BOOST_AUTO_TEST_CASE(places_point_at_each_name_and_value) {
    std::mt19937 rng(15);
    for (int doc = 0; doc < 200; ++doc) {
        json::object info;
        for (int i = 0; i < 6; ++i) info["m" + std::to_string(i)] = randomValue(rng, 3);
        InfoText text;
        const std::string& first = text.of(info);  // before places(): they are of the last text
        checkPlaces(first, text.places(), info);
        for (int step = 0; step < 6; ++step) {
            const std::string key = "m" + std::to_string(rng() % 8);
            if (rng() % 3 == 0) info.erase(key);
            else info[key] = randomValue(rng, 3);
            text.touched(key);
            const std::string& now = text.of(info);
            checkPlaces(now, text.places(), info);
        }
        const HookInput in = indexedText(info);
        BOOST_REQUIRE_EQUAL(in.text, json::serialize(info));
        checkPlaces(in.text, in.places, info);
    }
}

// A name json::serialize escapes is not indexed (plugins then scan the text); the text is
// json::serialize's whatever byte a name holds.
BOOST_AUTO_TEST_CASE(a_name_that_needs_escaping_is_not_indexed) {
    for (int c = 0; c < 256; ++c) {
        const std::string odd = std::string("a") + static_cast<char>(c) + "b";
        const json::object info{{"trainJob", 1}, {odd, json::array{1}}};
        InfoText text;
        BOOST_REQUIRE_EQUAL(text.of(info), json::serialize(info));
        const HookInput in = indexedText(info);
        BOOST_REQUIRE_EQUAL(in.text, json::serialize(info));
        const bool escaped = c < 0x20 || c == '"' || c == '\\';
        BOOST_TEST(text.places().empty() == escaped, "byte " << c);
        BOOST_TEST(in.places.empty() == escaped, "byte " << c);
    }
}
