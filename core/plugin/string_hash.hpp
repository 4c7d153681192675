// A hash for unordered containers keyed by std::string that are looked up by std::string_view
// without building a string (C++20 heterogeneous lookup: pair it with std::equal_to<>).
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace trainer::core {

struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace trainer::core
