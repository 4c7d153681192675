// `trainer-operator new-plugin`: the templates of a standalone plugin project (sdk/scaffold/:
// the common files and one folder per kind, embedded in the binary) and the names derived from
// the plugin's name.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::cli::scaffold {

// One file of a generated project: its path and text, both with placeholders (substitute()).
struct TemplateFile {
    std::string_view path;
    std::string_view text;
    bool executable = false;
};

// A kind of plugin `new-plugin --kind` writes: its name and its files.
struct Kind {
    std::string_view name;     // "ml-policy"
    std::string_view summary;  // one line for --help and the printout
    std::span<const TemplateFile> files;
    std::span<const std::string_view> claims;  // the generated plugin's claims (placeholders)
};

// Every kind, in the order --help lists them (scaffold_kinds.cpp).
std::span<const Kind> kinds();
const Kind* findKind(std::string_view name);

// The template files of one folder of sdk/scaffold/: "common" (every project) or a kind's
// name; empty for an unknown folder. Embedded at build time (cmake/EmbedScaffold.cmake).
std::span<const TemplateFile> templateFiles(std::string_view set);

// The names a plugin called `name` uses in its project (scaffold_names.cpp).
struct Names {
    std::string name;       // @NAME@        my-policy: the plugin, its policy key, its module
    std::string ident;      // @IDENT@       my_policy: C++ namespace, test names
    std::string className;  // @CLASS@       MyPolicy: MyPolicyPlugin
    std::string envPrefix;  // @ENV_PREFIX@  MY_POLICY: its env vars MY_POLICY_*
};

inline constexpr std::size_t kMaxNameLength = 40;

// Why `name` cannot name a plugin, or nullopt: lowercase [a-z][a-z0-9]*(-[a-z0-9]+)*, at most
// kMaxNameLength characters.
std::optional<std::string> nameProblem(std::string_view name);
// The derived names of a valid name.
Names namesOf(std::string_view name);
// `text` with @NAME@, @IDENT@, @CLASS@, @ENV_PREFIX@ replaced; other '@' left alone.
std::string substitute(std::string_view text, const Names& names);

// Why the claims `ours` (a generated plugin called `name`) conflict with a loaded plugin's
// (new_plugin_conflicts.cpp): the same plugin or policy name, the same claim, overlapping env
// claims (`env:A_*` holds every name starting with A_); nullopt when they do not.
std::optional<std::string> claimConflict(const Names& names, const std::vector<std::string>& ours,
                                         std::string_view theirName, const std::vector<std::string>& theirs);

}  // namespace trainer::core::cli::scaffold
