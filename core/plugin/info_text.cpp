#include "core/plugin/info_text.hpp"

namespace trainer::core {

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
    text_ += '{';
    std::size_t i = 0;
    for (auto const& kv : info) {
        Member& m = slot(i, kv.key());
        if (!m.fresh) {
            m.text = json::serialize(kv.key());
            m.text += ':';
            m.text += json::serialize(kv.value());
            m.fresh = true;
        }
        if (i) text_ += ',';
        text_ += m.text;
        ++i;
    }
    members_.resize(i);  // members the document no longer has
    text_ += '}';
    textFresh_ = true;
    return text_;
}

void InfoText::touched(std::string_view member) {
    textFresh_ = false;
    for (auto& m : members_)
        if (m.key == member) m.fresh = false;
}

}  // namespace trainer::core
