// PATCH media types: merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge patch, with
// the API server's status codes and wording for bad bodies and failing patches.
#include <boost/test/unit_test.hpp>

#include "core/apiserver/patch.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

using namespace trainer::core::apiserver;

namespace {

json::value parseJson(std::string_view text) { return json::parse(text); }

// Either the patched document or the failure the server reports.
struct Expect {
    std::optional<std::string> value;  // expected document (JSON) when the patch succeeds
    unsigned code = 0;
    std::string reason;
    std::string message;
};

Expect doc(const char* json) { return Expect{std::string(json), 0, "", ""}; }
Expect fails(unsigned code, const char* reason, std::string message) { return Expect{std::nullopt, code, reason, std::move(message)}; }

void check(const PatchResult& r, const Expect& e) {
    if (e.value) {
        BOOST_TEST_REQUIRE(r.ok, r.code << " " << r.message << " (" << r.cause << ")");
        BOOST_TEST(r.value == parseJson(*e.value), json::serialize(r.value) << " != " << *e.value);
    } else {
        BOOST_TEST_REQUIRE(!r.ok, "unexpected success: " << json::serialize(r.value));
        BOOST_TEST(r.code == e.code);
        BOOST_TEST(r.reason == e.reason);
        BOOST_TEST(r.message == e.message);
    }
}

const std::string kGeneric422 = "the server rejected our request due to an error in our request";
const std::string kInterpretArray =
    "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type "
    "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }";

std::string arrayResult(const char* patchedJson) {
    return std::string(" \"\" is invalid: patch: Invalid value: \"") + patchedJson + "\": " + kInterpretArray;
}

// The containers of a patched pod, by name, in order.
std::vector<std::string> names(const json::value& list) {
    std::vector<std::string> out;
    for (auto const& c : list.as_array()) out.emplace_back(c.at("name").as_string());
    return out;
}

const char* const kPod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "p", "namespace": "default", "labels": {"app": "web", "tier": "fe"},
               "finalizers": ["a", "b"],
               "ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "o1", "uid": "u1"},
                                   {"apiVersion": "v1", "kind": "X", "name": "o2", "uid": "u2"}]},
  "spec": {
    "nodeName": "n1",
    "containers": [
      {"name": "a", "image": "a:1", "env": [{"name": "X", "value": "1"}, {"name": "Y", "value": "2"}],
       "ports": [{"containerPort": 80, "protocol": "TCP"}],
       "volumeMounts": [{"name": "v", "mountPath": "/data"}], "args": ["x", "y"]},
      {"name": "b", "image": "b:1"}
    ],
    "volumes": [{"name": "v", "emptyDir": {}}, {"name": "w", "configMap": {"name": "cm"}}],
    "imagePullSecrets": [{"name": "s1"}],
    "tolerations": [{"key": "k1", "operator": "Exists"}, {"key": "k2", "operator": "Exists"}]
  },
  "status": {"conditions": [{"type": "Ready", "status": "False"}, {"type": "Initialized", "status": "True"}]}
})";

