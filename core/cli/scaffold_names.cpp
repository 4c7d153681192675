// The plugin name rule of `new-plugin` and the identifiers derived from a name.
#include "core/cli/scaffold.hpp"

#include <array>
#include <cctype>
#include <regex>
#include <utility>

namespace trainer::core::cli::scaffold {

std::optional<std::string> nameProblem(std::string_view name) {
    static const std::regex rule("[a-z][a-z0-9]*(-[a-z0-9]+)*");
    if (name.empty()) return "must not be empty";
    if (name.size() > kMaxNameLength)
        return "is " + std::to_string(name.size()) + " characters long; at most " + std::to_string(kMaxNameLength) +
               " are allowed";
    if (!std::regex_match(name.begin(), name.end(), rule))
        return "must be lowercase letters and digits, starting with a letter, words separated by single '-' "
               "(like my-policy)";
    return std::nullopt;
}

Names namesOf(std::string_view name) {
    Names n{std::string(name), "", "", ""};
    bool wordStart = true;
    for (char c : name) {
        if (c == '-') {
            n.ident += '_';
            n.envPrefix += '_';
            wordStart = true;
            continue;
        }
        auto u = static_cast<unsigned char>(c);
        n.ident += c;
        n.envPrefix += static_cast<char>(std::toupper(u));
        n.className += wordStart ? static_cast<char>(std::toupper(u)) : c;
        wordStart = false;
    }
    return n;
}

std::string substitute(std::string_view text, const Names& names) {
    const std::array<std::pair<std::string_view, const std::string*>, 4> table{{
        {"@NAME@", &names.name},
        {"@IDENT@", &names.ident},
        {"@CLASS@", &names.className},
        {"@ENV_PREFIX@", &names.envPrefix},
    }};
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        bool replaced = false;
        for (auto const& [key, value] : table) {
            if (text.substr(i, key.size()) == key) {
                out += *value;
                i += key.size();
                replaced = true;
                break;
            }
        }
        if (!replaced) out += text[i++];
    }
    return out;
}

}  // namespace trainer::core::cli::scaffold
