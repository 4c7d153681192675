// Standard (padded) base64 decoding as Go's encoding/base64 StdEncoding, which is how a
// kubeconfig's *-data fields are decoded: CR and LF are skipped, anything else invalid is an error.
#pragma once

#include <string>
#include <string_view>

namespace trainer::core::kube {

// Decodes `text` into `out`; false with `error` = "illegal base64 data at input byte N" (Go's
// CorruptInputError, N an offset into `text`) when malformed.
bool decodeBase64(std::string_view text, std::string& out, std::string& error);

}  // namespace trainer::core::kube
