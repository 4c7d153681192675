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

// Enough spilled text for several read-ahead windows and output batches, added partly in key order
// (read back a window at a time) and partly out of it (read one by one): the same List.
BOOST_AUTO_TEST_CASE(many_spilled_texts_in_and_out_of_order) {
    std::vector<json::object> items;
    for (int i = 0; i < 600; ++i) items.push_back(configMap("a", "cm-" + std::to_string(100000 + i), i % 1500 + 900));
    for (int i = 0; i < 300; ++i) items.push_back(configMap("b", "cm-" + std::to_string(100000 + (i * 7919) % 300), 2000 + i));
    for (int i = 0; i < 5; ++i) items.push_back(configMap("c", "cm-" + std::to_string(999 - i), 200000 + i));  // each over a window
    JsonListWriter w(0);
    std::size_t bytes = 0;
    for (auto const& o : items) {
        w.add(o);
        std::string text;
        appendJson(text, o, true, 4);
        bytes += text.size();
    }
    BOOST_TEST_REQUIRE(bytes > std::size_t{1} << 20);  // several 256 KiB windows and batches
    std::ostringstream out;
    std::string error;
    BOOST_TEST_REQUIRE(w.write(out, error), error);
    BOOST_TEST(w.spilled() == items.size());
    std::sort(items.begin(), items.end(), [](auto const& a, auto const& b) { return keyOf(a) < keyOf(b); });
    json::array arr(items.begin(), items.end());
    const std::string want = toJson(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(arr)}}, true) + "\n";
    BOOST_TEST(out.str().size() == want.size());
    BOOST_TEST((out.str() == want));
}
