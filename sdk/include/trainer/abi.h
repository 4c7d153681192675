/* trainer-operator plugin ABI, version 1.x.
 *
 * The one public C header a plugin needs. C11-clean, usable from C++, depends only on
 * <stdint.h> and <stddef.h>. Every symbol and type starts with trn_ / TRN_.
 * The numbered rules this header implements are in sdk/docs/abi.md. */
#ifndef TRAINER_ABI_H
#define TRAINER_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ABI versions are encoded as (major << 16) | minor. A host accepts a plugin whose chosen
 * version lies in [abi_min, abi_max]; within one major, structs only grow at the end. */
#define TRN_ABI_MAJOR 1
#define TRN_ABI_MINOR 0
#define TRN_ABI_ENCODE(major, minor) ((uint32_t)(((uint32_t)(major) << 16) | (uint32_t)(minor)))
#define TRN_ABI_VERSION TRN_ABI_ENCODE(TRN_ABI_MAJOR, TRN_ABI_MINOR)

/* The single exported symbol of every plugin. */
#define TRN_ENTRY_SYMBOL "trn_plugin_entry"

#if defined(_WIN32)
#define TRN_EXPORT __declspec(dllexport)
#else
#define TRN_EXPORT __attribute__((visibility("default")))
#endif

/* A borrowed UTF-8 byte range; not NUL-terminated unless stated. */
typedef struct trn_str {
    const char* data;
    size_t size;
} trn_str;

/* Status codes returned by every plugin function. */
typedef int32_t trn_status;
#define TRN_OK 0
#define TRN_ERROR 1 /* the plugin reported error diagnostics, or failed internally */

/* Diagnostic severities (rule 6). */
#define TRN_SEVERITY_ERROR 0
#define TRN_SEVERITY_WARNING 1

/* Log levels (rule 14); zap-compatible numbering: lower is more verbose. */
#define TRN_LOG_DEBUG (-1)
#define TRN_LOG_INFO 0
#define TRN_LOG_WARN 1
#define TRN_LOG_ERROR 2

/* Descriptor flags. */
#define TRN_PLUGIN_THREAD_SAFE 0x1u /* hooks may run concurrently on one instance */

/* Results of trn_host_api.lookup. TRN_LOOKUP_ERROR (added after the 1.0 release, within major
 * 1: a plugin that knows only the first two sees "not FOUND") means the host could not read the
 * cluster state (a busy or failing store, an unreachable API server): the object may well
 * exist. The host then also reports an error diagnostic on the call ("cluster read of <kind>
 * <ns>/<name> failed: <why>"), so the hook's result is discarded whatever the plugin does. */
#define TRN_LOOKUP_FOUND 0
#define TRN_LOOKUP_NOT_FOUND 1
#define TRN_LOOKUP_ERROR 2

/* Opaque host-side context of one call (create, one hook invocation). Valid only during
 * that call; every host callback takes it so the host knows which plugin speaks. */
typedef struct trn_call trn_call;

/* Opaque plugin instance made by create(); owned by the plugin, destroyed by destroy(). */
typedef struct trn_instance trn_instance;

/* One top-level member of a hook's input (trn_host_api.input_members): its name, the text
 * between its quotes (a name with an escape is never indexed), and its value's JSON text. */
typedef struct trn_member {
    trn_str key;
    trn_str value;
} trn_member;

/* Host functions a plugin may call (rule 3: the whole world a plugin sees). All copy what
 * they are given; none keeps a pointer after returning. Safe from the hook's thread only. */
typedef struct trn_host_api {
    uint32_t struct_size;
    /* Writes one log line attributed to the calling plugin. */
    void (*log)(trn_call* call, int32_t level, trn_str message);
    /* Reports a diagnostic with a field path such as "spec.trainer.env[0].name". */
    void (*diagnostic)(trn_call* call, int32_t severity, trn_str field_path, trn_str message);
    /* Sends one JSON output document; what it means depends on the hook (see each table). */
    void (*emit)(trn_call* call, trn_str json);
    /* Reads one object of the cluster state: TRN_LOOKUP_FOUND, TRN_LOOKUP_NOT_FOUND or
     * TRN_LOOKUP_ERROR. On TRN_LOOKUP_FOUND *out is the object's JSON, owned by the host and
     * valid until the call ends. */
    int32_t (*lookup)(trn_call* call, trn_str api_version, trn_str kind, trn_str namespace_,
                      trn_str name, trn_str* out);
    /* Added after the 1.0 release, within major 1 (rule 4: a host's table may end before it,
     * and it may be NULL). Where the top-level members of this hook's input lie, so a plugin
     * need not scan the input to find them: returns how many members the input has and sets
     * *out to that many, in document order, each key and value pointing into the input,
     * owned by the host and valid until the call ends. Returns 0 when the host has no index
     * of this input (read the input itself then). */
    size_t (*input_members)(trn_call* call, const trn_member** out);
} trn_host_api;

/* What the host tells the plugin at the handshake. */
typedef struct trn_host_info {
    uint32_t struct_size;
    uint32_t abi_min;      /* lowest ABI version the host accepts */
    uint32_t abi_max;      /* highest ABI version the host accepts */
    trn_str host_version;  /* e.g. "0.1.0" */
    const trn_host_api* api;
} trn_host_info;

/* Every hook has this shape: `input` is a borrowed JSON document (the Info document for the
 * pipeline hooks, sdk/docs/info.md), outputs go through trn_host_api.emit/diagnostic. */
