#include <boost/test/unit_test.hpp>

#include "core/controller/own_writes.hpp"

using namespace trainer::core;
using namespace trainer::core::controller;

namespace {

const ObjectKey kTrainJob{"trainer.kubeflow.org/v1alpha1", "TrainJob", "default", "a"};
const ObjectKey kOther{"trainer.kubeflow.org/v1alpha1", "TrainJob", "default", "b"};
const ObjectKey kJobSet{"jobset.x-k8s.io/v1alpha2", "JobSet", "default", "a"};

json::object at(std::string rv) { return json::object{{"metadata", {{"name", "a"}, {"resourceVersion", rv}}}}; }

Change change(ChangeType type, const ObjectKey& key, std::string rv) { return Change{7, type, key, at(std::move(rv))}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(own_writes)

BOOST_AUTO_TEST_CASE(the_predicted_event_names_the_writer_once) {
    OwnWrites w;
    w.record(kJobSet, at("12"), kTrainJob);
    BOOST_TEST(w.size() == 1u);
    auto writer = w.take(change(ChangeType::Added, kJobSet, "12"));
    BOOST_REQUIRE(writer.has_value());
    BOOST_TEST(writer->name == "a");
    BOOST_TEST(w.size() == 0u);
    BOOST_TEST(!w.take(change(ChangeType::Added, kJobSet, "12")).has_value());
}

BOOST_AUTO_TEST_CASE(another_version_of_the_object_is_not_the_write) {
    OwnWrites w;
    w.record(kJobSet, at("12"), kTrainJob);
    BOOST_TEST(!w.take(change(ChangeType::Modified, kJobSet, "11")).has_value());  // an earlier write
    BOOST_TEST(!w.take(change(ChangeType::Modified, kJobSet, "13")).has_value());
    BOOST_TEST(w.take(change(ChangeType::Modified, kJobSet, "12")).has_value());
}

BOOST_AUTO_TEST_CASE(a_deletion_is_never_taken_and_drops_the_record) {
    OwnWrites w;
    w.record(kJobSet, at("12"), kTrainJob);
    BOOST_TEST(!w.take(change(ChangeType::Deleted, kJobSet, "12")).has_value());
    BOOST_TEST(w.size() == 0u);
}

BOOST_AUTO_TEST_CASE(the_latest_write_of_an_object_counts) {
    OwnWrites w;
    w.record(kJobSet, at("12"), kOther);
    w.record(kJobSet, at("14"), kTrainJob);
    BOOST_TEST(!w.take(change(ChangeType::Modified, kJobSet, "12")).has_value());
    auto writer = w.take(change(ChangeType::Modified, kJobSet, "14"));
    BOOST_REQUIRE(writer.has_value());
    BOOST_TEST(writer->name == "a");
}

BOOST_AUTO_TEST_CASE(without_a_resource_version_nothing_is_recorded) {
    OwnWrites w;
    w.record(kJobSet, json::object{{"metadata", json::object{}}}, kTrainJob);
    w.record(kJobSet, json::object{}, kTrainJob);
    BOOST_TEST(w.size() == 0u);
}

BOOST_AUTO_TEST_CASE(a_full_table_and_clear_forget_everything) {
    OwnWrites w(2);
    ObjectKey second = kJobSet, third = kJobSet;
    second.name = "b";
    third.name = "c";
    w.record(kJobSet, at("1"), kTrainJob);
    w.record(second, at("2"), kTrainJob);
    w.record(kJobSet, at("3"), kTrainJob);  // an object already held: no room needed
    BOOST_TEST(w.size() == 2u);
    w.record(third, at("4"), kTrainJob);  // full: the records go (each costs one reconcile)
    BOOST_TEST(w.size() == 1u);
    BOOST_TEST(w.take(change(ChangeType::Added, third, "4")).has_value());
    w.record(kJobSet, at("5"), kTrainJob);
    w.clear();
    BOOST_TEST(!w.take(change(ChangeType::Added, kJobSet, "5")).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
