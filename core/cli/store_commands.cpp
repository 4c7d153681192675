// apply, get and delete: kubectl-like access to the embedded store (README.md "Command line").
#include "core/api/admission.hpp"
#include "core/cli/cli.hpp"
#include "core/apiserver/printers.hpp"
#include "core/api/overlay_reader.hpp"
#include "core/controller/admission_control.hpp"
#include "core/cli/input_checks.hpp"
#include "core/json/io.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/log_sink.hpp"
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

// "JobSet" -> "jobsets", "Ingress" -> "ingresses", "Policy" -> "policies" (kubectl's rule).
std::string pluralOf(const std::string& kind) {
    std::string k = lower(kind);
    if (k.empty()) return k;
    if (k.back() == 's' || k.back() == 'x' || (k.size() > 1 && (k.ends_with("ch") || k.ends_with("sh")))) return k + "es";
    if (k.back() == 'y' && k.size() > 1 && std::string_view("aeiou").find(k[k.size() - 2]) == std::string_view::npos)
        return k.substr(0, k.size() - 1) + "ies";
    return k + "s";
}

// Discovery, as kubectl asks the API server: the built-in resource table, the kinds the loaded
// plugins build or watch (their `kind:` claims and watches: how JobSets and PodGroups become
// known, core names none), and every other kind the store holds.
// A store that cannot be listed is the error (`error` set), not "no other kinds".
std::vector<ResourceType> discover(const Store& store, const std::string& pluginDirectory, std::string& error) {
    std::vector<ResourceType> types = resourceTypes();
    auto add = [&](const std::string& apiVersion, const std::string& kind, bool isNamespaced) {
        bool known = std::any_of(types.begin(), types.end(),
                                 [&](auto const& t) { return t.kind == kind && t.apiVersion == apiVersion; });
        if (!known && !kind.empty()) types.push_back(ResourceType{pluralOf(kind), lower(kind), kind, apiVersion, isNamespaced, {}});
    };
    PluginRegistry registry;
    registry.loadDirectory(pluginDirectory);
    for (auto const& [apiVersion, kind] : registry.pluginKinds()) add(apiVersion, kind, true);
    auto all = store.listAll();
    if (!all.ok()) {
        error = *all.error;
        return {};
    }
    for (auto const& o : all.value) {
        auto k = keyOf(o);
        add(k.apiVersion, k.kind, !k.ns.empty());
    }
    return types;
}

// Every resource type `name` means (several when a kind name exists in two groups, such as
// podgroups); empty, with an error and a suggestion, when none.
std::vector<ResourceType> resolveKind(const std::string& name, const Store& store, const std::string& pluginDirectory,
                                      Io& io) {
    std::vector<ResourceType> out;
    std::string n = lower(name);
    std::vector<std::string> all;
    std::string error;
    auto types = discover(store, pluginDirectory, error);
    if (!error.empty()) {
        io.err << "error: reading the store: " << error << "\n";
        return out;
    }
    for (auto const& t : types) {
        std::string group(groupOf(t.apiVersion));
        std::vector<std::string> names{t.plural, t.singular, lower(t.kind)};
        names.insert(names.end(), t.shortNames.begin(), t.shortNames.end());
        for (auto const& c : names) {
            all.push_back(c);
            if (n == c || (!group.empty() && n == c + "." + group)) {
                out.push_back(t);
                break;
            }
        }
    }
    if (out.empty()) {
        auto s = suggest(n, all);
        io.err << "error: the server doesn't have a resource type \"" << name << "\""
               << (s.empty() ? "" : "; did you mean \"" + s + "\"?") << "\n";
    }
    return out;
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

// Namespaced kinds get "default" when they name none; cluster-scoped kinds lose any namespace.
// The inputs, so defaulted, are what admission sees besides the store.
ObjectSet defaultNamespaces(std::vector<InputDocument>& docs) {
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
    return inputs;
}

// Admission of every document against what it replaces in the store (which may default or stamp
// fields of the document, as the mutating webhook does), its findings named by origin.
Diagnostics admitAll(std::vector<InputDocument>& docs, const Framework& framework, const SqliteStore& store,
                     const ClusterReader& cluster) {
    Diagnostics diag;
    auto now = std::chrono::system_clock::now();
    for (auto& d : docs) {
        auto key = keyOf(d.object);
        std::string origin = d.origin + ": " + key.display();
        Diagnostics od;
        if (key.apiVersion.empty() || key.kind.empty() || key.name.empty()) {
            od.add(key.name.empty() ? "metadata.name" : key.apiVersion.empty() ? "apiVersion" : "kind", "Required value",
                   ErrorType::Required);
        } else {
            auto old = store.get(key);
            if (old.failed()) od.add("", readFailureMessage(key, old.message), ErrorType::Internal);
            else od = controller::admitObject(framework, d.object, old.found() ? &old.object : nullptr, cluster, now);
        }
        for (auto& e : od.errors) e.origin = origin;
        for (auto& w : od.warnings) w.origin = origin;
        diag.append(od);
    }
    return diag;
}

// Writes the documents (runtimes before TrainJobs), one line each as kubectl prints; 1 when any failed.
int applyAll(std::vector<InputDocument>& docs, SqliteStore& store, Io& io) {
    std::stable_sort(docs.begin(), docs.end(), applyOrder);
    int rc = 0;
    for (auto const& d : docs) {
        auto r = store.apply(d.object, "kubectl");
        if (!r.ok()) {
            io.err << "error: " << d.origin << ": " << r.message << "\n";
            rc = 1;
            continue;
        }
        io.out << appliedName(keyOf(d.object)) << " " << toString(r.outcome) << "\n";
    }
    return rc;
}

// How `get` prints what it found: -o json|yaml|wide|name, or a table.
struct GetPrinter {
    std::string format;
    std::chrono::system_clock::time_point now;
    Io& io;
    bool whole() const { return format == "json" || format == "yaml"; }
    void document(const json::value& v) const {
        if (format == "json") io.out << toJson(v, true) << "\n";
        else io.out << toYaml(v);
    }
};

// `get KIND NAME`: the first of the kind's types holding NAME.
int getOne(const Args& args, const std::vector<ResourceType>& types, const SqliteStore& store, const GetPrinter& p) {
    const std::string& name = args.positional[1];
    for (auto const& type : types) {
        const std::string ns = type.namespaced ? args.get("namespace", "default") : "";
        ObjectKey key{type.apiVersion, type.kind, ns, name};
        auto obj = store.get(key);
        if (obj.failed()) {  // not "not found": it may exist
            p.io.err << "error: " << readFailureMessage(key, obj.message) << "\n";
            return 1;
        }
        if (obj.notFound()) continue;
        if (p.format == "name") p.io.out << appliedName(keyOf(obj.object)) << "\n";
        else if (p.whole()) p.document(obj.object);
        else p.io.out << printTable({obj.object}, type.kind, p.format == "wide", p.now);
        return 0;
    }
    p.io.err << notFound(types.front(), name) << "\n";
    return 1;
}

// `get KIND`: every object of the kind's types, in the namespace or (-A) all of them.
int getList(const Args& args, const std::vector<ResourceType>& types, const SqliteStore& store, const GetPrinter& p) {
    const bool all = args.has("all-namespaces");
    std::vector<json::object> everything;
    bool printed = false;
    for (auto const& type : types) {
        const std::string ns = type.namespaced ? args.get("namespace", "default") : "";
        auto listed = store.list(type.apiVersion, type.kind, all || !type.namespaced ? std::nullopt : std::optional<std::string>(ns));
        if (!listed.ok()) {
            p.io.err << "error: listing " << type.plural << ": " << *listed.error << "\n";
            return 1;
        }
        auto& items = listed.value;
        if (p.whole()) {
            everything.insert(everything.end(), items.begin(), items.end());
        } else if (p.format == "name") {
            for (auto const& o : items) p.io.out << appliedName(keyOf(o)) << "\n";
            printed = printed || !items.empty();
        } else if (!items.empty()) {
            if (printed) p.io.out << "\n";
            p.io.out << printTable(items, type.kind, p.format == "wide", p.now);
            printed = true;
        }
    }
    if (p.whole()) {
        json::array arr(everything.begin(), everything.end());
        p.document(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(arr)}});
        return 0;
    }
    if (!printed) {
        const std::string ns = args.get("namespace", "default");
        p.io.err << (types.front().namespaced && !all ? "No resources found in " + ns + " namespace." : "No resources found")
                 << "\n";
    }
    return 0;
}

}  // namespace