PatchResult smpPod(const char* patch, FieldValidation v = FieldValidation::Warn) {
    return strategicMergePatch(parseJson(kPod), patch, "v1", "Pod", true, v);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(patch)

// RFC 7386 appendix A, through the API server: a document that is not an object cannot be decoded
// back into an object, and the strict pre-decode refuses bodies that are not JSON objects.
BOOST_AUTO_TEST_CASE(merge_patch_rfc7386_examples) {
    struct Case {
        const char* target;
        const char* patch;
        Expect warn;    // default fieldValidation
        Expect ignore;  // fieldValidation=Ignore: evanphx MergePatch alone
    };
    auto notMapOf = [&](const char* what) { return "error decoding patch: json: cannot unmarshal " + std::string(what) +
                                                   " into Go value of type map[string]interface {}"; };
    const Case cases[] = {
        {R"({"a":"b"})", R"({"a":"c"})", doc(R"({"a":"c"})"), doc(R"({"a":"c"})")},
        {R"({"a":"b"})", R"({"b":"c"})", doc(R"({"a":"b","b":"c"})"), doc(R"({"a":"b","b":"c"})")},
        {R"({"a":"b"})", R"({"a":null})", doc(R"({})"), doc(R"({})")},
        {R"({"a":"b","b":"c"})", R"({"a":null})", doc(R"({"b":"c"})"), doc(R"({"b":"c"})")},
        {R"({"a":["b"]})", R"({"a":"c"})", doc(R"({"a":"c"})"), doc(R"({"a":"c"})")},
        {R"({"a":"c"})", R"({"a":["b"]})", doc(R"({"a":["b"]})"), doc(R"({"a":["b"]})")},
        {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", doc(R"({"a":{"b":"d"}})"), doc(R"({"a":{"b":"d"}})")},
        {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", doc(R"({"a":[1]})"), doc(R"({"a":[1]})")},
        {R"(["a","b"])", R"(["c","d"])", fails(400, "BadRequest", notMapOf("array")),
         fails(422, "Invalid", arrayResult(R"([\"c\",\"d\"])"))},
        {R"({"a":"b"})", R"(["c"])", fails(400, "BadRequest", notMapOf("array")),
         fails(422, "Invalid", arrayResult(R"([\"c\"])"))},
        {R"({"a":"foo"})", "null", fails(400, "BadRequest", "Invalid JSON Patch"), fails(400, "BadRequest", "Invalid JSON Patch")},
        {R"({"a":"foo"})", R"("bar")", fails(400, "BadRequest", notMapOf("string")),
         fails(400, "BadRequest", "Invalid JSON Patch")},
        {R"({"e":null})", R"({"a":1})", doc(R"({"e":null,"a":1})"), doc(R"({"e":null,"a":1})")},
        {R"([1,2])", R"({"a":"b","c":null})", doc(R"({"a":"b"})"), doc(R"({"a":"b"})")},
        {R"({})", R"({"a":{"bb":{"ccc":null}}})", doc(R"({"a":{"bb":{}}})"), doc(R"({"a":{"bb":{}}})")},
        // Not in the RFC: nested arrays keep null items but lose null members of their objects.
        {R"({})", R"({"a":[null,{"b":null,"c":1}]})", doc(R"({"a":[null,{"c":1}]})"), doc(R"({"a":[null,{"c":1}]})")},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.target << " + " << c.patch) {
            check(mergePatch(parseJson(c.target), c.patch), c.warn);
            check(mergePatch(parseJson(c.target), c.patch, FieldValidation::Ignore), c.ignore);
        }
    }
}

// RFC 6902 appendix A, plus the library's extensions the API server inherits.
BOOST_AUTO_TEST_CASE(json_patch_rfc6902_examples) {
    struct Case {
        const char* name;
        const char* target;
        const char* patch;
        Expect expect;
    };
    const Expect test422 = fails(422, "Invalid", kGeneric422);
    const Case cases[] = {
        {"A.1 add member", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])", doc(R"({"baz":"qux","foo":"bar"})")},
        {"A.2 add array element", R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])",
         doc(R"({"foo":["bar","qux","baz"]})")},
        {"A.3 remove member", R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])", doc(R"({"foo":"bar"})")},
        {"A.4 remove array element", R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])",
         doc(R"({"foo":["bar","baz"]})")},
        {"A.5 replace", R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])",
         doc(R"({"baz":"boo","foo":"bar"})")},
        {"A.6 move member", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
         R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
         doc(R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})")},
        {"A.7 move array element", R"({"foo":["all","grass","cows","eat"]})", R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
         doc(R"({"foo":["all","cows","eat","grass"]})")},
        {"A.8 test success", R"({"baz":"qux","foo":["a",2,"c"]})",
         R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
         doc(R"({"baz":"qux","foo":["a",2,"c"]})")},
        {"A.9 test failure", R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])", test422},
        {"A.10 add nested member", R"({"foo":"bar"})", R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
         doc(R"({"foo":"bar","child":{"grandchild":{}}})")},
        {"A.11 unrecognized member ignored", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])",
         doc(R"({"foo":"bar","baz":"qux"})")},
        {"A.12 add to nonexistent target", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])", test422},
        {"A.13 duplicate op: the last one wins", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","op":"remove"}])",
         test422},
        {"A.14 ~ escape ordering", R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])", doc(R"({"/":9,"~1":10})")},
        {"A.15 string is not a number", R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":"10"}])", test422},
        {"A.16 add array value with -", R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
         doc(R"({"foo":["bar",["abc","def"]]})")},
        {"~1 in a member name", R"({"a/b":1})", R"([{"op":"replace","path":"/a~1b","value":2}])", doc(R"({"a/b":2})")},
        {"move into its own child", R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/c"}])", test422},
        {"copy", R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"}])", doc(R"({"a":{"b":1},"c":{"b":1}})")},
        {"remove missing member", R"({"a":1})", R"([{"op":"remove","path":"/b"}])", test422},
        {"remove past the end", R"({"a":[1]})", R"([{"op":"remove","path":"/a/1"}])", test422},
        {"add past the end", R"({"a":[1]})", R"([{"op":"add","path":"/a/2","value":2}])", test422},
        {"add at the end index", R"({"a":[1]})", R"([{"op":"add","path":"/a/1","value":2}])", doc(R"({"a":[1,2]})")},
        {"negative index (library extension)", R"({"a":[1,2,3]})", R"([{"op":"remove","path":"/a/-1"}])", doc(R"({"a":[1,2]})")},
        {"replace of a missing member adds it (library)", R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])",
         doc(R"({"a":1,"b":2})")},
        {"replace of a missing index", R"({"a":[1]})", R"([{"op":"replace","path":"/a/3","value":2}])", test422},
        {"test of a missing member against null", R"({"a":1})", R"([{"op":"test","path":"/b","value":null}])", doc(R"({"a":1})")},
        {"1 is not 1.0", R"({"a":1})", R"([{"op":"test","path":"/a","value":1.0}])", test422},
        {"unknown op", R"({"a":1})", R"([{"op":"frobnicate","path":"/a"}])", test422},
        {"missing op", R"({"a":1})", R"([{"path":"/a"}])", test422},
        {"replace the whole document", R"({"a":1})", R"([{"op":"replace","path":"","value":{"b":2}}])", doc(R"({"b":2})")},
        {"replace the document by an array", R"({"a":1})", R"([{"op":"replace","path":"","value":[1]}])",
         fails(422, "Invalid", arrayResult("[1]"))},
        {"empty patch", R"({"a":1})", "[]", doc(R"({"a":1})")},
        {"null patch", R"({"a":1})", "null", doc(R"({"a":1})")},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) { check(jsonPatch(parseJson(c.target), c.patch), c.expect); }
    }
}

