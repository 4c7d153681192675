// apply, get and delete: kubectl-like access to the embedded store (DESIGN §5).
#include "core/api/admission.hpp"
#include "core/cli/cli.hpp"
#include "core/cli/printers.hpp"
#include "core/controller/admission_control.hpp"
#include "core/json/io.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/registry.hpp"
#include "core/store/sqlite_store.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace trainer::core::cli {

namespace {

// Kinds without a namespace that the resource table does not know.
constexpr std::array<std::string_view, 7> kClusterScoped{"Namespace", "Node", "ClusterRole", "ClusterRoleBinding",
                                                        "CustomResourceDefinition", "StorageClass", "PersistentVolume"};

bool namespaced(const std::string& kind) {
    if (auto t = resourceByName(kind)) return t->namespaced;
    return std::find(kClusterScoped.begin(), kClusterScoped.end(), kind) == kClusterScoped.end();
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// "trainjob.trainer.kubeflow.org/NAME" or "configmap/NAME", as kubectl names what it applied.
std::string appliedName(const ObjectKey& k) {
    auto t = resourceByName(k.kind);
    std::string singular = t ? t->singular : lower(k.kind);
    std::string group(groupOf(k.apiVersion));
    return singular + (group.empty() ? "" : "." + group) + "/" + k.name;
}

std::unique_ptr<SqliteStore> openStore(const Args& args, Io& io) {
    auto r = SqliteStore::open(args.get("store", kDefaultStorePath));
    if (!r.store) io.err << "error: " << r.error << "\n";
    return std::move(r.store);
}

std::optional<ResourceType> resolveKind(const std::string& name, Io& io) {
    if (auto t = resourceByName(name)) return t;
    auto s = suggestResourceName(name);
    io.err << "error: the server doesn't have a resource type \"" << name << "\""
           << (s.empty() ? "" : "; did you mean \"" + s + "\"?") << "\n";
    return std::nullopt;
}

std::string notFound(const ResourceType& t, const std::string& name) {
    std::string group(groupOf(t.apiVersion));
    return "Error from server (NotFound): " + t.plural + (group.empty() ? "" : "." + group) + " \"" + name +
           "\" not found";
}

// Non-TrainJob objects first, so the controller finds runtimes before the TrainJobs using them.
bool applyOrder(const InputDocument& a, const InputDocument& b) {
    auto rank = [](const InputDocument& d) { return kindOf(d.object) == ObjectKind::TrainJob ? 1 : 0; };
    return rank(a) < rank(b);
}

}  // namespace

int cmdApply(const Args& args, Io& io) {
    if (args.all("filename").empty()) {
        io.err << "error: at least one -f PATH is required\n";
        return 1;
    }
    std::vector<InputDocument> docs;
    Diagnostics diag = readInputs(args.all("filename"), docs);
    if (!diag.ok()) {
        for (auto const& e : diag.errors) io.err << formatError(e) << "\n";
        return 1;
    }
    auto store = openStore(args, io);
    if (!store) return 1;
    PluginRegistry registry;
    registry.loadDirectory(pluginDir(args));
    Framework framework(registry);
    for (auto const& r : registry.rejected()) io.err << "warning: " << r.reason << "\n";

    ObjectSet inputs;
    for (auto& d : docs) {
        auto* md = d.object.if_contains("metadata");
        if (md && md->is_object()) {
            auto& m = md->get_object();
            auto kind = keyOf(d.object).kind;
            if (namespaced(kind) && (!m.contains("namespace") || m.at("namespace") == "")) m["namespace"] = "default";
            if (!namespaced(kind)) m.erase("namespace");
        }
        inputs.put(d.object);
    }
    controller::OverlayReader cluster(inputs, *store);
    auto now = std::chrono::system_clock::now();
    for (auto& d : docs) {
        auto key = keyOf(d.object);
        std::string origin = d.origin + ": " + key.display();
        Diagnostics od;
        if (key.apiVersion.empty() || key.kind.empty() || key.name.empty()) {
            od.add(key.name.empty() ? "metadata.name" : key.apiVersion.empty() ? "apiVersion" : "kind", "Required value",
                   ErrorType::Required);
        } else {
            auto old = store->get(key);
            od = controller::admitObject(framework, d.object, old ? &*old : nullptr, cluster, now);
        }
        for (auto& e : od.errors) e.origin = origin;
        for (auto& w : od.warnings) w.origin = origin;
        diag.append(od);
    }
    for (auto const& w : diag.warnings) io.err << formatWarning(w) << "\n";
    if (!diag.ok()) {
        for (auto const& e : diag.errors) io.err << formatError(e) << "\n";
        return 1;
    }
    std::stable_sort(docs.begin(), docs.end(), applyOrder);
    int rc = 0;
    for (auto const& d : docs) {
        auto r = store->apply(d.object, "kubectl");
        if (!r.ok()) {
            io.err << "error: " << d.origin << ": " << r.message << "\n";
            rc = 1;
            continue;
        }
        io.out << appliedName(keyOf(d.object)) << " " << toString(r.outcome) << "\n";
    }
    return rc;
}

int cmdGet(const Args& args, Io& io) {
    auto type = resolveKind(args.positional.at(0), io);
    if (!type) return 1;
    const std::string format = args.get("output", "");
    if (format != "" && format != "json" && format != "yaml" && format != "wide") {
        io.err << "error: --output: unsupported format \"" << format << "\" (json, yaml, wide)\n";
        return 1;
    }
    auto store = openStore(args, io);
    if (!store) return 1;
    const bool all = args.has("all-namespaces");
    const std::string ns = type->namespaced ? args.get("namespace", "default") : "";
    auto now = std::chrono::system_clock::now();
    auto print = [&](const json::value& v) {
        if (format == "json") io.out << toJson(v, true) << "\n";
        else io.out << toYaml(v);
    };
    if (args.positional.size() > 1) {
        const std::string& name = args.positional[1];
        auto obj = store->get(ObjectKey{type->apiVersion, type->kind, ns, name});
        if (!obj) {
            io.err << notFound(*type, name) << "\n";
            return 1;
        }
        if (format == "json" || format == "yaml") print(*obj);
        else io.out << printTable({*obj}, type->kind, format == "wide", now);
        return 0;
    }
    auto items = store->list(type->apiVersion, type->kind,
                             all || !type->namespaced ? std::nullopt : std::optional<std::string>(ns));
    if (format == "json" || format == "yaml") {
        json::array arr(items.begin(), items.end());
        print(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(arr)}});
        return 0;
    }
    if (items.empty()) {
        io.err << (type->namespaced && !all ? "No resources found in " + ns + " namespace." : "No resources found")
               << "\n";
        return 0;
    }
    io.out << printTable(items, type->kind, format == "wide", now);
    return 0;
}

int cmdDelete(const Args& args, Io& io) {
    auto type = resolveKind(args.positional.at(0), io);
    if (!type) return 1;
    auto store = openStore(args, io);
    if (!store) return 1;
    const std::string& name = args.positional.at(1);
    const std::string ns = type->namespaced ? args.get("namespace", "default") : "";
    auto r = store->remove(ObjectKey{type->apiVersion, type->kind, ns, name});
    if (r.status == StoreStatus::NotFound) {
        io.err << notFound(*type, name) << "\n";
        return 1;
    }
    if (!r.ok()) {
        io.err << "error: " << r.message << "\n";
        return 1;
    }
    std::string group(groupOf(type->apiVersion));
    io.out << type->singular << (group.empty() ? "" : "." + group) << " \"" << name << "\" deleted\n";
    return 0;
}

}  // namespace trainer::core::cli
