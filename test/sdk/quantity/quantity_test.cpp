#define BOOST_TEST_MODULE sdk_quantity
#include <boost/test/unit_test.hpp>

#include <trainer/quantity.hpp>

#include <string>
#include <vector>

using trainer::sdk::Quantity;
namespace json = boost::json;

namespace {
struct ParseCase {
    std::string in;
    long long milli;       // expected value in milli-units
    std::string canonical; // expected toString()
};
Quantity q(std::string_view s) {
    auto r = Quantity::parse(s);
    BOOST_TEST_REQUIRE(r.has_value(), "parse failed: " << s);
    return *r;
}
}  // namespace

BOOST_AUTO_TEST_CASE(parses_every_kubernetes_form) {
    const std::vector<ParseCase> cases = {
        {"0", 0, "0"},
        {"1", 1000, "1"},
        {"+1", 1000, "1"},
        {"1.5", 1500, "1500m"},
        {"2500m", 2500, "2500m"},
        {"0.7", 700, "700m"},
        {".5", 500, "500m"},
        {"5.", 5000, "5"},
        {"100n", 1, "100n"},     // milli rounds up
        {"250u", 1, "250u"},
        {"1e3", 1000000, "1000"},
        {"1E3", 1000000, "1000"},
        {"1e-3", 1, "1m"},
        {"1.5e+2", 150000, "150"},
        {"2k", 2000000, "2000"},
        {"3M", 3000000000LL, "3000000"},
        {"1G", 1000000000000LL, "1000000000"},
        {"1E", 0, ""},  // checked separately (milli overflows long long)
        {"1E10", 10000000000000LL, "10000000000"},  // E followed by digits is an exponent
        {"2Ki", 2048000, "2Ki"},
        {"1Mi", 1048576000LL, "1Mi"},
        {"2.5Gi", 2684354560000LL, "2560Mi"},
        {"1.5Gi", 1610612736000LL, "1536Mi"},
        {"512Ki", 524288000LL, "512Ki"},
        {"0.5Ki", 512000, "512"},
        {"-1", -1000, "-1"},
        {"-2500m", -2500, "-2500m"},
        {"-2Gi", -2147483648000LL, "-2Gi"},
        {"0Gi", 0, "0"},
        {"0.0000000001", 1, "1n"},  // below 1n rounds up
        {"1000.000", 1000000, "1000"},
        {"007", 7000, "7"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT("input " << c.in) {
            auto v = q(c.in);
            if (c.in == "1E") {
                BOOST_TEST(v.ceilToInt() == 1000000000000000000LL);
                BOOST_TEST(v.toString() == "1000000000000000000");
                continue;
            }
            BOOST_TEST(v.milliValue() == c.milli);
            BOOST_TEST(v.toString() == c.canonical);
            // The canonical form parses back to the same value, and prints as itself (the Info
            // builder passes a canonical list on as it is: core/runtime/info_builder.cpp `added`).
            BOOST_TEST((q(v.toString()) == v));
            BOOST_TEST(q(v.toString()).toString() == v.toString());
        }
    }
}

BOOST_AUTO_TEST_CASE(rejects_invalid_strings) {
    const std::vector<std::string> bad = {
        "", " ", "1 ", " 1", "+", "-", ".", "abc", "1.1.1", "1+1", "--1", "1KI", "1K", "1ki", "1mi",
        "0.1mi", "1i", "1e", "1e+", "1e-", "1e3.5", "1ee3", "Gi", "1Gib", "1.5.Gi", "1,5", "0x10",
        "1e1000000", "99999999999999999999999999999999999999999", "1E+", "e3", "1e3e",
    };
    for (auto const& s : bad) BOOST_TEST(!Quantity::parse(s).has_value(), "accepted invalid: '" << s << "'");
}

BOOST_AUTO_TEST_CASE(from_json_accepts_strings_and_numbers) {
    BOOST_TEST(Quantity::fromJson(json::value("2Gi"))->toString() == "2Gi");
    BOOST_TEST(Quantity::fromJson(json::value(4))->toString() == "4");
    BOOST_TEST(Quantity::fromJson(json::value(2.5))->toString() == "2500m");
    BOOST_TEST(Quantity::fromJson(json::value(uint64_t{3}))->toString() == "3");
    BOOST_TEST(!Quantity::fromJson(json::value(true)).has_value());
    BOOST_TEST(!Quantity::fromJson(json::value(nullptr)).has_value());
    BOOST_TEST(!Quantity::fromJson(json::value(json::object{})).has_value());
    BOOST_TEST(!Quantity::fromJson(json::value("x")).has_value());
}

BOOST_AUTO_TEST_CASE(ceil_to_int_follows_torch_examples) {
    // 4->4, 2500m->3, 2.5->3, 0.7->1: rounded up as upstream's getNumCPUPerNode does
    // (https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/torch/torch.go)
    const std::vector<std::pair<std::string, long long>> cases = {
        {"4", 4}, {"2500m", 3}, {"2.5", 3}, {"0.7", 1}, {"0", 0}, {"1n", 1}, {"-1.5", -1}, {"2Ki", 2048}, {"1e3", 1000},
    };
    for (auto const& [in, want] : cases) BOOST_TEST(q(in).ceilToInt() == want, in);
}

BOOST_AUTO_TEST_CASE(arithmetic_is_exact_and_keeps_binary_suffixes) {
    struct Case {
        std::string a, b;
        std::string sum;
    };
    const std::vector<Case> sums = {
        {"1", "2", "3"},
        {"500m", "1500m", "2"},
        {"0.1", "0.2", "300m"},  // exact, no binary floating point
        {"1Gi", "1Gi", "2Gi"},
        {"1Gi", "512Mi", "1536Mi"},
        {"1Gi", "1G", "2073741824"},  // mixed -> decimal
        {"100n", "900n", "1u"},
        {"1", "-1", "0"},
    };
    for (auto const& c : sums) BOOST_TEST(q(c.a).add(q(c.b)).toString() == c.sum, c.a << " + " << c.b);

    BOOST_TEST(q("2Gi").multiply(2).toString() == "4Gi");
    BOOST_TEST(q("1500m").multiply(3).toString() == "4500m");
    BOOST_TEST(q("1").multiply(100).toString() == "100");
    BOOST_TEST(q("512Mi").multiply(100).toString() == "50Gi");
    BOOST_TEST(q("0.5").multiply(0).toString() == "0");
    BOOST_TEST(Quantity().add(q("2Gi")).toString() == "2Gi");  // unformatted zero is neutral
    BOOST_TEST(Quantity::fromInt(3).toString() == "3");
    // Saturates instead of overflowing.
    BOOST_TEST(q("1E").multiply(INT64_MAX).ceilToInt() == INT64_MAX);
}

BOOST_AUTO_TEST_CASE(compares_by_value) {
    BOOST_TEST((q("1250m") == q("1.25")));
    BOOST_TEST((q("2560Mi") == q("2.5Gi")));
    BOOST_TEST((q("1k") == q("1e3")));
    BOOST_TEST((q("999m") < q("1")));
    BOOST_TEST((q("1Ki") > q("1k")));
    BOOST_TEST((q("-1") < q("0")));
    BOOST_TEST(Quantity::max(q("1"), q("2")).toString() == "2");
}

BOOST_AUTO_TEST_CASE(resource_lists) {
    json::object a{{"cpu", "1"}, {"memory", "1Gi"}};
    json::object b{{"cpu", "500m"}, {"nvidia.com/gpu", 2}};
    auto sum = trainer::sdk::addResourceLists(a, b);
    BOOST_TEST_REQUIRE(sum.has_value());
    BOOST_TEST(json::serialize(*sum) == R"({"cpu":"1500m","memory":"1Gi","nvidia.com/gpu":"2"})");

    auto mx = trainer::sdk::maxResourceLists(a, json::object{{"cpu", "2"}, {"memory", "512Mi"}});
    BOOST_TEST_REQUIRE(mx.has_value());
    BOOST_TEST(json::serialize(*mx) == R"({"cpu":"2","memory":"1Gi"})");

    auto scaled = trainer::sdk::scaleResourceList(a, 100);
    BOOST_TEST_REQUIRE(scaled.has_value());
    BOOST_TEST(json::serialize(*scaled) == R"({"cpu":"100","memory":"100Gi"})");

    auto merged = trainer::sdk::mergeResourceList(a, json::object{{"cpu", "4"}, {"ephemeral-storage", "1G"}});
    BOOST_TEST(json::serialize(merged) == R"({"cpu":"4","memory":"1Gi","ephemeral-storage":"1G"})");

    json::object bad{{"cpu", "lots"}};
    BOOST_TEST(!trainer::sdk::addResourceLists(a, bad).has_value());
    BOOST_TEST(!trainer::sdk::addResourceLists(bad, a).has_value());
    BOOST_TEST(!trainer::sdk::maxResourceLists(a, bad).has_value());
    BOOST_TEST(!trainer::sdk::scaleResourceList(bad, 2).has_value());
    BOOST_TEST(*trainer::sdk::invalidResourceKey(bad) == "cpu");
    BOOST_TEST(!trainer::sdk::invalidResourceKey(a).has_value());
    BOOST_TEST(trainer::sdk::addResourceLists({}, {})->empty());
    // Every value comes out canonical, whichever side it came from; a bad value anywhere in
    // either list spoils the whole.
    auto canonical = trainer::sdk::addResourceLists(json::object{{"cpu", "1000m"}}, json::object{{"memory", "1024Mi"}});
    BOOST_TEST_REQUIRE(canonical.has_value());
    BOOST_TEST(json::serialize(*canonical) == R"({"cpu":"1","memory":"1Gi"})");
    json::object lateBad{{"cpu", "1"}, {"memory", "many"}};
    BOOST_TEST(!trainer::sdk::addResourceLists(a, lateBad).has_value());
    BOOST_TEST(!trainer::sdk::maxResourceLists(lateBad, a).has_value());
}
