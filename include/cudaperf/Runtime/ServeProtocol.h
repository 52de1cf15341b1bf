// The messages of `cudaperf-eval --serve` (docs/eval-serve.md): JSON Lines, one request per line
// in, one message per line out. Parsing never throws: a malformed line becomes an error message
// for the client, and the server goes on.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::runtime {

constexpr const char *kServeProtocol = "cudaperf-eval-serve/1";

struct ServeRequest {
  enum class Op { Evaluate, Cancel, Stats, Shutdown, Ping };
  Op op = Op::Evaluate;
  nlohmann::ordered_json id;  // echoed back: a string or an integer (null for stats/shutdown/ping)
  std::string idKey;          // the id as the scheduler's key ("s:..." or "n:...")
  // evaluate
  std::string taskDir;
  std::string candidatePath;  // exactly one of candidatePath and source
  std::string source;
  std::string name;           // how a source-text candidate is named in its result (default: the id)
  std::optional<std::vector<std::string>> configs;
  std::optional<bool> counters;
  // shutdown
  bool drain = true;
};

struct ServeParse {
  std::optional<ServeRequest> request;
  std::string errorCode;     // "bad_json" or "bad_request" when !request
  std::string errorMessage;
  nlohmann::ordered_json id; // the line's id when it had a usable one (for the error message)
};

// What a client may ask of this server (docs/eval-serve.md, "Trust"): without a candidate root a
// "candidate" path is refused (a client sends the text as "source"); with one, the path must resolve
// (after symbolic links) to a file inside it. With a task root, "task_dir" likewise.
struct ServePolicy {
  std::string candidateRoot;
  std::string taskRoot;
};

// Limits of one request line (bytes are bounded by the reader: kServeMaxLineBytes).
constexpr int kServeMaxDepth = 32;
constexpr size_t kServeMaxValues = 100000;
constexpr size_t kServeMaxLineBytes = size_t(64) << 20;

ServeParse parseServeRequest(const std::string &line); // the default policy: no paths
ServeParse parseServeRequest(const std::string &line, const ServePolicy &policy);

// Messages from the server.
nlohmann::ordered_json serveResult(const nlohmann::ordered_json &id, nlohmann::ordered_json result);
nlohmann::ordered_json serveError(const nlohmann::ordered_json &id, const std::string &code,
                                  const std::string &message);
nlohmann::ordered_json serveCancelled(const nlohmann::ordered_json &id);

} // namespace cudaperf::runtime
