// live.Merge(config): config wins on leaves; maps merge member by member; lists merge per their
// shape (atomic ones are replaced, associative ones item by item in live's order, config-only
// items placed where config places them). Errors carry upstream's text.
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/typed/merge.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/smd_typed_helpers.hpp"
#include "core/apiserver/smd_validate.hpp"

#include <optional>
#include <vector>

namespace trainer::core::apiserver::smd {

struct MergeContext {
    const Shapes& sh;
    std::vector<ValidationError> errors;  // lists that cannot be keyed; the merge is then unusable
};

// The merge of `l` (live) and `r` (config), one of them possibly absent (a null pointer, not both);
// nullopt where a merged map or list comes out empty or a list cannot be keyed (then cx.errors
// says why). `names` is the schema path of both (restored on return).
std::optional<json::value> mergeValue(const json::value* l, const json::value* r, Names& names, MergeContext& cx);

}  // namespace trainer::core::apiserver::smd
