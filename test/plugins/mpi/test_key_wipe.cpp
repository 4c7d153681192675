// The mpi plugin leaves no copy of its SSH private key in freed memory (plugins/mpi/README.md:
// "the plugin wipes its copies of the private key after handing the Secret to the host").
//
// This program replaces the global operator new/delete and OpenSSL's allocator with ones that,
// while a case records, keep a copy of every block as it is freed. The case then searches those
// copies for the key's private scalar as the plugin encodes it (its PEM text, and the PEM's
// base64: the Secret's `ssh-privatekey`); each block found is logged (--log_level=message;
// KEY_WIPE_DUMP=1 prints its bytes). Removing any wipe makes a case fail: SshKeyPair's destructor
// and move assignment, wipe() itself, OPENSSL_clear_free of the encoder's PEM, sshAuthSecret's
// wipe of its base64 copy, build()'s cleanse of the emitted Secret, and the SDK's emit buffer
// (sdk/include/trainer/wiped_text.hpp), which holds the serialised Secret.
#define BOOST_TEST_MODULE plugin_mpi_key_wipe
#include <boost/test/unit_test.hpp>

#include "mpi.hpp"
#include "ssh_key.hpp"

#include <openssl/crypto.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace mpi = trainer::plugins::mpi;
namespace sdk = trainer::sdk;
namespace json = boost::json;

// ---- What was freed while recording: copies kept in malloc'd memory, never through operator new.
namespace freed {

struct Block {
    char* data;
    std::size_t size;
    const char* by;  // "operator delete" or "OpenSSL"
};
std::atomic<bool> recording{false};
std::atomic_flag busy = ATOMIC_FLAG_INIT;
Block* blocks = nullptr;
std::size_t count = 0, capacity = 0;

void keep(const void* p, std::size_t n, const char* by) {
    if (!p || n == 0 || !recording.load(std::memory_order_relaxed)) return;
    while (busy.test_and_set(std::memory_order_acquire)) {
    }
    if (count == capacity) {
        std::size_t grown = capacity ? capacity * 2 : 1024;
        if (void* b = std::realloc(blocks, grown * sizeof(Block))) {
            blocks = static_cast<Block*>(b);
            capacity = grown;
        }
    }
    if (count < capacity)
        if (char* copy = static_cast<char*>(std::malloc(n))) {
            std::memcpy(copy, p, n);
            blocks[count++] = Block{copy, n, by};
        }
    busy.clear(std::memory_order_release);
}

void forget() {
    for (std::size_t i = 0; i < count; ++i) std::free(blocks[i].data);
    count = 0;
}

// Records every block freed while it lives (and forgets the last scope's on entry).
struct Recording {
    Recording() {
        forget();
        recording = true;
    }
    ~Recording() { recording = false; }
};

// How many recorded blocks hold any of `needles` (each one named in the test's log).
std::size_t holding(const std::vector<std::string>& needles) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < count; ++i) {
        std::string_view block(blocks[i].data, blocks[i].size);
        for (auto const& needle : needles)
            if (auto at = block.find(needle); at != std::string_view::npos) {
                ++n;
                BOOST_TEST_MESSAGE("a block of " << blocks[i].size << " bytes freed by " << blocks[i].by
                                                 << " holds key material at offset " << at);
                if (std::getenv("KEY_WIPE_DUMP")) {
                    std::string shown;
                    for (char c : block) shown += (c >= 32 && c < 127) ? c : '.';
                    BOOST_TEST_MESSAGE(shown);
                }
                break;
            }
    }
    return n;
}

void release(void* p, const char* by = "operator delete") {
    if (!p) return;
    keep(p, ::malloc_usable_size(p), by);
    std::free(p);
}

