// How the SDK reads the Info text a hook receives without building all of it (issue 14): the
// text's top-level members are found where the host says they lie (trn_host_api.input_members,
// checked by acceptHostIndex), else by a scanner that builds nothing, and a member is parsed
// only when the plugin first reads it (trainer::sdk::Info, plugin.hpp). A plugin instance keeps
// the last tree it parsed for each member with the text it came from (MemberMemo), so a member
// that arrives byte-identical (the runtime's, on every TrainJob of that runtime; the TrainJob,
// in every hook of one TrainJob) is not parsed again; the TrainJob's own members are split and
// parsed the same way (Info::spec() reads only the TrainJob's spec). Internal to the SDK:
// plugins see only Info.
#pragma once

#include <trainer/abi.h>

#include <boost/json.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::sdk::detail {

// One top-level member of a JSON object text: its key (without quotes) and its value's text.
struct MemberSpan {
    std::string_view key;
    std::string_view text;
};

// Splits `s`, one JSON object, into its members; false when `s` is not an object this scanner
// can vouch for: not an object, unbalanced brackets, an unterminated string, anything after the
// closing brace, a key with an escape, a key that appears twice. The caller then parses the
// whole text, which reports what is wrong (or gives what a whole parse gives). Member values are
// only delimited here (a control character in a string, for one, is not looked for); each is
// parsed in full when read, so a malformed value is reported when a plugin reads it.
class MemberScanner {
public:
    explicit MemberScanner(std::string_view s) : s_(s) {}

    bool scan(std::vector<MemberSpan>& out) {
        out.clear();
        skipSpace();
        if (!take('{')) return false;
        skipSpace();
        if (take('}')) return atEnd();
        for (;;) {
            MemberSpan m;
            if (!key(m.key)) return false;
            for (auto const& seen : out)
                if (seen.key == m.key) return false;
            skipSpace();
            if (!take(':')) return false;
            skipSpace();
            const std::size_t begin = i_;
            if (!value()) return false;
            m.text = s_.substr(begin, i_ - begin);
            out.push_back(m);
            skipSpace();
            if (take('}')) return atEnd();
            if (!take(',')) return false;
            skipSpace();
        }
    }

private:
    bool atEnd() {
        skipSpace();
        return i_ == s_.size();
    }
    void skipSpace() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
    }
    bool take(char c) {
        if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
        return false;
    }
    // A key without escapes; the view excludes the quotes.
    bool key(std::string_view& k) {
        if (!take('"')) return false;
        const std::size_t begin = i_;
        while (i_ < s_.size()) {
            const unsigned char c = static_cast<unsigned char>(s_[i_]);
            if (c == '"') {
                k = s_.substr(begin, i_ - begin);
                return ++i_, true;
            }
            if (c == '\\' || c < 0x20) return false;
            ++i_;
        }
        return false;
    }
    // At an opening quote: past the closing one (memchr to each quote; an escaped quote is one
    // after an odd run of backslashes).
    bool string() {
        std::size_t from = i_ + 1;
        for (;;) {
            const void* q = from < s_.size() ? std::memchr(s_.data() + from, '"', s_.size() - from) : nullptr;
            if (!q) return false;
            const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(q) - s_.data());
            std::size_t slashes = 0;
            while (at - slashes > i_ + 1 && s_[at - slashes - 1] == '\\') ++slashes;
            if (slashes % 2 == 0) {
                i_ = at + 1;
                return true;
            }
            from = at + 1;
        }
    }
    // One value: a string, a bracketed run (brackets matched, strings skipped) or a scalar token.
    bool value() {
        if (i_ >= s_.size()) return false;
        const char c = s_[i_];
        if (c == '"') return string();
        if (c != '{' && c != '[') return scalar();
        closers_.clear();
        const std::size_t n = s_.size();
        const char* d = s_.data();
        while (i_ < n) {
            while (i_ < n && !kStructural[static_cast<unsigned char>(d[i_])]) ++i_;
            if (i_ == n) break;
            const char x = d[i_];
            if (x == '"') {
                if (!string()) return false;
                continue;
            }
            if (x == '{' || x == '[') closers_.push_back(x == '{' ? '}' : ']');
            else {
                if (closers_.empty() || closers_.back() != x) return false;
                closers_.pop_back();
                if (closers_.empty()) return ++i_, true;
            }
            ++i_;
        }
        return false;
    }
    // The bytes value() stops at inside brackets: quotes and brackets.
    static constexpr auto kStructural = [] {
        std::array<bool, 256> t{};
        for (unsigned char c : {'"', '{', '}', '[', ']'}) t[c] = true;
        return t;
    }();
    bool scalar() {
        const std::size_t begin = i_;
        while (i_ < s_.size()) {
            const char c = s_[i_];
            if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') break;
            if (c == '"' || c == '{' || c == '[' || c == ':') return false;
            ++i_;
        }
        return i_ > begin;
    }

    std::string_view s_;
    std::size_t i_ = 0;
    std::string closers_;
};

// Bytes a plain member name does not hold (a JSON string escapes them).
inline constexpr auto kNotInPlainKey = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 0x20; ++c) t[c] = true;
    t['"'] = t['\\'] = true;
    return t;
}();

