// The messages of `cudaperf-eval --serve` (docs/eval-serve.md): JSON Lines, one request per line
// in, one message per line out. Parsing never throws: a malformed line becomes an error message
// for the client, and the server goes on.
#pragma once

#include "cudaperf/Schema/Protocol.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::runtime {

// The types and the parser are lib/Schema's (include/cudaperf/Schema/Protocol.h); these names stay
// for lib/Runtime's callers.
constexpr const char *kServeProtocol = schema::serve::kProtocolName;
using ServeRequest = schema::serve::Request;
using ServeParse = schema::serve::Parse;
using ServePolicy = schema::serve::Policy;
constexpr int kServeMaxDepth = schema::serve::kMaxDepth;
constexpr size_t kServeMaxValues = schema::serve::kMaxValues;
constexpr size_t kServeMaxLineBytes = schema::serve::kMaxLineBytes;

ServeParse parseServeRequest(const std::string &line); // the default policy: no paths
ServeParse parseServeRequest(const std::string &line, const ServePolicy &policy);

// Messages from the server.
nlohmann::ordered_json serveResult(const nlohmann::ordered_json &id, nlohmann::ordered_json result);
nlohmann::ordered_json serveError(const nlohmann::ordered_json &id, const std::string &code,
                                  const std::string &message);
nlohmann::ordered_json serveCancelled(const nlohmann::ordered_json &id);

} // namespace cudaperf::runtime
