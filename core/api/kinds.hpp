// The trainer API kinds and how an object is recognised as one of them.
#pragma once

#include <boost/json.hpp>

#include <string_view>

namespace trainer::core {

namespace json = boost::json;

inline constexpr std::string_view kTrainerGroup = "trainer.kubeflow.org";
inline constexpr std::string_view kTrainerApiVersion = "trainer.kubeflow.org/v1alpha1";

enum class ObjectKind { TrainJob, TrainingRuntime, ClusterTrainingRuntime, Other };

// The trainer kind of an object (apiVersion must be trainer.kubeflow.org/v1alpha1), else Other.
inline ObjectKind kindOf(const json::object& o) {
    auto av = o.find("apiVersion");
    auto k = o.find("kind");
    if (av == o.end() || k == o.end() || !av->value().is_string() || !k->value().is_string()) return ObjectKind::Other;
    if (av->value().get_string() != kTrainerApiVersion) return ObjectKind::Other;
    std::string_view kind = k->value().get_string();
    if (kind == "TrainJob") return ObjectKind::TrainJob;
    if (kind == "TrainingRuntime") return ObjectKind::TrainingRuntime;
    if (kind == "ClusterTrainingRuntime") return ObjectKind::ClusterTrainingRuntime;
    return ObjectKind::Other;
}

}  // namespace trainer::core
