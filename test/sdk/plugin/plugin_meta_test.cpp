// PluginMeta's documented style (designated initializers, <trainer/plugin.hpp>) and the older
// positional and member-by-member forms describe the same plugin: the descriptor the SDK hands
// the host is the same for all three, so code written either way keeps compiling and loading.
#include <boost/test/unit_test.hpp>

#include <trainer/plugin.hpp>

#include <string>
#include <type_traits>
#include <vector>

using namespace trainer::sdk;

static_assert(std::is_aggregate_v<PluginMeta>, "PluginMeta must stay an aggregate: designated and positional init");

namespace {

PluginMeta designated() {
    return {.name = "meta", .version = "1.0.0", .description = "d", .priority = 7, .threadSafe = false,
            .claims = {"mlPolicy.meta", "env:META_*"}, .watches = {{"v1", "ConfigMap", TRN_WATCH_OWNED}}};
}
PluginMeta positional() {
    return PluginMeta{"meta", "1.0.0", "d", 7, false, {"mlPolicy.meta", "env:META_*"},
                      {{"v1", "ConfigMap", TRN_WATCH_OWNED, nullptr}}};
}
PluginMeta memberwise() {
    PluginMeta m;
    m.name = "meta";
    m.version = "1.0.0";
    m.description = "d";
    m.priority = 7;
    m.threadSafe = false;
    m.claims = {"mlPolicy.meta", "env:META_*"};
    m.watches = {Watch{"v1", "ConfigMap", TRN_WATCH_OWNED, nullptr}};
    return m;
}

template <PluginMeta (*Make)()>
struct P : Plugin, EnforceMLPolicy {
    P(const json::object&, Context&) {}
    static PluginMeta meta() { return Make(); }
    void enforceMLPolicy(const Info&, Edits&, Context&) override {}
};

// What the host reads of the descriptor, as text.
std::string describe(const trn_plugin_descriptor* d) {
    std::string s = std::string(d->name) + "|" + d->version + "|" + d->description + "|" + std::to_string(d->priority) +
                    "|" + std::to_string(d->flags);
    for (size_t i = 0; i < d->claim_count; ++i) s += "|" + std::string(d->claims[i]);
    for (size_t i = 0; d->watch_extension && i < d->watch_extension->watch_count; ++i) {
        auto* w = d->watch_extension->watches[i];
        s += "|watch " + std::string(w->api_version) + " " + w->kind + " " + std::to_string(w->mode);
    }
    return s;
}

template <class Plug>
std::string descriptorOf() {
    static trn_host_api api{};
    api.struct_size = sizeof api;
    trn_host_info host{sizeof(trn_host_info), TRN_ABI_ENCODE(TRN_ABI_MAJOR, 0), TRN_ABI_VERSION, toAbi("t"), &api};
    return describe(detail::Adapter<Plug>::entry(&host));
}

}  // namespace

BOOST_AUTO_TEST_CASE(three_styles_one_descriptor) {
    const std::string want = "meta|1.0.0|d|7|0|mlPolicy.meta|env:META_*|watch v1 ConfigMap " + std::to_string(TRN_WATCH_OWNED);
    BOOST_TEST(descriptorOf<P<designated>>() == want);
    BOOST_TEST(descriptorOf<P<positional>>() == want);
    BOOST_TEST(descriptorOf<P<memberwise>>() == want);
}

BOOST_AUTO_TEST_CASE(defaults_of_unnamed_members) {
    PluginMeta m{.name = "n", .version = "v", .description = "d"};
    BOOST_TEST(m.priority == 0);
    BOOST_TEST(m.threadSafe);
    BOOST_TEST(m.claims.empty());
    BOOST_TEST(m.watches.empty());
}
