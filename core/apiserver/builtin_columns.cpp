// The printer columns of the built-in kinds, as kubernetes/pkg/printers/internalversion/printers.go
// defines them (names, types, priorities, descriptions from the k8s.io/api swagger docs) and
// computes the cells (the server prints with Wide: every column, typed cells), over v1 JSON.
#include "core/apiserver/printers.hpp"

#include "core/apiserver/selectors.hpp"
#include "core/store/store.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace trainer::core {

namespace {

using Clock = std::chrono::system_clock;
using Cell = std::function<json::value(const json::object&, Clock::time_point)>;

// ---- reading v1 JSON ----

const json::value* at(const json::object& o, std::initializer_list<std::string_view> path) {
    const json::value* v = nullptr;
    const json::object* cur = &o;
    for (auto k : path) {
        v = cur ? cur->if_contains(k) : nullptr;
        if (!v) return nullptr;
        cur = v->if_object();
    }
    return v;
}

std::string str(const json::object& o, std::initializer_list<std::string_view> path) {
    auto const* v = at(o, path);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

int64_t num(const json::object& o, std::initializer_list<std::string_view> path, int64_t fallback = 0) {
    auto const* v = at(o, path);
    return v && v->is_number() ? v->to_number<int64_t>() : fallback;
}

bool flag(const json::object& o, std::initializer_list<std::string_view> path) {
    auto const* v = at(o, path);
    return v && v->is_bool() && v->as_bool();
}

const json::array& arr(const json::object& o, std::initializer_list<std::string_view> path) {
    static const json::array empty;
    auto const* v = at(o, path);
    return v && v->is_array() ? v->as_array() : empty;
}

size_t count(const json::object& o, std::string_view key) {
    auto const* v = o.if_contains(key);
    return v && v->is_object() ? v->as_object().size() : v && v->is_array() ? v->as_array().size() : 0;
}

// A time field; nullopt for the zero time (absent, null, "").
std::optional<Clock::time_point> timeAt(const json::object& o, std::initializer_list<std::string_view> path) {
    auto s = str(o, path);
    return s.empty() ? std::nullopt : parseRfc3339(s);
}

// translateTimestampSince.
std::string since(std::optional<Clock::time_point> t, Clock::time_point now) {
    return t ? humanDuration(now - *t) : "<unknown>";
}

std::string age(const json::object& o, Clock::time_point now) { return since(timeAt(o, {"metadata", "creationTimestamp"}), now); }

std::string orNone(std::string s) { return s.empty() ? "<none>" : s; }

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string trimSpace(std::string s) {
    auto sp = [](unsigned char c) { return std::isspace(c) != 0; };
    s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), sp));
    s.erase(std::find_if_not(s.rbegin(), s.rend(), sp).base(), s.end());
    return s;
}

// labels.FormatLabels: "k=v,..." sorted by key, "<none>" when empty.
std::string formatLabels(const json::value* m) {
    std::map<std::string, std::string> sorted;
    if (m && m->is_object())
        for (auto const& kv : m->as_object()) sorted[kv.key()] = kv.value().is_string() ? std::string(kv.value().as_string()) : "";
    std::string s;
    for (auto const& [k, v] : sorted) s += (s.empty() ? "" : ",") + k + "=" + v;
    return orNone(s);
}

// metav1.FormatLabelSelector: "<none>" for a missing or empty selector, "<error>" for a bad one.
std::string formatLabelSelector(const json::value* selector) {
    if (!selector || !selector->is_object()) return "<none>";
    std::string error;
    auto s = apiserver::labelSelectorFromObject(selector->as_object(), error);
    return s ? orNone(s->toString()) : "<error>";
}

// layoutContainerCells: names and images joined by ",".
std::pair<std::string, std::string> containerCells(const json::array& containers) {
    std::string names, images;
    for (size_t i = 0; i < containers.size(); ++i) {
        auto const& c = containers[i].is_object() ? containers[i].as_object() : json::object();
        names += (i ? "," : "") + str(c, {"name"});
        images += (i ? "," : "") + str(c, {"image"});
    }
    return {names, images};
}

