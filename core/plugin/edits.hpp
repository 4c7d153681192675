// Applies plugin edit operations to the Info document (sdk/docs/info.md "Edits") and
// detects write conflicts between plugins (ABI rule 12): no last-write-wins, ever.
#pragma once

#include <boost/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace trainer::core {

namespace json = boost::json;

// The key of a keyed list by the list's member name ("env" -> "name"), or nullptr.
const char* listKey(std::string_view listName);

// Splits and unescapes a JSON Pointer; false when malformed.
bool splitPointer(std::string_view path, std::vector<std::string>& out);

class EditLedger {
public:
    // Claims of every plugin: env:NAME / volume:NAME (or a prefix pattern, env:PET_*) -> owner plugin.
    // Exact names are looked up; the few prefix patterns are scanned (checkClaims).
    void addClaim(const std::string& claim, const std::string& plugin) {
        if (claim.ends_with('*')) prefixClaims_.emplace_back(claim, plugin);
        else claims_[claim] = plugin;
    }

    // Applies one edit document emitted by `plugin` to `info`. Returns "" on success, else a
    // sentence naming the plugin(s) and the path.
    std::string apply(json::object& info, const std::string& plugin, std::string_view editJson);

private:
    struct Write {
        std::string plugin;
        std::vector<std::string> path;
        json::value value;
    };
    std::string checkClaims(const std::string& plugin, const std::vector<std::string>& path) const;
    std::string conflictAfter(const json::value& root, const std::string& plugin, const std::vector<std::string>& path) const;
    std::map<std::string, std::string> claims_;                        // exact claim -> owner
    std::vector<std::pair<std::string, std::string>> prefixClaims_;     // "env:PET_*" -> owner
    std::vector<Write> writes_;
};

// The value at a keyed pointer, or nullptr.
const json::value* resolve(const json::value& root, const std::vector<std::string>& path);

}  // namespace trainer::core
