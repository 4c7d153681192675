#define BOOST_TEST_MODULE test_json_io
#include <boost/test/unit_test.hpp>

#include "core/json/io.hpp"
#include "../../support/unprivileged.hpp"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace trainer::core;
namespace fs = std::filesystem;

namespace {

// A scratch directory removed at the end of each test.
struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("trainer-io-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(path, ec);
    }
    std::string write(const std::string& name, const std::string& text) const {
        auto p = path / name;
        std::ofstream(p) << text;
        return p.string();
    }
    static int& counter() {
        static int c = 0;
        return c;
    }
};

json::value parseOne(const std::string& yaml) {
    std::vector<json::value> docs;
    std::string error;
    BOOST_REQUIRE_MESSAGE(parseYaml(yaml, docs, error), error);
    BOOST_REQUIRE_EQUAL(docs.size(), 1u);
    return docs[0];
}

}  // namespace

BOOST_AUTO_TEST_CASE(plain_scalars_follow_kubernetes_semantics) {
    struct Case {
        std::string yaml;
        json::value expected;
    };
    const std::vector<Case> cases = {
        {"v: 123", json::value(123)},
        {"v: -7", json::value(-7)},
        {"v: 1.5", json::value(1.5)},
        {"v: 1e3", json::value(1000.0)},
        {"v: 0x1F", json::value(31)},
        {"v: 0755", json::value(493)},
        {"v: true", json::value(true)},
        {"v: False", json::value(false)},
        {"v: yes", json::value(true)},
        {"v: off", json::value(false)},
        {"v: null", json::value(nullptr)},
        {"v: ~", json::value(nullptr)},
        {"v:", json::value(nullptr)},
        {"v: \"123\"", json::value("123")},
        {"v: '1.5'", json::value("1.5")},
        {"v: 'true'", json::value("true")},
        {"v: \"null\"", json::value("null")},
        {"v: 2Gi", json::value("2Gi")},
        {"v: 500m", json::value("500m")},
        {"v: 2024-01-01T00:00:00Z", json::value("2024-01-01T00:00:00Z")},
        {"v: 18446744073709551615", json::value(18446744073709551615ull)},
        {"v: !!str 5", json::value("5")},
        {"v: |\n  a\n  b\n", json::value("a\nb\n")},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.yaml) {
            auto v = parseOne(c.yaml);
            BOOST_TEST(v.as_object().at("v") == c.expected);
        }
    }
}

BOOST_AUTO_TEST_CASE(map_key_order_is_kept) {
    auto v = parseOne("z: 1\na: 2\nm: 3\n");
    std::vector<std::string> keys;
    for (auto const& kv : v.as_object()) keys.emplace_back(kv.key());
    BOOST_TEST(keys == (std::vector<std::string>{"z", "a", "m"}), boost::test_tools::per_element());
    BOOST_TEST(toJson(v) == R"({"z":1,"a":2,"m":3})");
}

BOOST_AUTO_TEST_CASE(multi_document_yaml_skips_empty_documents) {
    std::vector<InputDocument> out;
    auto d = parseInputText("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\n# only a comment\n---\n"
                            "apiVersion: v1\nkind: Secret\nmetadata: {name: b}\n",
                            "f.yaml", out);
    BOOST_TEST(d.ok());
    BOOST_REQUIRE_EQUAL(out.size(), 2u);
    BOOST_TEST(out[0].object.at("kind").as_string() == "ConfigMap");
    BOOST_TEST(out[1].object.at("kind").as_string() == "Secret");
    BOOST_TEST(out[0].origin.starts_with("f.yaml (document "));
    BOOST_TEST(out[1].origin == "f.yaml (document 4)");
}

