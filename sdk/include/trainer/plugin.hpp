// The C++ layer over trainer/abi.h: a plugin is a class deriving from trainer::sdk::Plugin
// and from the interface of each extension point it implements, plus TRAINER_PLUGIN(Class).
// Header-only; uses Boost.JSON. No exception ever leaves a hook (ABI rule 7).
#pragma once

#include <trainer/abi.h>
#include <trainer/info_members.hpp>
#include <trainer/wiped_text.hpp>

#include <boost/json.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace trainer::sdk {

namespace json = boost::json;

// Borrowed view of a std::string_view as an ABI string (valid while `s` is).
inline trn_str toAbi(std::string_view s) { return trn_str{s.data(), s.size()}; }
// Copies an ABI string into a std::string_view (no copy: borrowed).
inline std::string_view fromAbi(trn_str s) { return s.data ? std::string_view(s.data, s.size) : std::string_view(); }

namespace detail {

// ABI rule 4: a struct that begins with its size holds a member only when that size reaches the
// member's end; a shorter struct (an older host's) does not provide it. Every read of a host
// struct's member past struct_size goes through these.
template <class S>
bool covers(const S* s, size_t offset, size_t size) {
    return s && s->struct_size >= offset + size;
}
inline const trn_host_api* hostApiOf(const trn_host_info* h) {
    return covers(h, offsetof(trn_host_info, api), sizeof h->api) ? h->api : nullptr;
}
// The host functions, or nullptr when the table is too short to hold them or they are unset.
inline decltype(trn_host_api::log) hostLog(const trn_host_api* a) {
    return covers(a, offsetof(trn_host_api, log), sizeof a->log) ? a->log : nullptr;
}
inline decltype(trn_host_api::diagnostic) hostDiagnostic(const trn_host_api* a) {
    return covers(a, offsetof(trn_host_api, diagnostic), sizeof a->diagnostic) ? a->diagnostic : nullptr;
}
inline decltype(trn_host_api::emit) hostEmit(const trn_host_api* a) {
    return covers(a, offsetof(trn_host_api, emit), sizeof a->emit) ? a->emit : nullptr;
}
inline decltype(trn_host_api::lookup) hostLookup(const trn_host_api* a) {
    return covers(a, offsetof(trn_host_api, lookup), sizeof a->lookup) ? a->lookup : nullptr;
}
inline decltype(trn_host_api::input_members) hostInputMembers(const trn_host_api* a) {
    return covers(a, offsetof(trn_host_api, input_members), sizeof a->input_members) ? a->input_members : nullptr;
}

}  // namespace detail

// What a cluster lookup answered: the object, its absence, or that the host could not read the
// cluster (TRN_LOOKUP_ERROR: the object may exist). `message` says why, for Error.
struct Lookup {
    enum class Status { Found, NotFound, Error };
    Status status = Status::NotFound;
    json::object object;
    std::string message;
    bool found() const { return status == Status::Found; }
    bool notFound() const { return status == Status::NotFound; }
    bool failed() const { return status == Status::Error; }
};

// Thrown by Context::lookup when the host could not read the cluster. The hook then fails with an
// error diagnostic naming the read (the SDK catches it, rule 7), so nothing is built from an
// "absent" that was really "unknown". Catch it only to add context, never to carry on as absent.
struct LookupError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The host as one hook invocation sees it. Valid only during that call, on its thread.
class Context {
public:
    Context(const trn_host_api* api, trn_call* call, std::string_view plugin)
        : api_(api), call_(call), plugin_(plugin) {}

