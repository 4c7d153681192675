// Plugin file trust (issue 12 item 3): StrictModes-like refusals, one open and a hash of what
// is loaded, and sha256 pinning (plugins.sha256, `plugins --print-pins`).
#define BOOST_TEST_MODULE test_core_plugin_trust
#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

#include "core/controller/configuration.hpp"
#include "core/json/io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

using namespace trainer::core;

namespace {

const Rejection* rejectionOf(const PluginRegistry& r, const std::string& file) {
    for (auto const& x : r.rejected())
        if (x.path.find(file) != std::string::npos) return &x;
    return nullptr;
}

// The first word of `sha256sum FILE`.
std::string sha256sum(const std::string& path) {
    std::string out;
    if (FILE* p = ::popen(("sha256sum '" + path + "'").c_str(), "r")) {
        char buf[128];
        while (std::fgets(buf, sizeof buf, p)) out += buf;
        ::pclose(p);
    }
    return out.substr(0, out.find(' '));
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Expects exactly one rejection for `file` with `code` and a reason containing `part`.
void expectRefused(const PluginRegistry& r, const std::string& file, const std::string& code, const std::string& part) {
    const Rejection* x = rejectionOf(r, file);
    BOOST_REQUIRE_MESSAGE(x, "no rejection for " << file);
    BOOST_TEST(x->code == code, x->reason);
    BOOST_TEST(contains(x->reason, part), x->reason);
    BOOST_TEST(contains(x->reason, file), x->reason);
    BOOST_TEST(x->reason.back() == '.');
}

}  // namespace

BOOST_AUTO_TEST_SUITE(trust)

BOOST_AUTO_TEST_CASE(group_writable_file_is_refused) {
    PluginDir d({"alpha", "beta"});
    fs::permissions(d.path("alpha"), fs::perms(0664));
    PluginRegistry r;
    r.loadDirectory(d.dir.string());
    BOOST_TEST(r.find("alpha") == nullptr);
    BOOST_TEST(r.find("beta") != nullptr);  // the others keep loading
    expectRefused(r, "alpha.so", "insecure_mode", "it is writable by group (mode 0664); only its owner may write it");
}

BOOST_AUTO_TEST_CASE(other_writable_directory_is_refused) {
    PluginDir d({"alpha"});
    fs::permissions(d.dir, fs::perms(0757));
    PluginRegistry r;
    r.loadDirectory(d.dir.string());
    BOOST_TEST(r.plugins().empty());
    BOOST_REQUIRE_EQUAL(r.rejected().size(), 1u);
    auto const& x = r.rejected()[0];
    BOOST_TEST(x.code == "insecure_mode");
    BOOST_TEST(contains(x.reason, "plugin directory " + d.dir.string() + " was rejected: it is writable by others"),
               x.reason);
}

BOOST_AUTO_TEST_CASE(file_owned_by_another_user_is_refused) {
    BOOST_REQUIRE_MESSAGE(::geteuid() == 0, "chown needs root: the suite runs as root (scripts/test.sh)");
    PluginDir d({"alpha", "beta"});
    BOOST_REQUIRE_EQUAL(::chown(d.path("alpha").c_str(), 65534, 65534), 0);
    PluginRegistry r;
    r.loadDirectory(d.dir.string());
    BOOST_TEST(r.find("alpha") == nullptr);
    BOOST_TEST(r.find("beta") != nullptr);
    expectRefused(r, "alpha.so", "insecure_owner", "it is owned by uid 65534, not by root or the operator's user (uid 0)");
}

BOOST_AUTO_TEST_CASE(directory_owned_by_another_user_is_refused) {
    BOOST_REQUIRE_MESSAGE(::geteuid() == 0, "chown needs root: the suite runs as root (scripts/test.sh)");
    PluginDir d({"alpha"});
    BOOST_REQUIRE_EQUAL(::chown(d.dir.c_str(), 65534, 65534), 0);
    PluginRegistry r;
    r.loadDirectory(d.dir.string());
    BOOST_TEST(r.plugins().empty());
    BOOST_REQUIRE_EQUAL(r.rejected().size(), 1u);
    BOOST_TEST(r.rejected()[0].code == "insecure_owner");
    BOOST_TEST(contains(r.rejected()[0].reason, "owned by uid 65534"), r.rejected()[0].reason);
}

BOOST_AUTO_TEST_CASE(symlink_out_of_the_directory_is_refused) {
    PluginDir d({}), elsewhere({"alpha"});
    fs::create_symlink(elsewhere.path("alpha"), d.dir / "alpha.so");
    PluginRegistry r;
    r.loadDirectory(d.dir.string());
    BOOST_TEST(r.plugins().empty());
    expectRefused(r, "alpha.so", "symlink_outside", "outside the plugin directory " + d.dir.string());
}

BOOST_AUTO_TEST_CASE(symlink_within_the_directory_loads) {
    PluginDir d({"alpha"});
    fs::rename(d.path("alpha"), d.dir / "alpha.so.real");  // not *.so: loaded only through the link
    fs::create_symlink("alpha.so.real", d.dir / "alpha.so");
    PluginRegistry r;
    r.loadDirectory(d.dir.string());
    BOOST_TEST(r.rejected().empty());
    BOOST_REQUIRE(r.find("alpha"));
    BOOST_TEST(r.find("alpha")->sha256 == sha256sum((d.dir / "alpha.so.real").string()));
    BOOST_TEST(r.find("alpha")->path == d.path("alpha"));
}

// The file is opened before it is examined (one open, checks on the descriptor): a FIFO must be
// refused without the open waiting for a writer, a directory or a dangling link without a crash,
// and the good plugin beside them still loads.
BOOST_AUTO_TEST_CASE(what_is_not_a_regular_file_is_refused_on_its_descriptor) {
    PluginDir d({"beta"});
    BOOST_REQUIRE(::mkfifo((d.dir / "fifo.so").c_str(), 0644) == 0);
    fs::create_directory(d.dir / "dir.so");
    fs::permissions(d.dir / "dir.so", fs::perms::group_write | fs::perms::others_write, fs::perm_options::remove);
    fs::create_symlink("missing.so.real", d.dir / "dangling.so");
    PluginRegistry r;
    r.loadDirectory(d.dir.string());
    BOOST_TEST(r.find("beta") != nullptr);
    expectRefused(r, "fifo.so", "not_a_file", "it is not a regular file");
    expectRefused(r, "dir.so", "not_a_file", "it is not a regular file");
    expectRefused(r, "dangling.so", "bad_symlink", "it is a symlink that cannot be resolved");
}

BOOST_AUTO_TEST_CASE(dot_files_are_refused) {
    PluginDir d({"beta"});
    fs::copy_file(fs::path(FIXTURE_DIR) / "alpha.so", d.dir / ".hidden.so");
    PluginRegistry r;
    r.loadDirectory(d.dir.string());
    BOOST_TEST(r.find("alpha") == nullptr);
    BOOST_TEST(r.find("beta") != nullptr);
    expectRefused(r, ".hidden.so", "hidden_file", "it is a hidden file (its name starts with a dot)");
}

// A plugin file is a name ending in ".so" with something before it (std::filesystem's
// extension()): ".so" itself, "x.so.1" and other files are not plugin files, so neither loaded
// nor refused; a directory given with a trailing slash names its files with one slash.
BOOST_AUTO_TEST_CASE(only_names_with_the_so_extension_are_plugin_files) {
    PluginDir d({"beta"});
    for (const char* other : {".so", "alpha.so.1", "alpha.SO", "notes.txt"})
        fs::copy_file(fs::path(FIXTURE_DIR) / "alpha.so", d.dir / other);
    fs::copy_file(fs::path(FIXTURE_DIR) / "gamma.so", d.dir / "..so");  // "..so": the extension follows "."
    PluginRegistry r;
    r.loadDirectory(d.dir.string() + "/");
    BOOST_TEST(r.find("alpha") == nullptr);
    BOOST_TEST(r.find("beta") != nullptr);
    BOOST_TEST(r.plugins().size() == 1u);
    BOOST_REQUIRE_EQUAL(r.rejected().size(), 1u);
    expectRefused(r, "..so", "hidden_file", "it is a hidden file");
    BOOST_TEST(r.rejected().front().path == d.dir.string() + "/..so");
    BOOST_TEST(r.find("beta")->path == fs::absolute(d.dir).lexically_normal().string() + "/beta.so");
}

BOOST_AUTO_TEST_CASE(reported_hash_is_sha256sum_of_the_file) {
    PluginDir d({"alpha", "beta", "gamma"});
    PluginRegistry r;
    r.loadDirectory(d.dir.string());
    BOOST_REQUIRE_EQUAL(r.plugins().size(), 3u);
    for (auto const& p : r.plugins()) {
        BOOST_TEST(p->sha256.size() == 64u);
        BOOST_TEST(p->sha256 == sha256sum(p->path), p->name);
        BOOST_TEST(!contains(p->path, "/proc/"), p->path);
    }
}

BOOST_AUTO_TEST_CASE(pins_that_match_load) {
    PluginDir d({"alpha", "beta"});
    PluginOptions o;
    o.sha256["alpha"] = sha256sum(d.path("alpha"));
    std::string beta = sha256sum(d.path("beta"));
    for (auto& c : beta) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    o.sha256["beta.so"] = beta;  // by file name, in upper case
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), o);
    BOOST_TEST(r.rejected().empty());
    BOOST_TEST(r.plugins().size() == 2u);
}

