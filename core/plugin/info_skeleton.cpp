#include "core/plugin/info_skeleton.hpp"

#include "core/json/same_in_order.hpp"
#include "core/plugin/info_text.hpp"
#include "core/runtime/info_builder.hpp"

namespace trainer::core {

namespace {

constexpr std::string_view kTrainJob = "trainJob";

// The skeleton's text and places from buildInfo's Info: `trainJob`'s name ends the head, its
// value is left out, and what follows is the tail. An Info without `trainJob` (buildInfo always
// writes it) gets it last, where assembleInfo puts it.
void writeText(const json::object& info, InfoSkeleton& s) {
    static const json::value kNone;
    std::string* out = &s.head;
    std::vector<MemberPlace>* places = &s.headPlaces;
    bool plain = true;
    auto member = [&](std::string_view key, const json::value& v, bool last) {
        if (out->size() > 1 || out == &s.tail) out->push_back(',');
        MemberPlace p;
        p.keyAt = out->size() + 1;
        p.keySize = key.size();
        plain = appendMember(*out, key, v, p.valueAt) && plain;
        if (last) out->resize(p.valueAt);  // `"trainJob":`, the value left to the TrainJob's text
        else p.valueSize = out->size() - p.valueAt;
        places->push_back(p);
    };
    s.head.push_back('{');
    for (auto const& kv : info) {
        if (kv.key() != kTrainJob) {
            member(kv.key(), kv.value(), false);
            continue;
        }
        member(kTrainJob, kNone, true);
        out = &s.tail;
        places = &s.tailPlaces;
    }
    if (out == &s.head) member(kTrainJob, kNone, true);
    if (!plain) s.headPlaces.clear(), s.tailPlaces.clear();
}

}  // namespace

json::object infoInputsOf(const json::object& trainJob) {
    json::object out;
    const json::value* spec = trainJob.if_contains("spec");
    if (!spec) return out;
    if (!spec->is_object()) {
        out["spec"] = *spec;
        return out;
    }
    json::object in;
    if (const json::value* patches = spec->get_object().if_contains("runtimePatches")) in["runtimePatches"] = *patches;
    if (const json::value* trainer = spec->get_object().if_contains("trainer")) {
        if (!trainer->is_object()) {
            in["trainer"] = *trainer;
        } else {
            json::object t;
            if (const json::value* r = trainer->get_object().if_contains("resourcesPerNode")) t["resourcesPerNode"] = *r;
            in["trainer"] = std::move(t);
        }
    }
    out["spec"] = std::move(in);
    return out;
}

std::shared_ptr<const InfoSkeleton> makeInfoSkeleton(const json::object& trainJob, const json::object& runtime,
                                                     Diagnostics& diag) {
    Diagnostics built;
    json::object info = buildInfo(infoInputsOf(trainJob), runtime, built);
    diag.append(built);
    if (!built.ok()) return nullptr;
    auto s = std::make_shared<InfoSkeleton>();
    s->diagnostics = std::move(built);
    writeText(info, *s);
    s->members.reserve(info.size());
    s->trainJobAt = info.size();  // last, when absent
    std::size_t i = 0;
    for (auto& kv : info) {
        if (kv.key() == kTrainJob) s->trainJobAt = i;
        else s->members.emplace(kv.key(), std::move(kv.value()));
        ++i;
    }
    return s;
}

json::object assembleInfo(const InfoSkeleton& skeleton, const json::object& trainJob) {
    json::object out;
    out.reserve(skeleton.members.size() + 1);
    std::size_t i = 0;
    for (auto const& kv : skeleton.members) {
        if (i++ == skeleton.trainJobAt) out.emplace(kTrainJob, trainJob);
        out.emplace(kv.key(), kv.value());
    }
    if (out.size() == skeleton.members.size()) out.emplace(kTrainJob, trainJob);
    return out;
}

std::shared_ptr<const InfoSkeleton> InfoSkeletons::get(const std::shared_ptr<const json::object>& runtime,
                                                       const json::object& trainJob, Diagnostics& diag) {
    json::object inputs = infoInputsOf(trainJob);
    auto lookup = [&]() -> std::shared_ptr<const InfoSkeleton> {
        for (auto const& e : entries_)
            if (e.runtime == runtime && sameInOrder(e.inputs, inputs)) return e.skeleton;
        return nullptr;
    };
    {
        std::lock_guard lock(mu_);
        if (auto s = lookup()) {
            ++found_;
            diag.append(s->diagnostics);
            return s;
        }
    }
    auto s = makeInfoSkeleton(inputs, *runtime, diag);
    if (!s) return nullptr;
    std::lock_guard lock(mu_);
    ++made_;
    if (lookup()) return s;  // another thread remembered the same meanwhile
    Entry e{runtime, std::move(inputs), s};
    if (entries_.size() < kEntries) entries_.push_back(std::move(e));
    else entries_[next_++ % kEntries] = std::move(e);
    return s;
}

std::size_t InfoSkeletons::made() const {
    std::lock_guard lock(mu_);
    return made_;
}

std::size_t InfoSkeletons::found() const {
    std::lock_guard lock(mu_);
    return found_;
}

}  // namespace trainer::core
