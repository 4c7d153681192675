// Helpers for the status server tests: an io_context on threads, curl, a fake TokenAuthorizer
// following core/auth/token_authorizer.hpp, and a Store wrapper whose calls a test can intercept.
#pragma once

#include "core/auth/token_authorizer.hpp"
#include "core/store/memory_store.hpp"
#include "test/support/forwarding_store.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace trainer::test {

// Runs an io_context on `n` threads until destroyed.
class IoRunner {
public:
    explicit IoRunner(int n = 2);
    ~IoRunner();
    boost::asio::io_context io;

private:
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
    std::vector<std::thread> threads_;
};

// A fresh empty directory under the system temp dir.
std::filesystem::path tempDir(const std::string& name);
void writeFile(const std::filesystem::path& path, const std::string& content);

struct HttpResult {
    int status = 0;  // 0 when curl failed
    std::string body;
    std::string contentType;
    std::string retryAfter;  // the Retry-After header, if any
    int curlExit = -1;
};
// curl -sS <args> (at most 60 s, a hang guard; a missing curl fails the test), with the status,
// body, content type and Retry-After it saw.
HttpResult curl(const std::string& args);

// Allows exactly the token "token:<ns>/<name>" for that TrainJob; "broken" is an Error (the
// authorizer cannot decide); anything else is Denied. Counts its calls.
class FakeAuthorizer : public core::auth::TokenAuthorizer {
public:
    core::auth::AuthorizeResult authorize(std::string_view rawToken, std::string_view ns,
                                          std::string_view trainJob) override;
    std::atomic<int> calls{0};
};

// A Store that forwards to its MemoryStore; `onGet` / `onUpdateStatus` replace those two calls when set.
class InterceptStore : public ForwardingStore {
public:
    InterceptStore() : ForwardingStore(inner) {}  // the base keeps a reference; `inner` is built next
    core::MemoryStore inner;
    std::function<core::ReadResult(const core::ObjectKey&)> onGet;
    std::function<core::StoreResult(const core::json::object&)> onUpdateStatus;

    core::ReadResult get(const core::ObjectKey& key) const override { return onGet ? onGet(key) : inner.get(key); }
    core::StoreResult updateStatus(const core::json::object& obj) override {
        return onUpdateStatus ? onUpdateStatus(obj) : inner.updateStatus(obj);
    }
};

// A TrainJob "<ns>/<name>" with a spec, status conditions and jobsStatus, created in `store`.
core::json::object seedTrainJob(core::Store& store, const std::string& ns, const std::string& name);

// metadata.resourceVersion of the stored TrainJob ("" when absent).
std::string resourceVersion(const core::Store& store, const std::string& ns, const std::string& name);

}  // namespace trainer::test
