// An object lent as a json::value while this lives: moved in, no copy, and moved back when it goes
// out of scope, however the code using it ends. For code that walks a json::value where the
// caller holds a json::object (schema checks and defaults, plugin edits). The value must stay an
// object.
#pragma once

#include <boost/json.hpp>

namespace trainer::core {

class LentValue {
public:
    explicit LentValue(boost::json::object& owner) : owner_(owner), value_(std::move(owner)) {}
    ~LentValue() { owner_ = std::move(value_.as_object()); }
    LentValue(const LentValue&) = delete;
    LentValue& operator=(const LentValue&) = delete;

    boost::json::value& value() { return value_; }

private:
    boost::json::object& owner_;
    boost::json::value value_;
};

}  // namespace trainer::core
