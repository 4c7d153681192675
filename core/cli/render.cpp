// render, validate and plugins: the pipeline on files (README.md "Command line").
#include "core/api/admission.hpp"
#include "core/api/schema.hpp"
#include "core/cli/cli.hpp"
#include "core/cli/command_config.hpp"
#include "core/cli/json_list_writer.hpp"
#include "core/cli/session.hpp"
#include "core/json/io.hpp"
#include "core/runtime/info_builder.hpp"

#include <algorithm>
#include <iomanip>

namespace trainer::core::cli {

namespace {

void printDiagnostics(const Diagnostics& d, std::ostream& err) {
    for (auto const& w : d.warnings) err << formatWarning(w) << "\n";
    for (auto const& e : d.errors) err << formatError(e) << "\n";
}

// The List of `items` as `render -o yaml` prints it.
std::string yamlList(std::vector<json::object> items) {
    std::sort(items.begin(), items.end(), [](auto const& a, auto const& b) { return keyOf(a) < keyOf(b); });
    json::array arr;
    for (auto& o : items) arr.push_back(std::move(o));
    json::value list = json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(arr)}};
    return toYaml(list);
}

// A Session configured from --config / --feature-gates; false after printing errors.
bool configuredSession(const Args& args, Io& io, Session& s, std::string& plugins) {
    controller::Configuration cfg;
    if (!loadCommandConfiguration(args, io, cfg)) return false;
    s.configure(cfg.plugins, operatorSettingsOf(cfg, cfg.leaderElectionResourceNamespace));
    plugins = pluginDirOf(args, cfg);
    return true;
}

}  // namespace

int cmdValidate(const Args& args, Io& io) {
    if (args.all("filename").empty()) {
        io.err << "error: at least one -f PATH is required\n";
        return 1;
    }
    Session s;
    std::string plugins;
    if (!configuredSession(args, io, s, plugins)) return 1;
    auto d = s.admitInputs(args.all("filename"), plugins);
    printDiagnostics(d, io.err);
    return d.ok() ? 0 : 1;
}

int cmdRender(const Args& args, Io& io) {
    const std::string format = args.get("output", "json");
    if (format != "json" && format != "yaml" && format != "info") {
        io.err << "error: --output: unsupported format \"" << format << "\" (json, yaml, info)\n";
        return 1;
    }
    if (args.all("filename").empty()) {
        io.err << "error: at least one -f PATH is required\n";
        return 1;
    }
    Session s;
    std::string plugins;
    if (!configuredSession(args, io, s, plugins)) return 1;
    if (format == "json") {
        // Each TrainJob built right after its admission, from the Info admission built.
        JsonListWriter list;
        auto d = s.admitAndBuild(args.all("filename"), plugins, [&](json::object&& o) { list.add(o); });
        printDiagnostics(d, io.err);
        if (!d.ok()) return 1;
        std::string error;
        if (!list.write(io.out, error)) {
            io.err << "error: " << error << "\n";
            return 1;
        }
        return 0;
    }
    auto d = s.admitInputs(args.all("filename"), plugins);
    if (!d.ok()) {
        printDiagnostics(d, io.err);
        return 1;
    }
    if (format == "info") {
        // For plugin authors: what a hook receives (sdk/docs/info.md), one document per TrainJob.
        json::array infos;
        for (auto const& tj : s.trainJobs()) {
            Diagnostics id;
            if (auto runtime = resolveRuntime(tj.object, s.cluster(), id, /*useSnapshot=*/true))
                infos.push_back(buildInfo(tj.object, *runtime, id));
            for (auto& e : id.errors)
                if (e.origin.empty()) e.origin = tj.origin;
            d.append(id);
        }
        printDiagnostics(d, io.err);
        if (!d.ok()) return 1;
        io.out << toJson(infos, true) << "\n";
        return 0;
    }
    auto built = s.buildTrainJobs();
    d.append(built.diagnostics);
    printDiagnostics(d, io.err);
    if (!d.ok()) return 1;
    io.out << yamlList(std::move(built.objects));
    return 0;
}

int cmdPlugins(const Args& args, Io& io) {
    const std::string format = args.get("output", "table");
    if (format != "json" && format != "table") {
        io.err << "error: --output: unsupported format \"" << format << "\" (table, json)\n";
        return 1;
    }
    Session s;
    std::string dir;
    if (!configuredSession(args, io, s, dir)) return 1;
    s.loadPlugins(dir);
    auto const& reg = s.registry();
    // Exit 1 when a file, the directory or a pin was rejected, so a script or an image build
    // notices; --allow-rejected keeps 0. The rejections themselves are printed first.
    auto rejectedExit = [&] {
        const size_t n = reg.rejected().size();
        if (n == 0 || args.has("allow-rejected")) return 0;
        io.err << "error: " << n << (n == 1 ? " rejection" : " rejections") << "; --allow-rejected to exit 0 anyway\n";
        return 1;
    };
    if (args.has("print-pins")) {
        for (auto const& r : reg.rejected()) io.err << "rejected: " << r.reason << "\n";
        io.out << pinsYaml(reg);
        return rejectedExit();
    }
    if (format == "json") {
        json::array plugins, rejected;
        for (auto const& p : reg.plugins()) {
            json::array eps, claims, watches;
            for (auto const& e : p->extensionPoints()) eps.push_back(json::string(e));
            for (auto const& c : p->claims) claims.push_back(json::string(c));
            for (auto const& w : p->watches) watches.push_back(json::object{{"apiVersion", w.apiVersion}, {"kind", w.kind}});
            plugins.push_back(json::object{{"name", p->name},
                                           {"version", p->version},
                                           {"abi", std::to_string(p->abi >> 16) + "." + std::to_string(p->abi & 0xffff)},
                                           {"path", p->path},
                                           {"sha256", p->sha256},
                                           {"extensionPoints", std::move(eps)},
                                           {"claims", std::move(claims)},
                                           {"watches", std::move(watches)},
                                           {"priority", p->priority},
                                           {"threadSafe", p->threadSafe},
                                           {"isolation", toString(p->isolation)},
                                           {"shipped", p->shipped},
                                           {"description", p->description}});
        }
        for (auto const& r : reg.rejected())
            rejected.push_back(json::object{{"path", r.path}, {"reason", r.reason}, {"code", r.code}});
        io.out << toJson(json::object{{"plugins", std::move(plugins)}, {"rejected", std::move(rejected)}}, true) << "\n";
        return rejectedExit();
    }
    io.out << std::left << std::setw(14) << "NAME" << std::setw(10) << "VERSION" << std::setw(6) << "ABI" << std::setw(10)
           << "PRIORITY" << std::setw(11) << "ISOLATION" << "EXTENSION POINTS\n";
    for (auto const& p : reg.plugins()) {
        std::string eps;
        for (auto const& e : p->extensionPoints()) eps += (eps.empty() ? "" : ",") + e;
        io.out << std::left << std::setw(14) << p->name << std::setw(10) << p->version << std::setw(6)
               << (std::to_string(p->abi >> 16) + "." + std::to_string(p->abi & 0xffff)) << std::setw(10) << p->priority
               << std::setw(11) << toString(p->isolation) << eps << "\n";
    }
    for (auto const& r : reg.rejected()) io.out << "rejected: " << r.reason << "\n";
    return rejectedExit();
}

}  // namespace trainer::core::cli
