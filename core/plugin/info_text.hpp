// The Info's text across one build's phases (issue 14): each top-level member's serialised text
// is kept until an edit changes that member, so a phase serialises only what the phases before
// it changed (the TrainJob, the runtime's members and `operator` are written once per build).
// The text is byte for byte json::serialize(info), which a test checks over random edits; where
// each member lies in it is known as it is written, and offered to plugins (member_place.hpp).
#pragma once

#include "core/plugin/member_place.hpp"

#include <boost/json.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core {

namespace json = boost::json;

class InfoText {
public:
    // json::serialize(info), from the member texts still valid. `info` is the one document this
    // InfoText follows, changed between calls only where touched() says.
    const std::string& of(const json::object& info);

    // Where each member lies in the text of() returned last, in document order (valid until the
    // next of()); none when a member's name needed escaping (input_members indexes plain names).
    std::span<const MemberPlace> places() const { return places_; }

    // An edit changed (set, added or removed something under) top-level member `member`.
    void touched(std::string_view member);

private:
    struct Member {
        std::string key;
        std::string text;        // `"key":value`
        std::size_t valueAt = 0;  // where the value begins in `text`
        bool plainKey = false;    // `text` begins `"key":`, nothing escaped
        bool fresh = false;
    };
    Member& slot(std::size_t index, std::string_view key);

    std::vector<Member> members_;
    std::string text_;
    std::vector<MemberPlace> places_;
    bool textFresh_ = false;
};

// A hook's input and where its members lie in it (no places: no index offered).
struct HookInput {
    std::string text;
    std::vector<MemberPlace> places;
};

// json::serialize(o), with where its members lie.
HookInput indexedText(const json::object& o);

// Appends json::serialize(v) without making a string of it.
void appendJson(std::string& out, const json::value& v);
void appendJson(std::string& out, const json::object& o);

// Appends one member, `"key":value`, as json::serialize writes it; `valueAt` gets where its value
// begins in `out`. True when the name is plain: the text between two quotes, nothing escaped
// (only such names are indexed: member_place.hpp).
bool appendMember(std::string& out, std::string_view key, const json::value& v, std::size_t& valueAt);
bool appendMember(std::string& out, std::string_view key, const json::object& o, std::size_t& valueAt);

}  // namespace trainer::core
