// The store's files are private: they hold Secrets (SSH private keys and tokens among them).
#pragma once

#include <string>
#include <vector>

namespace trainer::core {

// Makes the SQLite file at `path` exist with mode 0600 before SQLite opens it, so that its -wal
// and -shm files (which SQLite creates with the main file's mode) are 0600 too: a new file is
// created with open(O_CREAT|O_EXCL|O_NOFOLLOW, 0600), never widened and narrowed afterwards (the
// umask, process-wide, is not touched). An existing store, -wal or -shm readable or writable by
// group or others is narrowed to 0600 and named in `warnings`. "" or the error.
std::string preparePrivateStoreFile(const std::string& path, std::vector<std::string>& warnings);

}  // namespace trainer::core
