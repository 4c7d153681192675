// The List `render -o json` prints: toJson of {"apiVersion": "v1", "kind": "List", "items": [...]},
// pretty, the items sorted by identity (keyOf). Each object is written as text when it is added,
// so no more than one TrainJob's objects are held as JSON values at a time; texts beyond a memory
// budget go to an unlinked temporary file (as sort(1) spills), so rendering 10,000 TrainJobs does
// not hold their 44 MB of output in memory (issue 14 P1). The output is the same either way.
#pragma once

#include "core/api/object_set.hpp"

#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace trainer::core::cli {

class JsonListWriter {
public:
    // `memoryBudget`: bytes of text kept in memory before the rest is spilled.
    explicit JsonListWriter(std::size_t memoryBudget = kDefaultBudget);
    void add(const json::object& o);
    // Writes the List; false (with `error` set) when the spilled texts cannot be written or read back.
    bool write(std::ostream& out, std::string& error);
    // Texts written to the temporary file so far (for tests).
    std::size_t spilled() const { return spilled_; }

    static constexpr std::size_t kDefaultBudget = std::size_t{4} << 20;  // a render of a few hundred TrainJobs stays in memory

private:
    struct Item {
        ObjectKey key;
        std::string text;     // in memory, or empty when spilled
        long offset = -1;     // in the temporary file when spilled
        std::size_t size = 0;
    };
    bool spill(Item& item, const std::string& text);

    struct FileCloser {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };
    std::size_t budget_, inMemory_ = 0, spilled_ = 0;
    std::vector<Item> items_;
    std::string buffer_;  // reused: texts are kept at their exact size, not a grown buffer's capacity
    std::unique_ptr<std::FILE, FileCloser> file_;  // std::tmpfile(): removed when closed
    long end_ = 0;
};

}  // namespace trainer::core::cli