// The host's index of `input` (n members from trn_host_api.input_members) as MemberSpans; false
// when it is not one this SDK can use, and the caller scans the input instead: a member outside
// the input, out of order or overlapping another, a name that is not the plain text between two
// quotes (none escaped), a name given twice, an empty value, an input that is not braces
// around its members. The host wrote the input and vouches for its syntax: member values are
// not checked here, but parsed in full when read, as the scanner's are.
inline bool acceptHostIndex(std::string_view input, const trn_member* m, std::size_t n, std::vector<MemberSpan>& out) {
    out.clear();
    if (!m || n == 0) return false;
    const char* const begin = input.data();
    const char* const end = begin + input.size();
    auto inside = [&](trn_str x) { return x.data && x.data >= begin && x.size <= static_cast<std::size_t>(end - x.data); };
    std::size_t open = 0, close = input.size();
    while (open < close && (input[open] == ' ' || input[open] == '\n' || input[open] == '\r' || input[open] == '\t')) ++open;
    while (close > open && (input[close - 1] == ' ' || input[close - 1] == '\n' || input[close - 1] == '\r' ||
                            input[close - 1] == '\t'))
        --close;
    if (close - open < 2 || input[open] != '{' || input[close - 1] != '}') return false;
    const char* after = begin + open + 1;  // where the next member may begin
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const trn_str k = m[i].key, v = m[i].value;
        if (!inside(k) || !inside(v) || v.size == 0 || k.data <= after || k.data + k.size >= end) return false;
        if (k.data[-1] != '"' || k.data[k.size] != '"' || v.data <= k.data + k.size || v.data + v.size > begin + close - 1)
            return false;
        const std::string_view key(k.data, k.size);
        for (unsigned char c : key)
            if (kNotInPlainKey[c]) return false;
        for (auto const& seen : out)
            if (seen.key == key) return false;
        out.push_back({key, std::string_view(v.data, v.size)});
        after = v.data + v.size;
    }
    return true;
}

// The last parsed tree of each member key, with the text it was parsed from; one per plugin
// instance, shared by the threads that call its hooks. A lookup that finds the lock taken
// parses without the memo rather than wait. Bounded: at most kKeys keys, and a text longer
// than kMaxText is parsed every time.
class MemberMemo {
public:
    static constexpr std::size_t kKeys = 32;
    static constexpr std::size_t kMaxText = 256 * 1024;

    // The tree of `text` (read-only, shared), or null with `ec` set when it is not JSON.
    std::shared_ptr<const boost::json::value> parse(std::string_view key, std::string_view text,
                                                    boost::json::error_code& ec) {
        if (text.size() <= kMaxText) {
            std::unique_lock lock(mu_, std::try_to_lock);
            if (lock)
                if (const Entry* e = find(key); e && e->text == text) return e->value;
        }
        auto v = std::make_shared<const boost::json::value>(boost::json::parse(text, ec));
        if (ec) return nullptr;
        if (text.size() <= kMaxText) {
            std::unique_lock lock(mu_, std::try_to_lock);
            if (lock) remember(key, text, v);
        }
        return v;
    }

    // Splits `text`, one JSON object, into `out` as MemberScanner does (false when it refuses),
    // remembering the last split under `key`: a text that arrives again is not scanned again.
    bool split(std::string_view key, std::string_view text, std::vector<MemberSpan>& out) {
        if (text.size() <= kMaxText) {
            std::unique_lock lock(mu_, std::try_to_lock);
            if (lock)
                if (const Split* e = findSplit(key); e && e->text == text) {
                    out.clear();
                    for (auto const& m : e->members)
                        out.push_back({text.substr(m.keyAt, m.keySize), text.substr(m.valueAt, m.valueSize)});
                    return e->ok;
                }
        }
        const bool ok = MemberScanner(text).scan(out);
        if (text.size() <= kMaxText) {
            std::unique_lock lock(mu_, std::try_to_lock);
            if (lock) rememberSplit(key, text, ok, out);
        }
        return ok;
    }

private:
    struct Entry {
        std::string key;
        std::string text;
        std::shared_ptr<const boost::json::value> value;
    };
    struct Split {
        struct Place {
            std::size_t keyAt, keySize, valueAt, valueSize;
        };
        std::string key;
        std::string text;
        bool ok = false;
        std::vector<Place> members;  // offsets into text
    };
    // The entry of `key` in `v`; with `add`, a new one when there is none and fewer than kKeys
    // are held; else null.
    template <class E>
    static E* slot(std::vector<E>& v, std::string_view key, bool add) {
        for (auto& e : v)
            if (e.key == key) return &e;
        if (!add || v.size() >= kKeys) return nullptr;
        E& e = v.emplace_back();
        e.key = key;
        return &e;
    }
    Split* findSplit(std::string_view key) { return slot(splits_, key, false); }
    void rememberSplit(std::string_view key, std::string_view text, bool ok, const std::vector<MemberSpan>& members) {
        Split* e = slot(splits_, key, true);
        if (!e) return;
        e->text.assign(text);
        e->ok = ok;
        e->members.clear();
        if (!ok) return;
        for (auto const& m : members)
            e->members.push_back({static_cast<std::size_t>(m.key.data() - text.data()), m.key.size(),
                                  static_cast<std::size_t>(m.text.data() - text.data()), m.text.size()});
    }
    Entry* find(std::string_view key) { return slot(entries_, key, false); }
    void remember(std::string_view key, std::string_view text, std::shared_ptr<const boost::json::value> v) {
        Entry* e = slot(entries_, key, true);
        if (!e) return;
        e->text.assign(text);
        e->value = std::move(v);
    }

    std::mutex mu_;
    std::vector<Entry> entries_;
    std::vector<Split> splits_;
};

}  // namespace trainer::sdk::detail