BOOST_AUTO_TEST_CASE(json_patch_failure_status) {
    auto r = jsonPatch(parseJson(R"({"baz":"qux"})"), R"([{"op":"test","path":"/baz","value":"bar"}])");
    BOOST_TEST(!r.ok);
    BOOST_TEST(r.cause == "testing value /baz failed: test failed");
    auto status = statusOf(r);
    BOOST_TEST(json::value(status) == parseJson(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
        "message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422})"));

    auto missing = jsonPatch(parseJson(R"({"a":{}})"), R"([{"op":"add","path":"/a/b/c","value":1}])");
    BOOST_TEST(missing.cause == "add operation does not apply: doc is missing path: \"/a/b/c\": missing value");
}

// Bodies that are not a JSON array of operations: the strict pre-decode into
// []handlers.jsonPatchOp (default fieldValidation) or jsonpatch.DecodePatch (Ignore).
BOOST_AUTO_TEST_CASE(json_patch_bad_bodies) {
    struct Case {
        const char* body;
        std::string warn;
        std::string ignore;
    };
    const std::string pre = "error decoding patch: ";
    const Case cases[] = {
        {"{}", pre + "json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
         "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
        {R"("add")", pre + "json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp",
         "json: cannot unmarshal string into Go value of type jsonpatch.Patch"},
        {"[1]", pre + "json: cannot unmarshal number into Go value of type handlers.jsonPatchOp",
         "json: cannot unmarshal number into Go value of type jsonpatch.Operation"},
        {"[[]]", pre + "json: cannot unmarshal array into Go value of type handlers.jsonPatchOp",
         "json: cannot unmarshal array into Go value of type jsonpatch.Operation"},
        {R"([{"op":5,"path":"/a"}])", pre + "json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string", ""},
        {R"([{"op":"add","path":{}}])", pre + "json: cannot unmarshal object into Go struct field jsonPatchOp.path of type string", ""},
        {R"([{"op":"add","path":"/a","value":1e999}])",
         pre + "json: cannot unmarshal number 1e999 into Go struct field jsonPatchOp.value of type float64", ""},
        {"[", pre + "unexpected end of JSON input", "unexpected end of JSON input"},
        {"", pre + "unexpected end of JSON input", "unexpected end of JSON input"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.body) {
            check(jsonPatch(parseJson("{}"), c.body), fails(400, "BadRequest", c.warn));
            if (!c.ignore.empty())
                check(jsonPatch(parseJson("{}"), c.body, FieldValidation::Ignore), fails(400, "BadRequest", c.ignore));
        }
    }
    // "[{...},": the scanner reads past the comma and finds the end of input.
    check(jsonPatch(parseJson("{}"), R"([{"op":"add","path":"/a"},)"), fails(400, "BadRequest", pre + "unexpected end of JSON input"));

    std::string many = "[";
    for (int i = 0; i < 10001; ++i) many += std::string(i ? "," : "") + R"({"op":"test","path":"/a","value":1})";
    many += "]";
    check(jsonPatch(parseJson(R"({"a":1})"), many),
          fails(413, "RequestEntityTooLarge",
                "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"));
}

// Strict findings: warnings under Warn, a 422 under Strict, nothing under Ignore.
BOOST_AUTO_TEST_CASE(strict_decoding_findings) {
    const char* body = R"([{"op":"add","path":"/b","value":2,"xyz":1,"op":"add"}])";
    auto warn = jsonPatch(parseJson(R"({"a":1})"), body);
    BOOST_TEST_REQUIRE(warn.ok);
    BOOST_TEST(warn.strictErrors == (std::vector<std::string>{R"(json patch unknown field "[0].xyz")",
                                                              R"(json patch duplicate field "[0].op")"}),
               boost::test_tools::per_element());
    auto strict = jsonPatch(parseJson(R"({"a":1})"), body, FieldValidation::Strict);
    check(strict, fails(422, "Invalid",
                        R"( "" is invalid: patch: Invalid value: "{\"a\":1,\"b\":2}": strict decoding error: json patch unknown field "[0].xyz", json patch duplicate field "[0].op")"));
    BOOST_TEST(jsonPatch(parseJson(R"({"a":1})"), body, FieldValidation::Ignore).strictErrors.empty());

    auto merge = mergePatch(parseJson("{}"), R"({"a":{"b":1,"b":2},"c":[{"d":1,"d":2}]})");
    BOOST_TEST_REQUIRE(merge.ok);
    BOOST_TEST(merge.value == parseJson(R"({"a":{"b":2},"c":[{"d":2}]})"));
    BOOST_TEST(merge.strictErrors == (std::vector<std::string>{R"(duplicate field "a.b")", R"(duplicate field "c[0].d")"}),
               boost::test_tools::per_element());

    auto smp = smpPod(R"({"metadata":{"labels":{"x":"1","x":"2"}}})", FieldValidation::Strict);
    check(smp, fails(422, "Invalid",
                     R"( "" is invalid: patch: Invalid value: "map[metadata:map[labels:map[x:2]]]": strict decoding error: duplicate field "metadata.labels.x")"));
}

// Malformed bodies: Go's encoding/json syntax errors, as each media type wraps them.
BOOST_AUTO_TEST_CASE(malformed_bodies) {
    struct Case {
        std::string body;
        std::string message;
    };
    const Case cases[] = {
        {"", "unexpected end of JSON input"},
        {"{", "unexpected end of JSON input"},
        {"  ", "unexpected end of JSON input"},
        {"x", "invalid character 'x' looking for beginning of value"},
        {R"({"a":1,})", "invalid character '}' looking for beginning of object key string"},
        {R"({"a" 1})", "invalid character '1' after object key"},
        {R"({"a":1 "b":2})", "invalid character '\"' after object key:value pair"},
        {"[1 2]", "invalid character '2' after array element"},
        {"{} x", "invalid character 'x' after top-level value"},
        {"01", "invalid character '1' after top-level value"},
        {R"("\q")", "invalid character 'q' in string escape code"},
        {R"("\u12x4")", "invalid character 'x' in \\u hexadecimal character escape"},
        {"\"a\x01\"", "invalid character '\\x01' in string literal"},
        {"\"a\n\"", "invalid character '\\n' in string literal"},
        {"-", "invalid character ' ' in numeric literal"},
        {"1.", "invalid character ' ' after decimal point in numeric literal"},
        {"1e+", "invalid character ' ' in exponent of numeric literal"},
        {"tru", "invalid character ' ' in literal true (expecting 'e')"},
        {"nul!", "invalid character '!' in literal null (expecting 'l')"},
        {"{'a':1}", "invalid character '\\'' looking for beginning of object key string"},
        {"\xff", "invalid character 'ÿ' looking for beginning of value"},
        {std::string(1001, '['), "invalid character '[' exceeded max depth"},
    };
    const json::value pod = parseJson(kPod);
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.body.substr(0, 20)) {
            check(mergePatch(pod, c.body), fails(400, "BadRequest", "error decoding patch: " + c.message));
            check(mergePatch(pod, c.body, FieldValidation::Ignore), fails(400, "BadRequest", "Invalid JSON Patch"));
            check(jsonPatch(pod, c.body), fails(400, "BadRequest", "error decoding patch: " + c.message));
            check(jsonPatch(pod, c.body, FieldValidation::Ignore), fails(400, "BadRequest", c.message));
            check(strategicMergePatch(pod, c.body, "v1", "Pod", true), fails(400, "BadRequest", c.message));
        }
    }
    check(strategicMergePatch(pod, "[1]", "v1", "Pod", true),
          fails(400, "BadRequest", "json: cannot unmarshal array into Go value of type map[string]interface {}"));
    check(strategicMergePatch(pod, R"({"a":-1e400})", "v1", "Pod", true),
          fails(400, "BadRequest", "json: cannot unmarshal number -1e400 into Go value of type float64"));
}

BOOST_AUTO_TEST_CASE(strategic_merge_patch_pod) {
    struct Case {
        const char* name;
        const char* patch;
        std::function<void(const json::value&)> verify;
    };
    auto spec = [](const json::value& p) -> const json::object& { return p.at("spec").as_object(); };
    auto container = [&](const json::value& p, std::size_t i) -> const json::object& {
        return spec(p).at("containers").as_array()[i].as_object();
    };
    const Case cases[] = {
        {"containers merge by name", R"({"spec":{"containers":[{"name":"b","image":"b:2"}]}})",
         [&](const json::value& p) {
             BOOST_TEST(names(spec(p).at("containers")) == (std::vector<std::string>{"a", "b"}), boost::test_tools::per_element());
             BOOST_TEST(container(p, 0).at("image") == "a:1");
             BOOST_TEST(container(p, 1).at("image") == "b:2");
         }},
        {"new containers come before the server's", R"({"spec":{"containers":[{"name":"c","image":"c:1"}]}})",
         [&](const json::value& p) {
             BOOST_TEST(names(spec(p).at("containers")) == (std::vector<std::string>{"c", "a", "b"}), boost::test_tools::per_element());
         }},
        {"env merges by name inside the container",
         R"({"spec":{"containers":[{"name":"a","env":[{"name":"Y","value":"3"},{"name":"Z","value":"4"}]}]}})",
         [&](const json::value& p) {
             BOOST_TEST(container(p, 0).at("env") == parseJson(R"([{"name":"X","value":"1"},{"name":"Y","value":"3"},{"name":"Z","value":"4"}])"));
             BOOST_TEST(container(p, 0).at("image") == "a:1");
         }},
        {"$patch: delete removes a list item", R"({"spec":{"containers":[{"name":"b","$patch":"delete"}]}})",
         [&](const json::value& p) { BOOST_TEST(names(spec(p).at("containers")) == std::vector<std::string>{"a"}, boost::test_tools::per_element()); }},
        {"several deletions", R"({"spec":{"containers":[{"name":"a","$patch":"delete"},{"name":"b","$patch":"delete"}]}})",
         [&](const json::value& p) { BOOST_TEST(spec(p).at("containers") == json::array()); }},
        {"$patch: replace replaces the list", R"({"spec":{"containers":[{"name":"z","image":"z:1"},{"$patch":"replace"}]}})",
         [&](const json::value& p) { BOOST_TEST(spec(p).at("containers") == parseJson(R"([{"name":"z","image":"z:1"}])")); }},
        {"$patch: replace on a map", R"({"metadata":{"labels":{"$patch":"replace","only":"this"}}})",
         [&](const json::value& p) { BOOST_TEST(p.at("metadata").at("labels") == parseJson(R"({"only":"this"})")); }},
        {"$patch: delete on a map empties it", R"({"metadata":{"labels":{"$patch":"delete"}}})",
         [&](const json::value& p) { BOOST_TEST(p.at("metadata").at("labels") == parseJson("{}")); }},
        {"null deletes a key", R"({"metadata":{"labels":{"app":null}},"spec":{"nodeName":null,"nope":null}})",
         [&](const json::value& p) {
             BOOST_TEST(p.at("metadata").at("labels") == parseJson(R"({"tier":"fe"})"));
             BOOST_TEST(!spec(p).contains("nodeName"));
             BOOST_TEST(!spec(p).contains("nope"));
         }},
        {"nulls inside new values are dropped", R"({"spec":{"affinity":{"nodeAffinity":null,"podAffinity":{}}}})",
         [&](const json::value& p) { BOOST_TEST(spec(p).at("affinity") == parseJson(R"({"podAffinity":{}})")); }},
        {"finalizers merge as a set", R"({"metadata":{"finalizers":["b","c"]}})",
         [&](const json::value& p) { BOOST_TEST(p.at("metadata").at("finalizers") == parseJson(R"(["a","b","c"])")); }},
        {"$deleteFromPrimitiveList", R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})",
         [&](const json::value& p) { BOOST_TEST(p.at("metadata").at("finalizers") == parseJson(R"(["b"])")); }},
        {"tolerations are atomic", R"({"spec":{"tolerations":[{"key":"k3","operator":"Exists"}]}})",
         [&](const json::value& p) { BOOST_TEST(spec(p).at("tolerations") == parseJson(R"([{"key":"k3","operator":"Exists"}])")); }},
        {"args are atomic", R"({"spec":{"containers":[{"name":"a","args":["z"]}]}})",
         [&](const json::value& p) { BOOST_TEST(container(p, 0).at("args") == parseJson(R"(["z"])")); }},
        {"container ports merge by containerPort", R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"},{"containerPort":443}]}]}})",
         [&](const json::value& p) {
             BOOST_TEST(container(p, 0).at("ports") ==
                        parseJson(R"([{"containerPort":80,"protocol":"TCP","name":"http"},{"containerPort":443}])"));
         }},
        {"volumes by name, volumeMounts by mountPath",
         R"({"spec":{"volumes":[{"name":"w","configMap":{"name":"cm2"}}],"containers":[{"name":"a","volumeMounts":[{"mountPath":"/data","readOnly":true}]}]}})",
         [&](const json::value& p) {
             BOOST_TEST(spec(p).at("volumes") == parseJson(R"([{"name":"v","emptyDir":{}},{"name":"w","configMap":{"name":"cm2"}}])"));
             BOOST_TEST(container(p, 0).at("volumeMounts") == parseJson(R"([{"name":"v","mountPath":"/data","readOnly":true}])"));
         }},
        {"ownerReferences by uid", R"({"metadata":{"ownerReferences":[{"uid":"u2","controller":true}]}})",
         [&](const json::value& p) {
             auto const& refs = p.at("metadata").at("ownerReferences").as_array();
             BOOST_TEST(refs.size() == 2u);
             BOOST_TEST(refs[1] == parseJson(R"({"apiVersion":"v1","kind":"X","name":"o2","uid":"u2","controller":true})"));
         }},
        {"status conditions by type", R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})",
         [&](const json::value& p) {
             BOOST_TEST(p.at("status").at("conditions") ==
                        parseJson(R"([{"type":"Ready","status":"True"},{"type":"Initialized","status":"True"}])"));
         }},
        {"imagePullSecrets by name", R"({"spec":{"imagePullSecrets":[{"name":"s2"}]}})",
         [&](const json::value& p) { BOOST_TEST(spec(p).at("imagePullSecrets") == parseJson(R"([{"name":"s2"},{"name":"s1"}])")); }},
        {"$setElementOrder orders the merged list",
         R"({"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"a","image":"a:2"}]}})",
         [&](const json::value& p) {
             BOOST_TEST(names(spec(p).at("containers")) == (std::vector<std::string>{"b", "a"}), boost::test_tools::per_element());
             BOOST_TEST(container(p, 1).at("image") == "a:2");
         }},
        {"$retainKeys clears other keys", R"({"spec":{"volumes":[{"name":"w","$retainKeys":["name","secret"],"secret":{"secretName":"s"}}]}})",
         [&](const json::value& p) {
             BOOST_TEST(spec(p).at("volumes").as_array()[1] == parseJson(R"({"name":"w","secret":{"secretName":"s"}})"));
         }},
        {"empty patch", "{}", [&](const json::value& p) { BOOST_TEST(p == parseJson(kPod)); }},
        {"null patch", "null", [&](const json::value& p) { BOOST_TEST(p == parseJson(kPod)); }},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto r = smpPod(c.patch);
            BOOST_TEST_REQUIRE(r.ok, r.code << " " << r.message);
            c.verify(r.value);
        }
    }
}

