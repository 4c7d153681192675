// Events as core v1 Event objects in the store (kubectl get events): repeats of the same
// reason and note on the same object increment `count` instead of adding objects.
#pragma once

#include "core/controller/clock.hpp"
#include "core/store/store.hpp"

#include <string>
#include <string_view>

namespace trainer::core::controller {

// Longest note kept; longer ones are cut to this many characters plus " ..." (upstream).
inline constexpr size_t kMaxEventNoteLength = 950;
// `note` cut to kMaxEventNoteLength characters plus " ..." when longer.
std::string truncateEventNote(std::string_view note);

class EventRecorder {
public:
    // `component` is the reporting controller ("trainer-trainjob-controller").
    EventRecorder(Store& store, const Clock& clock, std::string component);
    // Records an event about `involved` ("Normal" or "Warning"); returns the store's message on failure.
    std::string record(const json::object& involved, std::string_view type, std::string_view reason,
                       std::string_view action, std::string_view note);

private:
    Store& store_;
    const Clock& clock_;
    std::string component_;
};

}  // namespace trainer::core::controller
