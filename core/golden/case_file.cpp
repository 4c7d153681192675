#include "core/golden/case_file.hpp"

#include "core/json/io.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace trainer::core::golden {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kExtensions[] = {".yaml", ".yml", ".json"};

bool isCaseFile(const fs::path& p) {
    const std::string ext = p.extension().string();
    return std::find(std::begin(kExtensions), std::end(kExtensions), ext) != std::end(kExtensions) &&
           p.filename().string().rfind('.', 0) != 0;
}

void addDirectory(const std::string& dir, std::vector<std::string>& files, Diagnostics& d) {
    std::vector<std::string> found;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (isCaseFile(it->path()) && !it->is_directory()) found.push_back(it->path().string());
    if (ec) return d.add("", dir + ": cannot read the directory: " + ec.message());
    if (found.empty()) return d.add("", dir + ": no case files (*.yaml, *.yml, *.json) in this directory");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
}

// The file's one document, or false with an error.
bool readDocument(const std::string& file, json::value& doc, Diagnostics& d) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return d.add("", "cannot read the file"), false;
    std::stringstream ss;
    ss << in.rdbuf();
    std::string error;
    if (fs::path(file).extension() == ".json") {
        if (!parseJson(ss.str(), doc, error)) return d.add("", "not valid JSON: " + error), false;
        return true;
    }
    std::vector<json::value> docs;
    if (!parseYaml(ss.str(), docs, error)) return d.add("", "not valid YAML: " + error), false;
    if (docs.size() != 1)
        return d.add("", "holds " + std::to_string(docs.size()) + " YAML documents; a case file holds exactly one"), false;
    doc = std::move(docs.front());
    return true;
}

}  // namespace

Diagnostics collectCaseFiles(const std::vector<std::string>& args, std::vector<std::string>& files) {
    Diagnostics d;
    for (auto const& a : args) {
        std::error_code ec;
        if (fs::is_directory(a, ec)) addDirectory(a, files, d);
        else if (fs::exists(a, ec)) files.push_back(a);
        else d.add("", a + ": no such file or directory");
    }
    return d;
}

Diagnostics loadCaseFile(const std::string& file, GoldenCase& out) {
    Diagnostics d;
    json::value doc;
    if (readDocument(file, doc, d)) d = parseCase(doc, fs::path(file).stem().string(), out);
    for (auto& e : d.errors) e.origin = file;
    return d;
}

}  // namespace trainer::core::golden
