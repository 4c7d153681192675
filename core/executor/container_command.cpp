// resolveCommand (declared in env_resolver.hpp).
#include "core/executor/env_resolver.hpp"

#include "core/executor/spec_fields.hpp"
#include "core/executor/var_expansion.hpp"

#include <map>

namespace trainer::core::executor {

namespace {

// The strings of container.<key>, appended to `out` expanded; false with `error` on a bad shape.
bool appendExpanded(const FieldReader& c, std::string_view key, const VarLookup& lookup, std::vector<std::string>& out) {
    const json::array* items = c.array(key);
    for (size_t i = 0; items && i < items->size() && c.ok(); ++i) {
        if (!(*items)[i].is_string()) c.fail(invalidValue(indexPath(c.path(key), i), (*items)[i], "must be a string"));
        else out.push_back(expandVars((*items)[i].as_string(), lookup));
    }
    return c.ok();
}

}  // namespace

ResolvedCommand resolveCommand(const json::object& container, const std::vector<EnvVar>& env,
                               std::string_view containerPath) {
    std::map<std::string, std::string, std::less<>> vars;
    for (auto const& v : env) vars[v.name] = v.value;
    VarLookup lookup = [&](std::string_view n) -> std::optional<std::string> {
        auto it = vars.find(n);
        return it == vars.end() ? std::nullopt : std::optional(it->second);
    };
    std::string error;
    std::string name;
    if (const json::value* n = container.if_contains("name"); n && n->is_string()) name = n->as_string();
    FieldReader c(container, containerPath.empty() ? "container \"" + name + "\"" : std::string(containerPath), error);
    ResolvedCommand out;
    bool hasCommand = c.array("command") && !c.array("command")->empty();
    if (!appendExpanded(c, "command", lookup, out.argv) || !appendExpanded(c, "args", lookup, out.argv)) {
        out.argv.clear();
        out.problem = configProblem(error);
        return out;
    }
    if (!hasCommand) {
        std::string image = c.string("image").value_or("");
        out.argv.clear();
        out.problem = StartProblem{std::string(kStartError),
                                   "container \"" + name + "\" has no command: the local executor runs the host's "
                                   "programs and cannot use the image's entrypoint (image " +
                                       (image.empty() ? std::string("not set") : image) + ")"};
    }
    return out;
}

}  // namespace trainer::core::executor