// ---- column builders ----

const std::map<std::string, std::string, std::less<>>& descriptions();

std::string describe(std::string_view key) {
    auto it = descriptions().find(key);
    return it == descriptions().end() ? std::string() : it->second;
}

PrinterColumn column(std::string name, std::string type, std::string_view doc, int priority, Cell cell) {
    return {std::move(name), std::move(type), "", describe(doc), priority, std::move(cell)};
}

PrinterColumn nameColumn() {
    return {"Name", "string", "name", describe("ObjectMeta.name"), 0,
            [](const json::object& o, Clock::time_point) -> json::value { return json::string(str(o, {"metadata", "name"})); }};
}

PrinterColumn ageColumn() {
    return column("Age", "string", "ObjectMeta.creationTimestamp", 0,
                  [](const json::object& o, Clock::time_point now) -> json::value { return json::string(age(o, now)); });
}

PrinterColumn stringColumn(std::string name, std::string_view doc, std::initializer_list<std::string_view> path, int priority = 0) {
    std::vector<std::string> p(path.begin(), path.end());
    return column(std::move(name), "string", doc, priority, [p](const json::object& o, Clock::time_point) -> json::value {
        const json::value* v = nullptr;
        const json::object* cur = &o;
        for (auto const& k : p) {
            v = cur ? cur->if_contains(k) : nullptr;
            cur = v ? v->if_object() : nullptr;
        }
        return json::string(v && v->is_string() ? std::string(v->as_string()) : std::string());
    });
}

// ---- Pod (printPod) ----

struct PodSummary {
    int64_t ready = 0, total = 0, restarts = 0;
    std::string reason;
    std::optional<Clock::time_point> lastRestart;
};

bool restartable(const json::object& pod, std::string_view name) {
    for (auto const& c : arr(pod, {"spec", "initContainers"}))
        if (c.is_object() && str(c.as_object(), {"name"}) == name) return str(c.as_object(), {"restartPolicy"}) == "Always";
    return false;
}

bool hasCondition(const json::object& o, std::string_view type, std::string_view status = "True") {
    for (auto const& c : arr(o, {"status", "conditions"}))
        if (c.is_object() && str(c.as_object(), {"type"}) == type) return str(c.as_object(), {"status"}) == status;
    return false;
}

void noteRestart(std::optional<Clock::time_point>& last, const json::object& status) {
    auto t = timeAt(status, {"lastState", "terminated", "finishedAt"});
    if (t && (!last || *last < *t)) last = t;
}

std::string terminatedReason(const json::object& cs, std::string_view prefix) {
    auto reason = str(cs, {"state", "terminated", "reason"});
    if (!reason.empty()) return std::string(prefix) + reason;
    if (auto signal = num(cs, {"state", "terminated", "signal"})) return std::string(prefix) + "Signal:" + std::to_string(signal);
    return std::string(prefix) + "ExitCode:" + std::to_string(num(cs, {"state", "terminated", "exitCode"}));
}

// The init containers: reason "Init:..." while one is not done; returns whether initializing.
bool summarizeInit(const json::object& pod, PodSummary& s, int64_t& sidecarRestarts, std::optional<Clock::time_point>& sidecarLast) {
    auto const& statuses = arr(pod, {"status", "initContainerStatuses"});
    for (size_t i = 0; i < statuses.size(); ++i) {
        if (!statuses[i].is_object()) continue;
        auto const& cs = statuses[i].as_object();
        bool sidecar = restartable(pod, str(cs, {"name"}));
        s.restarts += num(cs, {"restartCount"});
        noteRestart(s.lastRestart, cs);
        if (sidecar) {
            sidecarRestarts += num(cs, {"restartCount"});
            noteRestart(sidecarLast, cs);
        }
        bool terminated = at(cs, {"state", "terminated"}) != nullptr;
        if (terminated && num(cs, {"state", "terminated", "exitCode"}) == 0) continue;
        if (sidecar && flag(cs, {"started"})) {
            if (flag(cs, {"ready"})) ++s.ready;
            continue;
        }
        auto waiting = str(cs, {"state", "waiting", "reason"});
        if (terminated) s.reason = terminatedReason(cs, "Init:");
        else if (!waiting.empty() && waiting != "PodInitializing") s.reason = "Init:" + waiting;
        else s.reason = "Init:" + std::to_string(i) + "/" + std::to_string(arr(pod, {"spec", "initContainers"}).size());
        return true;
    }
    return false;
}