    // Reports an error at a field path ("spec.trainer.env"); the operation fails.
    void error(std::string_view fieldPath, std::string_view message) {
        failed_ = true;
        if (auto fn = detail::hostDiagnostic(api_)) fn(call_, TRN_SEVERITY_ERROR, toAbi(fieldPath), toAbi(message));
    }
    // Reports a warning at a field path; the operation continues.
    void warning(std::string_view fieldPath, std::string_view message) {
        if (auto fn = detail::hostDiagnostic(api_)) fn(call_, TRN_SEVERITY_WARNING, toAbi(fieldPath), toAbi(message));
    }
    // Writes a log line attributed to this plugin (TRN_LOG_* level).
    void log(int32_t level, std::string_view message) {
        if (auto fn = detail::hostLog(api_)) fn(call_, level, toAbi(message));
    }
    void debug(std::string_view message) { log(TRN_LOG_DEBUG, message); }
    void info(std::string_view message) { log(TRN_LOG_INFO, message); }
    // Sends one output document (an edit, an object, or a status, depending on the hook). A host
    // without emit cannot take it: the operation fails. The text is zeroed once the host has
    // copied it (WipedText), and an object is serialised as it is, not copied into a json::value
    // first, so a Secret emitted here leaves no copy behind.
    void emit(const json::value& v) { send(WipedText(v)); }
    template <class Object, std::enable_if_t<std::is_same_v<Object, json::object>, int> = 0>
    void emit(const Object& object) {
        send(WipedText(object));
    }
    // Reads an object of the cluster state, telling absence from a failed read (which the host
    // also reports as an error of this call, so the hook's result is discarded either way).
    Lookup tryLookup(std::string_view apiVersion, std::string_view kind, std::string_view ns, std::string_view name) {
        Lookup out;
        auto fn = detail::hostLookup(api_);
        if (!fn) {
            out.status = Lookup::Status::Error;
            out.message = "the host provides no lookup";
            return out;
        }
        trn_str text{nullptr, 0};
        const int32_t code = fn(call_, toAbi(apiVersion), toAbi(kind), toAbi(ns), toAbi(name), &text);
        if (code == TRN_LOOKUP_NOT_FOUND) return out;
        out.status = Lookup::Status::Error;
        if (code != TRN_LOOKUP_FOUND) {  // TRN_LOOKUP_ERROR, or a code this SDK does not know
            out.message = code == TRN_LOOKUP_ERROR ? "the host could not read the cluster"
                                                   : "the host answered lookup with unknown code " + std::to_string(code);
            return out;
        }
        json::error_code ec;
        json::value v = json::parse(fromAbi(text), ec);
        if (ec || !v.is_object()) {
            out.message = "the host's lookup answer is not a JSON object";
            return out;
        }
        out.status = Lookup::Status::Found;
        out.object = std::move(v.as_object());
        return out;
    }
    // Reads an object of the cluster state; nullopt when it does not exist. Throws LookupError
    // when the host could not read it: "could not read" is never returned as "absent".
    std::optional<json::object> lookup(std::string_view apiVersion, std::string_view kind,
                                       std::string_view ns, std::string_view name) {
        Lookup r = tryLookup(apiVersion, kind, ns, name);
        if (r.failed()) {
            std::string what = "cluster read of ";
            what.append(kind).append(" ").append(ns).append(ns.empty() ? "" : "/").append(name);
            throw LookupError(what + " failed: " + r.message);
        }
        if (r.notFound()) return std::nullopt;
        return std::move(r.object);
    }
    // True once error() was called during this invocation.
    bool failed() const { return failed_; }
    // The plugin's name, for messages.
    std::string_view plugin() const { return plugin_; }

private:
    friend class Edits;  // sends an edit's text as it writes it (Edits::emitSet)
    void send(const WipedText& text) {
        auto fn = detail::hostEmit(api_);
        if (!fn) {
            failed_ = true;
            return;
        }
        fn(call_, toAbi(text.view()));
    }

    const trn_host_api* api_;
    trn_call* call_;
    std::string_view plugin_;
    bool failed_ = false;
};

// Small JSON helpers shared by plugins: all return nullptr / defaults when absent.
inline const json::object* getObject(const json::object& o, std::string_view key) {
    auto it = o.find(key);
    return (it != o.end() && it->value().is_object()) ? &it->value().as_object() : nullptr;
}
inline const json::array* getArray(const json::object& o, std::string_view key) {
    auto it = o.find(key);
    return (it != o.end() && it->value().is_array()) ? &it->value().as_array() : nullptr;
}
inline std::optional<std::string_view> getString(const json::object& o, std::string_view key) {
    auto it = o.find(key);
    if (it == o.end() || !it->value().is_string()) return std::nullopt;
    return std::string_view(it->value().as_string());
}
inline std::optional<int64_t> getInt(const json::object& o, std::string_view key) {
    auto it = o.find(key);
    if (it == o.end()) return std::nullopt;
    if (it->value().is_int64()) return it->value().as_int64();
    if (it->value().is_uint64()) return static_cast<int64_t>(it->value().as_uint64());
    if (it->value().is_double()) return static_cast<int64_t>(it->value().as_double());
    return std::nullopt;
}
inline std::optional<bool> getBool(const json::object& o, std::string_view key) {
    auto it = o.find(key);
    if (it == o.end() || !it->value().is_bool()) return std::nullopt;
    return it->value().as_bool();
}
// Follows a chain of object keys; nullptr as soon as one is missing or not an object.
inline const json::object* getPath(const json::object& o, std::initializer_list<std::string_view> keys) {
    const json::object* cur = &o;
    for (auto k : keys) {
        cur = getObject(*cur, k);
        if (!cur) return nullptr;
    }
    return cur;
}
// The element of a list of objects whose `key` member equals `value`.
inline const json::object* findByKey(const json::array* list, std::string_view key, std::string_view value) {
    if (!list) return nullptr;
    for (auto const& e : *list)
        if (e.is_object())
            if (auto v = getString(e.as_object(), key); v && *v == value) return &e.as_object();
    return nullptr;
}

