// Field paths as golden-test reports print them: dotted members ("spec.trainer.env"), quoted
// where a key is not a plain name (`labels["trainer.kubeflow.org/trainjob-ancestor-step"]`),
// list indexes ("args[0]") and keyed-list elements ("env[name=PET_NNODES]").
#pragma once

#include <boost/json.hpp>

#include <string>
#include <string_view>

namespace trainer::core::golden {

namespace json = boost::json;

// `path` extended by the object member `key`.
std::string memberPath(std::string_view path, std::string_view key);
// `path` extended by list index `index`.
std::string indexPath(std::string_view path, std::size_t index);
// `path` extended by the keyed-list element whose `key` is `value` ("env[name=PET_NNODES]").
std::string keyedPath(std::string_view path, std::string_view key, const json::value& value);

// `v` as compact JSON, cut to `limit` bytes (on a UTF-8 boundary) with "..." when longer.
std::string shortJson(const json::value& v, std::size_t limit = 120);

}  // namespace trainer::core::golden
