// The object store seam: Kubernetes objects with API-server semantics (uid, resourceVersion,
// generation, status subresource, optimistic concurrency, owner-reference GC, a change feed).
// Implemented by SqliteStore (the embedded store) and MemoryStore (the fake for tests).
#pragma once

#include "core/api/object_set.hpp"
#include "core/store/change_signal.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core {

// Outcome of a store call, named after the API server's status reasons.
enum class StoreStatus { Ok, NotFound, AlreadyExists, Conflict, Invalid, Error };

// "NotFound", "Conflict" ... for logs and messages.
std::string_view toString(StoreStatus s);

// A value result: status, an API-server-like message when not Ok, and the stored object when Ok.
struct StoreResult {
    StoreStatus status = StoreStatus::Ok;
    std::string message;
    json::object object;
    bool pending = false;  // remove: marked for deletion, waiting for finalizers
    bool ok() const { return status == StoreStatus::Ok; }
};

// What apply did, printed by the CLI as "<resource>/<name> created|configured|unchanged".
enum class ApplyOutcome { Created, Configured, Unchanged };
std::string_view toString(ApplyOutcome o);

struct ApplyResult : StoreResult {
    ApplyOutcome outcome = ApplyOutcome::Unchanged;
};

// What applyAll did: each object's result in order when every apply succeeded; else the first
// failure (`failed`, the index of its object) and the results of the objects written before it
// (none from a backend that applies them in one transaction, which then wrote nothing).
struct ApplyAllResult {
    std::vector<ApplyResult> applied;
    std::optional<size_t> failed;
    ApplyResult failure;
    bool ok() const { return !failed; }
};

enum class ChangeType { Added, Modified, Deleted };
// "ADDED", "MODIFIED", "DELETED" (watch event types).
std::string_view toString(ChangeType t);

// One entry of the change feed; `object` is the state after the change (before it, for Deleted).
struct Change {
    int64_t revision = 0;
    ChangeType type = ChangeType::Added;
    ObjectKey key;
    json::object object;
};

// How the store treats one kind: its REST plural (for messages) and whether it has a status
// subresource. Cluster-scoped kinds are simply stored with an empty namespace.
struct ResourceInfo {
    std::string plural;
    bool statusSubresource = false;
};

// Kind table with defaults for built-in and trainer.kubeflow.org kinds; unknown kinds get a
// derived plural and, when their group is a CRD group (contains a dot), a status subresource.
class ResourceTable {
public:
    ResourceTable();
    // Overrides or adds one kind (group "" for the core group).
    void add(std::string group, std::string kind, ResourceInfo info);
    ResourceInfo lookup(std::string_view apiVersion, std::string_view kind) const;
    // "trainjobs.trainer.kubeflow.org" or "configmaps", as API-server messages name resources.
    std::string qualifiedResource(std::string_view apiVersion, std::string_view kind) const;

private:
    std::vector<std::pair<std::pair<std::string, std::string>, ResourceInfo>> entries_;
};

// The group part of an apiVersion ("" for "v1").
std::string_view groupOf(std::string_view apiVersion);

// RFC 3339 UTC with seconds ("2024-05-01T12:00:00Z"), as metadata timestamps are written.
std::string formatRfc3339(std::chrono::system_clock::time_point t);
// Parses "YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)"; nullopt when malformed.
std::optional<std::chrono::system_clock::time_point> parseRfc3339(std::string_view s);

// A random RFC 4122 version 4 UUID, lower-case.
std::string newUuid();

// How a delete treats the objects the deleted one owns (metav1.DeletionPropagation).
enum class Propagation { Background, Foreground, Orphan };

// A delete's options (metav1.DeleteOptions): propagation and preconditions (empty = none).
struct DeleteOptions {
    Propagation propagation = Propagation::Background;
    std::string uid;
    std::string resourceVersion;
};

// The store seam. Every call returns a value; nothing throws across it. Thread-safe.
class Store : public ClusterReader {
public:
    // Stores a new object, assigning uid, resourceVersion, generation 1 and creationTimestamp
    // (metadata.generateName is honoured when name is empty). Status of status-subresource
    // kinds is dropped. AlreadyExists when present; Invalid without apiVersion/kind/name.
    virtual StoreResult create(const json::object& obj) = 0;
    // Replaces the object (not its status, for status-subresource kinds). A non-empty
    // metadata.resourceVersion must be current (else Conflict). Generation bumps only when
    // something outside metadata/status changed; a no-op update writes nothing.
    virtual StoreResult update(const json::object& obj) = 0;
    // Replaces only .status (same concurrency rule as update).
    virtual StoreResult updateStatus(const json::object& obj) = 0;
    // Create-or-update like server-side apply: top-level fields of `obj` (and its labels,
    // annotations, ownerReferences, finalizers) replace the stored ones; writes only when the
    // content changed; records `fieldManager` in metadata.managedFields.
    virtual ApplyResult apply(const json::object& obj, std::string_view fieldManager) = 0;
    // Applies each object in order as apply() does, stopping at the first failure. A
    // transactional backend (TxnStore) writes them in one transaction: all or none. The
    // controller applies a TrainJob's children (its runtime snapshot, its JobSet) with it.
    virtual ApplyAllResult applyAll(const std::vector<json::object>& objs, std::string_view fieldManager);
    // Deletes the object and, in the same transaction, every object left without an existing
    // owner by it (ownerReferences by uid), recursively. Returns the deleted object.
    StoreResult remove(const ObjectKey& key) { return remove(key, DeleteOptions{}); }
    // Deletes as the API server does: an object with finalizers only gets
    // metadata.deletionTimestamp (the result's object carries it; `pending` is true) and goes when
    // an update removes its last finalizer; Background collects dependents left without an
    // existing owner, recursively; Foreground deletes them before the owner; Orphan removes the
    // owner's reference from them and keeps them. Preconditions that do not hold are Conflict.
    virtual StoreResult remove(const ObjectKey& key, const DeleteOptions& options) = 0;
    // Reads (get, list and the four below) answer an error when the store could not be read
    // (read_result.hpp); none stands in a default (absent, empty, 0) for a failure.
    //
    // Changes with revision > `revision`, oldest first, at most `limit`. Sees other processes'
    // writes to the same store.
    virtual ReadValue<std::vector<Change>> changesSince(int64_t revision, size_t limit) const = 0;
    // The newest revision (0 for an empty store).
    virtual ReadValue<int64_t> revision() const = 0;
    // The oldest revision still in the feed minus one: a watcher behind it must re-list.
    virtual ReadValue<int64_t> compactedRevision() const = 0;
    // Every object of every kind (for `get all`, dumps and tests), sorted by key.
    virtual ListResult listAll() const = 0;
    // The keys of the stored objects of one kind (in `ns`, or in every namespace), sorted: what a
    // re-list queues. This default lists the objects; SqliteStore reads the keys alone, so a
    // re-list of 100,000 TrainJobs does not parse (and hold) every one of them.
    virtual ReadValue<std::vector<ObjectKey>> listKeys(const std::string& apiVersion, const std::string& kind,
                                                       const std::optional<std::string>& ns = std::nullopt) const;
    // Calls `fn` after each write this process commits to the store (change_signal.hpp says what
    // it may do), so a loop polling changesSince polls at once. This default subscribes nothing
    // (an empty subscription): a store whose writers it cannot see (RemoteStore) is polled.
    virtual ChangeSubscription onCommit(std::function<void()> fn) const;
};

}  // namespace trainer::core