BOOST_AUTO_TEST_CASE(strategic_merge_patch_other_kinds) {
    auto svc = parseJson(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},
        "spec":{"ports":[{"name":"http","port":80,"targetPort":8080},{"name":"https","port":443}]}})");
    auto r = strategicMergePatch(svc, R"({"spec":{"ports":[{"port":443,"targetPort":8443}]}})", "v1", "Service", true);
    BOOST_TEST_REQUIRE(r.ok);
    BOOST_TEST(r.value.at("spec").at("ports") ==
               parseJson(R"([{"name":"http","port":80,"targetPort":8080},{"name":"https","port":443,"targetPort":8443}])"));

    auto deploy = parseJson(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
        "spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}},
                "template":{"metadata":{"finalizers":["x"]},"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}}}})");
    r = strategicMergePatch(deploy, R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"},
        "template":{"metadata":{"finalizers":["y"]},"spec":{"containers":[{"name":"a","image":"a:2"}]}}}})", "apps/v1", "Deployment", true);
    BOOST_TEST_REQUIRE(r.ok, r.message);
    BOOST_TEST(r.value.at("spec").at("strategy") == parseJson(R"({"type":"Recreate"})"));
    // Items only in the patch go before the server's items (mergeSortedSlice).
    BOOST_TEST(r.value.at("spec").at("template").at("metadata").at("finalizers") == parseJson(R"(["y","x"])"));
    BOOST_TEST(r.value.at("spec").at("template").at("spec").at("containers") ==
               parseJson(R"([{"name":"a","image":"a:2"},{"name":"b","image":"b:1"}])"));

    // A kind missing from the table still merges ObjectMeta's lists; other lists are replaced.
    auto cm = parseJson(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["a"]},"data":{"k":"v"}})");
    r = strategicMergePatch(cm, R"({"metadata":{"finalizers":["b"]},"data":{"k2":"v2"}})", "v1", "ConfigMap", true);
    BOOST_TEST_REQUIRE(r.ok);
    BOOST_TEST(r.value == parseJson(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["b","a"]},"data":{"k":"v","k2":"v2"}})"));
}

