// Fuzz target 4c: request bodies in Kubernetes protobuf (application/vnd.kubernetes.protobuf),
// decoded as core/apiserver/handler_support.cpp decodeBody and write_handlers.cpp (DeleteOptions)
// call decodeKubernetesProtobuf. Input: byte 0 picks the endpoint's type defaults (% 6: none,
// v1 Pod, v1 ConfigMap, batch/v1 Job, apps/v1 Deployment, meta.k8s.io/v1 DeleteOptions); the rest
// is the body. A decoded object is what the request would carry as JSON: kind and apiVersion
// first, and text any JSON reader accepts (Go's encoding/json writes valid UTF-8).
#include "core/apiserver/protobuf.hpp"
#include "test/fuzz/fuzz_support.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

using namespace trainer::core;
using namespace trainer::core::apiserver;

namespace {

constexpr std::array<ProtobufTypeDefaults, 6> kDefaults{{
    {},
    {"v1", "Pod"},
    {"v1", "ConfigMap"},
    {"batch/v1", "Job"},
    {"apps/v1", "Deployment"},
    {"meta.k8s.io/v1", "DeleteOptions"},
}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
    auto r = decodeKubernetesProtobuf(body, kDefaults[data[0] % kDefaults.size()]);
    if (!r.ok) {
        fuzz::require(!r.error.empty(), "a refused body has no error text");
        return 0;
    }
    fuzz::require(r.object.size() >= 2 && r.object.begin()->key() == "kind" && std::next(r.object.begin())->key() == "apiVersion",
                  "a decoded object does not begin with kind, apiVersion", json::serialize(r.object));
    std::string text = json::serialize(r.object);
    boost::system::error_code ec;
    json::parse_options opts;
    opts.max_depth = 100000;
    auto back = json::parse(text, ec, {}, opts);
    fuzz::require(!ec, "a decoded object serialises to invalid JSON: " + ec.message(), text);
    fuzz::require(back == json::value(r.object), "a decoded object reads back as another value", text);
    return 0;
}
