// Requests of cudaperf-eval --serve: what is accepted, and the error every malformed line gets.
#include "cudaperf/Runtime/ServeProtocol.h"

#include <gtest/gtest.h>

using namespace cudaperf::runtime;

namespace {
ServeParse parse(const std::string &s) { return parseServeRequest(s); }
void expectError(const std::string &line, const std::string &code, const std::string &fragment) {
  ServeParse p = parse(line);
  EXPECT_FALSE(p.request) << line;
  EXPECT_EQ(p.errorCode, code) << line;
  EXPECT_NE(p.errorMessage.find(fragment), std::string::npos) << line << " -> " << p.errorMessage;
}
} // namespace

TEST(ServeProtocol, EvaluateRequests) {
  ServeParse p = parse(R"({"id": "c1", "task_dir": "/t", "source": "s", "configs": ["small"], "counters": true})");
  ASSERT_TRUE(p.request);
  EXPECT_EQ(p.request->op, ServeRequest::Op::Evaluate);
  EXPECT_EQ(p.request->id, "c1");
  EXPECT_EQ(p.request->idKey, "s:c1");
  EXPECT_EQ(p.request->source, "s");
  EXPECT_EQ(*p.request->configs, std::vector<std::string>{"small"});
  EXPECT_TRUE(*p.request->counters);

  p = parse(R"({"op": "evaluate", "id": 42, "task_dir": "/t", "source": "__global__ void k() {}", "configs": "small,medium"})");
  ASSERT_TRUE(p.request);
  EXPECT_EQ(p.request->idKey, "n:42");
  EXPECT_EQ(p.request->source, "__global__ void k() {}");
  EXPECT_EQ(p.request->configs->size(), 2u);
  EXPECT_FALSE(p.request->counters);
  // An empty source is still a source (it will fail to compile, with a result).
  EXPECT_TRUE(parse(R"({"id": 1, "task_dir": "/t", "source": ""})").request);
}

TEST(ServeProtocol, MalformedLinesGetErrors) {
  expectError("{not json", "bad_json", "not JSON");
  expectError("[1, 2]", "bad_request", "JSON object");
  expectError(R"({"task_dir": "/t", "candidate": "/c.cu"})", "bad_request", "needs an \"id\"");
  expectError(R"({"id": 1.5, "task_dir": "/t", "candidate": "/c.cu"})", "bad_request", "\"id\" must be");
  expectError(R"({"id": "", "task_dir": "/t", "candidate": "/c.cu"})", "bad_request", "\"id\" must be");
  expectError(R"({"id": 1, "candidate": "/c.cu"})", "bad_request", "task_dir");
  expectError(R"({"id": 1, "task_dir": "/t"})", "bad_request", "exactly one");
  expectError(R"({"id": 1, "task_dir": "/t", "candidate": "/c.cu", "source": "x"})", "bad_request", "exactly one");
  expectError(R"({"id": 1, "task_dir": "/t", "source": "x", "confgs": []})", "bad_request", "unknown key \"confgs\"");
  expectError(R"({"id": 1, "task_dir": 5, "source": "x"})", "bad_request", "\"task_dir\" must be a string");
  expectError(R"({"id": 1, "task_dir": "/t", "source": "x", "configs": [1]})", "bad_request", "configs");
  expectError(R"({"id": 1, "task_dir": "/t", "source": "x", "counters": "yes"})", "bad_request", "counters");
  expectError(R"({"op": "launch", "id": 1})", "bad_request", "unknown op");
  expectError(R"({"op": 3})", "bad_request", "\"op\"");
  expectError(R"({"op": "cancel"})", "bad_request", "names the request");
  expectError(R"({"op": "shutdown", "drain": "no"})", "bad_request", "drain");
  // The id of a malformed request is echoed when it is usable.
  EXPECT_EQ(parse(R"({"id": "x", "task_dir": "/t"})").id, "x");
}

TEST(ServeProtocol, ControlRequests) {
  ServeParse p = parse(R"({"op": "cancel", "id": "c1"})");
  ASSERT_TRUE(p.request);
  EXPECT_EQ(p.request->op, ServeRequest::Op::Cancel);
  EXPECT_EQ(p.request->idKey, "s:c1");
  p = parse(R"({"op": "shutdown", "drain": false})");
  ASSERT_TRUE(p.request);
  EXPECT_FALSE(p.request->drain);
  EXPECT_TRUE(parse(R"({"op": "stats"})").request);
  EXPECT_TRUE(parse(R"({"op": "ping", "id": 3})").request);
}

TEST(ServeProtocol, Messages) {
  nlohmann::ordered_json r = serveResult("c1", {{"outcome", "ok"}, {"speedup", 1.5}});
  EXPECT_EQ(r["type"], "result");
  EXPECT_EQ(r["outcome"], "ok");
  EXPECT_EQ(r["result"]["speedup"], 1.5);
  EXPECT_EQ(serveError(nullptr, "bad_json", "x")["id"], nullptr);
  EXPECT_EQ(serveCancelled(7)["type"], "cancelled");
}

// Issue 35: hostile clients of `cudaperf-eval --serve`.
TEST(ServeProtocolHostile, DeepBracketsAreAnErrorNotACrash) {
  std::string line(200000, '[');
  ServeParse p = parseServeRequest(line);
  ASSERT_FALSE(p.request);
  EXPECT_EQ(p.errorCode, "bad_json");
}

TEST(ServeProtocolHostile, CandidatePathsNeedARoot) {
  const std::string line = R"({"id": 1, "task_dir": "/work/t", "candidate": "/etc/shadow"})";
  ServeParse p = parseServeRequest(line);
  ASSERT_FALSE(p.request);
  EXPECT_NE(p.errorMessage.find("refused"), std::string::npos) << p.errorMessage;
  ServePolicy policy;
  policy.candidateRoot = "/tmp";
  p = parseServeRequest(line, policy);
  ASSERT_FALSE(p.request); // outside the root
  p = parseServeRequest(R"({"id": 1, "task_dir": "/work/t", "candidate": "../etc/passwd"})", policy);
  ASSERT_FALSE(p.request); // outside after resolution
  p = parseServeRequest(R"({"id": 1, "task_dir": "/work/t", "source": "__global__ void k() {}"})");
  ASSERT_TRUE(p.request) << p.errorMessage; // text is always taken
}
