// The text an edit reaches the host as. Edits writes each edit straight into its WipedText
// (sdk/include/trainer/plugin.hpp, Edits::emitSet) instead of building the edit object and
// serialising it; the host must receive exactly the bytes json::serialize gives for that object,
// whatever the strings hold and however large the value grows.
#define BOOST_TEST_MODULE sdk_edits_text_test
#include <boost/test/unit_test.hpp>

#include <trainer/plugin.hpp>

#include <string>
#include <vector>

using namespace trainer::sdk;

namespace {

// A host whose emit keeps every document's bytes as they arrive.
struct RawHost {
    RawHost() {
        api.struct_size = sizeof(trn_host_api);
        api.emit = &emitFn;
    }
    Context context() { return Context(&api, reinterpret_cast<trn_call*>(this), "raw"); }
    static void emitFn(trn_call* c, trn_str doc) {
        reinterpret_cast<RawHost*>(c)->texts.emplace_back(fromAbi(doc));
    }
    trn_host_api api{};
    std::vector<std::string> texts;
};

std::string setText(std::string_view path, json::value value) {
    return json::serialize(json::object{{"op", "set"}, {"path", path}, {"value", std::move(value)}});
}

// Names that need every kind of escape: quote, backslash, control characters, a pointer's '~'
// and '/', and UTF-8 that json::serialize leaves as it is.
const std::vector<std::string> kAwkward = {
    "PLAIN", "qu\"ote", "back\\slash", "tab\tnew\nline", std::string("nul\0byte", 8), "\x01\x1f", "ti~lde/sl~1ash", "ünï",
    "",
};

}  // namespace

BOOST_AUTO_TEST_CASE(every_edit_is_the_serialised_edit_object) {
    for (auto const& s : kAwkward) {
        RawHost host;
        auto ctx = host.context();
        Edits edits(ctx);
        std::vector<std::string> expected;

        edits.upsertEnv("node", "node", s, s + "-value");
        expected.push_back(setText(Edits::containerPath("node", "node") + "/env/" + pointerSegment(s),
                                   json::object{{"name", s}, {"value", s + "-value"}}));
        const json::object env{{"name", s}, {"valueFrom", {{"fieldRef", {{"fieldPath", s}}}}}};
        edits.upsertEnv("ps" + s, "c" + s, env, /*init=*/true);
        expected.push_back(setText(Edits::containerPath("ps" + s, "c" + s, true) + "/env/" + pointerSegment(s), env));
        const json::object port{{"containerPort", 29500}, {"name", s}};
        edits.upsertPort("node", s, port);
        expected.push_back(setText(Edits::containerPath("node", s) + "/ports/29500", port));
        const json::object mount{{"mountPath", "/m/" + s}, {"name", s}};
        edits.upsertVolumeMount("node", "node", mount);
        expected.push_back(setText(Edits::containerPath("node", "node") + "/volumeMounts/" + pointerSegment("/m/" + s), mount));
        const json::object volume{{"name", s}, {"emptyDir", json::object{}}};
        edits.upsertVolume("node", volume);
        expected.push_back(setText(Edits::podSetPath("node") + "/volumes/" + pointerSegment(s), volume));
        edits.setPodLabel(s, s);
        expected.push_back(setText("/scheduler/podLabels/" + pointerSegment(s), json::string(s)));
        edits.setPodAnnotation("a/" + s, "v" + s);
        expected.push_back(setText("/scheduler/podAnnotations/" + pointerSegment("a/" + s), json::string("v" + s)));
        edits.setCount(s, -3);
        expected.push_back(setText(Edits::podSetPath(s) + "/count", -3));
        edits.set("/x/" + s, json::array{1, 2.5, true, nullptr, s});
        expected.push_back(setText("/x/" + s, json::array{1, 2.5, true, nullptr, s}));
        edits.remove("/y/" + s);
        expected.push_back(json::serialize(json::object{{"op", "remove"}, {"path", "/y/" + s}}));

        BOOST_TEST(!ctx.failed());
        BOOST_REQUIRE_EQUAL(host.texts.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) BOOST_TEST(host.texts[i] == expected[i], "edit " << i << " of \"" << s << "\"");
    }
}

// A value far past the first 1 KiB buffer: the text grows through several buffers and stays whole.
BOOST_AUTO_TEST_CASE(a_value_larger_than_the_first_buffer_arrives_whole) {
    for (size_t n : {0ul, 900ul, 1000ul, 1024ul, 5000ul, 70000ul}) {
        RawHost host;
        auto ctx = host.context();
        Edits edits(ctx);
        const std::string big(n, 'x');
        edits.upsertEnv("node", "node", "BIG", big);
        edits.set("/big", json::object{{"a", big}, {"b", json::array{big, big}}});
        BOOST_REQUIRE_EQUAL(host.texts.size(), 2u);
        BOOST_TEST(host.texts[0] == setText("/podSets/node/containers/node/env/BIG", json::object{{"name", "BIG"}, {"value", big}}));
        BOOST_TEST(host.texts[1] == setText("/big", json::object{{"a", big}, {"b", json::array{big, big}}}));
    }
}

BOOST_AUTO_TEST_CASE(wiped_text_appends_raw_bytes_and_serialised_json_in_order) {
    WipedText t;
    BOOST_TEST(t.view().empty());
    t.append("[");
    t.appendJson(std::string_view("a\"b"));
    t.append(",");
    t.appendJson(json::value(42));
    t.append(",");
    t.appendJson(json::object{{"k", json::array{1, "two"}}});
    t.append("]");
    BOOST_TEST(t.view() == R"(["a\"b",42,{"k":[1,"two"]}])");
    BOOST_TEST(json::parse(t.view()) == json::parse(R"(["a\"b",42,{"k":[1,"two"]}])"));
}

// Without an emit in the host table the edit cannot be sent: the call fails, as Context::emit does.
BOOST_AUTO_TEST_CASE(an_edit_without_a_host_emit_fails_the_call) {
    trn_host_api api{};
    api.struct_size = sizeof(trn_host_api);
    Context ctx(&api, nullptr, "raw");
    Edits edits(ctx);
    edits.upsertEnv("node", "node", "A", "b");
    BOOST_TEST(ctx.failed());
}
