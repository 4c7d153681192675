// The zap logging flags (--zap-log-level, --zap-encoder, --zap-devel) every serving command takes.
#pragma once

#include "core/cli/cli.hpp"
#include "core/log/log.hpp"

namespace trainer::core::cli {

// Applies the flags present in `args` to `options`; false (with an `error: --flag: ...` line on
// io.err) when one is malformed.
inline bool parseLogFlags(const Args& args, Io& io, log::Options& options) {
    for (auto const* flag : {"zap-log-level", "zap-encoder", "zap-devel"}) {
        if (!args.has(flag)) continue;
        if (auto err = log::applyFlag(options, flag, args.get(flag)); !err.empty()) {
            io.err << "error: --" << flag << ": " << err << "\n";
            return false;
        }
    }
    return true;
}

}  // namespace trainer::core::cli