typedef trn_status (*trn_hook_fn)(trn_instance* self, trn_call* call, trn_str input);

/* CustomValidation: admission. Runs on CREATE/UPDATE of a TrainJob, before any Enforce
 * hook, on an Info built without Enforce phases. Input: Info with "admission" set.
 * Output: diagnostics (errors deny, warnings are passed to the user). emit unused. */
typedef struct trn_custom_validation {
    uint32_t struct_size;
    trn_hook_fn validate;
} trn_custom_validation;

/* EnforceMLPolicy: first build phase; runs only when the runtime configures an ML policy
 * the plugin claims (or, for the default ML policy claim "mlPolicy", when none is set).
 * Output: edit operations (sdk/docs/info.md "Edits"), one JSON object per emit. */
typedef struct trn_enforce_ml_policy {
    uint32_t struct_size;
    trn_hook_fn enforce;
} trn_enforce_ml_policy;

/* EnforcePodGroupPolicy: after every EnforceMLPolicy; runs only when the runtime
 * configures a pod-group policy the plugin claims. Output: edit operations. */
typedef struct trn_enforce_pod_group_policy {
    uint32_t struct_size;
    trn_hook_fn enforce;
} trn_enforce_pod_group_policy;

/* EnforcePodSpec: after EnforcePodGroupPolicy. Output: edit operations. */
typedef struct trn_enforce_pod_spec {
    uint32_t struct_size;
    trn_hook_fn enforce;
} trn_enforce_pod_spec;

/* PreComponentBuilder: after EnforcePodSpec, before any ComponentBuilder; sees the
 * enforced Info. Output: edit operations (endpoints, parallelism ...). */
typedef struct trn_pre_component_builder {
    uint32_t struct_size;
    trn_hook_fn build;
} trn_pre_component_builder;

/* ComponentBuilder: last build phase. Output: one Kubernetes object (JSON) per emit; the
 * host applies them. Emitting nothing is valid (e.g. the object exists and must stay). */
typedef struct trn_component_builder {
    uint32_t struct_size;
    trn_hook_fn build;
} trn_component_builder;

/* TrainJobStatus: after the children were applied; at most one loaded plugin may implement
 * it. Input: {"infoVersion":1,"trainJob":{...}}. Output: one emit of the new TrainJob
 * "status" object, or no emit for "no change". */
typedef struct trn_trainjob_status {
    uint32_t struct_size;
    trn_hook_fn status;
} trn_trainjob_status;

/* How the host maps an event on a watched object to TrainJobs to re-queue (rule 13). */
#define TRN_WATCH_OWNED 0                 /* the controlling TrainJob in ownerReferences */
#define TRN_WATCH_SUSPENDED_IN_NAMESPACE 1 /* every suspended TrainJob of the object's namespace */
#define TRN_WATCH_SUSPENDED_MATCHING 2    /* suspended TrainJobs whose runtime pod templates
                                             carry the object's name at `match_field` */

/* One watched kind. */
typedef struct trn_watch {
    uint32_t struct_size;
    const char* api_version; /* "scheduling.x-k8s.io/v1alpha1" */
    const char* kind;        /* "PodGroup" */
    int32_t mode;            /* TRN_WATCH_* */
    const char* match_field; /* pod spec field for TRN_WATCH_SUSPENDED_MATCHING, else NULL */
} trn_watch;

/* WatchExtension: data only. The host runs the watches and re-queues TrainJobs. */
typedef struct trn_watch_extension {
    uint32_t struct_size;
    const trn_watch* const* watches;
    size_t watch_count;
} trn_watch_extension;

/* The plugin's answer to the handshake. Static storage owned by the plugin; valid for as
 * long as the library stays loaded (which is for the life of the process). */
typedef struct trn_plugin_descriptor {
    uint32_t struct_size;
    uint32_t abi_version;     /* the version the plugin chose from the host's range */
    const char* name;         /* unique, [a-z0-9-]+ */
    const char* version;      /* the plugin's own version */
    const char* description;  /* one sentence */
    int32_t priority;         /* lower runs first within a phase; ties by name (rule 11) */
    uint32_t flags;           /* TRN_PLUGIN_* */
    const char* const* claims; /* rule 12: "mlPolicy.torch", "env:PET_NNODES", ... */
    size_t claim_count;
    /* Creates an instance from the plugin's JSON config ("{}" when none). NULL on failure,
     * with error diagnostics through `call`. */
    trn_instance* (*create)(trn_call* call, trn_str config);
    /* Destroys an instance made by create(); called once, after its last hook returned. */
    void (*destroy)(trn_instance* self);
    /* One table per extension point; NULL where the plugin does not implement it. */
    const trn_custom_validation* custom_validation;
    const trn_watch_extension* watch_extension;
    const trn_enforce_ml_policy* enforce_ml_policy;
    const trn_enforce_pod_group_policy* enforce_pod_group_policy;
    const trn_enforce_pod_spec* enforce_pod_spec;
    const trn_pre_component_builder* pre_component_builder;
    const trn_component_builder* component_builder;
    const trn_trainjob_status* trainjob_status;
} trn_plugin_descriptor;

/* The entry point's type. Returns NULL when the plugin cannot serve this host. */
typedef const trn_plugin_descriptor* (*trn_plugin_entry_fn)(const trn_host_info* host);

#ifdef __cplusplus
}
#endif

#endif /* TRAINER_ABI_H */
