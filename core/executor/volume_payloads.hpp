// The files of configMap, secret, downwardAPI and projected volumes, built from the pod spec and
// the cluster as the kubelet's volume plugins build them (pkg/volume/configmap, secret,
// downwardapi, projected: MakePayload / CollectData).
#pragma once

#include "core/executor/atomic_writer.hpp"
#include "core/executor/config_sources.hpp"
#include "core/executor/pod_runtime_facts.hpp"
#include "core/executor/spec_fields.hpp"
#include "core/executor/token_manager.hpp"

namespace trainer::core::executor {

// What one volume source needs to build its files.
struct PayloadContext {
    const json::object& pod;
    const PodRuntimeFacts& facts;
    SourceCache& sources;
    TokenManager* tokens;  // null: the executor has no token issuer
};

// Each reads the volume source `source` (e.g. spec.volumes[0].configMap) and adds its files to
// `out`; a problem fails `source` (a field error, `configmap "name" not found`,
// `configmap references non-existent config key: k`, `references non-existent secret key: k`).
// File modes: an item's mode, else the source's defaultMode, else 0644 (0..0777 accepted).
// A missing object or key is skipped when the source is `optional`.
void addConfigMapVolume(const FieldReader& source, PayloadContext& ctx, Payload& out);
void addSecretVolume(const FieldReader& source, PayloadContext& ctx, Payload& out);
// items: {path, fieldRef {fieldPath} (metadata only) | resourceFieldRef {containerName,...}, mode}.
void addDownwardApiVolume(const FieldReader& source, PayloadContext& ctx, Payload& out);
// sources: configMap, secret, downwardAPI, and serviceAccountToken {audience, expirationSeconds
// (default 3600, at least 600, at most 2^32, as the API server validates), path}: a token from
// `ctx.tokens` bound to the pod (its namespace, spec.serviceAccountName else "default", name and
// uid), audience the source's or the issuer's default, file mode the defaultMode
// (pkg/volume/projected/projected.go collectData). Without `ctx.tokens` such a source fails the
// volume. Other projections fail.
void addProjectedVolume(const FieldReader& source, PayloadContext& ctx, Payload& out);

}  // namespace trainer::core::executor