BOOST_AUTO_TEST_CASE(list_items_are_flattened) {
    for (std::string kind : {"List", "ConfigMapList"}) {
        std::vector<InputDocument> out;
        auto d = parseInputText("apiVersion: v1\nkind: " + kind +
                                    "\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n"
                                    "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n",
                                "l.yaml", out);
        BOOST_TEST(d.ok());
        BOOST_REQUIRE_EQUAL(out.size(), 2u);
        BOOST_TEST(out[1].object.at("metadata").at("name").as_string() == "b");
        BOOST_TEST(out[1].origin == "l.yaml (item 2)");
    }
}

BOOST_AUTO_TEST_CASE(json_input_and_json_list) {
    std::vector<InputDocument> out;
    auto d = parseInputText(R"({"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"n":1.0}}]})",
                            "a.json", out);
    BOOST_TEST(d.ok());
    BOOST_REQUIRE_EQUAL(out.size(), 1u);
    BOOST_TEST(out[0].object.at("kind").as_string() == "Secret");
    BOOST_TEST(out[0].origin == "a.json (item 1)");
}

BOOST_AUTO_TEST_CASE(directory_reads_yaml_yml_json_sorted_not_recursive) {
    TempDir t;
    t.write("b.yml", "apiVersion: v1\nkind: B\n");
    t.write("a.yaml", "apiVersion: v1\nkind: A\n");
    t.write("c.json", R"({"apiVersion":"v1","kind":"C"})");
    t.write("notes.txt", "not: read\n");
    fs::create_directories(t.path / "sub");
    t.write("sub/d.yaml", "apiVersion: v1\nkind: D\n");
    std::vector<InputDocument> out;
    auto d = readInputs({t.path.string()}, out);
    BOOST_TEST(d.ok());
    BOOST_REQUIRE_EQUAL(out.size(), 3u);
    BOOST_TEST(out[0].object.at("kind").as_string() == "A");
    BOOST_TEST(out[1].object.at("kind").as_string() == "B");
    BOOST_TEST(out[2].object.at("kind").as_string() == "C");
    BOOST_TEST(out[0].origin == (t.path / "a.yaml").string());
}

BOOST_AUTO_TEST_CASE(error_paths_name_the_file_and_never_throw) {
    TempDir t;
    struct Case {
        std::string name, text, path, messagePart;
    };
    const std::vector<Case> cases = {
        {"malformed.yaml", "apiVersion: v1\nkind: [unclosed\n", "", "malformed YAML: line 3, column 1"},
        {"bad-indent.yaml", "a:\n  b: 1\n c: 2\n", "", "malformed YAML: line "},
        {"scalar.yaml", "just a string\n", "", "document is not a mapping (got a string)"},
        {"array.json", "[1, 2]", "", "document is not a mapping (got a list)"},
        {"nokind.yaml", "apiVersion: v1\nmetadata: {name: x}\n", "kind", "Required value"},
        {"noapi.yaml", "kind: Secret\n", "apiVersion", "Required value"},
        {"numkind.yaml", "apiVersion: v1\nkind: 5\n", "kind", "must be a string, got a number"},
        {"dupkey.yaml", "apiVersion: v1\nkind: A\nkind: B\n", "", "mapping key \"kind\" already defined"},
        {"baditems.yaml", "apiVersion: v1\nkind: List\nitems: 3\n", "items", "must be a list"},
        {"baditem.yaml", "apiVersion: v1\nkind: List\nitems: [1]\n", "items[0]", "list item is not a mapping"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto file = t.write(c.name, c.text);
            std::vector<InputDocument> out;
            Diagnostics d;
            BOOST_CHECK_NO_THROW(d = readInputs({file}, out));
            BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
            BOOST_TEST(d.errors[0].origin == file);
            BOOST_TEST(d.errors[0].path == c.path);
            BOOST_TEST(d.errors[0].message.find(c.messagePart) != std::string::npos, d.errors[0].message);
            BOOST_TEST(out.empty());
        }
    }
    // Missing file.
    std::vector<InputDocument> out;
    auto missing = (t.path / "nope.yaml").string();
    auto d = readInputs({missing}, out);
    BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
    BOOST_TEST(d.errors[0].origin == missing);
    BOOST_TEST(d.errors[0].message == "the path \"" + missing + "\" does not exist");
    // Unreadable file: read as `nobody` (test/support/unprivileged.hpp), whom its mode stops even
    // when the suite runs as root.
    auto locked = t.write("locked.yaml", "apiVersion: v1\nkind: A\n");
    fs::permissions(locked, fs::perms::none);
    auto seen = trainer::test::asUnprivileged([&] {
        std::vector<InputDocument> docs;
        auto r = readInputs({locked}, docs);
        std::string lines;
        for (auto const& e : r.errors) lines += e.origin + ": " + e.message + "\n";
        return lines;
    });
    BOOST_TEST(seen == locked + ": cannot read file: Permission denied\n");
    // A directory we cannot read: passing a directory path as "file" via readInputs on a
    // non-existent nested path still reports, never throws.
    out.clear();
    d = readInputs({(t.path / "missing-dir" / "x.yaml").string()}, out);
    BOOST_TEST(d.errors.size() == 1u);
}

