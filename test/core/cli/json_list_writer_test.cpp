#define BOOST_TEST_MODULE test_core_cli_json_list_writer
#include <boost/test/unit_test.hpp>

#include "core/cli/json_list_writer.hpp"
#include "core/json/io.hpp"

#include <sstream>

using namespace trainer::core;
using trainer::core::cli::JsonListWriter;

namespace {

json::object configMap(const std::string& ns, const std::string& name, int n) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", name}, {"namespace", ns}}},
                        {"data", {{"n", std::to_string(n)}, {"text", std::string(static_cast<size_t>(100 + n), 'x')}}}};
}

// Out of key order on purpose: the List is sorted by identity.
std::vector<json::object> objects() {
    return {configMap("b", "one", 1), configMap("a", "two", 2), configMap("a", "one", 3), configMap("c", "zero", 4)};
}

std::string render(std::size_t budget, std::size_t& spilled) {
    JsonListWriter w(budget);
    for (auto const& o : objects()) w.add(o);
    std::ostringstream out;
    std::string error;
    BOOST_REQUIRE_MESSAGE(w.write(out, error), error);
    spilled = w.spilled();
    return out.str();
}

// What the writer promises: toJson of the sorted List, pretty.
std::string expected() {
    auto items = objects();
    std::sort(items.begin(), items.end(), [](auto const& a, auto const& b) { return keyOf(a) < keyOf(b); });
    json::array arr(items.begin(), items.end());
    return toJson(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(arr)}}, true) + "\n";
}

}  // namespace

BOOST_AUTO_TEST_CASE(in_memory_the_list_is_sorted_by_identity) {
    std::size_t spilled = 99;
    BOOST_TEST(render(JsonListWriter::kDefaultBudget, spilled) == expected());
    BOOST_TEST(spilled == 0u);
}

BOOST_AUTO_TEST_CASE(spilled_to_the_temporary_file_the_output_is_the_same) {
    std::size_t spilled = 0;
    BOOST_TEST(render(0, spilled) == expected());
    BOOST_TEST(spilled == objects().size());
}

BOOST_AUTO_TEST_CASE(past_the_budget_only_the_rest_is_spilled) {
    std::string first;
    appendJson(first, objects().front(), true, 4);
    std::size_t spilled = 0;
    BOOST_TEST(render(first.size(), spilled) == expected());
    BOOST_TEST(spilled == objects().size() - 1);
}

BOOST_AUTO_TEST_CASE(an_empty_list) {
    JsonListWriter w(0);
    std::ostringstream out;
    std::string error;
    BOOST_TEST(w.write(out, error));
    BOOST_TEST(out.str() == toJson(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array{}}}, true) + "\n");
}
