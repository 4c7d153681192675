#include "core/executor/workload_names.hpp"

#include "core/server/sha256.hpp"

#include <openssl/sha.h>

#include <cctype>

namespace trainer::core::executor {

namespace {

// k8s.io/apiserver/pkg/storage/names: 63 - 5 random characters.
constexpr size_t kMaxGeneratedNameLength = 58;

}  // namespace

std::string lowerJobSetKind() {
    std::string s(kJobSetKind);
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string childJobName(std::string_view jobSet, std::string_view replicatedJob, int64_t index) {
    return std::string(jobSet) + "-" + std::string(replicatedJob) + "-" + std::to_string(index);
}

std::string jobHashKey(std::string_view ns, std::string_view jobName) {
    std::string input = std::string(ns) + "/" + std::string(jobName);
    unsigned char digest[SHA_DIGEST_LENGTH];
    SHA1(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
    std::string hex;
    server::appendHex(hex, digest, SHA_DIGEST_LENGTH);
    return hex;
}

std::string indexedPodGenerateName(std::string_view job, int64_t index) {
    std::string suffix = "-" + std::to_string(index) + "-";
    std::string prefix = std::string(job) + suffix;
    if (prefix.size() > kMaxGeneratedNameLength)
        prefix = std::string(job.substr(0, kMaxGeneratedNameLength - suffix.size())) + suffix;
    return prefix;
}

std::string podGenerateName(std::string_view job) {
    std::string prefix = std::string(job) + "-";
    if (prefix.size() > kMaxGeneratedNameLength) prefix = prefix.substr(0, kMaxGeneratedNameLength);
    return prefix;
}

std::string indexedPodHostname(std::string_view job, int64_t index) {
    return std::string(job) + "-" + std::to_string(index);
}

}  // namespace trainer::core::executor