void summarizeContainers(const json::object& pod, PodSummary& s) {
    bool hasRunning = false;
    auto const& statuses = arr(pod, {"status", "containerStatuses"});
    for (auto it = statuses.rbegin(); it != statuses.rend(); ++it) {
        if (!it->is_object()) continue;
        auto const& cs = it->as_object();
        s.restarts += num(cs, {"restartCount"});
        noteRestart(s.lastRestart, cs);
        auto waiting = str(cs, {"state", "waiting", "reason"});
        bool terminated = at(cs, {"state", "terminated"}) != nullptr;
        if (!waiting.empty()) s.reason = waiting;
        else if (terminated) s.reason = terminatedReason(cs, "");
        else if (flag(cs, {"ready"}) && at(cs, {"state", "running"})) {
            hasRunning = true;
            ++s.ready;
        }
    }
    if (s.reason == "Completed" && hasRunning) s.reason = hasCondition(pod, "Ready") ? "Running" : "NotReady";
}

PodSummary summarizePod(const json::object& pod) {
    PodSummary s;
    s.total = static_cast<int64_t>(arr(pod, {"spec", "containers"}).size());
    for (auto const& c : arr(pod, {"spec", "initContainers"}))
        if (c.is_object() && str(c.as_object(), {"restartPolicy"}) == "Always") ++s.total;
    auto phase = str(pod, {"status", "phase"});
    s.reason = str(pod, {"status", "reason"}).empty() ? phase : str(pod, {"status", "reason"});
    for (auto const& c : arr(pod, {"status", "conditions"}))
        if (c.is_object() && str(c.as_object(), {"type"}) == "PodScheduled" && str(c.as_object(), {"reason"}) == "SchedulingGated")
            s.reason = "SchedulingGated";
    int64_t sidecarRestarts = 0;
    std::optional<Clock::time_point> sidecarLast;
    bool initializing = summarizeInit(pod, s, sidecarRestarts, sidecarLast);
    if (!initializing || hasCondition(pod, "Initialized")) {
        s.restarts = sidecarRestarts;
        s.lastRestart = sidecarLast;
        summarizeContainers(pod, s);
    }
    bool deleting = at(pod, {"metadata", "deletionTimestamp"}) && !at(pod, {"metadata", "deletionTimestamp"})->is_null();
    if (deleting && str(pod, {"status", "reason"}) == "NodeLost") s.reason = "Unknown";
    else if (deleting && phase != "Succeeded" && phase != "Failed") s.reason = "Terminating";
    return s;
}

std::string readinessGates(const json::object& pod) {
    auto const& gates = arr(pod, {"spec", "readinessGates"});
    if (gates.empty()) return "<none>";
    size_t trueConditions = 0;
    for (auto const& g : gates)
        if (g.is_object() && hasCondition(pod, str(g.as_object(), {"conditionType"}))) ++trueConditions;
    return std::to_string(trueConditions) + "/" + std::to_string(gates.size());
}