// Read-only view of the Info document (sdk/docs/info.md). Lives for one hook call, and is read
// by the thread that runs the hook (its members are parsed on first read: info_members.hpp).
class Info {
public:
    // An Info over a whole document (a unit test's, or one the SDK could not split).
    explicit Info(json::object doc) : doc_(std::move(doc)), whole_(true) {}
    // An Info over the hook's input text, split into members that are parsed when first read and
    // looked up in `memo` first. `text` must outlive the Info. For the SDK's adapter.
    Info(std::vector<detail::MemberSpan> members, detail::MemberMemo* memo)
        : members_(std::move(members)), parsed_(members_.size()), memo_(memo), whole_(false) {}

    // Every accessor is safe on any document: what the document lacks (or holds with the wrong
    // JSON type) reads as an empty object or array, an empty string, or nullptr where the
    // accessor returns a pointer. Never dereference a pointer accessor without checking it.

    // A top-level member, or nullptr when the document has none. Parses only that member.
    const json::value* member(std::string_view key) const {
        if (whole_) return doc_.if_contains(key);
        for (std::size_t i = 0; i < members_.size(); ++i)
            if (members_[i].key == key) return parse(parsed_[i], key, members_[i].text, key);
        return nullptr;
    }
    // A top-level member that is an object, or nullptr.
    const json::object* objectMember(std::string_view key) const {
        const json::value* v = member(key);
        return v && v->is_object() ? &v->as_object() : nullptr;
    }
    // The whole document. Reading it parses every member (and copies each into one object, once):
    // prefer member() and the accessors below, which parse only what they read.
    const json::object& doc() const {
        if (!whole_) {
            json::object all;
            all.reserve(members_.size());
            for (auto const& m : members_)
                if (const json::value* v = member(m.key)) all.emplace(m.key, *v);
            doc_ = std::move(all);
            whole_ = true;
        }
        return doc_;
    }
    // The TrainJob, or an empty object when the document has none.
    const json::object& trainJob() const { return orEmpty(objectMember("trainJob")); }
    // These read only the TrainJob's `metadata` or `spec`: unless the TrainJob was read whole, the
    // rest of it (metadata.managedFields, for one, when the TrainJob is spec) is not parsed.
    std::string_view name() const { return str(trainJobObject("metadata"), "name"); }
    std::string_view ns() const { return str(trainJobObject("metadata"), "namespace"); }
    std::string_view uid() const { return str(trainJobObject("metadata"), "uid"); }
    // spec of the TrainJob, or an empty object.
    const json::object& spec() const { return orEmpty(trainJobObject("spec")); }
    // spec.trainer, or nullptr when the TrainJob has none.
    const json::object* trainer() const { return getObject(spec(), "trainer"); }
    const json::object* mlPolicy() const { return policy("mlPolicy"); }
    const json::object* podGroupPolicy() const { return policy("podGroupPolicy"); }
    const json::object& jobSetSpec() const { return orEmpty(objectMember("jobSetSpec")); }
    const json::array& podSets() const {
        static const json::array empty;
        const json::value* v = member("podSets");
        return v && v->is_array() ? v->as_array() : empty;
    }
    const json::object* podSet(std::string_view name) const { return findByKey(&podSets(), "name", name); }
    // The first PodSet whose ancestor is `ancestor` ("trainer", "dataset-initializer" ...).
    const json::object* podSetByAncestor(std::string_view ancestor) const {
        for (auto const& p : podSets())
            if (p.is_object())
                if (auto a = getString(p.as_object(), "ancestor"); a && *a == ancestor) return &p.as_object();
        return nullptr;
    }
    // A container of a PodSet by name (regular containers only).
    static const json::object* container(const json::object& podSet, std::string_view name) {
        return findByKey(getArray(podSet, "containers"), "name", name);
    }
    static const json::object* initContainer(const json::object& podSet, std::string_view name) {
        return findByKey(getArray(podSet, "initContainers"), "name", name);
    }
    // present only for CustomValidation.
    const json::object* admission() const { return objectMember("admission"); }

