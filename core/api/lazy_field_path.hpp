// A field path ("spec.template.spec.replicatedJobs[0].template.spec.parallelism") spelled only
// when an error message needs it. Each step is its parent and a suffix (".parallelism") or an
// index ("[0]"), kept on the caller's stack as the walk nests, so walking a valid document builds
// no string at all: the Info builder had built one (often a heap allocation) for every field it
// looked at, about 2 % of `render` and of each admission (issue 14).
//
// Lifetimes: a path refers to its parent and to its text; both must outlive it. Paths are made
// for a call (an argument) or a scope (a named variable whose parent lives longer), never copied
// or stored; keep a std::string (str()) to remember one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace trainer::core {

class LazyFieldPath {
public:
    // A root spelled as given: a literal, or a string that outlives the path.
    LazyFieldPath(const char* root) : text_(root) {}               // NOLINT: converts like a string
    LazyFieldPath(const std::string& root) : text_(root) {}        // NOLINT
    LazyFieldPath(std::string&&) = delete;                         // a temporary would dangle
    // `parent` followed by `suffix` (".resources", ".template.spec").
    LazyFieldPath(const LazyFieldPath& parent, std::string_view suffix) : parent_(&parent), text_(suffix) {}
    // `parent` followed by "[index]".
    LazyFieldPath(const LazyFieldPath& parent, std::size_t index) : parent_(&parent), index_(index), step_(Step::Index) {}
    // `parent` followed by member `name`: ".name", or "name" when the path so far is empty (the
    // document's root: "spec", not ".spec"), as the schema validator names fields.
    static LazyFieldPath member(const LazyFieldPath& parent, std::string_view name) {
        return LazyFieldPath(parent, name, Step::Member);
    }
    // `parent` followed by "[key]": a map's entry (additionalProperties).
    static LazyFieldPath entry(const LazyFieldPath& parent, std::string_view key) {
        return LazyFieldPath(parent, key, Step::Entry);
    }
    LazyFieldPath(const LazyFieldPath&) = delete;
    LazyFieldPath& operator=(const LazyFieldPath&) = delete;

    // This path followed by `suffix` or "[index]", for a call's argument.
    LazyFieldPath operator/(std::string_view suffix) const { return LazyFieldPath(*this, suffix); }
    LazyFieldPath operator[](std::size_t index) const { return LazyFieldPath(*this, index); }

    std::string str() const {
        std::string out;
        appendTo(out);
        return out;
    }

private:
    enum class Step : unsigned char { Suffix, Index, Member, Entry };
    LazyFieldPath(const LazyFieldPath& parent, std::string_view text, Step step) : parent_(&parent), text_(text), step_(step) {}

    void appendTo(std::string& out) const {
        if (parent_) parent_->appendTo(out);
        switch (step_) {
            case Step::Suffix: out += text_; return;
            case Step::Index: out += '[' + std::to_string(index_) + ']'; return;
            case Step::Member:
                if (!out.empty()) out += '.';
                out += text_;
                return;
            case Step::Entry:
                out += '[';
                out += text_;
                out += ']';
                return;
        }
    }

    const LazyFieldPath* parent_ = nullptr;
    std::string_view text_;
    std::size_t index_ = 0;
    Step step_ = Step::Suffix;
};

}  // namespace trainer::core
