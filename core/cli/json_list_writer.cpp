#include "core/cli/json_list_writer.hpp"

#include "core/json/io.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace trainer::core::cli {

namespace {
// Bytes written or read at once: the temporary file's buffer, the read-ahead window and the output
// batch (a write call per batch, not per text; three of them are little beside the budget).
constexpr std::size_t kBatch = std::size_t{256} << 10;
}  // namespace

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
    if (!file_) {
        file_.reset(std::tmpfile());
        if (file_) std::setvbuf(file_.get(), nullptr, _IOFBF, kBatch);  // a write call per kBatch bytes, not per text
    }
    if (!file_ || std::fwrite(text.data(), 1, text.size(), file_.get()) != text.size()) return false;
    item.offset = end_;
    end_ += static_cast<long>(text.size());
    ++spilled_;
    return true;
}

namespace {

// Reads `size` bytes at `offset` of `fd` onto the end of `to`; false when the file has fewer.
bool appendFrom(int fd, long offset, std::size_t size, std::string& to) {
    const std::size_t at = to.size();
    to.resize(at + size);
    for (std::size_t got = 0; got < size;) {
        ssize_t n = ::pread(fd, to.data() + at + got, size - got, static_cast<off_t>(offset) + static_cast<off_t>(got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        got += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

// Spilled texts are read back through a window of the temporary file: items sorted in the order
// they were added (a render of names in order) are read kBatch bytes at a time, others one by one.
bool JsonListWriter::write(std::ostream& out, std::string& error) {
    std::sort(items_.begin(), items_.end(), [](auto const& a, auto const& b) { return a.key < b.key; });
    if (file_ && std::fflush(file_.get()) != 0) {
        error = "render: the temporary file of rendered objects cannot be written";
        return false;
    }
    std::string batch = std::string("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": ") + (items_.empty() ? "[]" : "[");
    std::string window;  // the temporary file's bytes from windowAt
    long windowAt = 0, lastEnd = -1;
    for (std::size_t i = 0; i < items_.size(); ++i) {
        Item& item = items_[i];
        batch += i == 0 ? "\n    " : ",\n    ";
        if (item.offset < 0) {
            batch += item.text;
            std::string().swap(item.text);  // printed: freed
        } else {
            const long end = item.offset + static_cast<long>(item.size);
            if (item.offset == lastEnd && end > windowAt + static_cast<long>(window.size())) {  // read ahead
                window.clear();
                windowAt = item.offset;
                const auto ahead = static_cast<std::size_t>(std::min<long>(end_ - item.offset, static_cast<long>(kBatch)));
                if (!appendFrom(::fileno(file_.get()), windowAt, std::max(ahead, item.size), window)) window.clear();
            }
            const bool inWindow = item.offset >= windowAt && end <= windowAt + static_cast<long>(window.size());
            if (inWindow) batch.append(window, static_cast<std::size_t>(item.offset - windowAt), item.size);
            else if (!appendFrom(::fileno(file_.get()), item.offset, item.size, batch)) {
                error = "render: the temporary file of rendered objects cannot be read back";
                return false;
            }
            lastEnd = end;
        }
        if (batch.size() >= kBatch) {
            out.write(batch.data(), static_cast<std::streamsize>(batch.size()));
            batch.clear();
        }
    }
    batch += items_.empty() ? "\n}\n" : "\n  ]\n}\n";
    out.write(batch.data(), static_cast<std::streamsize>(batch.size()));
    return true;
}

}  // namespace trainer::core::cli