    // The key of the first member that was read and is not valid JSON, or empty. The SDK's
    // adapter fails the hook with it after the hook returns.
    const std::string& malformedMember() const { return malformed_; }

private:
    struct Parsed {  // of members_[i] (or tjMembers_[i]), once read
        std::shared_ptr<const json::value> value;
        bool read = false;
    };
    // `p`'s value, parsed from `text` on the first call (through the memo, as `memoKey`); null when
    // the text is not JSON, which malformedMember() then names as `reportAs`.
    const json::value* parse(Parsed& p, std::string_view memoKey, std::string_view text, std::string_view reportAs) const {
        if (!p.read) {
            p.read = true;
            json::error_code ec;
            p.value = memo_ ? memo_->parse(memoKey, text, ec) : std::make_shared<const json::value>(json::parse(text, ec));
            if (ec) {
                p.value = nullptr;
                if (malformed_.empty()) malformed_ = std::string(reportAs);
            }
        }
        return p.value.get();
    }
    // Member `key` of the TrainJob when it is an object, or null. The TrainJob's text is split as
    // the Info's is (detail::MemberScanner) and only that member parsed, unless the TrainJob was
    // already read whole or the scanner refuses its text; then it is read whole.
    const json::object* trainJobObject(std::string_view key) const {
        constexpr std::string_view kTrainJob = "trainJob";
        std::size_t at = members_.size();
        if (!whole_)
            for (std::size_t i = 0; i < members_.size() && at == members_.size(); ++i)
                if (members_[i].key == kTrainJob) at = i;
        if (whole_ || at == members_.size() || parsed_[at].read || !splitTrainJob(kTrainJob, members_[at].text))
            return getObject(trainJob(), key);
        for (std::size_t i = 0; i < tjMembers_.size(); ++i)
            if (tjMembers_[i].key == key) {
                Parsed& p = tjParsed_[i];
                const json::value* v = p.read ? p.value.get()
                                              : parse(p, std::string(kTrainJob) + "." + std::string(key),
                                                      tjMembers_[i].text, kTrainJob);
                return v && v->is_object() ? &v->get_object() : nullptr;
            }
        return nullptr;
    }
    bool splitTrainJob(std::string_view key, std::string_view text) const {
        if (tjSplit_ == 0) {
            const bool ok = memo_ ? memo_->split(key, text, tjMembers_) : detail::MemberScanner(text).scan(tjMembers_);
            tjSplit_ = ok ? 1 : 2;
            tjParsed_.resize(tjMembers_.size());
        }
        return tjSplit_ == 1;
    }
    static const json::object& orEmpty(const json::object* o) {
        static const json::object empty;
        return o ? *o : empty;
    }
    const json::object* policy(std::string_view name) const {
        const json::object* p = objectMember("runtimePolicy");
        return p ? getObject(*p, name) : nullptr;
    }
    static std::string_view str(const json::object* o, std::string_view k) {
        if (!o) return {};
        auto v = getString(*o, k);
        return v ? *v : std::string_view();
    }
    mutable json::object doc_;
    std::vector<detail::MemberSpan> members_;
    mutable std::vector<Parsed> parsed_;
    detail::MemberMemo* memo_ = nullptr;
    mutable bool whole_;
    mutable std::string malformed_;
    // The TrainJob's members (trainJobObject): not split yet (0), split (1), refused (2).
    mutable int tjSplit_ = 0;
    mutable std::vector<detail::MemberSpan> tjMembers_;
    mutable std::vector<Parsed> tjParsed_;
};