BOOST_AUTO_TEST_CASE(errors_in_one_document_keep_the_others) {
    std::vector<InputDocument> out;
    auto d = parseInputText("apiVersion: v1\nkind: A\n---\n- 1\n---\napiVersion: v1\nkind: C\n", "m.yaml", out);
    BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
    BOOST_TEST(d.errors[0].origin == "m.yaml (document 2)");
    BOOST_TEST(out.size() == 2u);
}

BOOST_AUTO_TEST_CASE(pretty_json_uses_two_space_indent) {
    auto v = json::parse(R"({"a":[1,{"b":"x\n"}],"e":{},"l":[],"d":1.5})");
    BOOST_TEST(toJson(v, true) == "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x\\n\"\n    }\n  ],\n  \"e\": {},\n  \"l\": [],\n  \"d\": 1.5\n}");
    BOOST_TEST(toJson(v, false) == R"({"a":[1,{"b":"x\n"}],"e":{},"l":[],"d":1.5})");
}

// An object is written by its own overloads (no json::value copy of the tree): the same text as
// the value's, compact, pretty, and inside a document `indent` deep.
BOOST_AUTO_TEST_CASE(an_object_is_written_as_its_value_is) {
    const json::object o = json::parse(R"({"a":[1,{"b":"x\n"}],"e":{},"l":[],"d":1.5,"o":{"k":[{}]}})").as_object();
    const json::value v = o;
    BOOST_TEST(toJson(o) == toJson(v));
    BOOST_TEST(toJson(o, true) == toJson(v, true));
    BOOST_TEST(toJson(o, true) == "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x\\n\"\n    }\n  ],\n  \"e\": {},\n  \"l\": [],"
                                  "\n  \"d\": 1.5,\n  \"o\": {\n    \"k\": [\n      {}\n    ]\n  }\n}");
    for (int indent : {0, 4})
        for (bool pretty : {false, true}) {
            std::string fromObject = "[", fromValue = "[";
            appendJson(fromObject, o, pretty, indent);
            appendJson(fromValue, v, pretty, indent);
            BOOST_TEST(fromObject == fromValue, "indent " << indent << " pretty " << pretty);
        }
    std::string deep;
    appendJson(deep, json::object{{"a", 1}}, true, 4);
    BOOST_TEST(deep == "{\n      \"a\": 1\n    }");
    BOOST_TEST(toJson(json::object{}) == "{}");
}

