#define BOOST_TEST_MODULE test_core_store
#include <boost/test/unit_test.hpp>

#include "store_test_util.hpp"
#include "test/support/forwarding_store.hpp"

#include <boost/mpl/list.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

using namespace trainer::core;
using namespace trainer::core::test;

using Backends = boost::mpl::list<MemoryBackend, SqliteBackend>;

static const ObjectKey kJob{"trainer.kubeflow.org/v1alpha1", "TrainJob", "default", "x"};

BOOST_AUTO_TEST_CASE_TEMPLATE(create_assigns_server_metadata, B, Backends) {
    B backend;
    auto store = backend.make();
    BOOST_TEST(readOk(store->revision()) == 0);
    auto r = store->create(trainJob("x"));
    BOOST_TEST_REQUIRE(r.ok(), r.message);
    static const std::regex uuidV4("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
    BOOST_TEST(std::regex_match(meta(r.object, "uid"), uuidV4));
    BOOST_TEST(meta(r.object, "resourceVersion") == "1");
    BOOST_TEST(meta(r.object, "generation") == "1");
    BOOST_TEST(meta(r.object, "creationTimestamp") == "2024-05-01T12:00:00Z");
    BOOST_TEST(readOk(store->revision()) == 1);

    auto got = found(store->get(kJob));
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(*got == r.object);

    auto second = store->create(trainJob("y"));
    BOOST_TEST(meta(second.object, "resourceVersion") == "2");
    BOOST_TEST(meta(second.object, "uid") != meta(r.object, "uid"));

    auto dup = store->create(trainJob("x"));
    BOOST_TEST(dup.status == StoreStatus::AlreadyExists);
    BOOST_TEST(dup.message == R"(trainjobs.trainer.kubeflow.org "x" already exists)");
    BOOST_TEST(readOk(store->revision()) == 2);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(create_rejects_invalid_input, B, Backends) {
    B backend;
    auto store = backend.make();
    struct Case {
        const char* name;
        const char* json;
        StoreStatus status;
        const char* message;
    };
    const Case cases[] = {
        {"no name", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default"}})", StoreStatus::Invalid,
         R"(ConfigMap "" is invalid: metadata.name: Required value: name is required)"},
        {"no kind", R"({"apiVersion":"v1","metadata":{"name":"a"}})", StoreStatus::Invalid,
         R"( "a" is invalid: kind: Required value)"},
        {"no apiVersion", R"({"kind":"ConfigMap","metadata":{"name":"a"}})", StoreStatus::Invalid,
         R"(ConfigMap "a" is invalid: apiVersion: Required value)"},
        {"resourceVersion set", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"5"}})",
         StoreStatus::Invalid, R"(ConfigMap "a" is invalid: metadata.resourceVersion: Invalid value: "5": must be empty on create)"},
        {"metadata not an object", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":7})", StoreStatus::Invalid,
         R"(ConfigMap "" is invalid: metadata.name: Required value: name is required)"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto r = store->create(parseObject(c.json));
            BOOST_TEST(r.status == c.status);
            BOOST_TEST(r.message == c.message);
        }
    }
    BOOST_TEST(readOk(store->revision()) == 0);
    BOOST_TEST(readOk(store->listAll()).empty());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(create_with_generate_name, B, Backends) {
    B backend;
    auto store = backend.make();
    auto ev = parseObject(R"({"apiVersion":"v1","kind":"Event","metadata":{"generateName":"x.","namespace":"default"}})");
    auto a = store->create(ev), b = store->create(ev);
    BOOST_TEST_REQUIRE(a.ok(), a.message);
    BOOST_TEST_REQUIRE(b.ok(), b.message);
    BOOST_TEST(meta(a.object, "name").size() == 7u);
    BOOST_TEST(meta(a.object, "name").substr(0, 2) == "x.");
    BOOST_TEST(meta(a.object, "name") != meta(b.object, "name"));
    BOOST_TEST(readOk(store->list("v1", "Event", std::string("default"))).size() == 2u);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(status_subresource_kinds_drop_status_on_create, B, Backends) {
    B backend;
    auto store = backend.make();
    struct Case {
        const char* apiVersion;
        const char* kind;
        bool keepsStatus;
    };
    const Case cases[] = {
        {"trainer.kubeflow.org/v1alpha1", "TrainJob", false},
        {"jobset.x-k8s.io/v1alpha2", "JobSet", false},
        {"scheduling.x-k8s.io/v1alpha1", "PodGroup", false},
        {"trainer.kubeflow.org/v1alpha1", "TrainingRuntime", true},
        {"v1", "ConfigMap", true},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.kind) {
            json::object o{{"apiVersion", c.apiVersion},
                           {"kind", c.kind},
                           {"metadata", {{"name", "s"}, {"namespace", "default"}}},
                           {"status", {{"phase", "Done"}}}};
            auto r = store->create(o);
            BOOST_TEST_REQUIRE(r.ok(), r.message);
            BOOST_TEST(r.object.contains("status") == c.keepsStatus);
            BOOST_TEST(found(store->get(keyOf(o)))->contains("status") == c.keepsStatus);
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(update_generation_and_resource_version_rules, B, Backends) {
    B backend;
    auto store = backend.make();
    auto created = store->create(trainJob("x"));
    BOOST_TEST_REQUIRE(created.ok(), created.message);
    struct Case {
        const char* name;
        std::function<void(json::object&)> edit;
        int64_t generation;  // after the update
        bool written;        // resourceVersion bumped
    };
    const Case cases[] = {
        {"spec change bumps generation", [](json::object& o) { o["spec"].as_object()["suspend"] = true; }, 2, true},
        {"label change keeps generation",
         [](json::object& o) { o["metadata"].as_object()["labels"] = json::object{{"a", "b"}}; }, 2, true},
        {"status change is ignored by update",
         [](json::object& o) { o["status"] = json::object{{"conditions", json::array{}}}; }, 2, false},
        {"server metadata from the client is ignored",
         [](json::object& o) {
             o["metadata"].as_object()["uid"] = "forged";
             o["metadata"].as_object()["generation"] = 42;
             o["metadata"].as_object()["creationTimestamp"] = "2000-01-01T00:00:00Z";
         },
         2, false},
        {"no change writes nothing", [](json::object&) {}, 2, false},
        {"new top-level field bumps generation", [](json::object& o) { o["extra"] = 1; }, 3, true},
    };
    json::object current = created.object;
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            json::object edited = current;
            c.edit(edited);
            auto before = readOk(store->revision());
            auto r = store->update(edited);
            BOOST_TEST_REQUIRE(r.ok(), r.message);
            BOOST_TEST(meta(r.object, "generation") == std::to_string(c.generation));
            BOOST_TEST(meta(r.object, "uid") == meta(created.object, "uid"));
            BOOST_TEST(meta(r.object, "creationTimestamp") == "2024-05-01T12:00:00Z");
            BOOST_TEST(!r.object.contains("status"));
            BOOST_TEST(readOk(store->revision()) == before + (c.written ? 1 : 0));
            BOOST_TEST(meta(r.object, "resourceVersion") == (c.written ? std::to_string(before + 1) : meta(current, "resourceVersion")));
            BOOST_TEST(*found(store->get(kJob)) == r.object);
            current = r.object;
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(optimistic_concurrency, B, Backends) {
    B backend;
    auto store = backend.make();
    auto v1 = store->create(trainJob("x")).object;
    auto edit = v1;
    edit["spec"].as_object()["suspend"] = true;
    auto v2 = store->update(edit);
    BOOST_TEST_REQUIRE(v2.ok(), v2.message);

    const std::string conflict =
        R"(Operation cannot be fulfilled on trainjobs.trainer.kubeflow.org "x": the object has been modified; please apply your changes to the latest version and try again)";
    auto stale = v1;
    stale["spec"].as_object()["suspend"] = false;
    auto r = store->update(stale);
    BOOST_TEST(r.status == StoreStatus::Conflict);
    BOOST_TEST(r.message == conflict);
    stale["status"] = json::object{{"x", 1}};
    auto rs = store->updateStatus(stale);
    BOOST_TEST(rs.status == StoreStatus::Conflict);
    BOOST_TEST(rs.message == conflict);
    auto ra = store->apply(stale, "trainer");
    BOOST_TEST(ra.status == StoreStatus::Conflict);
    BOOST_TEST(found(store->get(kJob))->at("spec").as_object().at("suspend") == json::value(true));

    // An empty resourceVersion is an unconditional update.
    stale["metadata"].as_object().erase("resourceVersion");
    auto unconditional = store->update(stale);
    BOOST_TEST_REQUIRE(unconditional.ok(), unconditional.message);
    BOOST_TEST(found(store->get(kJob))->at("spec").as_object().at("suspend") == json::value(false));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(not_found_messages, B, Backends) {
    B backend;
    auto store = backend.make();
    const std::string msg = R"(trainjobs.trainer.kubeflow.org "x" not found)";
    BOOST_TEST(!found(store->get(kJob)).has_value());
    auto u = store->update(trainJob("x"));
    BOOST_TEST(u.status == StoreStatus::NotFound);
    BOOST_TEST(u.message == msg);
    auto s = store->updateStatus(trainJob("x"));
    BOOST_TEST(s.status == StoreStatus::NotFound);
    BOOST_TEST(s.message == msg);
    auto d = store->remove(kJob);
    BOOST_TEST(d.status == StoreStatus::NotFound);
    BOOST_TEST(d.message == msg);
    auto cm = store->remove(ObjectKey{"v1", "ConfigMap", "default", "c"});
    BOOST_TEST(cm.message == R"(configmaps "c" not found)");
    auto js = store->remove(ObjectKey{"jobset.x-k8s.io/v1alpha2", "JobSet", "default", "j"});
    BOOST_TEST(js.message == R"(jobsets.jobset.x-k8s.io "j" not found)");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(update_status_changes_only_status, B, Backends) {
    B backend;
    auto store = backend.make();
    auto created = store->create(trainJob("x")).object;
    auto in = created;
    in["spec"].as_object()["suspend"] = true;
    in["metadata"].as_object()["labels"] = json::object{{"a", "b"}};
    in["status"] = parseObject(R"({"conditions":[{"type":"Complete","status":"True"}]})");
    auto r = store->updateStatus(in);
    BOOST_TEST_REQUIRE(r.ok(), r.message);
    BOOST_TEST(r.object.at("status") == in.at("status"));
    BOOST_TEST(!r.object.at("spec").as_object().contains("suspend"));
    BOOST_TEST(!r.object.at("metadata").as_object().contains("labels"));
    BOOST_TEST(meta(r.object, "generation") == "1");
    BOOST_TEST(meta(r.object, "resourceVersion") == "2");

    // Same status again: nothing written.
    auto again = store->updateStatus(r.object);
    BOOST_TEST_REQUIRE(again.ok());
    BOOST_TEST(readOk(store->revision()) == 2);

    // update keeps the status it cannot change.
    auto spec = r.object;
    spec.erase("status");
    spec["spec"].as_object()["suspend"] = true;
    auto u = store->update(spec);
    BOOST_TEST_REQUIRE(u.ok(), u.message);
    BOOST_TEST(u.object.at("status") == in.at("status"));
    BOOST_TEST(meta(u.object, "generation") == "2");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(apply_created_configured_unchanged, B, Backends) {
    B backend;
    auto store = backend.make();
    auto cm = configMap("c");
    struct Step {
        const char* name;
        std::function<void(json::object&)> edit;
        ApplyOutcome outcome;
        const char* generation;
    };
    const Step steps[] = {
        {"first apply creates", [](json::object&) {}, ApplyOutcome::Created, "1"},
        {"same content is unchanged", [](json::object&) {}, ApplyOutcome::Unchanged, "1"},
        {"server metadata in the input is ignored",
         [](json::object& o) { o["metadata"].as_object()["uid"] = "other"; }, ApplyOutcome::Unchanged, "1"},
        {"data change configures", [](json::object& o) { o["data"].as_object()["k"] = "v2"; }, ApplyOutcome::Configured, "2"},
        {"label change configures without generation",
         [](json::object& o) { o["metadata"].as_object()["labels"] = json::object{{"l", "1"}}; },
         ApplyOutcome::Configured, "2"},
        {"omitted labels are kept", [](json::object& o) { o["metadata"].as_object().erase("labels"); },
         ApplyOutcome::Unchanged, "2"},
    };
    for (auto const& s : steps) {
        BOOST_TEST_CONTEXT(s.name) {
            s.edit(cm);
            auto before = readOk(store->revision());
            auto r = store->apply(cm, "trainer");
            BOOST_TEST_REQUIRE(r.ok(), r.message);
            BOOST_TEST(toString(r.outcome) == toString(s.outcome));
            BOOST_TEST(meta(r.object, "generation") == s.generation);
            BOOST_TEST(readOk(store->revision()) == before + (s.outcome == ApplyOutcome::Unchanged ? 0 : 1));
            auto const& mf = r.object.at("metadata").as_object().at("managedFields").as_array();
            BOOST_TEST_REQUIRE(mf.size() == 1u);
            BOOST_TEST(mf[0].at("manager") == json::value("trainer"));
            BOOST_TEST(mf[0].at("operation") == json::value("Apply"));
            BOOST_TEST(mf[0].at("time") == json::value("2024-05-01T12:00:00Z"));
            BOOST_TEST(*found(store->get(keyOf(cm))) == r.object);
            cm["metadata"].as_object().erase("uid");
        }
    }
    BOOST_TEST(found(store->get(keyOf(cm)))->at("data").at("k") == json::value("v2"));
    BOOST_TEST(found(store->get(keyOf(cm)))->at("metadata").at("labels").at("l") == json::value("1"));

    // A second manager is recorded beside the first.
    cm["data"].as_object()["k"] = "v3";
    auto other = store->apply(cm, "kubectl");
    BOOST_TEST_REQUIRE(other.ok());
    BOOST_TEST(other.object.at("metadata").at("managedFields").as_array().size() == 2u);

    // Status of a status-subresource kind is not applied.
    auto job = trainJob("x");
    BOOST_TEST(store->apply(job, "trainer").outcome == ApplyOutcome::Created);
    job["status"] = json::object{{"a", 1}};
    auto ignored = store->apply(job, "trainer");
    BOOST_TEST(ignored.outcome == ApplyOutcome::Unchanged);
    BOOST_TEST(!found(store->get(kJob))->contains("status"));
}

// applyAll: every object applied in one transaction, or none of them (the failure names its
// index); an unchanged object is reported as such and moves no revision.
BOOST_AUTO_TEST_CASE_TEMPLATE(apply_all_is_all_or_none, B, Backends) {
    B backend;
    auto store = backend.make();
    auto a = configMap("a"), b = configMap("b");
    auto first = store->applyAll({a, b}, "trainer");
    BOOST_TEST_REQUIRE(first.ok(), first.failure.message);
    BOOST_TEST_REQUIRE(first.applied.size() == 2u);
    BOOST_TEST(first.applied[0].outcome == ApplyOutcome::Created);
    BOOST_TEST(first.applied[1].outcome == ApplyOutcome::Created);
    BOOST_TEST(*found(store->get(keyOf(b))) == first.applied[1].object);
    const auto revision = readOk(store->revision());

    // b is made immutable; then a change to a's data with one to b's data fails as a whole.
    b["immutable"] = true;
    BOOST_TEST_REQUIRE(store->apply(b, "trainer").ok());
    const auto afterImmutable = readOk(store->revision());
    BOOST_TEST(afterImmutable == revision + 1);
    auto a2 = a, b2 = b;
    a2["data"].as_object()["k"] = "changed";
    b2["data"].as_object()["k"] = "changed";
    auto failed = store->applyAll({a2, b2}, "trainer");
    BOOST_TEST_REQUIRE(!failed.ok());
    BOOST_TEST(*failed.failed == 1u);
    BOOST_TEST(failed.failure.status == StoreStatus::Invalid);
    BOOST_TEST(failed.failure.message.find("ConfigMap \"b\" is invalid") != std::string::npos, failed.failure.message);
    BOOST_TEST(failed.applied.empty());
    BOOST_TEST(readOk(store->revision()) == afterImmutable);
    BOOST_TEST(found(store->get(keyOf(a)))->at("data").at("k") == json::value("v"));

    // An object without a name fails at its own index; an unchanged one writes nothing.
    auto nameless = configMap("");
    auto invalid = store->applyAll({a, nameless}, "trainer");
    BOOST_TEST_REQUIRE(!invalid.ok());
    BOOST_TEST(*invalid.failed == 1u);
    BOOST_TEST(invalid.failure.status == StoreStatus::Invalid);
    auto same = store->applyAll({a}, "trainer");
    BOOST_TEST_REQUIRE(same.ok());
    BOOST_TEST(same.applied[0].outcome == ApplyOutcome::Unchanged);
    BOOST_TEST(readOk(store->revision()) == afterImmutable);
    BOOST_TEST(store->applyAll({}, "trainer").ok());
}

// Store's default applyAll stops at the first failure; what it applied before stays written and
// is reported.
BOOST_AUTO_TEST_CASE(apply_all_one_by_one_stops_at_the_first_failure) {
    MemoryBackend backend;
    auto memory = backend.make();
    trainer::test::ForwardingStore store(*memory);  // applyAll: Store's default, as RemoteStore's
    auto r = store.applyAll({configMap("a"), configMap(""), configMap("c")}, "trainer");
    BOOST_TEST_REQUIRE(!r.ok());
    BOOST_TEST(*r.failed == 1u);
    BOOST_TEST(r.failure.status == StoreStatus::Invalid);
    BOOST_TEST_REQUIRE(r.applied.size() == 1u);
    BOOST_TEST(r.applied[0].outcome == ApplyOutcome::Created);
    BOOST_TEST(found(memory->get(keyOf(configMap("a")))).has_value());
    BOOST_TEST(!found(memory->get(keyOf(configMap("c")))).has_value());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(remove_collects_dependents_recursively, B, Backends) {
    B backend;
    auto store = backend.make();
    auto job = store->create(trainJob("x")).object;
    auto other = store->create(trainJob("other")).object;
    auto jobset = store->create(ownedBy(parseObject(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
        "metadata":{"name":"x","namespace":"default"}})"), job)).object;
    auto child = store->create(ownedBy(parseObject(R"({"apiVersion":"batch/v1","kind":"Job",
        "metadata":{"name":"x-node-0","namespace":"default"}})"), jobset)).object;
    auto grandchild = store->create(ownedBy(parseObject(R"({"apiVersion":"v1","kind":"Pod",
        "metadata":{"name":"x-node-0-0","namespace":"default"}})"), child)).object;
    store->create(ownedBy(configMap("x-runtime-snapshot"), job));
    store->create(ownedBy(configMap("x-mpi-hostfile"), job));
    store->create(ownedBy(parseObject(R"({"apiVersion":"v1","kind":"Secret",
        "metadata":{"name":"x-mpi-ssh-auth","namespace":"default"}})"), job));
    store->create(configMap("unrelated"));
    store->create(ownedBy(configMap("other-snapshot"), other));
    // Two owners: survives while the other owner exists.
    store->create(ownedBy(ownedBy(configMap("shared"), job), other));
    BOOST_TEST_REQUIRE(readOk(store->listAll()).size() == 11u);

    auto before = readOk(store->revision());
    auto r = store->remove(kJob);
    BOOST_TEST_REQUIRE(r.ok(), r.message);
    BOOST_TEST(meta(r.object, "name") == "x");

    std::set<std::string> left;
    for (auto const& o : readOk(store->listAll())) left.insert(keyOf(o).display());
    const std::set<std::string> expected{"TrainJob default/other", "ConfigMap default/unrelated",
                                         "ConfigMap default/other-snapshot", "ConfigMap default/shared"};
    BOOST_TEST(left == expected, boost::test_tools::per_element());

    auto changes = readOk(store->changesSince(before, 100));
    std::set<std::string> deleted;
    for (auto const& c : changes) {
        BOOST_TEST(c.type == ChangeType::Deleted);
        deleted.insert(c.key.display());
    }
    const std::set<std::string> expectedDeleted{"TrainJob default/x", "JobSet default/x", "Job default/x-node-0",
                                                "Pod default/x-node-0-0", "ConfigMap default/x-runtime-snapshot",
                                                "ConfigMap default/x-mpi-hostfile", "Secret default/x-mpi-ssh-auth"};
    BOOST_TEST(deleted == expectedDeleted, boost::test_tools::per_element());
    BOOST_TEST(changes.size() == 7u);
    BOOST_TEST(changes.front().key.display() == "TrainJob default/x");
    BOOST_TEST(readOk(store->revision()) == before + 7);

    // Removing the second owner now collects the shared dependent.
    BOOST_TEST(store->remove(keyOf(other)).ok());
    BOOST_TEST(!found(store->get(ObjectKey{"v1", "ConfigMap", "default", "shared"})).has_value());
    BOOST_TEST(found(store->get(ObjectKey{"v1", "ConfigMap", "default", "unrelated"})).has_value());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(remove_survives_ownership_cycles, B, Backends) {
    B backend;
    auto store = backend.make();
    auto a = store->create(configMap("a")).object;
    auto b = store->create(ownedBy(configMap("b"), a)).object;
    auto a2 = ownedBy(a, b);
    BOOST_TEST_REQUIRE(store->update(a2).ok());
    BOOST_TEST(store->remove(keyOf(a)).ok());
    BOOST_TEST(readOk(store->listAll()).empty());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(change_feed_in_revision_order, B, Backends) {
    B backend;
    auto store = backend.make();
    auto created = store->create(configMap("a")).object;
    auto edit = created;
    edit["data"].as_object()["k"] = "v2";
    store->update(edit);
    store->create(configMap("b"));
    store->remove(keyOf(created));

    auto all = readOk(store->changesSince(0, 100));
    BOOST_TEST_REQUIRE(all.size() == 4u);
    struct Expect {
        int64_t revision;
        ChangeType type;
        const char* name;
    };
    const Expect expected[] = {{1, ChangeType::Added, "a"}, {2, ChangeType::Modified, "a"}, {3, ChangeType::Added, "b"},
                               {4, ChangeType::Deleted, "a"}};
    for (size_t i = 0; i < all.size(); ++i) {
        BOOST_TEST_CONTEXT("change " << i) {
            BOOST_TEST(all[i].revision == expected[i].revision);
            BOOST_TEST(toString(all[i].type) == toString(expected[i].type));
            BOOST_TEST(all[i].key.name == expected[i].name);
            BOOST_TEST(meta(all[i].object, "name") == expected[i].name);
        }
    }
    BOOST_TEST(all[1].object.at("data").at("k") == json::value("v2"));
    BOOST_TEST(meta(all[3].object, "resourceVersion") == "4");

    auto page = readOk(store->changesSince(1, 2));
    BOOST_TEST_REQUIRE(page.size() == 2u);
    BOOST_TEST(page[0].revision == 2);
    BOOST_TEST(page[1].revision == 3);
    BOOST_TEST(readOk(store->changesSince(4, 10)).empty());
    BOOST_TEST(readOk(store->compactedRevision()) == 0);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(list_filters_by_kind_and_namespace, B, Backends) {
    B backend;
    auto store = backend.make();
    store->create(configMap("a", "ns1"));
    store->create(configMap("b", "ns2"));
    store->create(configMap("c", "ns1"));
    store->create(trainJob("a", "ns1"));
    BOOST_TEST(readOk(store->list("v1", "ConfigMap")).size() == 3u);
    auto ns1 = readOk(store->list("v1", "ConfigMap", std::string("ns1")));
    BOOST_TEST_REQUIRE(ns1.size() == 2u);
    BOOST_TEST(meta(ns1[0], "name") == "a");
    BOOST_TEST(meta(ns1[1], "name") == "c");
    BOOST_TEST(readOk(store->list("v1", "Secret")).empty());
    BOOST_TEST(readOk(store->listAll()).size() == 4u);
}

// listKeys: the keys list() would give, in its order, for one namespace or all of them.
BOOST_AUTO_TEST_CASE_TEMPLATE(list_keys_are_the_listed_objects_keys, B, Backends) {
    B backend;
    auto store = backend.make();
    for (auto [name, ns] : {std::pair{"b", "team-b"}, {"a", "team-b"}, {"c", "default"}, {"a", "default"}})
        BOOST_TEST_REQUIRE(store->create(configMap(name, ns)).ok());
    BOOST_TEST_REQUIRE(store->create(trainJob("x")).ok());
    for (auto const& ns : {std::optional<std::string>{}, std::optional<std::string>{"team-b"},
                           std::optional<std::string>{"nowhere"}}) {
        BOOST_TEST_CONTEXT("namespace " << ns.value_or("<all>")) {
            std::vector<ObjectKey> want;
            for (auto const& o : readOk(store->list("v1", "ConfigMap", ns))) want.push_back(keyOf(o));
            auto got = readOk(store->listKeys("v1", "ConfigMap", ns));
            BOOST_TEST_REQUIRE(got.size() == want.size());
            for (size_t i = 0; i < got.size(); ++i) BOOST_TEST(got[i].display() == want[i].display());
        }
    }
    auto all = readOk(store->listKeys("v1", "ConfigMap"));
    BOOST_TEST_REQUIRE(all.size() == 4u);
    BOOST_TEST(all[0].display() == "ConfigMap default/a");
    BOOST_TEST(all[3].display() == "ConfigMap team-b/b");
    BOOST_TEST(readOk(store->listKeys("trainer.kubeflow.org/v1alpha1", "TrainJob")).size() == 1u);
}

BOOST_AUTO_TEST_CASE(resource_table_defaults) {
    ResourceTable t;
    struct Case {
        const char* apiVersion;
        const char* kind;
        const char* qualified;
        bool status;
    };
    const Case cases[] = {
        {"trainer.kubeflow.org/v1alpha1", "TrainJob", "trainjobs.trainer.kubeflow.org", true},
        {"trainer.kubeflow.org/v1alpha1", "TrainingRuntime", "trainingruntimes.trainer.kubeflow.org", false},
        {"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime", "clustertrainingruntimes.trainer.kubeflow.org", false},
        {"jobset.x-k8s.io/v1alpha2", "JobSet", "jobsets.jobset.x-k8s.io", true},
        {"scheduling.x-k8s.io/v1alpha1", "PodGroup", "podgroups.scheduling.x-k8s.io", true},
        {"v1", "ConfigMap", "configmaps", false},
        {"v1", "Secret", "secrets", false},
        {"coordination.k8s.io/v1", "Lease", "leases.coordination.k8s.io", false},
        {"node.k8s.io/v1", "RuntimeClass", "runtimeclasses.node.k8s.io", false},
        {"example.com/v1", "Policy", "policies.example.com", true},
        {"example.com/v1", "Class", "classes.example.com", true},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.kind) {
            BOOST_TEST(t.qualifiedResource(c.apiVersion, c.kind) == c.qualified);
            BOOST_TEST(t.lookup(c.apiVersion, c.kind).statusSubresource == c.status);
        }
    }
    t.add("example.com", "Policy", ResourceInfo{"policyset", false});
    BOOST_TEST(t.qualifiedResource("example.com/v2", "Policy") == "policyset.example.com");
    BOOST_TEST(!t.lookup("example.com/v2", "Policy").statusSubresource);
}

BOOST_AUTO_TEST_CASE(rfc3339_round_trip) {
    using namespace std::chrono;
    struct Case {
        const char* text;
        std::optional<int64_t> epoch;
    };
    const Case cases[] = {
        {"1970-01-01T00:00:00Z", 0},
        {"2024-05-01T12:00:00Z", 1714564800},
        {"2024-05-01T14:00:00+02:00", 1714564800},
        {"2024-05-01T11:30:00.999-00:30", 1714564800},
        {"2024-02-29T00:00:00Z", 1709164800},
        {"2023-02-29T00:00:00Z", std::nullopt},
        {"2024-05-01 12:00:00", std::nullopt},
        {"2024-05-01T12:00:00", std::nullopt},
        {"garbage", std::nullopt},
        {"", std::nullopt},
        {"2024-05-01T12:00:00Zjunk", std::nullopt},
        {"2024-13-01T12:00:00Z", std::nullopt},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text) {
            auto t = parseRfc3339(c.text);
            BOOST_TEST(t.has_value() == c.epoch.has_value());
            if (t && c.epoch) BOOST_TEST(floor<seconds>(t->time_since_epoch()).count() == *c.epoch);
        }
    }
    BOOST_TEST(formatRfc3339(fixedNow()) == "2024-05-01T12:00:00Z");
    BOOST_TEST(formatRfc3339(system_clock::time_point{} + milliseconds(1500)) == "1970-01-01T00:00:01Z");
    BOOST_TEST((*parseRfc3339(formatRfc3339(fixedNow())) == fixedNow()));
}

// formatRfc3339 writes its digits in place for years 0-9999: the text is what the format
// "%04d-%02u-%02uT%02d:%02d:%02dZ" gives, over years 0-9999 and beyond, parsed back to the second.
BOOST_AUTO_TEST_CASE(rfc3339_text_is_the_printf_format) {
    using namespace std::chrono;
    std::mt19937_64 rng(3339);
    std::uniform_int_distribution<long long> secondsIn(-62167219200LL - 86400LL * 400, 253402300799LL + 86400LL * 400);
    for (int i = 0; i < 20000; ++i) {
        const long long s = i < 4 ? std::array<long long, 4>{-62167219200LL, 253402300799LL, 0, -1}[i] : secondsIn(rng);
        const auto t = system_clock::time_point{} + seconds(s) + milliseconds(i % 1000);
        const auto secs = floor<seconds>(t);
        const auto days = floor<std::chrono::days>(secs);
        const year_month_day ymd{days};
        const hh_mm_ss hms{secs - days};
        char want[48];
        std::snprintf(want, sizeof want, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                      static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                      static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                      static_cast<int>(hms.seconds().count()));
        BOOST_REQUIRE_EQUAL(formatRfc3339(t), std::string(want));
        const int year = static_cast<int>(ymd.year());
        if (year >= 0 && year <= 9999) BOOST_REQUIRE(*parseRfc3339(formatRfc3339(t)) == secs);
    }
}

namespace {
json::object withFinalizer(json::object o, const char* finalizer) {
    o["metadata"].as_object()["finalizers"] = json::array{finalizer};
    return o;
}
bool present(const Store& s, const char* kind, const char* name) {
    std::string apiVersion = std::string(kind) == "TrainJob" ? "trainer.kubeflow.org/v1alpha1" : "v1";
    return found(s.get(ObjectKey{apiVersion, kind, "default", name})).has_value();
}
}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(remove_waits_for_finalizers, B, Backends) {
    B backend;
    auto store = backend.make();
    auto job = store->create(withFinalizer(trainJob("x"), "example.com/cleanup")).object;
    store->create(ownedBy(configMap("x-snapshot"), job));
    auto r = store->remove(kJob);
    BOOST_TEST_REQUIRE(r.ok(), r.message);
    BOOST_TEST(r.pending);
    BOOST_TEST(meta(r.object, "deletionTimestamp") == "2024-05-01T12:00:00Z");
    BOOST_TEST(present(*store, "TrainJob", "x"));
    BOOST_TEST(present(*store, "ConfigMap", "x-snapshot"));
    // A second delete changes nothing more.
    auto rev = readOk(store->revision());
    BOOST_TEST(store->remove(kJob).pending);
    BOOST_TEST(readOk(store->revision()) == rev);
    // Removing the last finalizer completes the deletion, dependents included.
    auto current = *found(store->get(kJob));
    current["metadata"].as_object()["finalizers"] = json::array{};
    auto u = store->update(current);
    BOOST_TEST_REQUIRE(u.ok(), u.message);
    BOOST_TEST(!present(*store, "TrainJob", "x"));
    BOOST_TEST(!present(*store, "ConfigMap", "x-snapshot"));
    auto changes = readOk(store->changesSince(rev, 10));
    BOOST_TEST_REQUIRE(changes.size() == 3u);
    BOOST_TEST(changes[0].type == ChangeType::Modified);
    BOOST_TEST(changes[1].type == ChangeType::Deleted);
    BOOST_TEST(changes[1].key.display() == "TrainJob default/x");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(remove_propagation_policies, B, Backends) {
    B backend;
    auto store = backend.make();
    auto job = store->create(trainJob("x")).object;
    store->create(ownedBy(configMap("child"), job));
    // Orphan: the dependent stays, without the reference to the deleted owner.
    auto r = store->remove(kJob, DeleteOptions{Propagation::Orphan, "", ""});
    BOOST_TEST_REQUIRE(r.ok(), r.message);
    auto child = found(store->get(ObjectKey{"v1", "ConfigMap", "default", "child"}));
    BOOST_TEST_REQUIRE(child.has_value());
    BOOST_TEST(child->at("metadata").as_object().at("ownerReferences").as_array().empty());

    // Foreground: dependents' deletions come before the owner's in the change feed.
    job = store->create(trainJob("x")).object;
    store->create(ownedBy(configMap("child2"), job));
    auto before = readOk(store->revision());
    BOOST_TEST(store->remove(kJob, DeleteOptions{Propagation::Foreground, "", ""}).ok());
    auto changes = readOk(store->changesSince(before, 10));
    BOOST_TEST_REQUIRE(changes.size() == 2u);
    BOOST_TEST(changes[0].key.display() == "ConfigMap default/child2");
    BOOST_TEST(changes[1].key.display() == "TrainJob default/x");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(remove_preconditions, B, Backends) {
    B backend;
    auto store = backend.make();
    auto job = store->create(trainJob("x")).object;
    auto wrongUid = store->remove(kJob, DeleteOptions{Propagation::Background, "other-uid", ""});
    BOOST_TEST(wrongUid.status == StoreStatus::Conflict);
    BOOST_TEST(wrongUid.message.find("Precondition failed: UID in precondition: other-uid") != std::string::npos,
               wrongUid.message);
    auto staleRv = store->remove(kJob, DeleteOptions{Propagation::Background, "", "999"});
    BOOST_TEST(staleRv.status == StoreStatus::Conflict);
    BOOST_TEST(present(*store, "TrainJob", "x"));
    BOOST_TEST(store->remove(kJob, DeleteOptions{Propagation::Background, meta(job, "uid"), meta(job, "resourceVersion")})
                   .ok());
    BOOST_TEST(!present(*store, "TrainJob", "x"));
}

// An immutable Secret or ConfigMap keeps its data and `immutable` through update and apply (the
// API server's ValidateSecretUpdate / ValidateConfigMapUpdate), as the embedded API and the
// controller both write through these calls.
BOOST_AUTO_TEST_CASE_TEMPLATE(immutable_secrets_and_config_maps_refuse_data_changes, B, Backends) {
    const std::string forbidden = "Forbidden: field is immutable when `immutable` is set";
    auto secret = parseObject(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"default"},
        "immutable":true,"type":"Opaque","data":{"k":"djE="}})");
    auto cm = configMap("c");
    cm["immutable"] = true;
    cm["binaryData"] = json::object{{"b", "AAE="}};
    struct Case {
        const char* name;
        json::object base;
        std::function<void(json::object&)> edit;
        std::string message;  // "" when allowed
    };
    const std::vector<Case> cases{
        {"secret data", secret, [](json::object& o) { o["data"].as_object()["k"] = "djI="; },
         R"(Secret "s" is invalid: data: )" + forbidden},
        {"secret stringData", secret, [](json::object& o) { o["stringData"] = json::object{{"k", "v2"}}; },
         R"(Secret "s" is invalid: data: )" + forbidden},
        {"secret stringData equal to its data", secret, [](json::object& o) { o["stringData"] = json::object{{"k", "v1"}}; },
         ""},
        {"secret immutable back to false and data removed", secret,
         [](json::object& o) {
             o["immutable"] = false;
             o["data"] = json::object{};
         },
         R"(Secret "s" is invalid: [immutable: )" + forbidden + ", data: " + forbidden + "]"},
        {"secret labels", secret, [](json::object& o) { o["metadata"].as_object()["labels"] = json::object{{"a", "b"}}; }, ""},
        {"config map data", cm, [](json::object& o) { o["data"].as_object()["k"] = "v2"; },
         R"(ConfigMap "c" is invalid: data: )" + forbidden},
        {"config map binaryData", cm, [](json::object& o) { o["binaryData"] = nullptr; },
         R"(ConfigMap "c" is invalid: binaryData: )" + forbidden},
        {"config map immutable dropped", cm, [](json::object& o) { o["immutable"] = nullptr; },
         R"(ConfigMap "c" is invalid: immutable: )" + forbidden},
    };
    for (auto const& c : cases) {
        for (bool viaApply : {false, true}) {
            BOOST_TEST_CONTEXT(c.name << (viaApply ? " (apply)" : " (update)")) {
                B backend;
                auto store = backend.make();
                auto created = store->create(c.base);
                BOOST_TEST_REQUIRE(created.ok(), created.message);
                auto next = created.object;
                c.edit(next);
                auto r = viaApply ? StoreResult(store->apply(next, "test")) : store->update(next);
                auto stored = found(store->get(keyOf(created.object)));
                BOOST_TEST_REQUIRE(stored.has_value());
                if (c.message.empty()) {
                    BOOST_TEST(r.ok(), r.message);
                    continue;
                }
                BOOST_TEST((r.status == StoreStatus::Invalid), r.status);
                BOOST_TEST(r.message == c.message);
                BOOST_TEST(*stored == created.object);
                BOOST_TEST(readOk(store->revision()) == 1);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(mutable_secrets_change_and_may_become_immutable, B, Backends) {
    B backend;
    auto store = backend.make();
    auto secret = parseObject(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"default"},
        "data":{"k":"djE="}})");
    auto r = store->create(secret);
    BOOST_TEST_REQUIRE(r.ok(), r.message);
    auto next = r.object;
    next["data"].as_object()["k"] = "djI=";
    next["immutable"] = true;
    auto u = store->update(next);
    BOOST_TEST_REQUIRE(u.ok(), u.message);
    next = u.object;
    next["data"].as_object()["k"] = "djM=";
    BOOST_TEST((store->update(next).status == StoreStatus::Invalid));
    BOOST_TEST(found(store->get(keyOf(u.object)))->at("data").as_object().at("k").as_string() == "djI=");
    BOOST_TEST(store->remove(keyOf(u.object)).ok());
}

// Uids: version 4, never repeated within a thread, across threads, or between a forked child and
// its parent (newUuid draws random bytes a block at a time per thread; the child must not reuse
// the parent's undrawn ones).
BOOST_AUTO_TEST_CASE(new_uuids_are_v4_and_never_repeat) {
    static const std::regex uuidV4("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
    std::set<std::string> seen;
    for (int i = 0; i < 5000; ++i) {
        auto u = newUuid();
        BOOST_TEST_REQUIRE(std::regex_match(u, uuidV4), u);
        BOOST_TEST_REQUIRE(seen.insert(u).second, "repeated " << u);
    }
    std::vector<std::vector<std::string>> perThread(4);
    std::vector<std::thread> threads;
    for (auto& out : perThread)
        threads.emplace_back([&out] {
            for (int i = 0; i < 2000; ++i) out.push_back(newUuid());
        });
    for (auto& t : threads) t.join();
    for (auto const& out : perThread)
        for (auto const& u : out) BOOST_TEST_REQUIRE(seen.insert(u).second, "repeated across threads " << u);

    // The parent has drawn part of a block; the child's next uids and the parent's next ones differ.
    int fds[2];
    BOOST_TEST_REQUIRE(::pipe(fds) == 0);
    pid_t child = ::fork();
    BOOST_TEST_REQUIRE(child >= 0);
    if (child == 0) {
        std::string all;
        for (int i = 0; i < 8; ++i) all += newUuid() + "\n";
        auto n = ::write(fds[1], all.data(), all.size());
        ::_exit(n == static_cast<ssize_t>(all.size()) ? 0 : 1);
    }
    ::close(fds[1]);
    std::string fromChild;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) fromChild.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    BOOST_TEST_REQUIRE(::waitpid(child, &status, 0) == child);
    BOOST_TEST_REQUIRE(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 0);
    std::set<std::string> childUids;
    std::istringstream in(fromChild);
    for (std::string u; std::getline(in, u);) childUids.insert(u);
    BOOST_TEST_REQUIRE(childUids.size() == 8u);
    for (int i = 0; i < 8; ++i) seen.insert(newUuid());
    for (auto const& u : childUids) BOOST_TEST(!seen.count(u), "the child repeated " << u);
}
