#define BOOST_TEST_MODULE test_core_executor_podspec
#include <boost/test/unit_test.hpp>

#include "core/executor/var_expansion.hpp"

#include <map>

using namespace trainer::core::executor;

namespace {

std::string expand(std::string_view in) {
    static const std::map<std::string, std::string, std::less<>> vars = {
        {"VAR_A", "A"}, {"VAR_B", "B"}, {"VAR_C", "C"}, {"VAR_REF", "$(VAR_A)"}, {"VAR_EMPTY", ""}};
    return expandVars(in, [](std::string_view name) -> std::optional<std::string> {
        auto it = vars.find(name);
        return it == vars.end() ? std::nullopt : std::optional(it->second);
    });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(var_expansion)

// Cases of third_party/forked/golang/expansion/expand_test.go.
BOOST_AUTO_TEST_CASE(matches_the_upstream_expansion_cases) {
    const std::pair<std::string, std::string> cases[] = {
        {"$(VAR_A)", "A"},
        {"$(VAR_A)-$(VAR_A)", "A-A"},
        {"___$(VAR_B)___", "___B___"},
        {"$(VAR_A)_$(VAR_B)_$(VAR_C)", "A_B_C"},
        {"$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A"},
        {"$$(VAR_A)_$$(VAR_B)", "$(VAR_A)_$(VAR_B)"},
        {"f000-$$VAR_A", "f000-$VAR_A"},
        {"foo\\$(VAR_C)bar", "foo\\Cbar"},
        {"$(VAR_A$(VAR_B))", "$(VAR_A$(VAR_B))"},
        {"$(VAR_A$(VAR_B)", "$(VAR_A$(VAR_B)"},
        {"$(VAR_REF)", "$(VAR_A)"},
        {"%%$(VAR_REF)--$(VAR_REF)%%", "%%$(VAR_A)--$(VAR_A)%%"},
        {"foo$(VAR_EMPTY)bar", "foobar"},
        {"foo$(VAR_Awhoops!", "foo$(VAR_Awhoops!"},
        {"f00__(VAR_A)__", "f00__(VAR_A)__"},
        {"$?_boo_$!", "$?_boo_$!"},
        {"$VAR_A", "$VAR_A"},
        {"$(VAR_DNE)", "$(VAR_DNE)"},
        {"$$$$$$(BIG_MONEY)", "$$$(BIG_MONEY)"},
        {"$$$$$$(VAR_A)", "$$$(VAR_A)"},
        {"$$$$$$$(GOOD_ODDS)", "$$$$(GOOD_ODDS)"},
        {"$$$$$$$(VAR_A)", "$$$A"},
        {"$VAR_A)", "$VAR_A)"},
        {"${VAR_A}", "${VAR_A}"},
        {"$(VAR_B)_______$(A", "B_______$(A"},
        {"$(VAR_C)_______$(", "C_______$("},
        {"$(VAR_A)foobarzab$", "Afoobarzab$"},
        {"--$($($($($--", "--$($($($($--"},
        {"$($($($($--foo$(", "$($($($($--foo$("},
        {"$(foo$$var)", "$(foo$$var)"},
        {"\n", "\n"},
        {"", ""},
        {"$", "$"},
        {"$()", "$()"},
    };
    for (auto const& [in, want] : cases) BOOST_TEST(expand(in) == want, "input " << in);
}

BOOST_AUTO_TEST_CASE(lookup_sees_the_name_between_the_parentheses) {
    std::vector<std::string> asked;
    expandVars("$(A) $(B C) $$(D) $(E", [&](std::string_view n) {
        asked.emplace_back(n);
        return std::optional<std::string>();
    });
    BOOST_TEST(asked == (std::vector<std::string>{"A", "B C"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