int cmdApply(const Args& args, Io& io) {
    if (args.all("filename").empty()) {
        io.err << "error: at least one -f PATH is required\n";
        return 1;
    }
    std::vector<InputDocument> docs;
    Diagnostics diag = readInputs(args.all("filename"), docs);
    if (diag.ok()) diag.append(checkInputSet(docs));
    if (!diag.ok()) {
        for (auto const& e : diag.errors) io.err << formatError(e) << "\n";
        return 1;
    }
    auto store = openStore(args, io);
    if (!store) return 1;
    PluginRegistry registry;
    registry.setLogSink(loggerSink(log::Logger("plugin")));
    registry.loadDirectory(pluginDir(args));
    Framework framework(registry);
    for (auto const& r : registry.rejected()) io.err << "warning: " << r.reason << "\n";

    ObjectSet inputs = defaultNamespaces(docs);
    OverlayReader cluster(inputs, *store);
    diag.append(admitAll(docs, framework, *store, cluster));
    for (auto const& w : diag.warnings) io.err << formatWarning(w) << "\n";
    if (!diag.ok()) {
        for (auto const& e : diag.errors) io.err << formatError(e) << "\n";
        return 1;
    }
    return applyAll(docs, *store, io);
}

int cmdGet(const Args& args, Io& io) {
    const std::string format = args.get("output", "");
    if (format != "" && format != "json" && format != "yaml" && format != "wide" && format != "name") {
        io.err << "error: --output: unsupported format \"" << format << "\" (json, yaml, wide, name)\n";
        return 1;
    }
    auto store = openStore(args, io);
    if (!store) return 1;
    auto types = resolveKind(args.positional.at(0), *store, pluginDir(args), io);
    if (types.empty()) return 1;
    const GetPrinter printer{format, std::chrono::system_clock::now(), io};
    return args.positional.size() > 1 ? getOne(args, types, *store, printer) : getList(args, types, *store, printer);
}

int cmdDelete(const Args& args, Io& io) {
    auto store = openStore(args, io);
    if (!store) return 1;
    auto types = resolveKind(args.positional.at(0), *store, pluginDir(args), io);
    if (types.empty()) return 1;
    if (types.size() > 1) {
        std::string names;
        for (auto const& t : types) names += (names.empty() ? "" : ", ") + t.plural + "." + std::string(groupOf(t.apiVersion));
        io.err << "error: \"" << args.positional.at(0) << "\" is ambiguous; name one of: " << names << "\n";
        return 1;
    }
    auto type = &types.front();
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