std::vector<PrinterColumn> podColumns() {
    auto summary = [](auto field) {
        return [field](const json::object& o, Clock::time_point now) -> json::value { return field(summarizePod(o), now); };
    };
    return {
        nameColumn(),
        column("Ready", "string", "Pod.ready", 0,
               summary([](const PodSummary& s, auto) { return json::string(std::to_string(s.ready) + "/" + std::to_string(s.total)); })),
        column("Status", "string", "Pod.status", 0, summary([](const PodSummary& s, auto) { return json::string(s.reason); })),
        column("Restarts", "string", "Pod.restarts", 0, summary([](const PodSummary& s, Clock::time_point now) {
                   auto text = std::to_string(s.restarts);
                   if (s.restarts != 0 && s.lastRestart) text += " (" + since(s.lastRestart, now) + " ago)";
                   return json::string(text);
               })),
        ageColumn(),
        column("IP", "string", "PodStatus.podIP", 1, [](const json::object& o, Clock::time_point) -> json::value {
            auto const& ips = arr(o, {"status", "podIPs"});
            return json::string(orNone(!ips.empty() && ips[0].is_object() ? str(ips[0].as_object(), {"ip"}) : ""));
        }),
        column("Node", "string", "PodSpec.nodeName", 1,
               [](const json::object& o, Clock::time_point) -> json::value { return json::string(orNone(str(o, {"spec", "nodeName"}))); }),
        column("Nominated Node", "string", "PodStatus.nominatedNodeName", 1, [](const json::object& o, Clock::time_point) -> json::value {
            return json::string(orNone(str(o, {"status", "nominatedNodeName"})));
        }),
        column("Readiness Gates", "string", "PodSpec.readinessGates", 1,
               [](const json::object& o, Clock::time_point) -> json::value { return json::string(readinessGates(o)); }),
    };
}

// ---- Job (printJob) ----

std::string jobStatus(const json::object& job) {
    if (hasCondition(job, "Complete")) return "Complete";
    if (hasCondition(job, "Failed")) return "Failed";
    if (auto const* d = at(job, {"metadata", "deletionTimestamp"}); d && !d->is_null()) return "Terminating";
    if (hasCondition(job, "Suspended")) return "Suspended";
    if (hasCondition(job, "FailureTarget")) return "FailureTarget";
    return "Running";
}

std::string jobCompletions(const json::object& job) {
    auto succeeded = std::to_string(num(job, {"status", "succeeded"}));
    if (auto const* c = at(job, {"spec", "completions"}); c && c->is_number()) return succeeded + "/" + std::to_string(c->to_number<int64_t>());
    auto parallelism = num(job, {"spec", "parallelism"});
    return parallelism > 1 ? succeeded + "/1 of " + std::to_string(parallelism) : succeeded + "/1";
}

std::string jobDuration(const json::object& job, Clock::time_point now) {
    auto start = timeAt(job, {"status", "startTime"});
    if (!start) return "";
    auto end = timeAt(job, {"status", "completionTime"});
    return humanDuration((end ? *end : now) - *start);
}

std::vector<PrinterColumn> templateColumns(std::initializer_list<std::string_view> spec, std::string_view selectorDoc) {
    std::vector<std::string> p(spec.begin(), spec.end());
    auto containers = [p](const json::object& o) {
        const json::object* cur = &o;
        for (auto const& k : p) cur = cur && cur->if_contains(k) ? cur->at(k).if_object() : nullptr;
        auto const* c = cur ? cur->if_contains("containers") : nullptr;
        return containerCells(c && c->is_array() ? c->as_array() : json::array());
    };
    return {
        column("Containers", "string", "template.containers", 1,
               [containers](const json::object& o, Clock::time_point) -> json::value { return json::string(containers(o).first); }),
        column("Images", "string", "template.images", 1,
               [containers](const json::object& o, Clock::time_point) -> json::value { return json::string(containers(o).second); }),
        column("Selector", "string", selectorDoc, 1, [](const json::object& o, Clock::time_point) -> json::value {
            return json::string(formatLabelSelector(at(o, {"spec", "selector"})));
        }),
    };
}