BOOST_AUTO_TEST_CASE(yaml_output_quotes_ambiguous_strings) {
    struct Case {
        json::value value;
        std::string yaml;
    };
    const std::vector<Case> cases = {
        {json::value("123"), "v: \"123\"\n"},
        {json::value("1.5"), "v: \"1.5\"\n"},
        {json::value("true"), "v: \"true\"\n"},
        {json::value("yes"), "v: \"yes\"\n"},
        {json::value("null"), "v: \"null\"\n"},
        {json::value(""), "v: \"\"\n"},
        {json::value("a: b"), "v: \"a: b\"\n"},
        {json::value("-De"), "v: -De\n"},
        {json::value("- x"), "v: \"- x\"\n"},
        {json::value("#x"), "v: \"#x\"\n"},
        {json::value("2024-01-01T00:00:00Z"), "v: \"2024-01-01T00:00:00Z\"\n"},
        {json::value("hello world"), "v: hello world\n"},
        {json::value(42), "v: 42\n"},
        {json::value(nullptr), "v: null\n"},
        {json::value("line1\nline2\n"), "v: |\n  line1\n  line2\n"},
        {json::value("line1\nline2"), "v: |-\n  line1\n  line2\n"},
    };
    for (auto const& c : cases) {
        json::object o;
        o["v"] = c.value;
        BOOST_TEST(toYaml(o) == c.yaml);
    }
    auto nested = json::parse(R"({"spec":{"containers":[{"name":"node","args":["-c","x"]}],"empty":{},"none":[]}})");
    BOOST_TEST(toYaml(nested) ==
               "spec:\n  containers:\n  - name: node\n    args:\n    - -c\n    - x\n  empty: {}\n  none: []\n");
}

BOOST_AUTO_TEST_CASE(round_trip_yaml_json_yaml_json) {
    const std::string yaml = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: rt
  labels: {a: "1", b: 'true', c: "null", d: "0x10", e: "1e3", f: "~", g: "2.0", h: "-", i: "on"}
spec:
  trainer:
    numNodes: 3
    ratio: 0.25
    command:
    - python3
    - -c
    - |
      import os
      print("x: y")  # not a comment
    - "  leading spaces"
    - "trailing\n\n\n"
    - "tab\there"
    - "quote\"s and 'single'"
    - "ünïcödé"
    - "C:\\path"
    nested: [[1, 2], [], {}, [{k: v}]]
    "key with: colon": 1
    "123": numeric key
)";
    auto first = parseOne(yaml);
    auto json1 = toJson(first);
    auto yaml2 = toYaml(json::parse(json1));
    auto second = parseOne(yaml2);
    BOOST_TEST(toJson(second) == json1, yaml2);
    BOOST_TEST(second == first);
    // And the pretty form parses back to the same value.
    BOOST_TEST(json::parse(toJson(first, true)) == first);
}

BOOST_AUTO_TEST_CASE(reference_examples_read_cleanly) {
    std::vector<InputDocument> out;
    auto d = readInputs({std::string(TRAINER_SHARED_DIR) + "/reference/examples", std::string(TRAINER_SHARED_DIR) + "/reference/runtimes"}, out);
    BOOST_TEST(d.ok());
    BOOST_TEST(out.size() == 5u);
    for (auto const& doc : out) {
        auto again = parseOne(toYaml(doc.object));
        BOOST_TEST(again == json::value(doc.object), doc.origin);
    }
}

BOOST_AUTO_TEST_CASE(deep_nesting_is_an_error_or_a_value_never_a_crash) {
    for (int depth : {100, 100000}) {
        std::string flow(depth, '[');
        flow += std::string(depth, ']');
        for (std::string text : {"{\"a\":" + flow + "}", "a: " + flow + "\n"}) {
            std::vector<InputDocument> out;
            Diagnostics d;
            BOOST_CHECK_NO_THROW(d = parseInputText(text, "deep.yaml", out));
            // Either parsed (and then it has no kind) or rejected as malformed: always an error here.
            BOOST_TEST(!d.ok());
        }
    }
}

// ---- input limits (issue 12) ----

namespace {
std::string yamlError(const std::string& text) {
    std::vector<json::value> docs;
    std::string error;
    BOOST_REQUIRE(!parseYaml(text, docs, error));
    return error;
}
std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// The classic 9-level billion laughs (527 bytes): 10^9 strings once expanded.
std::string billionLaughs() {
    std::string y = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
    for (char c = 'b'; c <= 'i'; ++c) {
        std::string prev(1, static_cast<char>(c - 1));
        y += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 9; ++i) y += (i ? ",*" : "*") + prev;
        y += "]\n";
    }
    return y;
}
}  // namespace