// Escapes one JSON Pointer segment (RFC 6901).
inline std::string pointerSegment(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

// Edit operations on Info (sdk/docs/info.md "Edits"), sent to the host as they are made.
class Edits {
public:
    explicit Edits(Context& ctx) : ctx_(ctx) {}

    // Sets the value at a keyed JSON Pointer; keyed list elements are upserted.
    void set(std::string_view path, json::value value) { emitSet(path, value); }
    // Removes the value at a keyed JSON Pointer.
    void remove(std::string_view path) {
        WipedText t;
        t.append(R"({"op":"remove","path":)");
        t.appendJson(path);
        t.append("}");
        ctx_.send(t);
    }

    static std::string podSetPath(std::string_view podSet) { return "/podSets/" + pointerSegment(podSet); }
    // "/podSets/<ps>/containers/<c>" or ".../initContainers/<c>".
    static std::string containerPath(std::string_view podSet, std::string_view container, bool init = false) {
        return podSetPath(podSet) + (init ? "/initContainers/" : "/containers/") + pointerSegment(container);
    }

    void setCount(std::string_view podSet, int64_t count) { set(podSetPath(podSet) + "/count", count); }
    // Upserts an env var ({"name":..,"value":..} or with valueFrom) into a container.
    void upsertEnv(std::string_view podSet, std::string_view container, const json::object& env, bool init = false) {
        auto name = getString(env, "name").value_or("");
        emitSet(containerPath(podSet, container, init) + "/env/" + pointerSegment(name), env);
    }
    void upsertEnv(std::string_view podSet, std::string_view container, std::string_view name,
                   std::string_view value, bool init = false) {
        // set(path, {"name": name, "value": value}), without building the object.
        emitSetWith(containerPath(podSet, container, init) + "/env/" + pointerSegment(name), [&](WipedText& t) {
            t.append(R"({"name":)");
            t.appendJson(name);
            t.append(R"(,"value":)");
            t.appendJson(value);
            t.append("}");
        });
    }
    void upsertPort(std::string_view podSet, std::string_view container, const json::object& port, bool init = false) {
        auto p = getInt(port, "containerPort").value_or(0);
        emitSet(containerPath(podSet, container, init) + "/ports/" + std::to_string(p), port);
    }
    void upsertVolumeMount(std::string_view podSet, std::string_view container, const json::object& vm,
                           bool init = false) {
        auto mp = getString(vm, "mountPath").value_or("");
        emitSet(containerPath(podSet, container, init) + "/volumeMounts/" + pointerSegment(mp), vm);
    }
    void upsertVolume(std::string_view podSet, const json::object& volume) {
        auto n = getString(volume, "name").value_or("");
        emitSet(podSetPath(podSet) + "/volumes/" + pointerSegment(n), volume);
    }
    void setPodLabel(std::string_view key, std::string_view value) {
        emitSet("/scheduler/podLabels/" + pointerSegment(key), value);
    }
    void setPodAnnotation(std::string_view key, std::string_view value) {
        emitSet("/scheduler/podAnnotations/" + pointerSegment(key), value);
    }

private:
    // {"op":"set","path":<path>,"value":<value>} written straight into the text the host gets,
    // as json::serialize writes that object, without building it or copying the value.
    template <class Doc>
    void emitSet(std::string_view path, const Doc& value) {
        emitSetWith(path, [&](WipedText& t) { t.appendJson(value); });
    }
    template <class WriteValue>
    void emitSetWith(std::string_view path, WriteValue&& writeValue) {
        WipedText t;
        t.append(R"({"op":"set","path":)");
        t.appendJson(path);
        t.append(R"(,"value":)");
        writeValue(t);
        t.append("}");
        ctx_.send(t);
    }

    Context& ctx_;
};

// The fieldRef of a pod's Job completion index: a node's rank in every distributed policy.
inline constexpr std::string_view kCompletionIndexFieldPath =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";

// An env var `name` whose value is the pod's Job completion index.
inline json::object completionIndexEnv(std::string_view name) {
    return json::object{{"name", name},
                        {"valueFrom", json::object{{"fieldRef", json::object{{"fieldPath", kCompletionIndexFieldPath}}}}}};
}

// The trainer PodSet (ancestor "trainer") and its node count once the TrainJob's
// spec.trainer.numNodes applies. `podSet` points into the Info it came from.
struct TrainerNodes {
    std::string name;
    int64_t count = 1;
    const json::object* podSet = nullptr;
};

// Applies spec.trainer.numNodes to the trainer PodSet (emitting the count edit; 0 included, as
// upstream) and returns the PodSet with the count now in force; nullopt when there is none.
// Info is the phase's snapshot, so use the returned count, not the PodSet's.
inline std::optional<TrainerNodes> applyTrainerNumNodes(const Info& info, Edits& edits) {
    const json::object* ps = info.podSetByAncestor("trainer");
    if (!ps) return std::nullopt;
    TrainerNodes t{std::string(getString(*ps, "name").value_or("")), getInt(*ps, "count").value_or(1), ps};
    if (auto* trainer = info.trainer())
        if (auto n = getInt(*trainer, "numNodes")) {
            t.count = *n;
            edits.setCount(t.name, t.count);
        }
    return t;
}

// Objects a ComponentBuilder hands to the host.
class Objects {
public:
    explicit Objects(Context& ctx) : ctx_(ctx) {}
    void add(const json::object& object) { ctx_.emit(object); }

private:
    Context& ctx_;
};

// The TrainJob controller owner reference every built object carries (as upstream's builders set it,
// e.g. Build in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/jobset/jobset.go).
inline json::object controllerRef(const Info& info) {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"name", info.name()},
                        {"uid", info.uid()},
                        {"controller", true},
                        {"blockOwnerDeletion", true}};
}

// ---- Extension point interfaces. Derive from the ones you implement. ----
// Order per reconcile: EnforceMLPolicy → EnforcePodGroupPolicy → EnforcePodSpec →
// PreComponentBuilder → ComponentBuilder → (children applied) → TrainJobStatus.
// CustomValidation runs at admission only. Hooks run on a host worker thread; when the
// plugin is not thread-safe (PluginMeta::threadSafe = false) the host serialises them.

