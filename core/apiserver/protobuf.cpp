// Kubernetes protobuf request bodies to JSON, driven by the descriptor table in protobuf_schema.cpp.
// The envelope and its errors follow k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go
// (Serializer.Decode); value conversions follow the JSON marshalers of metav1.Time, metav1.MicroTime,
// intstr.IntOrString, resource.Quantity, metav1.FieldsV1 and Go's encoding/json.
#include "core/apiserver/protobuf.hpp"

#include "core/apiserver/protobuf_schema.hpp"
#include "core/apiserver/protobuf_wire.hpp"

#include <array>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <vector>

namespace trainer::core::apiserver {

namespace {

constexpr std::string_view kMagic{"k8s\0", 4};
// The scheme kube-apiserver decodes built-in kinds with (its name is its NewScheme call site).
constexpr std::string_view kSchemeName = "pkg/api/legacyscheme/scheme.go:30";
constexpr int kMaxDepth = 64;
constexpr std::int64_t kZeroTimeUnixSeconds = -62135596800;  // time.Time{}.Unix(): 0001-01-01T00:00:00Z

using K = ProtoFieldKind;
using FieldList = std::vector<const ProtoField*>;

const std::unordered_map<std::string_view, FieldList>& messageIndex() {
    static const auto index = [] {
        std::unordered_map<std::string_view, FieldList> m;
        for (const auto& f : protoFieldTable()) m[f.message].push_back(&f);
        return m;
    }();
    return index;
}

// ---- JSON spellings of wire values -------------------------------------------------------------

// Go's encoding/json writes each byte that is not part of valid UTF-8 as U+FFFD.
std::string validUtf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const auto b = static_cast<unsigned char>(s[i]);
        auto cont = [&](std::size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
            if (i + k >= s.size()) return false;
            const auto c = static_cast<unsigned char>(s[i + k]);
            return c >= lo && c <= hi;
        };
        std::size_t n = 0;
        if (b < 0x80) n = 1;
        else if (b >= 0xC2 && b <= 0xDF && cont(1)) n = 2;
        else if (b == 0xE0 && cont(1, 0xA0) && cont(2)) n = 3;
        else if (((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) && cont(1) && cont(2)) n = 3;
        else if (b == 0xED && cont(1, 0x80, 0x9F) && cont(2)) n = 3;
        else if (b == 0xF0 && cont(1, 0x90) && cont(2) && cont(3)) n = 4;
        else if (b >= 0xF1 && b <= 0xF3 && cont(1) && cont(2) && cont(3)) n = 4;
        else if (b == 0xF4 && cont(1, 0x80, 0x8F) && cont(2) && cont(3)) n = 4;
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

// []byte in Go's encoding/json: standard base64 with padding.
std::string base64(std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t chunk = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        if (i + 2 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 2]);
        out += kAlphabet[(chunk >> 18) & 63];
        out += kAlphabet[(chunk >> 12) & 63];
        out += i + 1 < bytes.size() ? kAlphabet[(chunk >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? kAlphabet[chunk & 63] : '=';
    }
    return out;
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// RFC 3339 in UTC as Go's time.Format writes it: whole seconds, or 6 fractional digits for MicroTime.
std::string formatUtc(std::int64_t unixSeconds, int micros, bool withMicros) {
    const std::int64_t days = floorDiv(unixSeconds, 86400);
    std::int64_t secondOfDay = unixSeconds % 86400;
    if (secondOfDay < 0) secondOfDay += 86400;
    // Civil date from days since 1970-01-01 (http://howardhinnant.github.io/date_algorithms.html).
    const std::int64_t z = days + 719468;
    const std::int64_t era = floorDiv(z, 146097);
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
    const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
    const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    char buf[96];
    const int n = std::snprintf(buf, sizeof buf, "%s%04lld-%02lld-%02lldT%02lld:%02lld:%02lld", year < 0 ? "-" : "",
                                static_cast<long long>(year < 0 ? -year : year), static_cast<long long>(month),
                                static_cast<long long>(day), static_cast<long long>(secondOfDay / 3600),
                                static_cast<long long>(secondOfDay / 60 % 60), static_cast<long long>(secondOfDay % 60));
    std::string out(buf, static_cast<std::size_t>(n));
    if (withMicros) {
        std::snprintf(buf, sizeof buf, ".%06d", micros);
        out += buf;
    }
    return out + "Z";
}

// ---- the small messages with their own JSON form ----------------------------------------------

constexpr WireType kVarint = WireType::Varint;
constexpr WireType kBytes = WireType::LengthDelimited;

// metav1.Time (seconds only, as its Unmarshal keeps) and metav1.MicroTime (nanos truncated to micros).
bool readTime(std::string_view data, bool micro, json::value& out, std::string& error) {
    out = nullptr;
    if (data.empty()) return true;  // Unmarshal of no bytes: the zero time
    static constexpr FlatField kSpec[] = {{1, kVarint, "Seconds"}, {2, kVarint, "Nanos"}};
    std::int64_t seconds = 0;
    std::int32_t nanos = 0;
    const bool ok = forEachField("Timestamp", data, kSpec, [&](std::size_t i, const WireField& f) {
        if (i == 0) seconds = static_cast<std::int64_t>(f.varint);
        else nanos = static_cast<std::int32_t>(static_cast<std::uint32_t>(f.varint));
        return true;
    }, error);
    if (!ok) return false;
    std::int64_t subsecond = micro ? nanos / 1000 * 1000 : 0;
    const std::int64_t carry = floorDiv(subsecond, 1000000000);
    if (__builtin_add_overflow(seconds, carry, &seconds)) {
        error = "proto: Timestamp: seconds out of range";
        return false;
    }
    subsecond -= carry * 1000000000;
    if (seconds == kZeroTimeUnixSeconds && subsecond == 0) return true;  // MarshalJSON of the zero time: null
    out = json::string(formatUtc(seconds, static_cast<int>(subsecond / 1000), micro));
    return true;
}

bool readIntOrString(std::string_view data, json::value& out, std::string& error) {
    static constexpr FlatField kSpec[] = {{1, kVarint, "Type"}, {2, kVarint, "IntVal"}, {3, kBytes, "StrVal"}};
    std::int64_t type = 0;
    std::int32_t intVal = 0;
    std::string_view strVal;
    const bool ok = forEachField("IntOrString", data, kSpec, [&](std::size_t i, const WireField& f) {
        if (i == 0) type = static_cast<std::int64_t>(f.varint);
        else if (i == 1) intVal = static_cast<std::int32_t>(static_cast<std::uint32_t>(f.varint));
        else strVal = f.bytes;
        return true;
    }, error);
    if (!ok) return false;
    if (type == 0) out = intVal;
    else if (type == 1) out = json::string(validUtf8(strVal));
    else {
        error = "impossible IntOrString.Type";
        return false;
    }
    return true;
}

// resource.Quantity travels as {1: its string}; the string is passed on as written.
bool readQuantity(std::string_view data, json::value& out, std::string& error) {
    static constexpr FlatField kSpec[] = {{1, kBytes, "String"}};
    out = "0";  // the zero Quantity
    return forEachField("Quantity", data, kSpec, [&](std::size_t, const WireField& f) {
        out = json::string(validUtf8(f.bytes));
        return true;
    }, error);
}

// metav1.FieldsV1 / runtime.RawExtension: {1: raw JSON}, written as that JSON.
bool readRawJson(std::string_view data, json::value& out, std::string& error) {
    static constexpr FlatField kSpec[] = {{1, kBytes, "Raw"}};
    out = nullptr;
    return forEachField("FieldsV1", data, kSpec, [&](std::size_t, const WireField& f) {
        if (f.bytes.empty()) return true;
        boost::system::error_code ec;
        out = json::parse(f.bytes, ec);
        if (ec) error = "json: error calling MarshalJSON for type *v1.FieldsV1: " + ec.message();
        return !ec;
    }, error);
}

// A message {1: repeated string} whose Go type is a []string (authentication/v1 ExtraValue).
bool readStringList(std::string_view data, json::value& out, std::string& error) {
    static constexpr FlatField kSpec[] = {{1, kBytes, "Items"}};
    json::array items;
    const bool ok = forEachField("ExtraValue", data, kSpec, [&](std::size_t, const WireField& f) {
        items.emplace_back(json::string(validUtf8(f.bytes)));
        return true;
    }, error);
    if (items.empty()) out = nullptr;
    else out = std::move(items);
    return ok;
}

// ---- schema-driven messages -------------------------------------------------------------------

bool isVarintKind(K kind) { return kind == K::Bool || kind == K::Int32 || kind == K::Int64; }

WireType wireTypeOf(K kind) { return isVarintKind(kind) ? kVarint : kBytes; }

std::string goFieldName(const ProtoField& f) {
    std::string name(f.jsonName.empty() ? f.messageType.substr(f.messageType.rfind('.') + 1) : f.jsonName);
    if (!name.empty() && name[0] >= 'a' && name[0] <= 'z') name[0] = static_cast<char>(name[0] - 'a' + 'A');
    return name;
}

std::string_view goMessageName(std::string_view message) { return message.substr(message.rfind('.') + 1); }

// The JSON of a Go field holding its zero value, when it is not omitted.
json::value zeroValue(K kind) {
    switch (kind) {
        case K::String: return "";
        case K::Bool: return false;
        case K::Int32:
        case K::Int64:
        case K::IntOrString: return 0;
        case K::Quantity: return "0";
        default: return nullptr;  // nil []byte, zero Time/MicroTime, nil FieldsV1 or list
    }
}

bool isEmptyJson(const json::value& v) {
    switch (v.kind()) {
        case json::kind::null: return true;
        case json::kind::bool_: return !v.get_bool();
        case json::kind::int64: return v.get_int64() == 0;
        case json::kind::uint64: return v.get_uint64() == 0;
        case json::kind::double_: return v.get_double() == 0;
        case json::kind::string: return v.get_string().empty();
        case json::kind::array: return v.get_array().empty();
        case json::kind::object: return v.get_object().empty();
    }
    return false;
}

// What the wire said about one field of one message.
struct Slot {
    bool present = false;
    std::vector<std::string_view> parts;         // singular messages: every occurrence, merged on decode
    json::value value;                           // other singular fields: the last occurrence
    json::array items;                           // repeated fields
    std::map<std::string, json::value> entries;  // maps, in Go's encoding/json key order
};

class MessageDecoder {
public:
    std::string error;

    // Decodes the occurrences `parts` of `message` into `out` (fields in the Go struct's order).
    bool decode(std::string_view message, std::span<const std::string_view> parts, json::object& out, int depth) {
        if (depth > kMaxDepth) {
            error = "proto: " + std::string(goMessageName(message)) + ": exceeded the maximum nesting depth of " +
                    std::to_string(kMaxDepth);
            return false;
        }
        const auto it = messageIndex().find(message);
        if (it == messageIndex().end()) {
            error = "proto: no descriptor for message " + std::string(message);
            return false;
        }
        const FieldList& fields = it->second;
        std::vector<Slot> slots(fields.size());
        for (const auto part : parts) {
            if (!readFields(message, fields, part, slots, depth)) return false;
        }
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (!emit(*fields[i], slots[i], out, depth)) return false;
        }
        return true;
    }

private:
    bool readFields(std::string_view message, const FieldList& fields, std::string_view data, std::vector<Slot>& slots,
                    int depth) {
        WireReader reader(data);
        while (!reader.atEnd()) {
            WireField w;
            if (!reader.next(goMessageName(message), w, error)) return false;
            std::size_t i = 0;
            while (i < fields.size() && fields[i]->number != w.number) ++i;
            if (i < fields.size()) {
                if (!accept(*fields[i], w, slots[i], depth)) return false;
            } else if (w.wireType == WireType::StartGroup) {
                error = "proto: " + std::string(goMessageName(message)) + ": groups are not supported (field " +
                        std::to_string(w.number) + ")";
                return false;
            }
        }
        return true;
    }

    // One wire value of `kind` as JSON.
    bool element(K kind, std::string_view messageType, const WireField& w, json::value& out, int depth) {
        switch (kind) {
            case K::String: out = json::string(validUtf8(w.bytes)); return true;
            case K::Bytes: out = json::string(base64(w.bytes)); return true;
            case K::Bool: out = w.varint != 0; return true;
            case K::Int32: out = static_cast<std::int32_t>(static_cast<std::uint32_t>(w.varint)); return true;
            case K::Int64: out = static_cast<std::int64_t>(w.varint); return true;
            case K::Time: return readTime(w.bytes, false, out, error);
            case K::MicroTime: return readTime(w.bytes, true, out, error);
            case K::IntOrString: return readIntOrString(w.bytes, out, error);
            case K::Quantity: return readQuantity(w.bytes, out, error);
            case K::RawJson: return readRawJson(w.bytes, out, error);
            case K::StringList: return readStringList(w.bytes, out, error);
            case K::Message: break;
        }
        json::object object;
        const std::string_view parts[] = {w.bytes};
        if (!decode(messageType, parts, object, depth + 1)) return false;
        out = std::move(object);
        return true;
    }

    // A map entry {1: key, 2: value}; a missing value is the value type's zero (gogo's map decoding).
    bool mapEntry(const ProtoField& f, std::string_view entry, Slot& slot, int depth) {
        const FlatField spec[] = {{1, kBytes, "key"}, {2, wireTypeOf(f.kind), "value"}};
        std::string key;
        json::value value = f.kind == K::Bytes ? json::value("") : zeroValue(f.kind);
        const bool ok = forEachField("MapEntry", entry, spec, [&](std::size_t i, const WireField& w) {
            if (i == 0) {
                key = validUtf8(w.bytes);
                return true;
            }
            return element(f.kind, f.messageType, w, value, depth);
        }, error);
        if (ok) slot.entries.insert_or_assign(std::move(key), std::move(value));
        return ok;
    }

    bool accept(const ProtoField& f, const WireField& w, Slot& slot, int depth) {
        const bool packed = f.shape == ProtoFieldShape::Repeated && isVarintKind(f.kind) && w.wireType == kBytes;
        if (w.wireType != wireTypeOf(f.kind) && !packed) {
            error = wrongWireTypeError(w.wireType, goFieldName(f));
            return false;
        }
        slot.present = true;
        if (f.shape == ProtoFieldShape::Map) return mapEntry(f, w.bytes, slot, depth);
        if (f.shape == ProtoFieldShape::Single) {
            if (f.kind != K::Message) return element(f.kind, f.messageType, w, slot.value, depth);
            slot.parts.push_back(w.bytes);
            return true;
        }
        if (!packed) return element(f.kind, f.messageType, w, slot.items.emplace_back(nullptr), depth);
        WireReader reader(w.bytes);
        while (!reader.atEnd()) {
            WireField item;
            if (!reader.varint(item.varint, error)) return false;
            if (!element(f.kind, f.messageType, item, slot.items.emplace_back(nullptr), depth)) return false;
        }
        return true;
    }

    // Writes the field into `out` as Go's encoding/json would write the Go field.
    bool emit(const ProtoField& f, Slot& slot, json::object& out, int depth) {
        if (f.presence == ProtoPresence::Inline) {
            json::object inlined;
            if (!decode(f.messageType, slot.parts, inlined, depth + 1)) return false;
            for (auto& kv : inlined) out.emplace(kv.key(), std::move(kv.value()));  // the outer field wins
            return true;
        }
        if (!slot.present && f.presence != ProtoPresence::Always) return true;
        json::value value;
        if (f.shape == ProtoFieldShape::Map) {
            if (slot.present) {
                json::object object;
                for (auto& [key, v] : slot.entries) object.emplace(key, std::move(v));
                value = std::move(object);
            }
        } else if (f.shape == ProtoFieldShape::Repeated) {
            if (slot.present) value = std::move(slot.items);
        } else if (f.kind == K::Message) {
            json::object object;
            if (!decode(f.messageType, slot.parts, object, depth + 1)) return false;
            value = std::move(object);
        } else {
            value = slot.present ? std::move(slot.value) : zeroValue(f.kind);
        }
        if (f.presence == ProtoPresence::OmitEmpty && isEmptyJson(value)) return true;
        out.insert_or_assign(f.jsonName, std::move(value));
        return true;
    }
};

// ---- the runtime.Unknown envelope -------------------------------------------------------------

struct Envelope {
    std::string apiVersion;
    std::string kind;
    std::string_view raw;
};

bool readEnvelope(std::string_view data, Envelope& envelope, std::string& error) {
    static constexpr FlatField kTypeMeta[] = {{1, kBytes, "APIVersion"}, {2, kBytes, "Kind"}};
    static constexpr FlatField kUnknown[] = {
        {1, kBytes, "TypeMeta"}, {2, kBytes, "Raw"}, {3, kBytes, "ContentEncoding"}, {4, kBytes, "ContentType"}};
    return forEachField("Unknown", data, kUnknown, [&](std::size_t i, const WireField& f) {
        if (i == 1) envelope.raw = f.bytes;
        if (i != 0) return true;
        return forEachField("TypeMeta", f.bytes, kTypeMeta, [&](std::size_t j, const WireField& g) {
            (j == 0 ? envelope.apiVersion : envelope.kind) = std::string(g.bytes);
            return true;
        }, error);
    }, error);
}

// Go's %q of a string (the quoting in upstream's messages), for the printable ASCII it mostly sees.
std::string goQuote(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        const auto b = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') out += {'\\', c};
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else if (b < 0x20 || b == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", b);
            out += buf;
        } else out += c;
    }
    return validUtf8(out + "\"");
}

struct GroupVersion {
    std::string group;
    std::string version;
    std::string text() const { return group.empty() ? version : group + "/" + version; }
};

// schema.ParseGroupVersion; an unparsable value (more than one '/') reads as empty, as
// schema.FromAPIVersionAndKind treats it.
GroupVersion parseGroupVersion(std::string_view apiVersion) {
    if (apiVersion.empty() || apiVersion == "/") return {};
    const auto slash = apiVersion.find('/');
    if (slash == std::string_view::npos) return {"", std::string(apiVersion)};
    if (apiVersion.find('/', slash + 1) != std::string_view::npos) return {};
    return {std::string(apiVersion.substr(0, slash)), std::string(apiVersion.substr(slash + 1))};
}

const ProtoKind* findKind(std::string_view apiVersion, std::string_view kind) {
    for (const auto& k : protoKindTable()) {
        if (k.apiVersion == apiVersion && k.kind == kind) return &k;
    }
    return nullptr;
}

ProtobufDecodeResult failure(std::string error) { return {false, {}, std::move(error)}; }

}  // namespace

ProtobufDecodeResult decodeKubernetesProtobuf(std::string_view body, const ProtobufTypeDefaults& defaults) {
    if (body.empty()) return failure("empty data");
    if (body.size() < kMagic.size() || body.substr(0, kMagic.size()) != kMagic)
        return failure("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
    if (body.size() == kMagic.size()) return failure("empty body");

    Envelope envelope;
    std::string error;
    if (!readEnvelope(body.substr(kMagic.size()), envelope, error)) return failure(std::move(error));

    // copyKindDefaults(&actual, gvk)
    GroupVersion gv = parseGroupVersion(envelope.apiVersion);
    std::string kind = envelope.kind.empty() ? std::string(defaults.kind) : envelope.kind;
    if (gv.version.empty()) {
        if (GroupVersion d = parseGroupVersion(defaults.apiVersion); !d.version.empty()) gv = std::move(d);
    }
    const std::string typeMeta =
        "runtime.TypeMeta{APIVersion:" + goQuote(envelope.apiVersion) + ", Kind:" + goQuote(envelope.kind) + "}";
    if (kind.empty()) return failure("Object 'Kind' is missing in '" + typeMeta + "'");
    if (gv.version.empty()) return failure("Object 'apiVersion' is missing in '" + typeMeta + "'");

    const std::string apiVersion = gv.text();
    const ProtoKind* entry = findKind(apiVersion, kind);
    if (entry == nullptr) {
        return failure("no kind " + goQuote(kind) + " is registered for version " + goQuote(apiVersion) +
                       " in scheme " + goQuote(kSchemeName));
    }
    json::object fields;
    MessageDecoder decoder;
    const std::string_view parts[] = {envelope.raw};
    if (!decoder.decode(entry->message, parts, fields, 0)) return failure(std::move(decoder.error));

    ProtobufDecodeResult result;
    result.ok = true;
    result.object.emplace("kind", validUtf8(kind));
    result.object.emplace("apiVersion", validUtf8(apiVersion));
    for (auto& kv : fields) result.object.emplace(kv.key(), std::move(kv.value()));
    return result;
}

}  // namespace trainer::core::apiserver
