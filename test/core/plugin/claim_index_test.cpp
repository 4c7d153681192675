// The claim index (core/plugin/claims.hpp) that start-up checks each plugin's claims against: it
// must find a conflict exactly when comparing with every held claim (claimsConflict) would.
#define BOOST_TEST_MODULE test_core_plugin_claim_index
#include <boost/test/unit_test.hpp>

#include "core/plugin/claims.hpp"

#include <random>
#include <string>
#include <vector>

using namespace trainer::core;

namespace {

// Claims over a small alphabet so that random ones overlap often: name claims of both kinds,
// literals and prefix patterns, "*" alone (a literal name), policies and descriptive claims.
std::string randomClaim(std::mt19937& rng) {
    static const char* kinds[] = {"env:", "env:", "env:", "volume:", "mlPolicy.", "featureGate:", "envRefusal:"};
    std::string claim = kinds[rng() % 7];
    const size_t length = 1 + rng() % 3;
    for (size_t i = 0; i < length; ++i) claim += "AB_"[rng() % 3];
    if (rng() % 3 == 0) claim += '*';
    if (rng() % 17 == 0) claim = claim.substr(0, claim.find(':') + 1) + "*";
    return claim;
}

// What the registry did before the index: every held claim compared.
const std::string* bruteForce(const std::vector<std::string>& held, const std::string& claim) {
    for (auto const& h : held)
        if (claimsConflict(claim, h)) return &h;
    return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(finds_a_conflict_exactly_when_some_held_claim_conflicts) {
    std::mt19937 rng(14);
    int conflicts = 0, checked = 0;
    for (int round = 0; round < 300; ++round) {
        ClaimIndex index;
        std::vector<std::string> held;
        for (int i = 0; i < 40; ++i) {
            const std::string claim = randomClaim(rng);
            const ClaimIndex::Held* found = index.find(claim);
            const std::string* expected = bruteForce(held, claim);
            ++checked;
            BOOST_TEST_REQUIRE((found != nullptr) == (expected != nullptr), claim << " against " << held.size() << " held");
            if (found) {
                ++conflicts;
                BOOST_TEST(claimsConflict(claim, found->claim), claim << " vs " << found->claim);
                BOOST_TEST(found->owner == static_cast<const void*>(&held), found->claim);
                continue;  // refused, as the registry refuses the plugin
            }
            index.add(claim, &held);
            held.push_back(claim);
        }
    }
    BOOST_TEST(checked == 12000);
    BOOST_TEST(conflicts > 1000);  // the alphabet is small enough that the conflict side is exercised
    BOOST_TEST(conflicts < 11000);
}

// One plugin may hold a literal and a pattern of the same prefix (claims conflict only between
// plugins): both stay indexed, so either one's conflicts are found.
BOOST_AUTO_TEST_CASE(a_literal_and_a_pattern_of_one_prefix_are_both_kept) {
    ClaimIndex index;
    int owner = 0;
    index.add("env:PET_", &owner);
    index.add("env:PET_*", &owner);
    BOOST_REQUIRE(index.find("env:PET_NNODES"));
    BOOST_TEST(index.find("env:PET_NNODES")->claim == "env:PET_*");
    BOOST_REQUIRE(index.find("env:PE*"));
    BOOST_TEST(index.find("env:PET_") != nullptr);
    BOOST_TEST(index.find("env:PEX") == nullptr);
    BOOST_TEST(index.find("volume:PET_A") == nullptr);
    BOOST_TEST(index.find("featureGate:PET_") == nullptr);
    index.add("featureGate:X", &owner);
    BOOST_TEST(index.find("featureGate:X") == nullptr);  // descriptive: never held exclusively
}
