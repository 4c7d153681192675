// The Info's text across one build's phases (issue 14): each top-level member's serialised text
// is kept until an edit changes that member, so a phase serialises only what the phases before
// it changed (the TrainJob, the runtime's members and `operator` are written once per build).
// The text is byte for byte json::serialize(info), which a test checks over random edits.
#pragma once

#include <boost/json.hpp>

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

    // An edit changed (set, added or removed something under) top-level member `member`.
    void touched(std::string_view member);

private:
    struct Member {
        std::string key;
        std::string text;  // `"key":value`
        bool fresh = false;
    };
    Member& slot(std::size_t index, std::string_view key);

    std::vector<Member> members_;
    std::string text_;
    bool textFresh_ = false;
};

}  // namespace trainer::core