BOOST_AUTO_TEST_CASE(strategic_merge_patch_errors) {
    struct Case {
        const char* name;
        const char* patch;
        Expect expect;
    };
    const Case cases[] = {
        {"merge key missing", R"({"spec":{"containers":[{"image":"x"}]}})",
         fails(500, "", "map: map[image:x] does not contain declared merge key: name")},
        {"delete without merge key", R"({"spec":{"containers":[{"$patch":"delete"}]}})",
         fails(500, "", "map: map[$patch:delete] does not contain declared merge key: name")},
        {"unknown map directive", R"({"metadata":{"labels":{"$patch":"foo"}}})",
         fails(500, "", "unknown patch type: foo in map: map[$patch:foo]")},
        {"unknown list directive", R"({"spec":{"containers":[{"name":"a","$patch":7}]}})",
         fails(500, "", "unknown patch type: %!s(int64=7) in map: map[$patch:7 name:a]")},
        {"merge directive in a list", R"({"spec":{"containers":[{"name":"a","$patch":"merge"}]}})",
         fails(500, "", "merging lists cannot yet be specified in the patch")},
        {"mixed item types", R"({"metadata":{"finalizers":[1]}})",
         fails(500, "", "list element types are not identical: [[a b] [1]]")},
        {"bad retainKeys", R"({"spec":{"$retainKeys":"x"}})", fails(400, "BadRequest", "invalid patch format of retainKeys")},
        {"patch outside retainKeys", R"({"spec":{"$retainKeys":["a"],"nodeName":"x"}})",
         fails(400, "BadRequest", "invalid patch format of retainKeys")},
        {"bad deleteFromPrimitiveList", R"({"metadata":{"$deleteFromPrimitiveListfinalizers":["a"]}})",
         fails(400, "BadRequest", "invalid patch format of primitive list")},
        {"bad setElementOrder key", R"({"spec":{"$setElementOrderX":[]}})",
         fails(400, "BadRequest", "invalid patch format of setElementOrder list")},
        {"setElementOrder not a list", R"({"spec":{"$setElementOrder/containers":"a"}})",
         fails(500, "", "expected a []interface {}, but received a string")},
        {"setElementOrder disagrees with the patch",
         R"({"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"b","image":"x"}]}})",
         fails(500, "", "The order in patch list:\n[map[image:x name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n")},
        {"null list item", R"({"spec":{"imagePullSecrets":[null]}})",
         fails(500, "", "list element types are not identical: [[map[name:s1]] [<nil>]]")},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) { check(smpPod(c.patch), c.expect); }
    }
    // With nothing in the server's list, the patch's first item decides the list's type.
    auto empty = parseJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[]}})");
    check(strategicMergePatch(empty, R"({"spec":{"containers":[["a"]]}})", "v1", "Pod", true), fails(422, "Invalid", kGeneric422));
    auto nil = strategicMergePatch(empty, R"({"spec":{"containers":[null]}})", "v1", "Pod", true);
    check(nil, fails(500, "InternalError", "This request caused apiserver to panic. Look in the logs for details."));
    BOOST_TEST(nil.plainText);

    auto status = statusOf(smpPod(R"({"spec":{"containers":[{"image":"x"}]}})"));
    BOOST_TEST(!status.contains("reason"));
    BOOST_TEST(status.at("code") == 500);
}

