#include "core/json/same_in_order.hpp"

#include <utility>
#include <vector>

namespace trainer::core {

namespace {

using Pairs = std::vector<std::pair<const json::value*, const json::value*>>;

// Same keys in the same order: their values go on `todo`.
bool sameMembers(const json::object& x, const json::object& y, Pairs& todo) {
    if (x.size() != y.size()) return false;
    for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (i->key() != j->key()) return false;
        todo.emplace_back(&i->value(), &j->value());
    }
    return true;
}

// Compares one pair; their children go on `todo` when both are containers of the same size.
bool shallowSame(const json::value& a, const json::value& b, Pairs& todo) {
    if (a.kind() != b.kind()) return false;
    if (a.is_object()) return sameMembers(a.get_object(), b.get_object(), todo);
    if (a.is_array()) {
        const auto& x = a.get_array();
        const auto& y = b.get_array();
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i) todo.emplace_back(&x[i], &y[i]);
        return true;
    }
    return a == b;  // same kind: string, number, bool or null
}

bool drain(Pairs& todo) {
    while (!todo.empty()) {
        auto [x, y] = todo.back();
        todo.pop_back();
        if (!shallowSame(*x, *y, todo)) return false;
    }
    return true;
}

}  // namespace

bool sameInOrder(const json::value& a, const json::value& b) {
    Pairs todo{{&a, &b}};
    return drain(todo);
}

bool sameInOrder(const json::object& a, const json::object& b) {
    Pairs todo;
    return sameMembers(a, b, todo) && drain(todo);
}

}  // namespace trainer::core