std::vector<PrinterColumn> jobColumns() {
    std::vector<PrinterColumn> out{
        nameColumn(),
        column("Status", "string", "Job.status", 0,
               [](const json::object& o, Clock::time_point) -> json::value { return json::string(jobStatus(o)); }),
        column("Completions", "string", "JobStatus.succeeded", 0,
               [](const json::object& o, Clock::time_point) -> json::value { return json::string(jobCompletions(o)); }),
        column("Duration", "string", "Job.duration", 0,
               [](const json::object& o, Clock::time_point now) -> json::value { return json::string(jobDuration(o, now)); }),
        ageColumn(),
    };
    for (auto& c : templateColumns({"spec", "template", "spec"}, "JobSpec.selector")) out.push_back(std::move(c));
    return out;
}

// ---- Service (printService) ----

std::string serviceExternalIP(const json::object& svc) {
    std::vector<std::string> external;
    for (auto const& ip : arr(svc, {"spec", "externalIPs"}))
        if (ip.is_string()) external.emplace_back(ip.as_string());
    auto joined = [](const std::vector<std::string>& v) {
        std::string s;
        for (auto const& x : v) s += (s.empty() ? "" : ",") + x;
        return s;
    };
    auto type = str(svc, {"spec", "type"});
    if (type == "ClusterIP" || type == "NodePort") return orNone(joined(external));
    if (type == "ExternalName") return str(svc, {"spec", "externalName"});
    if (type != "LoadBalancer") return "<unknown>";
    std::set<std::string> lb;
    for (auto const& in : arr(svc, {"status", "loadBalancer", "ingress"})) {
        if (!in.is_object()) continue;
        auto ip = str(in.as_object(), {"ip"}), host = str(in.as_object(), {"hostname"});
        if (!ip.empty()) lb.insert(ip);
        else if (!host.empty()) lb.insert(host);
    }
    std::vector<std::string> all(lb.begin(), lb.end());
    all.insert(all.end(), external.begin(), external.end());
    return all.empty() ? "<pending>" : joined(all);
}

std::string servicePorts(const json::object& svc) {
    std::string s;
    for (auto const& p : arr(svc, {"spec", "ports"})) {
        if (!p.is_object()) continue;
        auto const& port = p.as_object();
        auto node = num(port, {"nodePort"});
        s += (s.empty() ? "" : ",") + std::to_string(num(port, {"port"})) + (node > 0 ? ":" + std::to_string(node) : "") + "/" +
             str(port, {"protocol"});
    }
    return orNone(s);
}

std::vector<PrinterColumn> serviceColumns() {
    return {
        nameColumn(),
        stringColumn("Type", "ServiceSpec.type", {"spec", "type"}),
        column("Cluster-IP", "string", "ServiceSpec.clusterIP", 0, [](const json::object& o, Clock::time_point) -> json::value {
            auto const& ips = arr(o, {"spec", "clusterIPs"});
            return json::string(!ips.empty() && ips[0].is_string() ? std::string(ips[0].as_string()) : "<none>");
        }),
        column("External-IP", "string", "ServiceSpec.externalIPs", 0,
               [](const json::object& o, Clock::time_point) -> json::value { return json::string(serviceExternalIP(o)); }),
        column("Port(s)", "string", "ServiceSpec.ports", 0,
               [](const json::object& o, Clock::time_point) -> json::value { return json::string(servicePorts(o)); }),
        ageColumn(),
        column("Selector", "string", "ServiceSpec.selector", 1, [](const json::object& o, Clock::time_point) -> json::value {
            return json::string(formatLabels(at(o, {"spec", "selector"})));
        }),
    };
}

// ---- Event (printEvent; core v1 fields, else the events.k8s.io names) ----

std::string eventStr(const json::object& e, std::string_view v1, std::string_view events) {
    auto s = str(e, {v1});
    return s.empty() ? str(e, {events}) : s;
}

std::string eventInvolved(const json::object& e, std::string_view field) {
    auto s = str(e, {"involvedObject", field});
    return s.empty() ? str(e, {"regarding", field}) : s;
}

