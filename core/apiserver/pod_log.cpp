#include "core/apiserver/pod_log.hpp"

#include "core/executor/file_watch.hpp"
#include "core/executor/log_reader.hpp"

#include <charconv>

namespace trainer::core::apiserver {

namespace {

// Streams a LogReader, woken by writes to the container's log file and by this process's commits
// (the kubelet's status of the pod: started, ended); read every `fallback` when nothing woke it,
// every kPollInterval while the file is not watched.
class PodLogStream : public server::ResponseStream {
public:
    PodLogStream(std::unique_ptr<executor::LogReader> reader, const Store& store, std::chrono::milliseconds fallback)
        : reader_(std::move(reader)), store_(store), fallback_(fallback) {}
    server::StreamChunk poll() override {
        auto c = reader_->poll();
        if (!file_ && wake_ && reader_->started() && !c.done) {
            std::string ignored;  // unwatchable (no file yet): polled, and watched once it can be
            file_ = executor::FileWatch::start(reader_->target().path, wake_, ignored);
            if (file_) wake_();  // what was written before the watch began: read at once
        }
        return {std::move(c.data), c.done};
    }
    std::chrono::milliseconds idle() const override { return file_ ? fallback_ : executor::kPollInterval; }
    void setWaker(std::function<void()> wake) override {
        wake_ = std::move(wake);
        commits_ = store_.onCommit(wake_);
    }

private:
    std::unique_ptr<executor::LogReader> reader_;
    const Store& store_;
    std::chrono::milliseconds fallback_;
    std::function<void()> wake_;
    ChangeSubscription commits_;
    std::unique_ptr<executor::FileWatch> file_;  // destroyed before wake_'s captures (declared after)
};

std::optional<int64_t> parseInt(const std::string& s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

// The PodLogOptions of the query; an error answers the request.
std::optional<ApiError> parseOptions(const std::map<std::string, std::string>& query, const std::string& name,
                                     executor::LogOptions& o) {
    auto text = [&](const char* k) -> const std::string* {
        auto it = query.find(k);
        return it == query.end() ? nullptr : &it->second;
    };
    bool timestamps = false;
    for (auto [key, target] : {std::pair<const char*, bool*>{"follow", &o.follow}, {"previous", &o.previous},
                               {"timestamps", &timestamps}})
        if (auto* t = text(key)) {
            auto b = parseBool(*t);
            if (!b) return badRequest("strconv.ParseBool: parsing \"" + *t + "\": invalid syntax");
            *target = *b;
        }
    for (auto [key, target] : {std::pair<const char*, std::optional<int64_t>*>{"tailLines", &o.tailLines},
                               {"limitBytes", &o.limitBytes}})
        if (auto* t = text(key)) {
            *target = parseInt(*t);
            if (!*target) return badRequest("strconv.ParseInt: parsing \"" + *t + "\": invalid syntax");
        }
    if (auto* c = text("container")) o.container = *c;
    ErrorList errors;
    if (o.tailLines && *o.tailLines < 0)
        errors.push_back({"tailLines", "Invalid value: " + std::to_string(*o.tailLines) +
                                           ": must be greater than or equal to 0", ErrorType::Invalid, {}});
    if (o.limitBytes && *o.limitBytes < 1)
        errors.push_back({"limitBytes", "Invalid value: " + std::to_string(*o.limitBytes) + ": must be greater than 0",
                          ErrorType::Invalid, {}});
    if (!errors.empty()) return invalid("PodLogOptions", "", name, errors);
    if (timestamps || text("sinceSeconds") || text("sinceTime"))
        return badRequest("timestamps, sinceSeconds and sinceTime are not supported: the local executor's container "
                          "logs carry no per-line times");
    return std::nullopt;
}

ApiError readerError(const executor::LogError& e, const std::string& name) {
    if (e.kind == executor::LogErrorKind::PodNotFound) return notFound("pods", name);
    if (e.kind == executor::LogErrorKind::ReadFailed) return internalError(e.message);
    return badRequest(e.message);
}

}  // namespace

server::Response handlePodLog(const RequestInfo& info, const std::map<std::string, std::string>& query,
                              const Store& store, const ApiServerOptions& options) {
    if (info.verb != "get") return errorResponse(methodNotSupported());
    executor::LogOptions o;
    if (auto err = parseOptions(query, info.name, o)) return errorResponse(*err);
    if (options.podLogDir.empty())
        return errorResponse(badRequest("container logs are not available: this API server runs no local executor"));
    auto reader = std::make_unique<executor::LogReader>(store, options.podLogDir,
                                                        ObjectKey{"v1", "Pod", info.ns, info.name}, o);
    if (reader->error().failed()) return errorResponse(readerError(reader->error(), info.name));
    server::Response r;
    r.contentType = "text/plain";
    if (o.follow) {
        r.stream = std::make_shared<PodLogStream>(std::move(reader), store, options.logFollowFallback);
        return r;
    }
    for (;;) {
        auto c = reader->poll();
        r.body += c.data;
        if (c.done) return r;
    }
}

}  // namespace trainer::core::apiserver
