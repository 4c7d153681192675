// The committed corpus of one fuzz target as a regression test (built with the normal compiler,
// in every CI build): every file of FUZZ_CORPUS_DIR goes through the target's
// LLVMFuzzerTestOneInput, which aborts on a finding. See test/fuzz/README.md.
#define BOOST_TEST_MODULE fuzz_replay
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

BOOST_AUTO_TEST_CASE(every_corpus_input_runs_clean) {
    std::vector<fs::path> files;
    for (auto const& e : fs::directory_iterator(FUZZ_CORPUS_DIR))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    BOOST_TEST_REQUIRE(files.size() >= 3u, "the corpus " FUZZ_CORPUS_DIR " has fewer than 3 inputs");
    for (auto const& f : files) {
        BOOST_TEST_CONTEXT(f.filename().string()) {
            std::ifstream in(f, std::ios::binary);
            BOOST_TEST_REQUIRE(in.good());
            std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            BOOST_TEST(LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) == 0);
        }
    }
}
