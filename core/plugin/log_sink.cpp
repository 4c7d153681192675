#include "core/plugin/log_sink.hpp"

#include "core/json/io.hpp"

namespace trainer::core {

PluginLogSink loggerSink(log::Logger logger) {
    return [logger = std::move(logger)](const std::string& plugin, int32_t level, std::string_view message) {
        // TRN_LOG_* and log::Level share zap's numbering; clamp what a plugin may invent.
        auto lvl = level <= TRN_LOG_DEBUG ? log::Level::Debug
                   : level == TRN_LOG_INFO ? log::Level::Info
                   : level == TRN_LOG_WARN ? log::Level::Warn
                                           : log::Level::Error;
        logger.log(lvl, toValidUtf8(message), {{"plugin", plugin}}, {});  // untrusted text: valid UTF-8 only
    };
}

}  // namespace trainer::core
