// Each matcher of core/api/known_patterns.hpp against std::regex ECMAScript compiling the pattern it
// replaces (as core/api/schema.cpp compiles schema patterns), over hand-picked edge cases and
// strings generated from each pattern's alphabet; and schema validation still refusing what the
// patterns refuse.
#include <boost/test/unit_test.hpp>

#include "core/api/dns_names.hpp"
#include "core/api/known_patterns.hpp"
#include "core/api/schema.hpp"
#include "helpers.hpp"

#include <random>
#include <regex>
#include <string>
#include <vector>

using namespace trainer::core;

namespace {

// The CRD patterns, as the embedded schemas hold them (api/crd_schemas.cpp).
const char* kQuantity = R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";
const char* kLabelKey = R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$)";
const char* kIdentifiers = R"(^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$)";
const char* kUrl = R"(^[A-Za-z][A-Za-z0-9+.-]*://.+$)";
const char* kName = R"(^[a-z]([-a-z0-9]*[a-z0-9])?$)";

std::string anchored(const char* pattern) { return std::string("^(?:") + pattern + ")$"; }

// Strings of up to `maxLen` characters drawn from `alphabet` (weighted by repetition), plus the
// edge cases: every test string is checked against the regex, so a wrong matcher fails here.
std::vector<std::string> generated(const std::string& alphabet, std::vector<std::string> cases, int count = 20000,
                                   int maxLen = 9) {
    std::mt19937 rng(20261205);
    std::uniform_int_distribution<int> len(0, maxLen);
    std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
    for (int i = 0; i < count; ++i) {
        std::string s;
        for (int n = len(rng); n > 0; --n) s += alphabet[pick(rng)];
        cases.push_back(std::move(s));
    }
    return cases;
}

// Checks `matcher` against `pattern` (searched, as schema patterns are) on every string; returns
// how many of them matched, so a test can also require both outcomes to occur.
int agree(const std::string& pattern, bool (*matcher)(std::string_view), const std::vector<std::string>& strings) {
    const std::regex re(pattern, std::regex::ECMAScript);
    int matched = 0;
    for (auto const& s : strings) {
        const bool want = std::regex_search(s, re);
        BOOST_TEST_CONTEXT("pattern " << pattern << ", string \"" << s << "\"") { BOOST_TEST(matcher(s) == want); }
        matched += want;
    }
    return matched;
}

