// The SDK's side of the host ABI: lookups tell a failed read from absence (TRN_LOOKUP_ERROR),
// every host-table member is read only when struct_size covers it (rule 4), and the Info
// accessors are safe on any document.
#define BOOST_TEST_MODULE sdk_context_abi_test
#include <boost/test/unit_test.hpp>

#include <trainer/plugin.hpp>
#include <trainer/testing.hpp>

#include <cstddef>
#include <cstring>

using namespace trainer::sdk;

namespace {

const json::object kSecret = json::parse(R"({"apiVersion":"v1","kind":"Secret",
    "metadata":{"name":"key","namespace":"ns"},"data":{"k":"dg=="}})").as_object();

// A ComponentBuilder that, as a key-making plugin does, makes a Secret only when none exists.
struct KeyMaker : Plugin, ComponentBuilder {
    KeyMaker(const json::object&, Context&) {}
    static PluginMeta meta() { return {"keymaker", "0.1", "makes a key once", 0, true, {}, {}}; }
    void build(const Info& info, Objects& objects, Context& ctx) override {
        if (!ctx.lookup("v1", "Secret", info.ns(), "key")) objects.add(kSecret);
    }
};
using Adapter = detail::Adapter<KeyMaker>;

std::string messages(const testing::Host& host) {
    std::string s;
    for (auto const& d : host.diagnostics) s += d.message + "\n";
    return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(lookups)

BOOST_AUTO_TEST_CASE(try_lookup_tells_found_absent_and_failed_apart) {
    testing::Host host;
    auto ctx = host.context();
    auto absent = ctx.tryLookup("v1", "Secret", "ns", "key");
    BOOST_TEST(absent.notFound());
    host.cluster.push_back(kSecret);
    auto found = ctx.tryLookup("v1", "Secret", "ns", "key");
    BOOST_TEST_REQUIRE(found.found());
    BOOST_TEST(found.object == kSecret);
    host.lookupFailure = "database is locked";
    auto failed = ctx.tryLookup("v1", "Secret", "ns", "key");
    BOOST_TEST(failed.failed());
    BOOST_TEST(!failed.message.empty());
    BOOST_TEST(failed.object.empty());
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);  // the host's own diagnostic
    BOOST_TEST(host.errors()[0].message == "cluster read of Secret ns/key failed: database is locked");
}

BOOST_AUTO_TEST_CASE(lookup_throws_on_a_failed_read_instead_of_answering_absent) {
    testing::Host host;
    auto ctx = host.context();
    host.lookupFailure = "database is locked";
    try {
        (void)ctx.lookup("v1", "Secret", "ns", "key");
        BOOST_FAIL("lookup returned on a failed read");
    } catch (const LookupError& e) {
        BOOST_TEST(std::string(e.what()).find("cluster read of Secret ns/key failed") != std::string::npos, e.what());
    }
    host.lookupFailure.reset();
    BOOST_TEST(!ctx.lookup("v1", "Secret", "ns", "key").has_value());
}

// Through the adapter (what TRAINER_PLUGIN exports): the hook fails, naming the read, and the
// Secret a "not found" would have made is never emitted.
BOOST_AUTO_TEST_CASE(a_hook_whose_lookup_fails_fails_and_emits_nothing) {
    testing::Host host;
    trn_host_info info{sizeof(trn_host_info), TRN_ABI_ENCODE(1, 0), TRN_ABI_VERSION, toAbi("test"), host.api()};
    BOOST_REQUIRE(Adapter::entry(&info));
    trn_instance* self = Adapter::create(host.call(), toAbi("{}"));
    BOOST_REQUIRE(self);
    const std::string input = R"({"infoVersion":1,"trainJob":{"metadata":{"name":"j","namespace":"ns"}}})";
    BOOST_TEST(Adapter::build(self, host.call(), toAbi(input)) == TRN_OK);
    BOOST_TEST(host.emitted.size() == 1u);  // absent: made once
    host.clear();
    host.lookupFailure = "database is locked";
    BOOST_TEST(Adapter::build(self, host.call(), toAbi(input)) == TRN_ERROR);
    BOOST_TEST(host.emitted.empty());
    BOOST_TEST(host.errors().size() == 2u, messages(host));  // the host's and the plugin's
    BOOST_TEST(messages(host).find("plugin keymaker failed in ComponentBuilder: cluster read of Secret ns/key failed") !=
                   std::string::npos,
               messages(host));
    Adapter::destroy(self);
}