BOOST_AUTO_TEST_CASE(pin_mismatch_is_refused_with_both_hashes) {
    PluginDir d({"alpha", "beta", "gamma"});
    const std::string wrong(64, 'a');
    PluginOptions o;
    o.sha256["alpha"] = wrong;
    o.sha256["beta.so"] = wrong;
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), o);
    BOOST_TEST(r.plugins().size() == 1u);  // gamma, unpinned
    expectRefused(r, "alpha.so", "pin_mismatch",
                  "its sha256 is " + sha256sum(d.path("alpha")) + ", not " + wrong + " as pinned by plugins.sha256[alpha]");
    expectRefused(r, "beta.so", "pin_mismatch",
                  "its sha256 is " + sha256sum(d.path("beta")) + ", not " + wrong + " as pinned by plugins.sha256[beta.so]");
}

BOOST_AUTO_TEST_CASE(printed_pins_parse_back_and_pin_every_plugin) {
    PluginDir d({"alpha", "beta", "gamma"});
    PluginRegistry first;
    first.loadDirectory(d.dir.string());
    const std::string yaml = "apiVersion: " + std::string(controller::kConfigApiVersion) + "\nkind: " +
                             std::string(controller::kConfigKind) + "\n" + pinsYaml(first);
    std::vector<json::value> docs;
    std::string error;
    BOOST_REQUIRE_MESSAGE(parseYaml(yaml, docs, error), error);
    BOOST_REQUIRE_EQUAL(docs.size(), 1u);
    controller::Configuration cfg;
    auto diag = controller::parseConfiguration(docs[0], cfg);
    BOOST_REQUIRE_MESSAGE(diag.ok(), yaml);
    BOOST_TEST(cfg.plugins.sha256.size() == first.plugins().size());
    // Keyed by file name (checked before any code of the file runs).
    for (auto const& p : first.plugins())
        BOOST_TEST(cfg.plugins.sha256[std::filesystem::path(p->path).filename().string()] == p->sha256, yaml);
    PluginRegistry second;
    second.loadDirectory(d.dir.string(), cfg.plugins);
    BOOST_TEST(second.rejected().empty());
    BOOST_TEST(second.plugins().size() == 3u);
}