struct CustomValidation {
    virtual ~CustomValidation() = default;
    // Admission of a TrainJob: report problems with ctx.error / ctx.warning.
    virtual void validate(const Info& info, Context& ctx) = 0;
};
struct EnforceMLPolicy {
    virtual ~EnforceMLPolicy() = default;
    // Applies the ML policy to Info through `edits`.
    virtual void enforceMLPolicy(const Info& info, Edits& edits, Context& ctx) = 0;
};
struct EnforcePodGroupPolicy {
    virtual ~EnforcePodGroupPolicy() = default;
    // Applies the pod-group policy (pod labels/annotations) through `edits`.
    virtual void enforcePodGroupPolicy(const Info& info, Edits& edits, Context& ctx) = 0;
};
struct EnforcePodSpec {
    virtual ~EnforcePodSpec() = default;
    // Final pod-spec changes through `edits`.
    virtual void enforcePodSpec(const Info& info, Edits& edits, Context& ctx) = 0;
};
struct PreComponentBuilder {
    virtual ~PreComponentBuilder() = default;
    // Derived data other builders need (endpoints, parallelism) through `edits`.
    virtual void preBuild(const Info& info, Edits& edits, Context& ctx) = 0;
};
struct ComponentBuilder {
    virtual ~ComponentBuilder() = default;
    // Emits the objects to apply. Emitting none is valid.
    virtual void build(const Info& info, Objects& objects, Context& ctx) = 0;
};
struct TrainJobStatus {
    virtual ~TrainJobStatus() = default;
    // The TrainJob's new status object, or nullopt for "no change".
    virtual std::optional<json::object> status(const json::object& trainJob, Context& ctx) = 0;
};

// One watched kind (WatchExtension is data; see trn_watch).
struct Watch {
    const char* apiVersion = nullptr;
    const char* kind = nullptr;
    int32_t mode = TRN_WATCH_OWNED;
    const char* matchField = nullptr;
};

// What a plugin says about itself, returned by the class's static `meta()`. Build it with
// designated initializers, naming the members you set; the others keep the defaults below
// (every member has one, so `-Wextra` has nothing to say about those you leave out):
//
//     static PluginMeta meta() {
//         return {.name = "hello", .version = "0.1.0", .description = "says hello to every node",
//                 .claims = {"mlPolicy.hello", "env:HELLO_*"}};
//     }
//
// The strings must outlive the plugin (string literals). Members keep this order and new ones
// are only ever added at the end, so the older positional form
// (`PluginMeta{"hello", "0.1.0", "...", 0, true, {...}, {}}`) and member-by-member assignment
// keep compiling and describe the same plugin.
struct PluginMeta {
    const char* name = nullptr;         // unique among loaded plugins; [a-z0-9-] by convention
    const char* version = nullptr;      // the plugin's own version, shown by `trainer-operator plugins`
    const char* description = nullptr;  // one line
    int32_t priority = 0;               // run order within a phase: lower first, then by name (rule 11)
    bool threadSafe = true;             // false: the host serialises this plugin's hooks (rule 9)
    std::vector<const char*> claims = {};  // rule 12 and sdk/docs/abi.md "Claims"
    std::vector<Watch> watches = {};       // WatchExtension (rule 13)
};

// Base of every plugin class. Constructor signature: Class(const json::object& config, Context&);
// throw (or ctx.error) to refuse the configuration.
struct Plugin {
    virtual ~Plugin() = default;
};

namespace detail {

// Describes the exception in flight as a sentence naming the plugin (ABI rule 7).
inline std::string describeCurrentException(std::string_view plugin, std::string_view where) {
    std::string msg = "plugin ";
    msg += plugin;
    msg += " failed in ";
    msg += where;
    msg += ": ";
    try {
        throw;
    } catch (const std::exception& e) {
        msg += e.what();
    } catch (...) {
        msg += "unknown exception";
    }
    return msg;
}

template <class P>
struct Adapter {
    struct Holder {
        std::unique_ptr<P> plugin;
        detail::MemberMemo memo;  // the Info members this instance last parsed (info_members.hpp)
    };
    static inline const trn_host_api* api = nullptr;

    static const PluginMeta& meta() {
        static const PluginMeta m = P::meta();
        return m;
    }
    static P& self(trn_instance* i) { return *reinterpret_cast<Holder*>(i)->plugin; }

