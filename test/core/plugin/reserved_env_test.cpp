// The host refuses a TrainJob setting an env var an active plugin claims (core/plugin/
// reserved_env.hpp, sdk/docs/info.md "What the host refuses"), worded as upstream's torch/MPI
// (one error, sorted names) or, with an envRefusal: claim, as upstream's XGBoost (one error per
// entry); name patterns (env:PREFIX*) in the refusal, the load-time conflict check and the ledger.
#include <boost/test/unit_test.hpp>

#include "core/plugin/claims.hpp"
#include "core/plugin/edits.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/operator_settings.hpp"
#include "core/plugin/reserved_env.hpp"
#include "test_support.hpp"

using namespace trainer::core;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(reserved_env)

namespace {

using Loaded = LoadedFixtures;

// An admission Info whose runtime configures `mlPolicy` and whose TrainJob sets `env`.
json::object admissionInfo(json::object mlPolicy, json::array env) {
    json::object info = minimalInfo(std::move(mlPolicy));
    info["trainJob"].as_object()["spec"] = json::object{{"trainer", json::object{{"env", std::move(env)}}}};
    info["admission"] = json::object{{"operation", "CREATE"}};
    return info;
}

json::array envOf(std::initializer_list<const char*> names) {
    json::array out;
    for (auto n : names) out.push_back(json::object{{"name", n}, {"value", "x"}});
    return out;
}

struct Err {
    std::string path;
    std::string message;
    ErrorType type;
    bool operator==(const Err&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Err& e) {
    return os << e.path << ": " << e.message << " (type " << static_cast<int>(e.type) << ")";
}
std::vector<Err> errorsOf(const Diagnostics& d) {
    std::vector<Err> out;
    for (auto const& e : d.errors) out.push_back({e.path, e.message, e.type});
    return out;
}

const ObjectSet kEmpty;

}  // namespace

BOOST_AUTO_TEST_CASE(name_patterns) {
    BOOST_TEST(claimCovers("env:PET_NNODES", "env:", "PET_NNODES"));
    BOOST_TEST(!claimCovers("env:PET_NNODES", "env:", "PET_NNODES2"));
    BOOST_TEST(claimCovers("env:PET_*", "env:", "PET_ANYTHING"));
    BOOST_TEST(claimCovers("env:PET_*", "env:", "PET_"));
    BOOST_TEST(!claimCovers("env:PET_*", "env:", "PETX"));
    BOOST_TEST(!claimCovers("volume:PET_*", "env:", "PET_A"));
    BOOST_TEST(!claimCovers("env:*", "env:", "ANY"));  // no empty prefix: "*" is only that name
    struct Row {
        const char* a;
        const char* b;
        bool conflict;
    };
    for (auto const& r : {Row{"mlPolicy.torch", "mlPolicy.torch", true}, Row{"mlPolicy.torch", "mlPolicy.mpi", false},
                          Row{"env:PET_*", "env:PET_NNODES", true}, Row{"env:PET_NNODES", "env:PET_*", true},
                          Row{"env:PE*", "env:PET_*", true}, Row{"env:PET_*", "env:PEX_*", false},
                          Row{"env:PET_*", "volume:PET_A", false}, Row{"env:A", "env:B", false},
                          Row{"featureGate:X", "featureGate:X", false}, Row{"envRefusal:m", "envRefusal:m", false}})
        BOOST_TEST(claimsConflict(r.a, r.b) == r.conflict, r.a << " vs " << r.b);
}

// The default wording: one error at spec.trainer.env for the plugin, the names sorted and each
// once, the prefix claim included; unclaimed names pass.
BOOST_AUTO_TEST_CASE(default_wording_lists_sorted_names) {
    Loaded l({"reserver", "forbidder"});
    BOOST_REQUIRE(l.registry.find("reserver"));
    Framework fw(l.registry);
    auto d = fw.validate(admissionInfo({{"reserver", json::object{}}},
                                       envOf({"RSV_TWO", "OK", "RSVP_X", "RSV_ONE", "RSV_TWO", "FBD_A"})),
                         kEmpty);
    std::vector<Err> want{{"spec.trainer.env", "must not have reserved envs, invalid envs configured: [RSVP_X RSV_ONE RSV_TWO]",
                           ErrorType::Invalid}};
    BOOST_TEST(errorsOf(d) == want, boost::test_tools::per_element());
    BOOST_TEST(fw.validate(admissionInfo({{"reserver", json::object{}}}, envOf({"OK", "RSV", "RSVPX"})), kEmpty).ok());
}

// envRefusal:<message>: one Forbidden error per offending entry, at its index, {name} replaced.
BOOST_AUTO_TEST_CASE(refusal_message_per_entry) {
    Loaded l({"reserver", "forbidder"});
    BOOST_REQUIRE(l.registry.find("forbidder"));
    Framework fw(l.registry);
    auto d = fw.validate(admissionInfo({{"forbidder", json::object{}}}, envOf({"OK", "FBD_A", "RSV_ONE", "FBD_B"})), kEmpty);
    std::vector<Err> want{{"spec.trainer.env[1]", "FBD_A is reserved for the Forbidder runtime", ErrorType::Forbidden},
                          {"spec.trainer.env[3]", "FBD_B is reserved for the Forbidder runtime", ErrorType::Forbidden}};
    BOOST_TEST(errorsOf(d) == want, boost::test_tools::per_element());
}

// Only active plugins refuse: another policy's claims, a gated-off plugin's claims hold nothing.
BOOST_AUTO_TEST_CASE(only_active_plugins_refuse) {
    Loaded l({"reserver", "forbidder", "gated"});
    BOOST_REQUIRE(l.registry.find("gated"));
    auto info = admissionInfo({{"forbidder", json::object{}}}, envOf({"RSV_ONE", "GATED_ENV"}));
    BOOST_TEST(Framework(l.registry).validate(info, kEmpty).ok());
    OperatorSettings on;
    on.featureGates = {{"Gated", true}};
    auto d = Framework(l.registry, {}, on).validate(info, kEmpty);
    std::vector<Err> want{{"spec.trainer.env", "must not have reserved envs, invalid envs configured: [GATED_ENV]",
                           ErrorType::Invalid}};
    BOOST_TEST(errorsOf(d) == want, boost::test_tools::per_element());
}

// No spec.trainer, no env, env entries without a name: nothing to refuse, no crash.
BOOST_AUTO_TEST_CASE(absent_or_odd_env) {
    Loaded l({"reserver"});
    BOOST_REQUIRE(l.registry.find("reserver"));
    auto* p = l.registry.find("reserver");
    BOOST_TEST(refuseClaimedEnv(*p, json::object{}).ok());
    BOOST_TEST(refuseClaimedEnv(*p, json::object{{"spec", json::object{{"trainer", nullptr}}}}).ok());
    BOOST_TEST(refuseClaimedEnv(*p, json::object{{"spec", json::object{{"trainer", json::object{{"env", "RSV_ONE"}}}}}}).ok());
    json::object odd{{"spec", json::object{{"trainer", json::object{{"env", json::array{1, json::object{{"value", "v"}},
                                                                                   json::object{{"name", 7}}}}}}}}};
    BOOST_TEST(refuseClaimedEnv(*p, odd).ok());
}

// The plugin's own CustomValidation speaks first, then the host for its claims, plugin by plugin.
BOOST_AUTO_TEST_CASE(after_the_plugins_own_validation) {
    Loaded l({"reserver"}, {{"reserver", R"({"deny": true})"}});
    BOOST_REQUIRE(l.registry.find("reserver"));
    auto d = Framework(l.registry).validate(admissionInfo({{"reserver", json::object{}}}, envOf({"RSV_ONE"})), kEmpty);
    std::vector<Err> want{{"spec.trainer", "denied by reserver", ErrorType::Invalid},
                          {"spec.trainer.env", "must not have reserved envs, invalid envs configured: [RSV_ONE]",
                           ErrorType::Invalid}};
    BOOST_TEST(errorsOf(d) == want, boost::test_tools::per_element());
}

// Load time: a prefix claim covering another plugin's claim is a conflict naming both (files load
// by name: overlapper.so first, so reserver.so is refused); claims that only describe a plugin
// (featureGate:, envRefusal:) are shared freely.
BOOST_AUTO_TEST_CASE(prefix_claims_conflict_at_load) {
    Loaded l({"reserver", "overlapper", "gated", "gated_twin", "forbidder"});
    BOOST_TEST(l.registry.find("overlapper"));
    BOOST_TEST(!l.registry.find("reserver"));
    std::string why = rejectionFor(l.registry, "reserver.so");
    BOOST_TEST(why.find("its claim \"env:RSVP_*\" overlaps \"env:RSVP_EXTRA\", held by plugin overlapper (" +
                        l.dir.path("overlapper") + ")") != std::string::npos,
               why);
    BOOST_TEST(l.registry.find("gated"));
    BOOST_TEST(l.registry.find("gated-twin"));
    BOOST_TEST(l.registry.find("forbidder"));
}

// The edit ledger honours prefix claims: another plugin writing a name inside one is an error.
BOOST_AUTO_TEST_CASE(ledger_honours_prefix_claims) {
    json::object info = minimalInfo();
    EditLedger ledger;
    ledger.addClaim("env:RSVP_*", "reserver");
    auto edit = [](const char* name) {
        return json::serialize(json::object{{"op", "set"},
                                            {"path", std::string("/podSets/node/containers/node/env/") + name},
                                            {"value", json::object{{"name", name}, {"value", "1"}}}});
    };
    BOOST_TEST(ledger.apply(info, "reserver", edit("RSVP_A")) == "");
    BOOST_TEST(ledger.apply(info, "other", edit("RSVP_B")) ==
               "plugin other wrote /podSets/node/containers/node/env/RSVP_B, but \"env:RSVP_*\" is claimed by plugin "
               "reserver");
    BOOST_TEST(ledger.apply(info, "other", edit("RSV_B")) == "");
}

BOOST_AUTO_TEST_SUITE_END()