std::optional<Clock::time_point> eventTime(const json::object& e, std::string_view v1, std::string_view events) {
    auto t = timeAt(e, {v1});
    return t ? t : timeAt(e, {events});
}

std::string eventFirstSeen(const json::object& e, Clock::time_point now) {
    auto first = eventTime(e, "firstTimestamp", "deprecatedFirstTimestamp");
    return since(first ? first : timeAt(e, {"eventTime"}), now);
}

std::string eventLastSeen(const json::object& e, Clock::time_point now) {
    if (at(e, {"series"}) && at(e, {"series"})->is_object()) return since(timeAt(e, {"series", "lastObservedTime"}), now);
    auto last = eventTime(e, "lastTimestamp", "deprecatedLastTimestamp");
    return last ? since(last, now) : eventFirstSeen(e, now);
}

int64_t eventCount(const json::object& e) {
    if (at(e, {"series"}) && at(e, {"series"})->is_object()) return num(e, {"series", "count"});
    auto n = num(e, {"count"}, num(e, {"deprecatedCount"}));
    return n == 0 ? 1 : n;
}

std::string eventSource(const json::object& e) {
    auto component = str(e, {"source", "component"});
    if (component.empty()) component = str(e, {"deprecatedSource", "component"});
    if (component.empty()) component = eventStr(e, "reportingComponent", "reportingController");
    auto host = str(e, {"source", "host"});
    if (host.empty()) host = str(e, {"deprecatedSource", "host"});
    if (host.empty()) host = str(e, {"reportingInstance"});
    return host.empty() ? component : component + ", " + host;
}

std::vector<PrinterColumn> eventColumns() {
    auto text = [](auto f) { return [f](const json::object& o, Clock::time_point now) -> json::value { return json::string(f(o, now)); }; };
    return {
        column("Last Seen", "string", "Event.lastTimestamp", 0, text(eventLastSeen)),
        stringColumn("Type", "Event.type", {"type"}),
        stringColumn("Reason", "Event.reason", {"reason"}),
        column("Object", "string", "Event.involvedObject", 0, text([](const json::object& e, auto) {
                   auto kind = lower(eventInvolved(e, "kind")), name = eventInvolved(e, "name");
                   return name.empty() ? kind : kind + "/" + name;
               })),
        column("Subobject", "string", "ObjectReference.fieldPath", 1, text([](const json::object& e, auto) { return eventInvolved(e, "fieldPath"); })),
        column("Source", "string", "Event.source", 1, text([](const json::object& e, auto) { return eventSource(e); })),
        column("Message", "string", "Event.message", 0, text([](const json::object& e, auto) { return trimSpace(eventStr(e, "message", "note")); })),
        column("First Seen", "string", "Event.firstTimestamp", 1, text(eventFirstSeen)),
        column("Count", "string", "Event.count", 1, [](const json::object& e, Clock::time_point) -> json::value { return eventCount(e); }),
        {"Name", "string", "name", describe("ObjectMeta.name"), 1,
         [](const json::object& o, Clock::time_point) -> json::value { return json::string(str(o, {"metadata", "name"})); }},
    };
}

// ---- the small kinds ----

Cell countOf(std::initializer_list<std::string_view> keys) {
    std::vector<std::string> k(keys.begin(), keys.end());
    return [k](const json::object& o, Clock::time_point) -> json::value {
        int64_t n = 0;
        for (auto const& key : k) n += static_cast<int64_t>(count(o, key));
        return n;
    };
}

std::vector<PrinterColumn> priorityClassColumns() {
    return {
        nameColumn(),
        column("Value", "integer", "PriorityClass.value", 0,
               [](const json::object& o, Clock::time_point) -> json::value { return num(o, {"value"}); }),
        column("Global-Default", "boolean", "PriorityClass.globalDefault", 0,
               [](const json::object& o, Clock::time_point) -> json::value { return flag(o, {"globalDefault"}); }),
        ageColumn(),
        stringColumn("PreemptionPolicy", "PriorityClass.preemptionPolicy", {"preemptionPolicy"}),
    };
}

