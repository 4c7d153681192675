#include "core/cli/json_list_writer.hpp"

#include "core/json/io.hpp"

#include <algorithm>

namespace trainer::core::cli {

JsonListWriter::JsonListWriter(std::size_t memoryBudget) : budget_(memoryBudget) {}

void JsonListWriter::add(const json::object& o) {
    buffer_.clear();
    appendJson(buffer_, o, /*pretty=*/true, /*indent=*/4);
    Item item{keyOf(o), {}, -1, buffer_.size()};
    if (inMemory_ + buffer_.size() <= budget_ || !spill(item, buffer_)) {
        item.text = buffer_;
        inMemory_ += buffer_.size();
    }
    items_.push_back(std::move(item));
}

// Appends `text` to the temporary file; false (the text stays in memory) when there is none.
bool JsonListWriter::spill(Item& item, const std::string& text) {
    if (!file_) file_.reset(std::tmpfile());
    if (!file_ || std::fwrite(text.data(), 1, text.size(), file_.get()) != text.size()) return false;
    item.offset = end_;
    end_ += static_cast<long>(text.size());
    ++spilled_;
    return true;
}

bool JsonListWriter::write(std::ostream& out, std::string& error) {
    std::sort(items_.begin(), items_.end(), [](auto const& a, auto const& b) { return a.key < b.key; });
    if (file_ && std::fflush(file_.get()) != 0) {
        error = "render: the temporary file of rendered objects cannot be written";
        return false;
    }
    out << "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": " << (items_.empty() ? "[]" : "[");
    std::string readBack;  // a spilled text, one at a time
    for (std::size_t i = 0; i < items_.size(); ++i) {
        Item& item = items_[i];
        const std::string* text = &item.text;
        if (item.offset >= 0) {
            readBack.resize(item.size);
            if (std::fseek(file_.get(), item.offset, SEEK_SET) != 0 ||
                std::fread(readBack.data(), 1, item.size, file_.get()) != item.size) {
                error = "render: the temporary file of rendered objects cannot be read back";
                return false;
            }
            text = &readBack;
        }
        out << (i == 0 ? "\n    " : ",\n    ") << *text;
        std::string().swap(item.text);  // printed: freed
    }
    out << (items_.empty() ? "\n}\n" : "\n  ]\n}\n");
    return true;
}

}  // namespace trainer::core::cli
