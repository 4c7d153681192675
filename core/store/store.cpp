#include "core/store/store.hpp"

#include <openssl/rand.h>
#include <pthread.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <random>

namespace trainer::core {

std::string_view toString(StoreStatus s) {
    static constexpr std::array<std::string_view, 6> names{"Ok", "NotFound", "AlreadyExists", "Conflict", "Invalid", "Error"};
    return names[static_cast<size_t>(s)];
}

std::string_view toString(ApplyOutcome o) {
    static constexpr std::array<std::string_view, 3> names{"created", "configured", "unchanged"};
    return names[static_cast<size_t>(o)];
}

std::string_view toString(ChangeType t) {
    static constexpr std::array<std::string_view, 3> names{"ADDED", "MODIFIED", "DELETED"};
    return names[static_cast<size_t>(t)];
}

ApplyAllResult Store::applyAll(const std::vector<json::object>& objs, std::string_view fieldManager) {
    ApplyAllResult all;
    for (size_t i = 0; i < objs.size(); ++i) {
        auto r = apply(objs[i], fieldManager);
        if (!r.ok()) {
            all.failed = i;
            all.failure = std::move(r);
            return all;
        }
        all.applied.push_back(std::move(r));
    }
    return all;
}

ChangeSubscription Store::onCommit(std::function<void()>) const { return {}; }

ReadValue<std::vector<ObjectKey>> Store::listKeys(const std::string& apiVersion, const std::string& kind,
                                                  const std::optional<std::string>& ns) const {
    auto listed = list(apiVersion, kind, ns);
    if (!listed.ok()) return ReadValue<std::vector<ObjectKey>>::failure(*listed.error);
    std::vector<ObjectKey> keys;
    keys.reserve(listed.value.size());
    for (auto const& o : listed.value) keys.push_back(keyOf(o));
    return ReadValue<std::vector<ObjectKey>>::of(std::move(keys));
}

std::string_view groupOf(std::string_view apiVersion) {
    auto slash = apiVersion.find('/');
    return slash == std::string_view::npos ? std::string_view{} : apiVersion.substr(0, slash);
}

namespace {

struct DefaultResource {
    const char* group;
    const char* kind;
    const char* plural;
    bool status;
};

// Kinds whose treatment differs from the derived default (see ResourceTable).
constexpr DefaultResource kDefaultResources[] = {
    {"", "ConfigMap", "configmaps", false},
    {"", "Secret", "secrets", false},
    {"", "Event", "events", false},
    {"", "ServiceAccount", "serviceaccounts", false},
    {"", "LimitRange", "limitranges", false},
    {"", "Endpoints", "endpoints", false},
    {"", "Pod", "pods", true},
    {"", "Service", "services", true},
    {"", "Namespace", "namespaces", true},
    {"", "Node", "nodes", true},
    {"", "PersistentVolumeClaim", "persistentvolumeclaims", true},
    {"", "ResourceQuota", "resourcequotas", true},
    {"apps", "Deployment", "deployments", true},
    {"apps", "StatefulSet", "statefulsets", true},
    {"apps", "DaemonSet", "daemonsets", true},
    {"apps", "ReplicaSet", "replicasets", true},
    {"batch", "Job", "jobs", true},
    {"batch", "CronJob", "cronjobs", true},
    {"events.k8s.io", "Event", "events", false},
    {"coordination.k8s.io", "Lease", "leases", false},
    {"node.k8s.io", "RuntimeClass", "runtimeclasses", false},
    {"scheduling.k8s.io", "PriorityClass", "priorityclasses", false},
    {"rbac.authorization.k8s.io", "Role", "roles", false},
    {"rbac.authorization.k8s.io", "ClusterRole", "clusterroles", false},
    {"rbac.authorization.k8s.io", "RoleBinding", "rolebindings", false},
    {"rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", false},
    {"admissionregistration.k8s.io", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", false},
    {"admissionregistration.k8s.io", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", false},
    {"apiextensions.k8s.io", "CustomResourceDefinition", "customresourcedefinitions", true},
    {"trainer.kubeflow.org", "TrainJob", "trainjobs", true},
    {"trainer.kubeflow.org", "TrainingRuntime", "trainingruntimes", false},
    {"trainer.kubeflow.org", "ClusterTrainingRuntime", "clustertrainingruntimes", false},
};

// Like apimachinery's UnsafeGuessKindToResource.
std::string guessPlural(std::string_view kind) {
    std::string s;
    for (char c : kind) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (s.empty()) return s;
    if (s.back() == 's') return s + "es";
    if (s.back() == 'y') return s.substr(0, s.size() - 1) + "ies";
    return s + "s";
}

}  // namespace

ResourceTable::ResourceTable() {
    for (auto const& r : kDefaultResources) entries_.push_back({{r.group, r.kind}, ResourceInfo{r.plural, r.status}});
}

void ResourceTable::add(std::string group, std::string kind, ResourceInfo info) {
    for (auto& e : entries_)
        if (e.first.first == group && e.first.second == kind) {
            e.second = std::move(info);
            return;
        }
    entries_.push_back({{std::move(group), std::move(kind)}, std::move(info)});
}

ResourceInfo ResourceTable::lookup(std::string_view apiVersion, std::string_view kind) const {
    auto group = groupOf(apiVersion);
    for (auto const& e : entries_)
        if (e.first.first == group && e.first.second == kind) return e.second;
    return ResourceInfo{guessPlural(kind), group.find('.') != std::string_view::npos};
}

std::string ResourceTable::qualifiedResource(std::string_view apiVersion, std::string_view kind) const {
    auto plural = lookup(apiVersion, kind).plural;
    auto group = groupOf(apiVersion);
    return group.empty() ? plural : plural + "." + std::string(group);
}

std::string formatRfc3339(std::chrono::system_clock::time_point t) {
    using namespace std::chrono;
    auto secs = floor<seconds>(t);
    auto days = floor<std::chrono::days>(secs);
    year_month_day ymd{days};
    hh_mm_ss hms{secs - days};
    const int year = static_cast<int>(ymd.year());
    if (year >= 0 && year <= 9999) {  // digits written in place: snprintf is most of the cost
        char out[] = "0000-00-00T00:00:00Z";
        auto two = [&](int at, unsigned v) {
            out[at] = static_cast<char>('0' + v / 10);
            out[at + 1] = static_cast<char>('0' + v % 10);
        };
        two(0, static_cast<unsigned>(year / 100));
        two(2, static_cast<unsigned>(year % 100));
        two(5, static_cast<unsigned>(ymd.month()));
        two(8, static_cast<unsigned>(ymd.day()));
        two(11, static_cast<unsigned>(hms.hours().count()));
        two(14, static_cast<unsigned>(hms.minutes().count()));
        two(17, static_cast<unsigned>(hms.seconds().count()));
        return std::string(out, sizeof out - 1);
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", year,
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                  static_cast<int>(hms.seconds().count()));
    return buf;
}

std::optional<std::chrono::system_clock::time_point> parseRfc3339(std::string_view s) {
    using namespace std::chrono;
    auto num = [&](size_t pos, size_t len, int& out) {
        if (pos + len > s.size()) return false;
        for (size_t i = pos; i < pos + len; ++i)
            if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
        return std::from_chars(s.data() + pos, s.data() + pos + len, out).ec == std::errc{};
    };
    int Y, M, D, h, m, sec;
    if (s.size() < 20 || !num(0, 4, Y) || s[4] != '-' || !num(5, 2, M) || s[7] != '-' || !num(8, 2, D) ||
        (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !num(11, 2, h) || s[13] != ':' || !num(14, 2, m) ||
        s[16] != ':' || !num(17, 2, sec))
        return std::nullopt;
    year_month_day ymd{year{Y}, month{static_cast<unsigned>(M)}, day{static_cast<unsigned>(D)}};
    if (!ymd.ok() || h > 23 || m > 59 || sec > 60) return std::nullopt;
    size_t pos = 19;
    nanoseconds frac{0};
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        int64_t value = 0, scale = 1000000000;
        size_t start = pos;
        while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
            if (scale > 1) {
                scale /= 10;
                value += (s[pos] - '0') * scale;
            }
            ++pos;
        }
        if (pos == start) return std::nullopt;
        frac = nanoseconds{value};
    }
    seconds offset{0};
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
        ++pos;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int oh, om;
        if (!num(pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !num(pos + 4, 2, om)) return std::nullopt;
        offset = hours{oh} + minutes{om};
        if (s[pos] == '-') offset = -offset;
        pos += 6;
    } else {
        return std::nullopt;
    }
    if (pos != s.size()) return std::nullopt;
    auto tp = sys_days{ymd} + hours{h} + minutes{m} + seconds{sec} - offset;
    return time_point_cast<system_clock::duration>(tp + frac);
}

namespace {

// Incremented in a forked child: the bytes a thread drew before the fork are its parent's too.
std::atomic<unsigned> forkGeneration{0};

// Random bytes for uids, drawn from OpenSSL's generator a block at a time: a RAND_bytes call
// costs about as much for 512 bytes as for 16 (~9 k instructions; the controller makes three
// uids per TrainJob it builds, issue 14 P4). Per thread, so never locked; a forked child
// discards what its parent drew.
class UidBytes {
public:
    void take(unsigned char* out, std::size_t n) {
        static const int registered = pthread_atfork(nullptr, nullptr, [] { forkGeneration.fetch_add(1); });
        (void)registered;
        if (used_ + n > block_.size() || generation_ != forkGeneration.load(std::memory_order_relaxed)) refill();
        std::copy_n(block_.data() + used_, n, out);
        std::fill_n(block_.data() + used_, n, 0);  // handed out once
        used_ += n;
    }

private:
    void refill() {
        generation_ = forkGeneration.load();
        used_ = 0;
        if (RAND_bytes(block_.data(), static_cast<int>(block_.size())) == 1) return;
        static thread_local std::mt19937_64 gen{std::random_device{}()};
        for (auto& c : block_) c = static_cast<unsigned char>(gen());
    }
    std::array<unsigned char, 512> block_{};
    std::size_t used_ = block_.size();
    unsigned generation_ = 0;
};

}  // namespace

std::string newUuid() {
    static thread_local UidBytes random;
    std::array<unsigned char, 16> b{};
    random.take(b.data(), b.size());
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < b.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
        out += hex[b[i] >> 4];
        out += hex[b[i] & 0x0f];
    }
    return out;
}

}  // namespace trainer::core