// Custom resources: the server offers no strategic merge patch for them.
BOOST_AUTO_TEST_CASE(strategic_merge_patch_custom_resource_refused) {
    auto cr = parseJson(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{"name":"t"}})");
    auto r = strategicMergePatch(cr, R"({"spec":{}})", "trainer.kubeflow.org/v1alpha1", "TrainJob", false);
    check(r, fails(415, "UnsupportedMediaType",
                   "the body of the request was in an unknown format - accepted media types include: "
                   "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"));
    BOOST_TEST(!r.details.has_value());
    BOOST_TEST(unsupportedPatchType(true).message ==
               "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, "
               "application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml");
}

BOOST_AUTO_TEST_CASE(go_value_formatting) {
    BOOST_TEST(formatGoValue(parseJson(R"({"b":1000000.0,"a":1.5,"c":1e-5,"d":123456.0,"e":[true,null,"s"],"f":-7})")) ==
               "map[a:1.5 b:1e+06 c:1e-05 d:123456 e:[true <nil> s] f:-7]");
    // Strings decode like Go: escapes, surrogate pairs, lone surrogates and invalid UTF-8 become U+FFFD.
    auto r = mergePatch(parseJson("{}"), "{\"s\":\"\\u00e9\\ud83d\\ude00\\ud800x\xff\"}");
    BOOST_TEST_REQUIRE(r.ok);
    BOOST_TEST(r.value.at("s") == "\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx\xef\xbf\xbd");
}

