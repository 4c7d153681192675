// FieldsV1 reading and writing; the contract is in smd_fields_v1.hpp.
#include "core/apiserver/smd_fields_v1.hpp"

#include "core/apiserver/field_manager_go_text.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace trainer::core::apiserver::smd {

namespace {

std::string peSerialize(const PathElement& pe) {
    switch (pe.type) {
        case PathElement::Field: return "f:" + pe.name;
        case PathElement::Key: {
            std::string out;
            for (auto const& [k, v] : pe.key) out += (out.empty() ? "" : ",") + goJsonString(k) + ":" + goJson(v);
            return "k:{" + out + "}";
        }
        case PathElement::Value: return "v:" + goJson(pe.value);
        case PathElement::Index: return "i:" + std::to_string(pe.index);
    }
    return "";
}

enum class PeParse { Ok, Unknown, Error };

PeParse peDeserialize(std::string_view s, PathElement& pe, std::string& error) {
    if (s.size() < 2) return error = "key must be 2 characters long:", PeParse::Error;
    if (s[1] != ':') return error = "missing colon: " + std::string(s), PeParse::Error;
    std::string_view body = s.substr(2);
    boost::system::error_code ec;
    switch (s[0]) {
        case 'f': pe.type = PathElement::Field, pe.name = std::string(body); return PeParse::Ok;
        case 'i': pe.type = PathElement::Index, pe.index = std::atoll(std::string(body).c_str()); return PeParse::Ok;
        case 'v':
            pe.type = PathElement::Value, pe.value = json::parse(body, ec);
            return ec ? (error = ec.message(), PeParse::Error) : PeParse::Ok;
        case 'k': {
            json::value v = json::parse(body, ec);
            if (ec || !v.is_object()) return error = ec ? ec.message() : "expected an object", PeParse::Error;
            pe.type = PathElement::Key;
            for (auto const& kv : v.get_object()) pe.key.emplace_back(std::string(kv.key()), kv.value());
            std::stable_sort(pe.key.begin(), pe.key.end(), [](auto& a, auto& b) { return a.first < b.first; });
            return PeParse::Ok;
        }
        default: return PeParse::Unknown;  // a future element type: dropped, as upstream does
    }
}

// readIterV1: returns whether the node is itself a member; fills `children` with its sub-fields.
bool readFields(const json::object& node, FieldSet& children, std::string& error) {
    bool isMember = node.empty();
    for (auto const& kv : node) {
        if (kv.key() == ".") {
            isMember = true;
            continue;
        }
        PathElement pe;
        auto parsed = peDeserialize(kv.key(), pe, error);
        if (parsed == PeParse::Error) return false;
        if (parsed == PeParse::Unknown) continue;
        if (!kv.value().is_object()) return error = "expected an object for " + std::string(kv.key()), false;
        FieldSet grandchildren;
        bool childIsMember = readFields(kv.value().get_object(), grandchildren, error);
        if (!error.empty()) return false;
        if (childIsMember) children.members.insert(pe);
        if (!grandchildren.children.empty() || !grandchildren.members.empty())
            children.children[pe] = unite(children.children[pe], grandchildren);
    }
    return isMember;
}

}  // namespace

std::optional<FieldSet> fieldsToSet(const json::value& fields, std::string& error) {
    if (!fields.is_object()) return error = "expected an object", std::nullopt;
    FieldSet s;
    readFields(fields.get_object(), s, error);
    if (!error.empty()) return std::nullopt;
    return s;
}

json::object setToFields(const FieldSet& s, bool includeSelf) {
    json::object out;
    if (includeSelf && !s.empty()) out["."] = json::object();
    auto m = s.members.begin();
    auto c = s.children.begin();
    while (m != s.members.end() || c != s.children.end()) {
        int order = m == s.members.end() ? 1 : c == s.children.end() ? -1 : peCompare(*m, c->first);
        if (order < 0) out[peSerialize(*m++)] = json::object();
        else {
            out[peSerialize(c->first)] = setToFields(c->second, order == 0);
            if (order == 0) ++m;
            ++c;
        }
    }
    return out;
}

}  // namespace trainer::core::apiserver::smd
