#include "core/executor/log_reader.hpp"

#include <algorithm>
#include <fstream>

namespace trainer::core::executor {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxChunk = 1u << 20;
constexpr uint64_t kScanBlock = 64u << 10;

}  // namespace

uint64_t tailOffset(const fs::path& path, int64_t lines) {
    std::error_code ec;
    const uint64_t size = fs::file_size(path, ec);
    if (ec || size == 0) return 0;
    if (lines <= 0) return size;
    std::ifstream in(path, std::ios::binary);
    if (!in) return 0;
    // Walk back from the end counting '\n'; a final '\n' ends the last line rather than starting one.
    int64_t seen = 0;
    uint64_t end = size;
    std::string block;
    bool skipFinal = true;
    while (end > 0) {
        const uint64_t begin = end > kScanBlock ? end - kScanBlock : 0;
        block.resize(end - begin);
        in.seekg(static_cast<std::streamoff>(begin));
        if (!in.read(block.data(), static_cast<std::streamsize>(block.size()))) return 0;
        for (uint64_t i = block.size(); i-- > 0;) {
            if (block[i] != '\n') continue;
            if (skipFinal && begin + i == size - 1) continue;
            if (++seen == lines) return begin + i + 1;
        }
        skipFinal = false;
        end = begin;
    }
    return 0;
}

LogReader::LogReader(const ClusterReader& cluster, fs::path stateDir, ObjectKey pod, LogOptions options)
    : cluster_(cluster), stateDir_(std::move(stateDir)), pod_(std::move(pod)), options_(std::move(options)) {
    auto obj = cluster_.get(pod_);
    if (obj.failed()) {
        error_ = {LogErrorKind::ReadFailed, readFailureMessage(pod_, obj.message)};
        return;
    }
    if (obj.notFound()) {
        error_ = {LogErrorKind::PodNotFound, "pods \"" + pod_.name + "\" not found"};
        return;
    }
    options_.container = chooseContainer(obj.object, options_.container, error_);
    if (!error_.failed()) start(obj.object);
}

bool LogReader::start(const json::object& pod) {
    LogError e;
    auto log = findContainerLog(pod, stateDir_, options_.container, options_.previous, e);
    if (e.failed()) {
        if (!(e.kind == LogErrorKind::NotStarted && options_.follow && options_.waitForStart)) error_ = e;
        return false;
    }
    log_ = std::move(log);
    offset_ = options_.tailLines ? tailOffset(log_.path, *options_.tailLines) : 0;
    started_ = true;
    return true;
}

std::string LogReader::readMore(bool& atEnd) {
    atEnd = true;
    std::error_code ec;
    const uint64_t size = fs::file_size(log_.path, ec);
    if (ec || size <= offset_) return {};
    uint64_t want = std::min(size - offset_, kMaxChunk);
    if (options_.limitBytes) want = std::min<uint64_t>(want, static_cast<uint64_t>(*options_.limitBytes - sent_));
    std::ifstream in(log_.path, std::ios::binary);
    std::string data(want, '\0');
    in.seekg(static_cast<std::streamoff>(offset_));
    in.read(data.data(), static_cast<std::streamsize>(want));
    data.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    offset_ += data.size();
    sent_ += static_cast<int64_t>(data.size());
    atEnd = offset_ >= size;
    return data;
}

LogChunk LogReader::poll() {
    if (done_ || error_.failed()) return {"", true};
    if (!started_) {
        auto pod = cluster_.get(pod_);
        if (pod.notFound()) done_ = true;
        else if (pod.found() && !start(pod.object)) done_ = error_.failed();
        if (!started_) return {"", done_};  // a failed read: asked again on the next poll
    }
    // The status first: bytes written before the status said "ended" are all read below. A read
    // that failed does not end the stream; the next poll reads again.
    bool ended = !options_.follow;
    if (!ended) {
        auto pod = cluster_.get(pod_);
        if (!pod.failed())
            ended = containerInstanceEnded(pod.found() ? std::optional<json::object>(std::move(pod.object)) : std::nullopt, log_);
    }
    bool atEnd = false;
    LogChunk out{readMore(atEnd), false};
    if (options_.limitBytes && sent_ >= *options_.limitBytes) done_ = true;
    if (ended && atEnd) done_ = true;
    out.done = done_;
    return out;
}

}  // namespace trainer::core::executor
