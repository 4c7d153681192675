// The protobuf wire format, read field by field with every varint and length bounds-checked
// (https://protobuf.dev/programming-guides/encoding/). Error texts are those of upstream's gogo-generated
// Unmarshal code (e.g. k8s.io/apimachinery/pkg/runtime/generated.pb.go): "unexpected EOF",
// "proto: integer overflow", "proto: negative length found during unmarshaling", ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace trainer::core::apiserver {

enum class WireType : int {
    Varint = 0,
    Fixed64 = 1,
    LengthDelimited = 2,
    StartGroup = 3,  // groups are not read: reported to the caller without a payload
    EndGroup = 4,
    Fixed32 = 5,
};

struct WireField {
    std::uint32_t number = 0;
    WireType wireType = WireType::Varint;
    std::uint64_t varint = 0;  // Varint, Fixed64 and Fixed32 values (little-endian for the fixed ones)
    std::string_view bytes;    // LengthDelimited payload, a view into the reader's data
};

class WireReader {
public:
    explicit WireReader(std::string_view data) : data_(data) {}

    bool atEnd() const { return pos_ >= data_.size(); }

    // The next field of message `goName` (named in errors); false with `error` set when the data is
    // malformed. A StartGroup field comes back with no payload read: the caller rejects it.
    bool next(std::string_view goName, WireField& field, std::string& error);

    // One varint (also used to read packed repeated numbers).
    bool varint(std::uint64_t& value, std::string& error);

private:
    bool fixed(std::size_t width, std::uint64_t& value, std::string& error);
    bool lengthDelimited(std::string_view& payload, std::string& error);

    std::string_view data_;
    std::size_t pos_ = 0;
};

// "proto: wrong wireType = N for field Name"
std::string wrongWireTypeError(WireType got, std::string_view goFieldName);

// A field of a small, fixed message read with forEachField.
struct FlatField {
    std::uint32_t number;
    WireType wireType;
    std::string_view goName;
};

// Calls visit(index into spec, field) for each occurrence of a field in `spec`, in wire order, after
// checking its wire type; skips other fields; rejects groups. visit returns false (with `error` set) to
// stop. Used for runtime.Unknown, TypeMeta, map entries, Time, IntOrString, Quantity and the like.
template <class Visit>
bool forEachField(std::string_view goName, std::string_view data, std::span<const FlatField> spec, Visit&& visit,
                  std::string& error) {
    WireReader reader(data);
    while (!reader.atEnd()) {
        WireField field;
        if (!reader.next(goName, field, error)) return false;
        std::size_t i = 0;
        while (i < spec.size() && spec[i].number != field.number) ++i;
        if (i == spec.size()) {
            if (field.wireType == WireType::StartGroup) {
                error = "proto: " + std::string(goName) + ": groups are not supported (field " +
                        std::to_string(field.number) + ")";
                return false;
            }
            continue;
        }
        if (field.wireType != spec[i].wireType) {
            error = wrongWireTypeError(field.wireType, spec[i].goName);
            return false;
        }
        if (!visit(i, field)) return false;
    }
    return true;
}

}  // namespace trainer::core::apiserver
