#include "core/plugin/info_text.hpp"

#include <array>

namespace trainer::core {

namespace {

// Bytes json::serialize escapes in a string.
constexpr auto kEscaped = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 0x20; ++c) t[c] = true;
    t['"'] = t['\\'] = true;
    return t;
}();

// Appends json::serialize(key); true when it is the key between two quotes, nothing escaped
// (only such names are indexed: member_place.hpp).
bool appendKey(std::string& out, std::string_view key) {
    for (unsigned char c : key)
        if (kEscaped[c]) return out += json::serialize(key), false;
    out += '"';
    out += key;
    out += '"';
    return true;
}

// One serializer per thread, reused, read through a buffer on the stack.
template <class Json>
void appendAny(std::string& out, const Json& v) {
    thread_local json::serializer sr;
    sr.reset(&v);
    char buf[4096];
    while (!sr.done()) {
        const json::string_view part = sr.read(buf);
        out.append(part.data(), part.size());
    }
}

}  // namespace

void appendJson(std::string& out, const json::value& v) { appendAny(out, v); }
void appendJson(std::string& out, const json::object& o) { appendAny(out, o); }

namespace {

template <class Json>
bool appendAnyMember(std::string& out, std::string_view key, const Json& v, std::size_t& valueAt) {
    const bool plain = appendKey(out, key);
    out += ':';
    valueAt = out.size();
    appendAny(out, v);
    return plain;
}

}  // namespace

bool appendMember(std::string& out, std::string_view key, const json::value& v, std::size_t& valueAt) {
    return appendAnyMember(out, key, v, valueAt);
}
bool appendMember(std::string& out, std::string_view key, const json::object& o, std::size_t& valueAt) {
    return appendAnyMember(out, key, o, valueAt);
}

InfoText::Member& InfoText::slot(std::size_t index, std::string_view key) {
    if (index < members_.size() && members_[index].key == key) return members_[index];
    // The member moved (one before it was removed or added): find it, else a new slot here.
    for (std::size_t j = 0; j < members_.size(); ++j)
        if (members_[j].key == key) {
            Member m = std::move(members_[j]);
            members_.erase(members_.begin() + static_cast<std::ptrdiff_t>(j));
            const std::size_t at = std::min(index, members_.size());
            return *members_.insert(members_.begin() + static_cast<std::ptrdiff_t>(at), std::move(m));
        }
    const std::size_t at = std::min(index, members_.size());
    Member fresh;
    fresh.key = key;
    return *members_.insert(members_.begin() + static_cast<std::ptrdiff_t>(at), std::move(fresh));
}

const std::string& InfoText::of(const json::object& info) {
    if (textFresh_ && members_.size() == info.size()) return text_;
    text_.clear();
    places_.clear();
    text_ += '{';
    std::size_t i = 0;
    bool plainKeys = true;
    for (auto const& kv : info) {
        Member& m = slot(i, kv.key());
        if (!m.fresh) {
            m.text.clear();
            m.plainKey = appendMember(m.text, kv.key(), kv.value(), m.valueAt);
            m.fresh = true;
        }
        if (i) text_ += ',';
        const std::size_t at = text_.size();
        text_ += m.text;
        plainKeys = plainKeys && m.plainKey;
        places_.push_back({at + 1, m.key.size(), at + m.valueAt, m.text.size() - m.valueAt});
        ++i;
    }
    members_.resize(i);  // members the document no longer has
    if (!plainKeys) places_.clear();
    text_ += '}';
    textFresh_ = true;
    return text_;
}

void InfoText::touched(std::string_view member) {
    textFresh_ = false;
    for (auto& m : members_)
        if (m.key == member) m.fresh = false;
}

HookInput indexedText(const json::object& o) {
    HookInput in;
    in.text.reserve(2048);  // an Info's size: a few doublings fewer
    in.places.reserve(o.size());
    in.text += '{';
    bool plainKeys = true;
    for (auto const& kv : o) {
        if (!in.places.empty()) in.text += ',';
        const std::size_t at = in.text.size();
        std::size_t valueAt = 0;
        plainKeys = appendMember(in.text, kv.key(), kv.value(), valueAt) && plainKeys;
        in.places.push_back({at + 1, kv.key().size(), valueAt, in.text.size() - valueAt});
    }
    in.text += '}';
    if (!plainKeys) in.places.clear();
    return in;
}

}  // namespace trainer::core