    // The hook's Info: split into members parsed on first read (info_members.hpp), or parsed
    // whole when the scanner cannot vouch for the text, which reports what is wrong with it.
    // The input's members where the host says they lie (an index it offers and acceptHostIndex
    // takes), else where the scanner finds them, else the whole input parsed.
    static std::optional<Info> parseInfo(trn_instance* i, trn_call* call, trn_str input, Context& ctx) {
        std::vector<MemberSpan> members;
        const trn_member* index = nullptr;
        const auto indexOf = hostInputMembers(api);
        const std::size_t n = indexOf ? indexOf(call, &index) : 0;
        if ((n && acceptHostIndex(fromAbi(input), index, n, members)) || MemberScanner(fromAbi(input)).scan(members))
            return Info(std::move(members), &reinterpret_cast<Holder*>(i)->memo);
        json::error_code ec;
        json::value v = json::parse(fromAbi(input), ec);
        if (ec || !v.is_object()) {
            ctx.error("", std::string("plugin ") + meta().name + ": input is not a JSON object");
            return std::nullopt;
        }
        return Info(std::move(v.as_object()));
    }
    // After the hook: a member it read that was not JSON fails the call.
    static void checkRead(const Info& info, Context& ctx) {
        if (!info.malformedMember().empty())
            ctx.error("", std::string("plugin ") + meta().name + ": input member \"" + info.malformedMember() +
                              "\" is not valid JSON");
    }

    template <class F>
    static trn_status guarded(trn_call* call, const char* where, F&& f) {
        Context ctx(api, call, meta().name);
        try {
            f(ctx);
        } catch (...) {
            ctx.error("", describeCurrentException(meta().name, where));
            return TRN_ERROR;
        }
        return ctx.failed() ? TRN_ERROR : TRN_OK;
    }

    static trn_instance* create(trn_call* call, trn_str config) {
        Holder* h = nullptr;
        guarded(call, "create", [&](Context& ctx) {
            json::error_code ec;
            json::value v = fromAbi(config).empty() ? json::value(json::object{}) : json::parse(fromAbi(config), ec);
            if (ec || !v.is_object()) {
                ctx.error("", std::string("plugin ") + meta().name + ": configuration is not a JSON object");
                return;
            }
            auto p = std::make_unique<P>(v.as_object(), ctx);
            if (!ctx.failed()) h = new Holder{std::move(p), {}};
        });
        return reinterpret_cast<trn_instance*>(h);
    }
    static void destroy(trn_instance* i) { delete reinterpret_cast<Holder*>(i); }

    static trn_status validate(trn_instance* i, trn_call* call, trn_str input) {
        if constexpr (std::is_base_of_v<CustomValidation, P>)
            return guarded(call, "CustomValidation", [&](Context& ctx) {
                if (auto info = parseInfo(i, call, input, ctx)) {
                    self(i).validate(*info, ctx);
                    checkRead(*info, ctx);
                }
            });
        return TRN_ERROR;
    }
    template <class Iface, void (Iface::*Method)(const Info&, Edits&, Context&)>
    static trn_status edit(trn_instance* i, trn_call* call, trn_str input, const char* where) {
        return guarded(call, where, [&](Context& ctx) {
            if (auto info = parseInfo(i, call, input, ctx)) {
                Edits edits(ctx);
                (static_cast<Iface&>(self(i)).*Method)(*info, edits, ctx);
                checkRead(*info, ctx);
            }
        });
    }
    static trn_status ml(trn_instance* i, trn_call* c, trn_str in) {
        if constexpr (std::is_base_of_v<EnforceMLPolicy, P>)
            return edit<EnforceMLPolicy, &EnforceMLPolicy::enforceMLPolicy>(i, c, in, "EnforceMLPolicy");
        return TRN_ERROR;
    }
    static trn_status podGroup(trn_instance* i, trn_call* c, trn_str in) {
        if constexpr (std::is_base_of_v<EnforcePodGroupPolicy, P>)
            return edit<EnforcePodGroupPolicy, &EnforcePodGroupPolicy::enforcePodGroupPolicy>(i, c, in,
                                                                                             "EnforcePodGroupPolicy");
        return TRN_ERROR;
    }
    static trn_status podSpec(trn_instance* i, trn_call* c, trn_str in) {
        if constexpr (std::is_base_of_v<EnforcePodSpec, P>)
            return edit<EnforcePodSpec, &EnforcePodSpec::enforcePodSpec>(i, c, in, "EnforcePodSpec");
        return TRN_ERROR;
    }
    static trn_status preBuild(trn_instance* i, trn_call* c, trn_str in) {
        if constexpr (std::is_base_of_v<PreComponentBuilder, P>)
            return edit<PreComponentBuilder, &PreComponentBuilder::preBuild>(i, c, in, "PreComponentBuilder");
        return TRN_ERROR;
    }
    static trn_status build(trn_instance* i, trn_call* call, trn_str input) {
        if constexpr (std::is_base_of_v<ComponentBuilder, P>)
            return guarded(call, "ComponentBuilder", [&](Context& ctx) {
                if (auto info = parseInfo(i, call, input, ctx)) {
                    Objects objects(ctx);
                    self(i).build(*info, objects, ctx);
                    checkRead(*info, ctx);
                }
            });
        return TRN_ERROR;
    }
    static trn_status status(trn_instance* i, trn_call* call, trn_str input) {
        if constexpr (std::is_base_of_v<TrainJobStatus, P>)
            return guarded(call, "TrainJobStatus", [&](Context& ctx) {
                if (auto info = parseInfo(i, call, input, ctx)) {
                    auto st = self(i).status(info->trainJob(), ctx);
                    checkRead(*info, ctx);
                    if (st && info->malformedMember().empty()) ctx.emit(*st);
                }
            });
        return TRN_ERROR;
    }

