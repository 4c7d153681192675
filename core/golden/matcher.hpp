// The golden-test subset matcher: is an expected object contained in an actual one?
// The rules (sdk/docs/golden-tests.md "Matching"), ported from the upstream-parity runner
// that preceded it:
// - an object matches when each expected member is present in the actual object and matches;
//   extra actual members are fine;
// - scalars are equal; JSON numbers compare by value (1 == 1.0); under a member named
//   `requests`, `limits`, `minResources` or `overhead` values compare as Kubernetes quantities
//   ("1250m" == "1.25", "2560Mi" == "2.5Gi");
// - lists held by a member of kKeyedLists match element by key, in any order, extra actual
//   elements allowed, when every expected element is an object carrying the key; every other
//   list matches element by element, in order and with equal length;
// - "<any>" matches any value but null (the member must be there); "<absent>" as a member's
//   value asserts the member is missing, null, "", [] or {}; a keyed-list element
//   {"<key>": v, "$absent": true} asserts no element has that key, and a list of only such
//   elements also holds when the list itself is missing.
#pragma once

#include "core/api/errors.hpp"

#include <boost/json.hpp>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::golden {

namespace json = boost::json;

inline constexpr std::string_view kAny = "<any>";
inline constexpr std::string_view kAbsent = "<absent>";
inline constexpr std::string_view kAbsentElement = "$absent";

// Lists matched by a key, named by the member that holds them, wherever it occurs.
struct KeyedList {
    std::string_view member;
    std::string_view key;
};
inline constexpr std::array<KeyedList, 12> kKeyedLists{{
    {"replicatedJobs", "name"}, {"containers", "name"}, {"initContainers", "name"}, {"env", "name"},
    {"volumes", "name"}, {"imagePullSecrets", "name"}, {"schedulingGates", "name"}, {"dependsOn", "name"},
    {"volumeMounts", "mountPath"}, {"ports", "containerPort"}, {"ownerReferences", "uid"}, {"conditions", "type"},
}};
// The key of the list held by `member`, or "" when it is an ordered list.
std::string_view listKeyOf(std::string_view member);

// Members whose values (at any depth below, through objects) compare as quantities.
inline constexpr std::array<std::string_view, 4> kQuantityMembers{"requests", "limits", "minResources", "overhead"};

// One difference: where (a field path, field_path.hpp) and what ("expected "2", found "4"").
struct Mismatch {
    std::string path;
    std::string message;
};

// Every way `actual` fails to contain `expected`; empty when it does. `path` prefixes the
// reported paths.
std::vector<Mismatch> matchSubset(const json::value& expected, const json::value& actual, const std::string& path = "");

// Errors for misused directives in an expected value, at paths under `path`: "$absent" other
// than true or outside a keyed-list element, "<absent>" other than as a member's value.
Diagnostics checkDirectives(const json::value& expected, const std::string& path);

}  // namespace trainer::core::golden