// No input crashes or stalls: deep nesting up to Go's limit, huge lists, non-object patches.
BOOST_AUTO_TEST_CASE(hostile_inputs) {
    auto nested = [](std::size_t depth, const char* open, const char* close, const char* leaf) {
        std::string s;
        for (std::size_t i = 0; i < depth; ++i) s += open;
        s += leaf;
        for (std::size_t i = 0; i < depth; ++i) s += close;
        return s;
    };
    const json::value pod = parseJson(kPod);
    std::string deepObject = nested(999, R"({"spec":)", "}", "null");
    std::string deepArray = nested(1000, "[", "]", "");
    for (auto const* body : {&deepObject, &deepArray}) {
        auto m = mergePatch(pod, *body);
        auto j = jsonPatch(pod, *body);
        auto s = strategicMergePatch(pod, *body, "v1", "Pod", true);
        BOOST_TEST((m.ok || m.code == 400));
        BOOST_TEST((j.ok || j.code == 400 || j.code == 422));
        BOOST_TEST((s.ok || s.code == 400 || s.code == 500));
    }
    // A patch at the depth limit merged into an equally deep document, and a deeper document.
    json::value deepDoc = parseJson("{}");
    {
        json::value* cur = &deepDoc;
        for (int i = 0; i < 5000; ++i) cur = &(cur->as_object()["spec"] = json::object());
    }
    const std::string deepPatch = nested(998, R"({"spec":)", "}", R"({"x":1})");
    BOOST_TEST(mergePatch(deepDoc, deepPatch).ok);
    BOOST_TEST(strategicMergePatch(deepDoc, deepPatch, "v1", "Pod", true).ok);
    BOOST_TEST(jsonPatch(deepDoc, R"([{"op":"copy","from":"/spec","path":"/copy"}])").ok);
    BOOST_TEST(formatGoValue(deepDoc).size() > 1000u);

    // 200000 finalizers and 50000 containers merge, whole. (How fast is a benchmark's question,
    // not an assertion here; a merge quadratic in the list, 4e10 steps, would not end before the
    // suite's per-test timeout.)
    std::string finalizers = R"({"metadata":{"finalizers":[)";
    std::string containers = R"({"spec":{"containers":[)";
    for (int i = 0; i < 200000; ++i) finalizers += (i ? ",\"f" : "\"f") + std::to_string(i) + "\"";
    for (int i = 0; i < 50000; ++i) containers += std::string(i ? "," : "") + R"({"name":"c)" + std::to_string(i) + R"(","image":"x"})";
    finalizers += "]}}";
    containers += "]}}";
    auto big = smpPod(finalizers.c_str());
    BOOST_TEST_REQUIRE(big.ok);
    BOOST_TEST(big.value.at("metadata").at("finalizers").as_array().size() == 200002u);
    auto twice = strategicMergePatch(big.value, containers, "v1", "Pod", true);
    BOOST_TEST_REQUIRE(twice.ok);
    auto again = strategicMergePatch(twice.value, containers, "v1", "Pod", true);
    BOOST_TEST_REQUIRE(again.ok);
    BOOST_TEST(again.value.at("spec").at("containers").as_array().size() == 50002u);

    // Copy amplification stops at the server's 3 MiB limit.
    std::string copies = R"([{"op":"add","path":"/a","value":")" + std::string(100000, 'x') + R"("})";
    for (int i = 0; i < 40; ++i) copies += R"(,{"op":"copy","from":"/a","path":"/b)" + std::to_string(i) + R"("})";
    copies += "]";
    auto amplified = jsonPatch(parseJson("{}"), copies);
    check(amplified, fails(422, "Invalid", kGeneric422));
    BOOST_TEST(amplified.cause.find("exceeding the limit 3145728") != std::string::npos);

    // Non-object patches over an object.
    for (const char* body : {"1", "\"s\"", "true", "[]", "[null]"}) {
        BOOST_TEST_CONTEXT(body) {
            BOOST_TEST(!mergePatch(pod, body).ok);
            BOOST_TEST(!strategicMergePatch(pod, body, "v1", "Pod", true).ok);
        }
    }
    check(jsonPatch(pod, "[null]"), fails(422, "Invalid", kGeneric422));
}

BOOST_AUTO_TEST_SUITE_END()
