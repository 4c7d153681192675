#include "core/executor/completed_indexes.hpp"

#include <algorithm>
#include <charconv>

namespace trainer::core::executor {

namespace {

bool parseNumber(std::string_view s, int64_t& out) {
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && out >= 0;
}

}  // namespace

IndexSet IndexSet::parse(std::string_view text, int64_t completions) {
    IndexSet out;
    while (!text.empty()) {
        auto comma = text.find(',');
        std::string_view part = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        auto dash = part.find('-');
        int64_t first = 0, last = 0;
        if (!parseNumber(part.substr(0, dash), first)) continue;
        if (first >= completions) break;
        if (dash == std::string_view::npos) last = first;
        else if (!parseNumber(part.substr(dash + 1), last) || last < first) continue;
        out.intervals_.emplace_back(first, std::min(last, completions - 1));
    }
    // Sort and merge overlapping or adjacent intervals.
    std::sort(out.intervals_.begin(), out.intervals_.end());
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (auto const& iv : out.intervals_) {
        if (!merged.empty() && iv.first <= merged.back().second + 1) merged.back().second = std::max(merged.back().second, iv.second);
        else merged.push_back(iv);
    }
    out.intervals_ = std::move(merged);
    return out;
}

void IndexSet::add(int64_t index) {
    auto it = std::lower_bound(intervals_.begin(), intervals_.end(), index,
                               [](const std::pair<int64_t, int64_t>& iv, int64_t v) { return iv.second < v; });
    if (it != intervals_.end() && it->first <= index) return;  // already in
    bool joinsNext = it != intervals_.end() && it->first == index + 1;
    bool joinsPrev = it != intervals_.begin() && std::prev(it)->second == index - 1;
    if (joinsPrev && joinsNext) {
        std::prev(it)->second = it->second;
        intervals_.erase(it);
    } else if (joinsPrev) {
        std::prev(it)->second = index;
    } else if (joinsNext) {
        it->first = index;
    } else {
        intervals_.insert(it, {index, index});
    }
}

bool IndexSet::has(int64_t index) const {
    for (auto const& [first, last] : intervals_)
        if (first <= index && index <= last) return true;
    return false;
}

int64_t IndexSet::total() const {
    int64_t n = 0;
    for (auto const& [first, last] : intervals_) n += last - first + 1;
    return n;
}

std::string IndexSet::toString() const {
    std::string out;
    for (auto const& [first, last] : intervals_) {
        if (!out.empty()) out += ',';
        out += std::to_string(first);
        if (last > first) out += (last == first + 1 ? "," : "-") + std::to_string(last);
    }
    return out;
}

}  // namespace trainer::core::executor
