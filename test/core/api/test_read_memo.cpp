#include <boost/test/unit_test.hpp>

#include "core/api/read_error_latch.hpp"
#include "core/api/read_memo.hpp"

#include <atomic>

using namespace trainer::core;

namespace {

// Counts the reads that reach it; answers from an ObjectSet, or fails while `failing`.
class CountingReader : public ClusterReader {
public:
    ObjectSet objects;
    mutable std::atomic<int> gets{0}, lists{0};
    bool failing = false;

    ReadResult get(const ObjectKey& key) const override {
        ++gets;
        return failing ? ReadResult::error("database is locked") : objects.get(key);
    }
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns) const override {
        ++lists;
        return objects.list(apiVersion, kind, ns);
    }
};

json::object configMap(const std::string& name, const std::string& value) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", name}, {"namespace", "default"}}},
                        {"data", {{"v", value}}}};
}

const ObjectKey kA{"v1", "ConfigMap", "default", "a"};
const ObjectKey kB{"v1", "ConfigMap", "default", "b"};

}  // namespace

BOOST_AUTO_TEST_SUITE(read_memo)

BOOST_AUTO_TEST_CASE(each_key_is_read_once_and_answered_the_same) {
    CountingReader inner;
    inner.objects.put(configMap("a", "1"));
    ReadMemo memo(inner);
    auto first = memo.get(kA);
    inner.objects.put(configMap("a", "2"));  // a change after the first read is not seen
    auto second = memo.get(kA);
    BOOST_TEST(inner.gets.load() == 1);
    BOOST_TEST_REQUIRE(second.found());
    BOOST_TEST(second.object.at("data").at("v") == "1");
    BOOST_TEST(json::serialize(first.object) == json::serialize(second.object));
}

BOOST_AUTO_TEST_CASE(absence_is_remembered_too) {
    CountingReader inner;
    ReadMemo memo(inner);
    BOOST_TEST(memo.get(kB).notFound());
    BOOST_TEST(memo.get(kB).notFound());
    BOOST_TEST(inner.gets.load() == 1);
    BOOST_TEST(memo.remembered() == 1u);
}

BOOST_AUTO_TEST_CASE(a_failed_read_is_not_remembered) {
    CountingReader inner;
    inner.objects.put(configMap("a", "1"));
    inner.failing = true;
    ReadMemo memo(inner);
    auto failed = memo.get(kA);
    BOOST_TEST(failed.failed());
    BOOST_TEST(failed.message == "database is locked");
    inner.failing = false;
    BOOST_TEST(memo.get(kA).found());  // asked again, not "failed" nor "absent" from memory
    BOOST_TEST(inner.gets.load() == 2);
}

BOOST_AUTO_TEST_CASE(lists_go_to_the_inner_reader_every_time) {
    CountingReader inner;
    inner.objects.put(configMap("a", "1"));
    ReadMemo memo(inner);
    BOOST_TEST(memo.list("v1", "ConfigMap").value.size() == 1u);
    inner.objects.put(configMap("b", "2"));
    BOOST_TEST(memo.list("v1", "ConfigMap").value.size() == 2u);
    BOOST_TEST(inner.lists.load() == 2);
}

// share() hands out the remembered answer itself; get() a copy of it. Admission reads a runtime
// for the reference check and again to build the Info, and copies it at most once.
BOOST_AUTO_TEST_CASE(a_shared_answer_is_the_remembered_one) {
    CountingReader inner;
    inner.objects.put(configMap("a", "1"));
    ReadMemo memo(inner);
    auto first = memo.share(kA);
    auto second = memo.share(kA);
    BOOST_TEST(first.get() == second.get());
    BOOST_TEST(inner.gets.load() == 1);
    BOOST_TEST_REQUIRE(first->found());
    const auto copy = memo.get(kA);
    BOOST_TEST(&copy.object != &first->object);
    BOOST_TEST(json::serialize(copy.object) == json::serialize(first->object));
    BOOST_TEST(inner.gets.load() == 1);
}

BOOST_AUTO_TEST_CASE(a_failed_shared_read_is_not_remembered) {
    CountingReader inner;
    inner.objects.put(configMap("a", "1"));
    inner.failing = true;
    ReadMemo memo(inner);
    BOOST_TEST(memo.share(kA)->failed());
    inner.failing = false;
    BOOST_TEST(memo.share(kA)->found());
    BOOST_TEST(inner.gets.load() == 2);
}

// The latch sees a failure whichever way it was read.
BOOST_AUTO_TEST_CASE(the_latch_remembers_a_failed_shared_read) {
    CountingReader inner;
    inner.failing = true;
    ReadErrorLatch latch(inner);
    BOOST_TEST(!latch.failed());
    BOOST_TEST(latch.share(kA)->failed());
    BOOST_TEST_REQUIRE(latch.firstError().has_value());
    BOOST_TEST(*latch.firstError() == readFailureMessage(kA, "database is locked"));
}

// An ObjectSet copies an object once for all who share it; a put() is seen by the next share,
// and an answer already handed out keeps the object it had.
BOOST_AUTO_TEST_CASE(an_object_set_shares_one_copy_until_the_object_changes) {
    ObjectSet set;
    set.put(configMap("a", "1"));
    auto first = set.share(kA);
    BOOST_TEST(set.share(kA).get() == first.get());
    BOOST_TEST(set.share(kB)->notFound());
    BOOST_TEST(set.share(kB).get() == set.share(ObjectKey{"v1", "ConfigMap", "ns", "never"}).get());  // one for all
    set.put(configMap("b", "0"));
    BOOST_TEST(set.share(kB)->found());
    set.put(configMap("a", "2"));
    auto after = set.share(kA);
    BOOST_TEST(after.get() != first.get());
    BOOST_TEST(after->object.at("data").at("v") == "2");
    BOOST_TEST(first->object.at("data").at("v") == "1");
    ObjectSet moved = std::move(set);
    BOOST_TEST(moved.share(kA)->object.at("data").at("v") == "2");
    set = ObjectSet();
    set.put(configMap("b", "3"));
    BOOST_TEST(set.share(kA)->notFound());
    BOOST_TEST(set.share(kB)->found());
}

BOOST_AUTO_TEST_SUITE_END()