// OpenSSL's allocator (CRYPTO_set_mem_functions): a realloc that moves keeps the old block too.
void* cryptoMalloc(std::size_t n, const char*, int) { return std::malloc(n); }
void* cryptoRealloc(void* p, std::size_t n, const char*, int) {
    if (!p) return std::malloc(n);
    if (n == 0) {
        release(p, "OpenSSL's realloc");
        return nullptr;
    }
    std::size_t old = ::malloc_usable_size(p);
    void* q = std::malloc(n);
    if (!q) return nullptr;
    std::memcpy(q, p, old < n ? old : n);
    release(p, "OpenSSL's realloc");
    return q;
}
void cryptoFree(void* p, const char*, int) { release(p, "OpenSSL's free"); }
// Installed before main(), before OpenSSL allocates anything (it refuses afterwards).
const bool kCryptoHooked = CRYPTO_set_mem_functions(cryptoMalloc, cryptoRealloc, cryptoFree) == 1;

void* allocate(std::size_t n, std::size_t align = 0) {
    if (n == 0) n = 1;
    void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (n + align - 1) / align * align) : std::malloc(n);
    if (!p) throw std::bad_alloc();
    return p;
}

}  // namespace freed

void* operator new(std::size_t n) { return freed::allocate(n); }
void* operator new[](std::size_t n) { return freed::allocate(n); }
void* operator new(std::size_t n, std::align_val_t a) { return freed::allocate(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return freed::allocate(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void operator delete(void* p) noexcept { freed::release(p); }
void operator delete[](void* p) noexcept { freed::release(p); }
void operator delete(void* p, std::size_t) noexcept { freed::release(p); }
void operator delete[](void* p, std::size_t) noexcept { freed::release(p); }
void operator delete(void* p, std::align_val_t) noexcept { freed::release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { freed::release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { freed::release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { freed::release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { freed::release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { freed::release(p); }

namespace {

// Which characters of base64(bytes) encode secret bytes only: character j carries bits
// [6j, 6j + 6) of the input.
std::vector<bool> secretInBase64(const std::vector<bool>& secretBytes) {
    std::vector<bool> out(4 * ((secretBytes.size() + 2) / 3), false);
    for (std::size_t j = 0; j < out.size(); ++j) {
        std::size_t first = 6 * j / 8, last = (6 * j + 5) / 8;
        out[j] = last < secretBytes.size() && secretBytes[first] && secretBytes[last];
    }
    return out;
}

// Runs of 16 characters of `text` that are all secret, one starting every 4: even a partial copy
// of the key text holds one.
std::vector<std::string> secretWindows(const std::string& text, const std::vector<bool>& secret) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i + 16 <= text.size() && i + 16 <= secret.size(); i += 4)
        if (std::all_of(secret.begin() + static_cast<long>(i), secret.begin() + static_cast<long>(i + 16), [](bool b) { return b; }))
            out.push_back(text.substr(i, 16));
    return out;
}

std::string base64Decode(const std::string& b64) {
    std::string out(b64.size() / 4 * 3, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(b64.data()),
                            static_cast<int>(b64.size()));
    out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    for (auto c = b64.rbegin(); c != b64.rend() && *c == '=' && !out.empty(); ++c) out.pop_back();  // padding
    return out;
}

// The private scalar d (66 bytes for P-521), as OpenSSL reads it back from the PEM.
std::string privateScalar(const std::string& pem) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr),
                                                            &EVP_PKEY_free);
    BOOST_REQUIRE_MESSAGE(key, "the PEM does not read back as a private key");
    BIGNUM* d = nullptr;
    BOOST_REQUIRE(EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_PRIV_KEY, &d) == 1);
    std::string out(66, '\0');
    int n = BN_bn2binpad(d, reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(out.size()));
    BN_clear_free(d);
    BOOST_REQUIRE(n == 66);
    return out;
}

// Needles for a private key: the text encodings of its private scalar the plugin makes (the PEM
// also carries the curve and the public point, which the Secret's public half and
// authorized_keys repeat): the PEM characters that encode the scalar and nothing else, and the
// characters of the PEM's base64 (the Secret's `ssh-privatekey`) that encode only those. The
// scalar's raw bytes are not searched: OpenSSL 3.0's SEC1 encoder itself frees a 66-byte copy
// of them uncleared (EC_KEY_priv2buf inside i2d_ECPrivateKey), which no caller can reach.
std::vector<std::string> keyNeedles(const std::string& pem) {
    const std::string d = privateScalar(pem);
    const std::string head = "-----BEGIN EC PRIVATE KEY-----\n";
    auto end = pem.find("-----END");
    BOOST_REQUIRE(pem.rfind(head, 0) == 0u && end != std::string::npos);
    std::string body;
    for (std::size_t i = head.size(); i < end; ++i)
        if (pem[i] != '\n') body += pem[i];
    const std::string der = base64Decode(body);
    const auto at = der.find(d);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, "the private scalar is not in the key's DER");
    std::vector<bool> secretDer(der.size(), false);
    std::fill(secretDer.begin() + static_cast<long>(at), secretDer.begin() + static_cast<long>(at + d.size()), true);
    const auto secretBody = secretInBase64(secretDer);
    std::vector<bool> secretPem(pem.size(), false);  // the armour and the line breaks are not secret
    for (std::size_t i = head.size(), k = 0; i < end; ++i)
        if (pem[i] != '\n') secretPem[i] = secretBody[k++];
    auto out = secretWindows(pem, secretPem);
    for (auto& w : secretWindows(mpi::base64Encode(pem), secretInBase64(secretPem))) out.push_back(std::move(w));
    return out;
}

mpi::SshKeyPair newKey() {
    std::string error;
    auto k = mpi::generateSshKeyPair(error);
    BOOST_TEST_REQUIRE(k.has_value(), error);
    return std::move(*k);
}

json::object infoDoc() {
    return json::parse(R"({"infoVersion":1,
        "trainJob":{"metadata":{"name":"pi","namespace":"default","uid":"u-1"},"spec":{}},
        "runtimePolicy":{"mlPolicy":{"numNodes":2,"mpi":{"mpiImplementation":"OpenMPI","numProcPerNode":1}}},
        "podSets":[{"name":"launcher","count":1,"containers":[],"endpoints":["pi-launcher-0-0.pi"]},
                   {"name":"node","count":2,"containers":[{"name":"node"}],
                    "endpoints":["pi-node-0-0.pi","pi-node-0-1.pi"]}]})")
        .as_object();
}

// A host whose callbacks copy into malloc'd memory, so nothing the host keeps is freed (or
// counted) while a case records. Lookups find nothing: the plugin makes a new Secret.
struct RecordingHost {
    trn_host_api api{};
    std::vector<char*> docs;  // reserved up front: no growth while recording
    int errors = 0;
    RecordingHost() {
        api.struct_size = sizeof api;
        api.emit = [](trn_call* c, trn_str doc) {
            auto& h = *reinterpret_cast<RecordingHost*>(c);
            auto text = sdk::fromAbi(doc);
            char* copy = static_cast<char*>(std::malloc(text.size() + 1));
            std::memcpy(copy, text.data(), text.size());
            copy[text.size()] = '\0';
            if (h.docs.size() < h.docs.capacity()) h.docs.push_back(copy);
        };
        api.diagnostic = [](trn_call* c, int32_t severity, trn_str, trn_str) {
            if (severity == TRN_SEVERITY_ERROR) ++reinterpret_cast<RecordingHost*>(c)->errors;
        };
        api.lookup = [](trn_call*, trn_str, trn_str, trn_str, trn_str, trn_str*) -> int32_t { return TRN_LOOKUP_NOT_FOUND; };
        docs.reserve(16);
    }
    ~RecordingHost() {
        for (char* d : docs) std::free(d);
    }
    trn_call* call() { return reinterpret_cast<trn_call*>(this); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(key_wipe)

// The instrument can fail: an unwiped copy of the key is found, the same copy wiped is not.
BOOST_AUTO_TEST_CASE(an_unwiped_copy_is_found_and_a_wiped_one_is_not) {
    BOOST_TEST_REQUIRE(freed::kCryptoHooked, "OpenSSL allocated before the test could hook its allocator");
    auto key = newKey();
    const auto needles = keyNeedles(key.privateKeyPem);
    BOOST_TEST_REQUIRE(needles.size() > 20u);
    {
        freed::Recording r;
        std::string copy = key.privateKeyPem;
        std::string encoded = mpi::base64Encode(key.privateKeyPem);
    }
    BOOST_TEST(freed::holding(needles) == 2u);
    {
        freed::Recording r;
        std::string copy = key.privateKeyPem;
        std::string encoded = mpi::base64Encode(key.privateKeyPem);
        mpi::wipe(copy);
        mpi::wipe(encoded);
        BOOST_TEST(copy.empty());
    }
    BOOST_TEST(freed::holding(needles) == 0u);
}

BOOST_AUTO_TEST_CASE(a_key_pair_wipes_its_private_key_when_destroyed) {
    std::string pem;
    {
        freed::Recording r;
        std::optional<mpi::SshKeyPair> key(newKey());
        pem = key->privateKeyPem;  // the test's copy lives on past the recording
        key.reset();
    }
    BOOST_TEST_REQUIRE(!pem.empty());
    BOOST_TEST(freed::holding(keyNeedles(pem)) == 0u);
}

// A key moved over a key, then an empty pair over that one: the pairs end while recording, so
// a replaced key's buffer (handed to the moved-from pair, or kept empty by the target) is seen
// when it is freed.
BOOST_AUTO_TEST_CASE(move_assignment_wipes_the_key_it_replaces) {
    std::string firstKey, secondKey;
    {
        freed::Recording r;
        auto first = newKey();
        auto second = newKey();
        firstKey = first.privateKeyPem;
        secondKey = second.privateKeyPem;
        first = std::move(second);
        BOOST_TEST(first.privateKeyPem == secondKey);
        first = mpi::SshKeyPair();
        BOOST_TEST(first.privateKeyPem.empty());
    }
    BOOST_TEST(freed::holding(keyNeedles(firstKey)) == 0u);
    BOOST_TEST(freed::holding(keyNeedles(secondKey)) == 0u);
}

BOOST_AUTO_TEST_CASE(the_secret_is_built_without_leaving_copies) {
    sdk::Info info(infoDoc());
    std::optional<json::object> secret;
    std::string error;
    {
        freed::Recording r;
        secret = mpi::sshAuthSecret(info, error);
    }
    BOOST_TEST_REQUIRE(secret.has_value(), error);
    const std::string b64(secret->at("data").at(mpi::kSshPrivateKey).as_string());
    const std::string pem = base64Decode(b64);
    BOOST_TEST_REQUIRE(pem.rfind("-----BEGIN EC PRIVATE KEY-----\n", 0) == 0u);
    BOOST_TEST(freed::holding(keyNeedles(pem)) == 0u);
}

// The whole ComponentBuilder hook: the Secret reaches the host, and nothing the plugin (or the
// SDK inside it) freed on the way holds the key.
BOOST_AUTO_TEST_CASE(build_hands_the_secret_to_the_host_and_keeps_no_copy) {
    RecordingHost host;
    sdk::Context ctx(&host.api, host.call(), "mpi");
    mpi::MpiPlugin plugin(json::object{}, ctx);
    sdk::Info info(infoDoc());
    sdk::Objects objects(ctx);
    {
        freed::Recording r;
        plugin.build(info, objects, ctx);
    }
    BOOST_TEST(host.errors == 0);
    BOOST_TEST_REQUIRE(host.docs.size() == 2u);
    auto secret = json::parse(host.docs[0]).as_object();
    BOOST_TEST_REQUIRE(secret.at("kind").as_string() == "Secret");
    const std::string pem = base64Decode(std::string(secret.at("data").at(mpi::kSshPrivateKey).as_string()));
    BOOST_TEST_REQUIRE(pem.rfind("-----BEGIN EC PRIVATE KEY-----\n", 0) == 0u);
    BOOST_TEST(freed::holding(keyNeedles(pem)) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