BOOST_AUTO_TEST_CASE(an_unknown_lookup_code_is_an_error) {
    testing::Host host;
    trn_host_api api = *host.api();
    api.lookup = [](trn_call*, trn_str, trn_str, trn_str, trn_str, trn_str*) -> int32_t { return 7; };
    Context ctx(&api, host.call(), "test");
    auto r = ctx.tryLookup("v1", "Secret", "ns", "key");
    BOOST_TEST(r.failed());
    BOOST_TEST(r.message.find("unknown code 7") != std::string::npos, r.message);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(struct_sizes)

// A host table that ends before `lookup` (an older host, rule 4) is never read past its end:
// the members beyond are filled with garbage a careless reader would call and crash on.
BOOST_AUTO_TEST_CASE(host_table_members_past_struct_size_are_not_provided) {
    testing::Host host;
    union {
        trn_host_api api;
        unsigned char bytes[sizeof(trn_host_api)];
    } u;
    std::memset(u.bytes, 0xAB, sizeof u.bytes);
    u.api.struct_size = static_cast<uint32_t>(offsetof(trn_host_api, emit) + sizeof u.api.emit);
    u.api.log = host.api()->log;
    u.api.diagnostic = host.api()->diagnostic;
    u.api.emit = host.api()->emit;
    Context ctx(&u.api, host.call(), "test");
    ctx.info("still logs");
    ctx.emit(json::object{{"ok", true}});
    BOOST_TEST(host.logs.size() == 1u);
    BOOST_TEST(host.emitted.size() == 1u);
    auto r = ctx.tryLookup("v1", "Secret", "ns", "key");
    BOOST_TEST(r.failed());
    BOOST_TEST(r.message == "the host provides no lookup");
    BOOST_CHECK_THROW((void)ctx.lookup("v1", "Secret", "ns", "key"), LookupError);

    // Only struct_size: nothing is provided; reporting still fails the operation, nothing crashes.
    u.api.struct_size = sizeof(uint32_t);
    Context bare(&u.api, host.call(), "test");
    bare.info("dropped");
    bare.error("spec", "fails");
    bare.emit(json::object{});
    BOOST_TEST(bare.failed());
    BOOST_TEST(host.logs.size() == 1u);
    BOOST_TEST(host.emitted.size() == 1u);
    BOOST_TEST(host.diagnostics.empty());
}

// The handshake reads host->api only when host->struct_size reaches past it.
BOOST_AUTO_TEST_CASE(entry_reads_the_api_pointer_only_when_struct_size_covers_it) {
    testing::Host host;
    trn_host_info info{};
    std::memset(&info, 0xAB, sizeof info);  // api: a garbage pointer
    info.abi_min = TRN_ABI_ENCODE(1, 0);
    info.abi_max = TRN_ABI_VERSION;
    for (uint32_t size : {uint32_t{0}, uint32_t{12}, static_cast<uint32_t>(offsetof(trn_host_info, api)),
                          static_cast<uint32_t>(offsetof(trn_host_info, api) + sizeof info.api - 1)}) {
        info.struct_size = size;
        BOOST_TEST(Adapter::entry(&info) == nullptr, "struct_size " << size);
    }
    BOOST_TEST(Adapter::entry(nullptr) == nullptr);
    info.struct_size = sizeof info;
    info.host_version = toAbi("test");
    info.api = host.api();
    const trn_plugin_descriptor* d = Adapter::entry(&info);
    BOOST_REQUIRE(d);
    BOOST_TEST(std::string(d->name) == "keymaker");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(info_accessors)

// Whatever the document lacks reads as empty: no accessor dereferences null.
BOOST_AUTO_TEST_CASE(accessors_are_safe_on_any_document) {
    struct Case {
        const char* doc;
        bool hasTrainJob;  // a TrainJob object, of members of the wrong type
    };
    const Case cases[] = {{R"({})", false},
                          {R"({"trainJob":5})", false},
                          {R"({"trainJob":{"metadata":[],"spec":"x"}})", true},
                          {R"({"podSets":{},"jobSetSpec":[],"runtimePolicy":7})", false}};
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.doc) {
            Info info(json::parse(c.doc).as_object());
            BOOST_TEST(info.trainJob().empty() == !c.hasTrainJob);
            BOOST_TEST(info.name().empty());
            BOOST_TEST(info.ns().empty());
            BOOST_TEST(info.uid().empty());
            BOOST_TEST(info.spec().empty());
            BOOST_TEST(info.trainer() == nullptr);
            BOOST_TEST(info.mlPolicy() == nullptr);
            BOOST_TEST(info.podGroupPolicy() == nullptr);
            BOOST_TEST(info.jobSetSpec().empty());
            BOOST_TEST(info.podSets().empty());
            BOOST_TEST(info.podSet("node") == nullptr);
            BOOST_TEST(info.podSetByAncestor("trainer") == nullptr);
            BOOST_TEST(info.admission() == nullptr);
            BOOST_TEST(controllerRef(info).at("name") == "");
        }
    }
    Info full(json::parse(R"({"trainJob":{"metadata":{"name":"j","namespace":"ns","uid":"u"},"spec":{"trainer":{}}}})")
                  .as_object());
    BOOST_TEST(full.name() == "j");
    BOOST_TEST(full.ns() == "ns");
    BOOST_TEST(full.uid() == "u");
    BOOST_TEST(full.trainer() != nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
