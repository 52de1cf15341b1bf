#include "cudaperf/Runtime/ServeProtocol.h"
#include "cudaperf/Schema/Protocol.h"

#include "cudaperf/Support/Json.h"

namespace cudaperf::runtime {

using Json = nlohmann::ordered_json;

ServeParse parseServeRequest(const std::string &line) { return schema::serve::parseRequest(line); }

ServeParse parseServeRequest(const std::string &line, const ServePolicy &policy) {
  return schema::serve::parseRequest(line, policy);
}

Json serveResult(const Json &id, Json result) {
  return schema::serve::messageToJson(schema::serve::resultMessage(id, std::move(result)));
}

Json serveError(const Json &id, const std::string &code, const std::string &message) {
  return schema::serve::messageToJson(schema::serve::Message::make(schema::serve::Error{code, message}, id));
}

Json serveCancelled(const Json &id) {
  return schema::serve::messageToJson(schema::serve::Message::make(schema::serve::Cancelled{}, id));
}

} // namespace cudaperf::runtime
