#include "core/auth/token_authorizer.hpp"

namespace trainer::core::auth {

std::string tokenAudience(std::string_view ns, std::string_view trainJob) {
    std::string out = "trainer.kubeflow.org/v1alpha1/namespaces/";
    out.append(ns).append("/trainjobs/").append(trainJob).append("/status");
    return out;
}

}  // namespace trainer::core::auth