    static const trn_plugin_descriptor* entry(const trn_host_info* host) {
        // host->api is read only when host->struct_size reaches its end (rule 4).
        api = detail::hostApiOf(host);
        if (!api) return nullptr;
        static const trn_custom_validation cv{sizeof(trn_custom_validation), &validate};
        static const trn_enforce_ml_policy em{sizeof(trn_enforce_ml_policy), &ml};
        static const trn_enforce_pod_group_policy ep{sizeof(trn_enforce_pod_group_policy), &podGroup};
        static const trn_enforce_pod_spec es{sizeof(trn_enforce_pod_spec), &podSpec};
        static const trn_pre_component_builder pb{sizeof(trn_pre_component_builder), &preBuild};
        static const trn_component_builder cb{sizeof(trn_component_builder), &build};
        static const trn_trainjob_status ts{sizeof(trn_trainjob_status), &status};
        static const std::vector<trn_watch> watchStore = [] {
            std::vector<trn_watch> w;
            for (auto const& x : meta().watches)
                w.push_back(trn_watch{sizeof(trn_watch), x.apiVersion, x.kind, x.mode, x.matchField});
            return w;
        }();
        static const std::vector<const trn_watch*> watchPtrs = [] {
            std::vector<const trn_watch*> p;
            for (auto const& w : watchStore) p.push_back(&w);
            return p;
        }();
        static const trn_watch_extension we{sizeof(trn_watch_extension), watchPtrs.data(), watchPtrs.size()};
        static const trn_plugin_descriptor d = [] {
            trn_plugin_descriptor x{};
            x.struct_size = sizeof(trn_plugin_descriptor);
            x.abi_version = TRN_ABI_VERSION;
            x.name = meta().name;
            x.version = meta().version;
            x.description = meta().description;
            x.priority = meta().priority;
            x.flags = meta().threadSafe ? TRN_PLUGIN_THREAD_SAFE : 0u;
            x.claims = meta().claims.data();
            x.claim_count = meta().claims.size();
            x.create = &create;
            x.destroy = &destroy;
            x.custom_validation = std::is_base_of_v<CustomValidation, P> ? &cv : nullptr;
            x.watch_extension = meta().watches.empty() ? nullptr : &we;
            x.enforce_ml_policy = std::is_base_of_v<EnforceMLPolicy, P> ? &em : nullptr;
            x.enforce_pod_group_policy = std::is_base_of_v<EnforcePodGroupPolicy, P> ? &ep : nullptr;
            x.enforce_pod_spec = std::is_base_of_v<EnforcePodSpec, P> ? &es : nullptr;
            x.pre_component_builder = std::is_base_of_v<PreComponentBuilder, P> ? &pb : nullptr;
            x.component_builder = std::is_base_of_v<ComponentBuilder, P> ? &cb : nullptr;
            x.trainjob_status = std::is_base_of_v<TrainJobStatus, P> ? &ts : nullptr;
            return x;
        }();
        return &d;
    }
};

}  // namespace detail
}  // namespace trainer::sdk

// Defines the plugin's one exported symbol for class `Class`. Use once per plugin, in one
// source file, at global scope.
#define TRAINER_PLUGIN(Class)                                                                      \
    extern "C" TRN_EXPORT const trn_plugin_descriptor* trn_plugin_entry(const trn_host_info* host) { \
        try {                                                                                      \
            return ::trainer::sdk::detail::Adapter<Class>::entry(host);                            \
        } catch (...) {                                                                            \
            return nullptr;                                                                        \
        }                                                                                          \
    }
