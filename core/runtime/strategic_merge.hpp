// Kubernetes strategic merge patch (SMP) over JSON, with the merge keys of a JobSet v1alpha2
// JobSetSpec and the pod template inside it (spec §4.2 step 2).
#pragma once

#include "core/api/errors.hpp"

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace trainer::core {

namespace json = boost::json;

// The merge key of a list field by its member name ("containers" -> "name"), or nullopt when the
// list is replaced wholesale. The table covers every keyed list reachable from a JobSetSpec.
std::optional<std::string_view> mergeKeyOf(std::string_view field);

// True for object fields that a patch replaces instead of merging (affinity, securityContext).
bool replacedWholesale(std::string_view field);

// Applies `patch` to `original` with SMP semantics: objects merge key-wise, `null` deletes a
// key, keyed lists merge element-wise by their merge key (patch-only elements appended in
// patch order), other lists and scalars are replaced, and the directives `$patch: replace`,
// `$patch: delete` (in objects and keyed-list elements), `$retainKeys`,
// `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` (ignored) are honoured.
// A keyed-list element without its merge key is reported at `fieldPath` and skipped.
json::value strategicMerge(const json::value& original, const json::value& patch, Diagnostics& diag,
                           const std::string& fieldPath = "");

}  // namespace trainer::core