using Columns = std::vector<PrinterColumn>;

// Data counts what upstream's internal object has: a stored Secret's stringData is already in data.
const std::map<std::string, Columns, std::less<>>& builtinTable() {
    static const std::map<std::string, Columns, std::less<>> table{
        {"namespace", {nameColumn(), column("Status", "string", "Namespace.status", 0,
                                            [](const json::object& o, Clock::time_point) -> json::value {
                                                return json::string(str(o, {"status", "phase"}));
                                            }),
                       ageColumn()}},
        {"pod", podColumns()},
        {"service", serviceColumns()},
        {"event", eventColumns()},
        {"configmap", {nameColumn(), column("Data", "string", "ConfigMap.data", 0, countOf({"data", "binaryData"})), ageColumn()}},
        {"secret", {nameColumn(), stringColumn("Type", "Secret.type", {"type"}),
                    column("Data", "string", "Secret.data", 0, countOf({"data", "stringData"})), ageColumn()}},
        {"serviceaccount", {nameColumn(), column("Secrets", "string", "ServiceAccount.secrets", 0, countOf({"secrets"})), ageColumn()}},
        {"lease", {nameColumn(), stringColumn("Holder", "LeaseSpec.holderIdentity", {"spec", "holderIdentity"}), ageColumn()}},
        {"priorityclass", priorityClassColumns()},
        {"runtimeclass", {nameColumn(), stringColumn("Handler", "ObjectMeta.handler", {"handler"}), ageColumn()}},
        {"job", jobColumns()},
        {"limitrange", defaultBuiltinColumns()},
        {"customresourcedefinition", defaultBuiltinColumns()},
    };
    return table;
}

}  // namespace

std::optional<std::vector<PrinterColumn>> builtinPrinterColumns(std::string_view kind) {
    auto it = builtinTable().find(lower(std::string(kind)));
    return it == builtinTable().end() ? std::nullopt : std::optional(it->second);
}

std::vector<PrinterColumn> defaultBuiltinColumns() {
    return {nameColumn(),
            {"Created At", "date", "", describe("ObjectMeta.creationTimestamp"), 0,
             [](const json::object& o, Clock::time_point) -> json::value {
                 auto t = timeAt(o, {"metadata", "creationTimestamp"});
                 return json::string(t ? formatRfc3339(*t) : "0001-01-01T00:00:00Z");
             }}};
}

std::vector<PrinterColumn> defaultCustomResourceColumns() {
    auto age = jsonPathColumn("Age", ".metadata.creationTimestamp", "date");
    age.description = describe("ObjectMeta.creationTimestamp");
    auto name = nameColumn();
    return {name, age};
}

json::array rowConditions(std::string_view kind, const json::object& obj) {
    if (lower(std::string(kind)) != "pod") return {};
    auto phase = str(obj, {"status", "phase"});
    if (phase == "Succeeded")
        return {json::object{{"type", "Completed"}, {"status", "True"}, {"reason", "Succeeded"}, {"message", "The pod has completed successfully."}}};
    if (phase == "Failed")
        return {json::object{{"type", "Completed"}, {"status", "True"}, {"reason", "Failed"}, {"message", "The pod failed."}}};
    return {};
}

