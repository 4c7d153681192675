#include "test_support.hpp"
#include "../../support/tools.hpp"

#include "core/api/kinds.hpp"

#include <unistd.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>

namespace trainer::test {

namespace json = boost::json;

IoRunner::IoRunner(int n) : guard_(io.get_executor()) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { io.run(); });
}

IoRunner::~IoRunner() {
    guard_.reset();
    io.stop();
    for (auto& t : threads_) t.join();
}

std::filesystem::path tempDir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() /
               ("trainer-statusserver-test-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

void writeFile(const std::filesystem::path& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
}

HttpResult curl(const std::string& args) {
    requireTool("curl");
    std::string command = "curl -sS --max-time 60 -o - -w '\\n%{http_code} %header{retry-after} %{content_type}' " + args +
                          " 2>/dev/null";
    HttpResult out;
    FILE* p = ::popen(command.c_str(), "r");
    if (!p) return out;
    std::string text;
    std::array<char, 4096> buf{};
    for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) text.append(buf.data(), n);
    int status = ::pclose(p);
    out.curlExit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    auto nl = text.rfind('\n');
    if (nl == std::string::npos) return out;
    out.body = text.substr(0, nl);
    std::string tail = text.substr(nl + 1);
    auto sp1 = tail.find(' ');
    auto sp2 = tail.find(' ', sp1 + 1);
    out.status = std::atoi(tail.substr(0, sp1).c_str());
    out.retryAfter = tail.substr(sp1 + 1, sp2 - sp1 - 1);
    out.contentType = sp2 == std::string::npos ? "" : tail.substr(sp2 + 1);
    return out;
}

core::auth::AuthorizeResult FakeAuthorizer::authorize(std::string_view rawToken, std::string_view ns,
                                                      std::string_view trainJob) {
    ++calls;
    if (rawToken == "broken") return {core::auth::AuthorizeOutcome::Error, "issuer unreachable"};
    std::string want = "token:" + std::string(ns) + "/" + std::string(trainJob);
    if (rawToken == want) return {core::auth::AuthorizeOutcome::Allowed, ""};
    return {core::auth::AuthorizeOutcome::Denied, "audience does not name this TrainJob"};
}

json::object seedTrainJob(core::Store& store, const std::string& ns, const std::string& name) {
    json::object job{{"apiVersion", core::kTrainerApiVersion},
                     {"kind", "TrainJob"},
                     {"metadata", {{"namespace", ns}, {"name", name}}},
                     {"spec", {{"runtimeRef", {{"name", "torch-distributed"}}}}}};
    auto created = store.create(job);
    if (!created.ok()) return {};
    json::object withStatus = created.object;
    withStatus["status"] = json::object{
        {"conditions", json::array{json::object{{"type", "Created"},
                                                {"status", "True"},
                                                {"reason", "JobsCreationSucceeded"},
                                                {"message", "TrainJob is created"},
                                                {"lastTransitionTime", "2024-05-01T12:00:00Z"}}}},
        {"jobsStatus", json::array{json::object{{"name", "node"}, {"ready", 1}, {"succeeded", 0}, {"failed", 0},
                                                {"active", 1}, {"suspended", 0}}}}};
    auto r = store.updateStatus(withStatus);
    return r.ok() ? r.object : json::object{};
}

std::string resourceVersion(const core::Store& store, const std::string& ns, const std::string& name) {
    auto o = store.get(core::ObjectKey{std::string(core::kTrainerApiVersion), "TrainJob", ns, name});
    if (!o.found()) return "";
    return std::string(o.object.at("metadata").as_object().at("resourceVersion").as_string());
}

}  // namespace trainer::test
