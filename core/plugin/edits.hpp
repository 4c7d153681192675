// Applies plugin edit operations to the Info document (sdk/docs/info.md "Edits") and
// detects write conflicts between plugins (ABI rule 12): no last-write-wins, ever.
#pragma once

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace trainer::core {

namespace json = boost::json;

// The key of a keyed list by the list's member name ("env" -> "name"), or nullptr.
const char* listKey(std::string_view listName);

// Splits and unescapes a JSON Pointer; false when malformed.
bool splitPointer(std::string_view path, std::vector<std::string>& out);

// Who owns each env:NAME / volume:NAME claim (or a prefix pattern, env:PET_*): what a ledger
// checks writes against. The same for every build of a Framework, so made once and shared.
struct EditClaims {
    void add(const std::string& claim, const std::string& plugin) {
        if (claim.ends_with('*')) prefix.emplace_back(claim, plugin);
        else exact[claim] = plugin;
    }
    std::map<std::string, std::string> exact;                   // looked up
    std::vector<std::pair<std::string, std::string>> prefix;    // "env:PET_*" -> owner, scanned
};

class EditLedger {
public:
    EditLedger() : claims_(std::make_shared<const EditClaims>()) {}
    explicit EditLedger(std::shared_ptr<const EditClaims> claims) : claims_(std::move(claims)) {}

    // Adds a claim to this ledger's own copy of its claims (the SDK testing library's Ledger).
    void addClaim(const std::string& claim, const std::string& plugin) {
        auto mine = std::make_shared<EditClaims>(*claims_);
        mine->add(claim, plugin);
        claims_ = std::move(mine);
    }

    // Applies one edit document emitted by `plugin` to `info`. Returns "" on success, else a
    // sentence naming the plugin(s) and the path. `touched`, when given, receives the top-level
    // member the edit may have changed (the path's first segment); it is left as it is when the
    // edit is refused before it reaches the document, or is a remove under an absent parent.
    std::string apply(json::object& info, const std::string& plugin, std::string_view editJson,
                      std::string* touched = nullptr);

private:
    struct Write {
        std::string plugin;
        std::vector<std::string> path;
        json::value value;
    };
    std::string checkClaims(const std::string& plugin, const std::vector<std::string>& path) const;
    std::string conflictAfter(const json::value& root, const std::string& plugin, const std::vector<std::string>& path) const;
    std::shared_ptr<const EditClaims> claims_;
    std::vector<Write> writes_;
};

// The value at a keyed pointer, or nullptr.
const json::value* resolve(const json::value& root, const std::vector<std::string>& path);

}  // namespace trainer::core
