#include "core/executor/var_expansion.hpp"

namespace trainer::core::executor {

std::string expandVars(std::string_view in, const VarLookup& lookup) {
    std::string out;
    out.reserve(in.size());
    size_t i = 0;
    while (i < in.size()) {
        if (in[i] != '$' || i + 1 == in.size()) {
            out += in[i++];
            continue;
        }
        char next = in[i + 1];
        if (next == '$') {  // escaped operator
            out += '$';
            i += 2;
            continue;
        }
        if (next != '(') {  // not an expression: keep the operator, rescan from the next byte
            out += '$';
            ++i;
            continue;
        }
        size_t close = in.find(')', i + 2);
        if (close == std::string_view::npos) {  // incomplete: keep "$(" and rescan after it
            out += "$(";
            i += 2;
            continue;
        }
        std::string_view name = in.substr(i + 2, close - i - 2);
        if (auto value = lookup(name)) out += *value;
        else out.append(in.substr(i, close - i + 1));
        i = close + 1;
    }
    return out;
}

}  // namespace trainer::core::executor