void bothOutcomes(int matched, size_t total) {
    BOOST_TEST(matched > 0);
    BOOST_TEST(static_cast<size_t>(matched) < total);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(known_patterns)

BOOST_AUTO_TEST_CASE(kubernetes_names_match_their_regexes) {
    const std::vector<std::string> edges{"", "a", "-", "a-", "-a", "a-b", "a.b", "a..b", ".a", "a.", "A", "a_b", "0",
                                         "a/b", "a b", "\n", "a\n", "abc-def.ghi-0", "x.y.z", "_a", "a_", "a.b_c"};
    const auto names = generated("ab0-.A_/ \n", edges);
    bothOutcomes(agree(anchored(kDns1123LabelPattern), isDns1123LabelChars, names), names.size());
    bothOutcomes(agree(anchored(kDns1123SubdomainPattern), isDns1123Subdomain, names), names.size());
    bothOutcomes(agree(anchored(kQualifiedNamePattern), isQualifiedNamePart, names), names.size());
    bothOutcomes(agree(anchored(kLabelValuePattern), isLabelValue, names), names.size());
}

BOOST_AUTO_TEST_CASE(rfc3339_matches_its_regex) {
    const std::vector<std::string> edges{"2026-12-05T13:30:00Z", "2026-12-05t13:30:00z", "2026-12-05 13:30:00+01:00",
                                         "2026-12-05T13:30:00.123456789-08:00", "2026-12-05T13:30:00.Z",
                                         "2026-12-05T13:30:00", "2026-12-05T13:30:00+0100", "2026-1-05T13:30:00Z",
                                         "2026-12-05T13:30:00ZZ", "12026-12-05T13:30:00Z", "2026-12-05X13:30:00Z", ""};
    // Mutations of a valid timestamp: each character replaced, dropped or doubled.
    std::vector<std::string> strings = edges;
    const std::string base = "2026-12-05T13:30:00.5+01:00";
    const std::string alphabet = "0-:.+TtZz x";
    for (size_t i = 0; i < base.size(); ++i) {
        for (char c : alphabet) strings.push_back(base.substr(0, i) + c + base.substr(i + 1));
        strings.push_back(base.substr(0, i) + base.substr(i + 1));
        strings.push_back(base.substr(0, i + 1) + base.substr(i));
    }
    bothOutcomes(agree(anchored(kRfc3339Pattern), isRfc3339, strings), strings.size());
}

BOOST_AUTO_TEST_CASE(crd_patterns_match_their_regexes) {
    const std::vector<std::string> quantities{"", "1", "+1", "-1", "1.", ".5", ".", "1.5", "1.5.3", "1Ki", "1ki", "1K",
                                              "1k", "1E", "1e", "1e5", "1E+5", "1e-5", "1e5.5", "1e.5", "1e", "1Ei",
                                              "1m", "1n", "1u", "100Mi", "2Gi", "1 ", " 1", "1\n", "1e+", "1ee5", "+-1"};
    const auto q = generated("0123456789.+-eEKMGTPEimnuk ", quantities);
    bothOutcomes(agree(kQuantity, knownPattern(kQuantity), q), q.size());

    const auto keys = generated("ab0-._/A ", {"a/b", "/b", "a/", "a.b/c_d", "a/b/c", "A/b", "example.com/name", ""});
    bothOutcomes(agree(kLabelKey, knownPattern(kLabelKey), keys), keys.size());

    const auto ids = generated("aZ0_,: -", {"a", "A", "_", "a,b", "a,", "a:b_", "a_", "0a", ""});
    bothOutcomes(agree(kIdentifiers, knownPattern(kIdentifiers), ids), ids.size());

    const auto urls = generated("ab1+.-:/\n\r x", {"http://x", "a://", "a://\n", "1a://x", "a+b.c-d://x", "a:/x",
                                                     "a://x\ny", "://x", "a://x://y", ""},
                                20000, 12);
    bothOutcomes(agree(kUrl, knownPattern(kUrl), urls), urls.size());

    const auto objectNames = generated("ab0-A.", {"a", "0a", "a-", "a-0", "-a", ""});
    bothOutcomes(agree(kName, knownPattern(kName), objectNames), objectNames.size());
}

BOOST_AUTO_TEST_CASE(unknown_patterns_have_no_matcher) {
    BOOST_TEST(knownPattern("^[a-z]+$") == nullptr);
    BOOST_TEST(knownPattern(std::string(kQuantity) + " ") == nullptr);
}

// The schema still refuses what the patterns refuse, with the messages it gave before.
BOOST_AUTO_TEST_CASE(schema_validation_uses_them) {
    const std::string job = R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
        "metadata":{"name":"Bad_Name","namespace":"default","labels":{"ok/x":"-bad"}},
        "spec":{"runtimeRef":{"name":"torch"},"trainer":{"resourcesPerNode":{"limits":{"cpu":"1x"}}}}})";
    const json::object obj = json::parse(job).as_object();
    Diagnostics d = validateSchema(obj);
    std::string all;
    for (auto const& e : d.errors) all += e.path + ": " + e.message + "\n";
    BOOST_TEST(all.find("metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain") != std::string::npos, all);
    BOOST_TEST(all.find("metadata.labels: Invalid value: \"-bad\": a valid label must be an empty string") != std::string::npos, all);
    BOOST_TEST(all.find("spec.trainer.resourcesPerNode.limits[cpu]: Invalid value: \"1x\"") != std::string::npos, all);
    BOOST_TEST(all.find("should match '^(\\+|-)?") != std::string::npos, all);
}

BOOST_AUTO_TEST_SUITE_END()
