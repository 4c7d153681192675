#include "core/kube/base64.hpp"

#include <array>

namespace trainer::core::kube {

namespace {

constexpr std::array<int, 256> decodeTable() {
    std::array<int, 256> t{};
    for (auto& v : t) v = -1;
    constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i) t[static_cast<unsigned char>(alphabet[i])] = static_cast<int>(i);
    return t;
}
constexpr auto kTable = decodeTable();

bool isNewline(char c) { return c == '\r' || c == '\n'; }

void skipNewlines(std::string_view s, std::size_t& i) {
    while (i < s.size() && isNewline(s[i])) ++i;
}

bool corrupt(std::size_t at, std::string& error) {
    error = "illegal base64 data at input byte " + std::to_string(at);
    return false;
}

void emit(const int (&q)[4], int n, std::string& out) {
    unsigned v = (unsigned(q[0]) << 18) | (unsigned(q[1]) << 12) | (unsigned(q[2]) << 6) | unsigned(q[3]);
    out += static_cast<char>((v >> 16) & 0xff);
    if (n > 2) out += static_cast<char>((v >> 8) & 0xff);
    if (n > 3) out += static_cast<char>(v & 0xff);
}

}  // namespace

// Follows Go's (*Encoding).decodeQuantum: a quantum is four symbols; "=" may only end one after
// two or three symbols; after the padding only newlines may follow.
bool decodeBase64(std::string_view s, std::string& out, std::string& error) {
    out.clear();
    std::size_t i = 0;
    while (true) {
        int q[4] = {0, 0, 0, 0};
        int j = 0;
        for (; j < 4; ++j) {
            skipNewlines(s, i);
            if (i == s.size()) {
                if (j == 0) return true;
                return corrupt(i - j, error);
            }
            char c = s[i++];
            if (c == '=') {
                if (j < 2) return corrupt(i - 1, error);
                if (j == 2) {
                    skipNewlines(s, i);
                    if (i == s.size()) return corrupt(s.size(), error);
                    if (s[i] != '=') return corrupt(i - 1, error);
                    ++i;
                }
                skipNewlines(s, i);
                if (i < s.size()) return corrupt(i, error);
                emit(q, j, out);
                return true;
            }
            int v = kTable[static_cast<unsigned char>(c)];
            if (v < 0) return corrupt(i - 1, error);
            q[j] = v;
        }
        emit(q, 4, out);
    }
}

}  // namespace trainer::core::kube