namespace {

// Column descriptions: metav1.ObjectMeta and k8s.io/api v0.32 swagger docs
// (core/v1, batch/v1, coordination/v1, scheduling/v1 types_swagger_doc_generated.go), and the
// literal descriptions of printers.go. RuntimeClass's Handler reads ObjectMeta's (absent) "handler".
const std::map<std::string, std::string, std::less<>>& descriptions() {
    static const std::map<std::string, std::string, std::less<>> table{
        {"ObjectMeta.name",
         "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to "
         "request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and "
         "configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"},
        {"ObjectMeta.creationTimestamp",
         "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set "
         "in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is "
         "in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
         "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"},
        {"Pod.ready", "The aggregate readiness state of this pod for accepting traffic."},
        {"Pod.status", "The aggregate status of the containers in this pod."},
        {"Pod.restarts",
         "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."},
        {"PodStatus.podIP", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."},
        {"PodSpec.nodeName",
         "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler "
         "defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this "
         "pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. "
         "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"},
        {"PodStatus.nominatedNodeName",
         "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as "
         "preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled "
         "on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also "
         "decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field "
         "may be different than PodSpec.nodeName when the pod is scheduled."},
        {"PodSpec.readinessGates",
         "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND "
         "all conditions specified in the readiness gates have status equal to \"True\" More info: "
         "https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"},
        {"Job.status", "Status of the job."},
        {"JobStatus.succeeded",
         "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may "
         "decrease in reaction to scale down of elastic indexed jobs."},
        {"Job.duration", "Time required to complete the job."},
        {"JobSpec.selector",
         "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: "
         "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"},
        {"template.containers", "Names of each container in the template."},
        {"template.images", "Images referenced by each container in the template."},
        {"ServiceSpec.type",
         "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and "
         "LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are "
         "determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice "
         "objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints are published as a set of endpoints rather "
         "than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as "
         "the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in the current "
         "cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this service to the specified "
         "externalName. Several other fields do not apply to ExternalName services. More info: "
         "https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types"},
        {"ServiceSpec.clusterIP",
         "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is "
         "in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the "
         "service will fail. This field may not be changed through updates unless the type field is also being changed to "
         "ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case "
         "this field may optionally be specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP "
         "address. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint "
         "connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If "
         "this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when "
         "updating a Service to type ExternalName. More info: "
         "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"},
        {"ServiceSpec.externalIPs",
         "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs "
         "are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common "
         "example is external load-balancers that are not part of the Kubernetes system."},
        {"ServiceSpec.ports",
         "The list of ports that are exposed by this service. More info: "
         "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"},
        {"ServiceSpec.selector",
         "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is "
         "assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types "
         "ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: "
         "https://kubernetes.io/docs/concepts/services-networking/service/"},
        {"Event.lastTimestamp", "The time at which the most recent occurrence of this event was recorded."},
        {"Event.type", "Type of this event (Normal, Warning), new types could be added in the future"},
        {"Event.reason",
         "This should be a short, machine understandable string that gives the reason for the transition into the object's current "
         "status."},
        {"Event.involvedObject", "The object that this event is about."},
        {"ObjectReference.fieldPath",
         "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access "
         "statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a "
         "pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that "
         "triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This "
         "syntax is chosen only to have some well-defined way of referencing a part of an object."},
        {"Event.source", "The component reporting this event. Should be a short machine understandable string."},
        {"Event.message", "A human-readable description of the status of this operation."},
        {"Event.firstTimestamp", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"},
        {"Event.count", "The number of times this event has occurred."},
        {"Namespace.status", "The status of the namespace"},
        {"Secret.type",
         "Used to facilitate programmatic handling of secret data. More info: "
         "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"},
        {"Secret.data",
         "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the "
         "secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in "
         "https://tools.ietf.org/html/rfc4648#section-4"},
        {"ConfigMap.data",
         "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with "
         "non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the "
         "BinaryData field, this is enforced during validation process."},
        {"ServiceAccount.secrets",
         "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods "
         "are only limited to this list if this service account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to "
         "\"true\". The \"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate namespaces "
         "to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets "
         "for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token "
         "secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret"},
        {"LeaseSpec.holderIdentity",
         "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder "
         "identity must be equal to the elected LeaseCandidate.metadata.name field."},
        {"PriorityClass.value",
         "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the "
         "name of this class in their pod spec."},
        {"PriorityClass.globalDefault",
         "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have "
         "any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses "
         "exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used "
         "as the default priority."},
        {"PriorityClass.preemptionPolicy",
         "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to "
         "PreemptLowerPriority if unset."},
    };
    return table;
}

}  // namespace

}  // namespace trainer::core