BOOST_AUTO_TEST_CASE(yaml_self_referencing_alias_is_a_cycle_error) {
    std::string e = yamlError("a: &a [*a]");
    BOOST_TEST(e.find("alias cycle") != std::string::npos, e);
    BOOST_TEST(yamlError("a: &a {b: *a}").find("alias cycle") != std::string::npos);
    std::vector<InputDocument> out;
    auto d = parseInputText("a: &a [*a]", "loop.yaml", out);
    BOOST_TEST(!d.ok());
    BOOST_TEST(out.empty());
}

BOOST_AUTO_TEST_CASE(yaml_billion_laughs_is_refused_by_size) {
    std::string e = yamlError(billionLaughs());
    BOOST_TEST(e.find("expands to more than " + std::to_string(kMaxYamlNodes) + " nodes") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(yaml_alias_of_a_large_scalar_is_bounded_by_bytes) {
    std::string y = "a: &a \"" + std::string(1 << 20, 'x') + "\"\nb: [";
    for (int i = 0; i < 80; ++i) y += (i ? ",*a" : "*a");
    y += "]\n";
    std::string e = yamlError(y);
    BOOST_TEST(e.find("bytes of scalars") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(yaml_small_aliases_still_expand) {
    std::vector<json::value> docs;
    std::string error;
    BOOST_REQUIRE(parseYaml("base: &b {x: 1}\nuse: *b\nk: &k key\n*k : v\n", docs, error));
    BOOST_TEST(toJson(docs.at(0)) == R"({"base":{"x":1},"use":{"x":1},"k":"key","key":"v"})");
}

BOOST_AUTO_TEST_CASE(nesting_limit_is_one_constant_for_json_and_yaml) {
    std::vector<InputDocument> out;
    auto d = parseInputText(nested(600), "deep.json", out);
    BOOST_REQUIRE(!d.ok());
    std::string want = "nesting deeper than " + std::to_string(kMaxNestingDepth);
    BOOST_TEST(d.errors[0].message.find(want) != std::string::npos, d.errors[0].message);
    BOOST_TEST(d.errors[0].message.find("malformed YAML") == std::string::npos);
    BOOST_TEST(yamlError("x: " + nested(600)).find(want) != std::string::npos);
    // An alias may not carry nesting past the limit either.
    std::string y = "a: &a " + nested(200) + "\nb: " + std::string(200, '[') + "*a" + std::string(200, ']');
    BOOST_TEST(yamlError(y).find(want) != std::string::npos);
    std::string block;  // block style, one mapping per level
    for (std::size_t i = 0; i < kMaxNestingDepth + 10; ++i) block += std::string(i * 2, ' ') + "k:\n";
    BOOST_TEST(yamlError(block).find(want) != std::string::npos);
    json::value v;
    std::string error;
    BOOST_TEST(parseJson(nested(kMaxNestingDepth), v, error), error);
    BOOST_TEST(!parseJson(nested(kMaxNestingDepth + 1), v, error));
}

BOOST_AUTO_TEST_CASE(json_duplicate_keys_are_refused_with_the_field_path) {
    json::value v;
    std::string error;
    BOOST_TEST(!parseJson(R"({"spec":{"env":[{"name":"A"},{"name":"B","name":"C"}]}})", v, error));
    BOOST_TEST(error == R"(spec.env[1]: duplicate key "name")");
    BOOST_TEST(!parseJson(R"({"kind":"a","kind":"b"})", v, error));
    BOOST_TEST(error == R"(duplicate key "kind")");
    BOOST_TEST(parseJson(R"({"a":{"k":1},"b":{"k":2}})", v, error));
    std::vector<InputDocument> out;
    auto d = parseInputText(R"({"apiVersion":"v1","kind":"ConfigMap","kind":"Secret"})", "dup.json", out);
    BOOST_REQUIRE(!d.ok());
    BOOST_TEST(d.errors[0].message.find("duplicate key \"kind\"") != std::string::npos, d.errors[0].message);
}

// The parser checks small objects by scanning their keys and large ones with a hash set, and
// reuses each depth's key slots from one object to the next: every way must find the same keys.
BOOST_AUTO_TEST_CASE(json_duplicate_keys_are_found_in_objects_of_any_size) {
    auto object = [](std::size_t n, const std::string& extra) {
        std::string o = "{";
        for (std::size_t i = 0; i < n; ++i) o += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\":" + std::to_string(i);
        return o + extra + "}";
    };
    json::value v;
    std::string error;
    for (std::size_t n : {1, 15, 16, 17, 18, 40}) {
        BOOST_TEST_CONTEXT("keys " << n) {
            BOOST_TEST(parseJson(object(n, ""), v, error), error);
            BOOST_TEST(v.as_object().size() == n);
            BOOST_TEST(!parseJson(object(n, ",\"k0\":0"), v, error));  // the first key again
            BOOST_TEST(error == R"(duplicate key "k0")");
            const std::string last = "k" + std::to_string(n - 1);
            BOOST_TEST(!parseJson(R"({"spec":{"env":[{},{},)" + object(n, ",\"" + last + "\":1") + "]}}", v, error));
            BOOST_TEST(error == "spec.env[2]: duplicate key \"" + last + "\"");
        }
    }
    // Siblings at one depth share the slots: a key of the first is no duplicate in the second.
    BOOST_TEST(parseJson(R"({"a":)" + object(20, "") + R"(,"b":{"k1":1,"k19":2},"c":[{"k0":0},{"k0":1}]})", v, error), error);
    BOOST_TEST(!parseJson(R"({"a":{"x":1,"y":2},"b":{"y":1,"x":2,"y":3}})", v, error));
    BOOST_TEST(error == R"(b: duplicate key "y")");
    // The thread's parser is reused: a document cut short leaves nothing for the next, and a
    // large one (a parser of its own) parses as a small one does.
    BOOST_TEST(!parseJson(R"({"a":[{"b":{"c":[1,2,{"d":)", v, error));
    BOOST_TEST(parseJson(R"({"a":[{"b":1}]})", v, error), error);
    BOOST_TEST(json::serialize(v) == R"({"a":[{"b":1}]})");
    const std::string big = "[" + std::string(3 << 20, ' ') + R"({"k":1,"k":2}])";
    BOOST_TEST(!parseJson(big, v, error));
    BOOST_TEST(error == R"([0]: duplicate key "k")");
    // A key that arrives in parts (escapes) is compared whole.
    BOOST_TEST(!parseJson(R"({"a\u0062":1,"ab":2})", v, error));
    BOOST_TEST(error == R"(duplicate key "ab")");
}

BOOST_AUTO_TEST_CASE(echoed_values_are_truncated_and_valid_utf8) {
    std::string big(10 << 20, 'n');
    std::string q = quoteForError(big);
    BOOST_TEST(q == std::string(kMaxEchoBytes, 'n') + "... (" + std::to_string(big.size()) + " bytes)");
    BOOST_TEST(quoteForError("short") == "short");
    BOOST_TEST(toValidUtf8("a\xff" "b\xc3\xa9\xed\xa0\x80") == "a\xEF\xBF\xBD" "b\xc3\xa9\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    // A cut never splits a character: 255 ASCII bytes then a 2-byte é.
    std::string s = std::string(kMaxEchoBytes - 1, 'x') + "\xc3\xa9" + std::string(10, 'y');
    BOOST_TEST(quoteForError(s).starts_with(std::string(kMaxEchoBytes - 1, 'x') + "..."));
}

// Every double is read correctly rounded (the nearest double to its text, as Go's
// strconv.ParseFloat reads it), so the shortest text toJson writes reads back as the same bits.
// Boost.JSON 1.81's own conversion reads the first one 1 ulp off (test/fuzz/README.md finding 7).
BOOST_AUTO_TEST_CASE(json_doubles_are_read_correctly_rounded_and_round_trip) {
    const char* texts[] = {"1.222222222222222e+64", "12222222222222222222222222222222222222222222222222222222222222222",
                           "0.1", "2.2250738585072014e-308", "4.9e-324", "1.7976931348623157e+308", "-3.0000000000000004",
                           "9007199254740993.0", "1e-400"};
    for (const char* t : texts) {
        double want = 0;
        std::string_view s(t);
        std::from_chars(s.data(), s.data() + s.size(), want);  // 1e-400: out of range, stays 0 as Go reads it
        json::value v;
        std::string error;
        BOOST_REQUIRE_MESSAGE(parseJson("[" + std::string(t) + "]", v, error), t << ": " << error);
        double got = v.as_array()[0].to_number<double>();
        BOOST_TEST(std::memcmp(&got, &want, sizeof got) == 0, t << " read as " << got << ", nearest double is " << want);
        json::value back;
        BOOST_REQUIRE(parseJson(toJson(v), back, error));
        double again = back.as_array()[0].to_number<double>();  // an integral double is written as an integer
        BOOST_TEST(std::memcmp(&again, &got, sizeof got) == 0, t << ": " << toJson(v) << " reads back as " << toJson(back));
    }
    json::value v;
    std::string error;
    BOOST_TEST(!parseJson(R"({"a":[1e400]})", v, error));
    BOOST_TEST(error == "a[0]: number 1e400 is out of range");
    BOOST_TEST(!parseJson(R"({"a":1} x)", v, error));
    BOOST_TEST(parseJson(" {\"a\":1} \n", v, error), error);
}

// Every byte value inside a string: the escapes JSON requires (quote, backslash, the control
// characters, DEL as \u007f), the short forms where JSON has them, and runs of plain bytes
// around them kept as they are; Boost.JSON reads the text back to the same string.
BOOST_AUTO_TEST_CASE(to_json_escapes_every_byte_value) {
    std::string all;
    for (int c = 0; c < 128; ++c) all += static_cast<char>(c);
    const std::string text = toJson(json::value(json::string(all)));
    BOOST_TEST(json::parse(text) == json::value(json::string(all)));
    std::string want = "\"";
    const char* shortForm[] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                               "\\b",   "\\t",   "\\n",   nullptr, "\\f",   "\\r"};
    for (int c = 0; c < 128; ++c) {
        char buf[8];
        if (c < 14 && shortForm[c]) want += shortForm[c];
        else if (c < 0x20 || c == 0x7f) {
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            want += buf;
        }
        else if (c == '"') want += "\\\"";
        else if (c == '\\') want += "\\\\";
        else want += static_cast<char>(c);
    }
    want += "\"";
    BOOST_TEST(text == want);
    BOOST_TEST(toJson(json::value("plain text, no escapes")) == "\"plain text, no escapes\"");
    BOOST_TEST(toJson(json::value("\"")) == "\"\\\"\"");
    BOOST_TEST(toJson(json::value("a\nb\\")) == "\"a\\nb\\\\\"");
    BOOST_TEST(toJson(json::value("")) == "\"\"");
}

// appendJson writes a value as toJson would inside a pretty document at that depth: the List
// render streams item by item (core/cli/render.cpp) is the same text as the List printed whole.
BOOST_AUTO_TEST_CASE(append_json_at_a_depth_matches_the_whole_document) {
    json::value item = json::parse(R"({"a":[1,{"b":"x"}],"e":{},"l":[]})");
    json::value list = json::object{{"items", json::array{item, item}}};
    std::string streamed = "{\n  \"items\": [\n    ";
    appendJson(streamed, item, true, 4);
    streamed += ",\n    ";
    appendJson(streamed, item, true, 4);
    streamed += "\n  ]\n}";
    BOOST_TEST(streamed == toJson(list, true));
    std::string compact;
    appendJson(compact, item, false, 4);
    BOOST_TEST(compact == toJson(item));
}
