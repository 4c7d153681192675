// A JSON document serialised into memory that is zeroed before it is freed, growth included:
// what Context::emit hands the host. A document that carries a secret (the mpi plugin's SSH
// key, flux's CURVE key) thus leaves no copy in the plugin's heap once the host has copied it
// (test/plugins/mpi/test_key_wipe.cpp watches every freed block for the key).
#pragma once

#include <boost/json.hpp>

#include <cstddef>
#include <cstring>
#include <new>
#include <string_view>
#include <type_traits>

namespace trainer::sdk {

// Zeroes `size` bytes at `data` in a way the compiler may not drop: memset, then an empty asm
// statement that may read the memory (as glibc's explicit_bzero). A loop of volatile byte stores
// did the same at a byte per cycle: 7 % of `render`'s time (issue 14 P1).
inline void secureZero(void* data, std::size_t size) {
    std::memset(data, 0, size);
    __asm__ __volatile__("" : : "r"(data) : "memory");
}

class WipedText {
public:
    // Empty; built with append() and appendJson().
    WipedText() = default;
    // A json::value or json::object (serialised as it is).
    template <class Doc>
    explicit WipedText(const Doc& doc) {
        appendJson(doc);
    }
    // Bytes as they are (JSON punctuation and member names the caller knows need no escaping).
    void append(std::string_view raw) {
        reserve(size_ + raw.size());
        std::memcpy(data_ + size_, raw.data(), raw.size());
        size_ += raw.size();
    }
    // A json::value, json::object or json::array serialised, or a string_view as a JSON string
    // (quoted and escaped as boost::json::serialize writes it).
    template <class Doc>
    void appendJson(const Doc& doc) {
        boost::json::serializer sr;
        if constexpr (std::is_convertible_v<const Doc&, std::string_view>)
            sr.reset(boost::json::string_view(std::string_view(doc)));
        else
            sr.reset(&doc);
        reserve(size_ + 64);
        while (true) {
            size_ += sr.read(data_ + size_, capacity_ - size_).size();
            if (sr.done()) break;
            grow(capacity_ * 2);
        }
    }
    ~WipedText() { release(); }
    WipedText(const WipedText&) = delete;
    WipedText& operator=(const WipedText&) = delete;

    std::string_view view() const { return {data_, size_}; }

private:
    // Room for `size` bytes: the first buffer is 1 KiB, each later one twice the last.
    void reserve(std::size_t size) {
        if (size <= capacity_) return;
        std::size_t capacity = capacity_ ? capacity_ * 2 : 1024;
        while (capacity < size) capacity *= 2;
        grow(capacity);
    }
    // A larger buffer; the old one is zeroed and freed after its bytes are copied over.
    void grow(std::size_t capacity) {
        char* bigger = static_cast<char*>(::operator new(capacity));
        for (std::size_t i = 0; i < size_; ++i) bigger[i] = data_[i];
        release();
        data_ = bigger;
        capacity_ = capacity;
    }
    void release() {
        if (!data_) return;
        secureZero(data_, capacity_);
        ::operator delete(data_);
        data_ = nullptr;
    }

    char* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

}  // namespace trainer::sdk