BOOST_AUTO_TEST_CASE(configuration_refuses_a_malformed_pin) {
    std::vector<json::value> docs;
    std::string error;
    BOOST_REQUIRE(parseYaml("apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n"
                            "plugins:\n  sha256:\n    alpha: nothex\n",
                            docs, error));
    controller::Configuration cfg;
    auto diag = controller::parseConfiguration(docs[0], cfg);
    BOOST_TEST(!diag.ok());
}

BOOST_AUTO_TEST_CASE(build_tree_plugins_load) {
    PluginRegistry r;
    r.loadDirectory(TRAINER_PLUGIN_BUILD_DIR);
    BOOST_TEST(r.rejected().empty());
    BOOST_TEST(!r.plugins().empty());
}

// StrictModes for the parents: a group-writable parent is refused; a sticky, world-writable one
// (like /tmp, where every PluginDir lives) is not.
BOOST_AUTO_TEST_CASE(writable_parent_directory_is_refused_unless_sticky) {
    PluginDir outer({});
    const fs::path inner = outer.dir / "plugins";
    fs::create_directory(inner);
    fs::permissions(inner, fs::perms(0755));
    fs::copy_file(fs::path(FIXTURE_DIR) / "alpha.so", inner / "alpha.so");
    fs::permissions(outer.dir, fs::perms(0775));
    PluginRegistry r;
    r.loadDirectory(inner.string());
    BOOST_TEST(r.plugins().empty());
    BOOST_REQUIRE_EQUAL(r.rejected().size(), 1u);
    BOOST_TEST(r.rejected()[0].code == "insecure_parent");
    BOOST_TEST(contains(r.rejected()[0].reason, "its parent " + fs::canonical(outer.dir).string() +
                                                    " is writable by group (mode 0775)"),
               r.rejected()[0].reason);
    fs::permissions(outer.dir, fs::perms(01777));
    PluginRegistry sticky;
    sticky.loadDirectory(inner.string());
    BOOST_TEST(sticky.find("alpha") != nullptr, (sticky.rejected().empty() ? "" : sticky.rejected()[0].reason));
}

// A pin naming no file and no plugin protects nothing: it is reported, the rest loads.
BOOST_AUTO_TEST_CASE(pin_for_an_absent_plugin_is_reported) {
    PluginDir d({"alpha"});
    PluginOptions o;
    o.sha256["gone"] = std::string(64, 'a');
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), o);
    BOOST_TEST(r.find("alpha") != nullptr);
    BOOST_REQUIRE_EQUAL(r.rejected().size(), 1u);
    BOOST_TEST(r.rejected()[0].code == "pin_unmatched");
    BOOST_TEST(r.rejected()[0].reason ==
               "plugins.sha256[gone] pins a plugin that is not in " + d.dir.string() + " (no file gone.so, no loaded plugin of that name).");
}

BOOST_AUTO_TEST_SUITE_END()
