// A loaded plugin's hook table (core/plugin/hooks.hpp): which hooks are present, with or without
// a function (a plugin-host child's hooks have none here), looked up on every hook call.
#define BOOST_TEST_MODULE test_core_plugin_hooks
#include <boost/test/unit_test.hpp>

#include "core/plugin/hooks.hpp"

using namespace trainer::core;

namespace {

trn_status first(trn_instance*, trn_call*, trn_str) { return TRN_OK; }
trn_status second(trn_instance*, trn_call*, trn_str) { return TRN_ERROR; }

}  // namespace

BOOST_AUTO_TEST_CASE(an_empty_table_has_no_hook) {
    HookTable t;
    BOOST_TEST(t.size() == 0u);
    for (auto const& h : kHooks) {
        BOOST_TEST(!t.has(h.hook), h.name);
        BOOST_TEST(!t.get(h.hook), h.name);
    }
}

BOOST_AUTO_TEST_CASE(each_hook_has_its_own_slot) {
    HookTable t;
    t.set(Hook::CustomValidation, &first);
    t.set(Hook::TrainJobStatus, &second);
    BOOST_TEST(t.size() == 2u);
    BOOST_TEST(t.get(Hook::CustomValidation) == &first);
    BOOST_TEST(t.get(Hook::TrainJobStatus) == &second);
    for (auto const& h : kHooks)
        if (h.hook != Hook::CustomValidation && h.hook != Hook::TrainJobStatus) BOOST_TEST(!t.has(h.hook), h.name);
    t.set(Hook::CustomValidation, &second);  // set again: replaced, still one hook
    BOOST_TEST(t.size() == 2u);
    BOOST_TEST(t.get(Hook::CustomValidation) == &second);
}

// A plugin whose code runs in a plugin-host child implements its hooks there: present, no function.
BOOST_AUTO_TEST_CASE(a_hook_can_be_present_without_a_function) {
    HookTable t;
    t.set(Hook::ComponentBuilder, nullptr);
    BOOST_TEST(t.has(Hook::ComponentBuilder));
    BOOST_TEST(!t.get(Hook::ComponentBuilder));
    BOOST_TEST(t.size() == 1u);
    BOOST_TEST(!t.has(Hook::PreComponentBuilder));
}

BOOST_AUTO_TEST_CASE(every_hook_fits_the_table) {
    HookTable t;
    for (auto const& h : kHooks) t.set(h.hook, &first);
    BOOST_TEST(t.size() == kHooks.size());
    for (auto const& h : kHooks) BOOST_TEST(t.get(h.hook) == &first, h.name);
}
