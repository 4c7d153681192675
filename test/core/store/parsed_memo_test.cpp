// ParsedMemo (core/store/parsed_memo.hpp), on time points the tests choose: a remembered object is
// answered without a read only after a read confirmed the head, while no other read has
// completed, and within the trust; this process's commits forget exactly what they wrote; a head
// that moved (another process's write) forgets everything; nothing read before a commit or
// against another head is remembered.
#include <boost/test/unit_test.hpp>

#include "core/store/parsed_memo.hpp"

using namespace trainer::core;
using namespace std::chrono_literals;

namespace {

const ObjectKey kA{"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime", "", "torch"};
const ObjectKey kB{"trainer.kubeflow.org/v1alpha1", "TrainingRuntime", "team", "mpi"};
const ParsedMemo::Clock::time_point t0{std::chrono::hours(1)};

std::shared_ptr<const ReadResult> object(const std::string& name) {
    return std::make_shared<const ReadResult>(ReadResult::of(json::object{{"metadata", json::object{{"name", name}}}}));
}

// A memo that remembers `a` for kA at revision 4, read with the head at 7 and confirmed at t0.
struct Confirmed {
    ParsedMemo memo{100ms};
    std::shared_ptr<const ReadResult> a = object("a");
    Confirmed() {
        auto t = memo.ticket();
        memo.confirm(t, 7, t0);
        memo.remember(t, 7, kA, 4, a);
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(parsed_memo)

BOOST_AUTO_TEST_CASE(nothing_is_trusted_before_a_read_confirmed_the_head) {
    ParsedMemo memo;
    BOOST_TEST(!memo.trusted(kA, t0));
    auto t = memo.ticket();
    memo.remember(t, 7, kA, 4, object("a"));  // the head was never confirmed: not remembered
    BOOST_TEST(memo.size() == 0u);
    BOOST_TEST(!memo.at(kA, 4));
}

BOOST_AUTO_TEST_CASE(a_confirmed_object_is_answered_for_the_trust_and_no_longer) {
    Confirmed c;
    BOOST_TEST(c.memo.trusted(kA, t0).get() == c.a.get());
    BOOST_TEST(c.memo.trusted(kA, t0 + 99ms).get() == c.a.get());
    BOOST_TEST(!c.memo.trusted(kA, t0 + 100ms));
    BOOST_TEST(!c.memo.trusted(kB, t0));  // never read
    BOOST_TEST(c.memo.at(kA, 4).get() == c.a.get());
    BOOST_TEST(!c.memo.at(kA, 5));  // the row moved on: the caller parses it
    // A later read that finds the same head trusts it again, from then.
    auto t = c.memo.ticket();
    c.memo.confirm(t, 7, t0 + 150ms);
    BOOST_TEST(c.memo.trusted(kA, t0 + 200ms).get() == c.a.get());
}

BOOST_AUTO_TEST_CASE(any_other_read_ends_the_trust_until_the_head_is_confirmed_again) {
    Confirmed c;
    c.memo.readDone();  // e.g. the change feed, which may have shown another process's write
    BOOST_TEST(!c.memo.trusted(kA, t0));
    BOOST_TEST(c.memo.at(kA, 4).get() == c.a.get());  // still remembered, just not trusted
    auto t = c.memo.ticket();
    c.memo.confirm(t, 7, t0);
    BOOST_TEST(c.memo.trusted(kA, t0).get() == c.a.get());
}

BOOST_AUTO_TEST_CASE(a_read_that_completed_during_the_confirming_read_leaves_it_unconfirmed) {
    Confirmed c;
    c.memo.readDone();
    auto t = c.memo.ticket();
    c.memo.readDone();  // finished while the confirming read ran: it may have seen a newer head
    c.memo.confirm(t, 7, t0);
    BOOST_TEST(!c.memo.trusted(kA, t0));
}

BOOST_AUTO_TEST_CASE(a_head_that_moved_forgets_everything) {
    Confirmed c;
    auto t = c.memo.ticket();
    c.memo.confirm(t, 9, t0);  // another process wrote revisions 8 and 9
    BOOST_TEST(c.memo.size() == 0u);
    BOOST_TEST(!c.memo.trusted(kA, t0));
    c.memo.remember(t, 9, kB, 9, object("b"));
    BOOST_TEST(c.memo.trusted(kB, t0)->object.at("metadata").at("name") == "b");
}

BOOST_AUTO_TEST_CASE(this_processs_commit_forgets_the_rows_it_wrote_and_keeps_the_trust) {
    Confirmed c;
    auto t = c.memo.ticket();
    c.memo.remember(t, 7, kB, 6, object("b"));
    c.memo.committed(7, 8, {kA});
    BOOST_TEST(!c.memo.trusted(kA, t0));
    BOOST_TEST(c.memo.trusted(kB, t0)->object.at("metadata").at("name") == "b");
    // A commit that found a head the memo did not know: another process wrote first.
    c.memo.committed(10, 11, {});
    BOOST_TEST(c.memo.size() == 0u);
}

BOOST_AUTO_TEST_CASE(a_row_read_before_a_commit_or_against_an_older_head_is_not_remembered) {
    Confirmed c;
    auto before = c.memo.ticket();
    c.memo.committed(7, 8, {kB});  // wrote kB after the read of kB began
    c.memo.remember(before, 7, kB, 6, object("stale"));
    BOOST_TEST(!c.memo.at(kB, 6));
    auto t = c.memo.ticket();
    c.memo.remember(t, 7, kB, 6, object("older head"));  // read with the head at 7, the memo is at 8
    BOOST_TEST(!c.memo.at(kB, 6));
    c.memo.confirm(t, 7, t0);  // a head behind the memo's confirms nothing
    BOOST_TEST(c.memo.size() == 1u);
    c.memo.remember(t, 8, kB, 8, object("b"));
    BOOST_TEST(c.memo.at(kB, 8)->object.at("metadata").at("name") == "b");
}

BOOST_AUTO_TEST_CASE(the_memo_is_bounded) {
    ParsedMemo memo;
    auto t = memo.ticket();
    memo.confirm(t, 1, t0);
    for (std::size_t i = 0; i < ParsedMemo::kObjects; ++i)
        memo.remember(t, 1, ObjectKey{"v1", "ConfigMap", "default", "c" + std::to_string(i)}, 1, object("c"));
    BOOST_TEST(memo.size() == ParsedMemo::kObjects);
    memo.remember(t, 1, kA, 1, object("a"));
    BOOST_TEST(memo.size() == 1u);
    BOOST_TEST(memo.trusted(kA, t0));
}

BOOST_AUTO_TEST_SUITE_END()
