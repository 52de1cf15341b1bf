// cudaperf-eval --serve end to end: JSON Lines in, results and errors out, the server alive
// through malformed requests, shutdown with its "bye". Compile-only everywhere; a real evaluation
// where a CUDA driver is present (skipped otherwise).
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Subprocess.h"

#include <chrono>
#include <cstring>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <map>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace cudaperf;
using support::Json;

namespace {

std::string src(const std::string &rel) { return std::string(CUDAPERF_SOURCE_DIR) + "/" + rel; }

std::string fileText(const std::string &path) {
  std::string text;
  FILE *f = fopen(path.c_str(), "rb");
  char buf[4096];
  for (size_t n; f && (n = fread(buf, 1, sizeof buf, f)) > 0;)
    text.append(buf, n);
  if (f)
    fclose(f);
  return text;
}

class Server {
public:
  explicit Server(std::vector<std::string> args) {
    args.insert(args.begin(), {CUDAPERF_EVAL, "--serve"});
    support::ProcessOptions o;
    o.extraEnv = {"CUDAPERF_CACHE_DIR=" + testing::TempDir() + "/cudaperf-serve-cache-" + std::to_string(getpid())};
    child_ = support::spawnProcess(args, o, true, true);
  }
  ~Server() { support::stopProcess(child_); }
  bool running() const { return child_.running(); }
  void send(const std::string &line) {
    std::string l = line + "\n";
    ASSERT_EQ(write(child_.stdinFd, l.data(), l.size()), ssize_t(l.size()));
  }
  // The next message, or null after `seconds`.
  Json next(double seconds = 300) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (true) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return support::parseJson(line, "server message");
      }
      int left = int(std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count());
      if (left <= 0)
        return Json();
      pollfd p{child_.stdoutFd, POLLIN, 0};
      if (poll(&p, 1, left) <= 0)
        continue;
      char buf[65536];
      ssize_t n = read(child_.stdoutFd, buf, sizeof buf);
      if (n <= 0)
        return Json();
      buffer_.append(buf, size_t(n));
    }
  }
  void closeInput() {
    close(child_.stdinFd);
    child_.stdinFd = -1;
  }

private:
  support::ChildProcess child_;
  std::string buffer_;
};

bool haveDriver() { return dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) != nullptr; }

} // namespace

TEST(ServeTool, RequestsErrorsAndShutdown) {
  Server s({"--compile-only", "--arch", "sm_90", "--jobs", "2"});
  ASSERT_TRUE(s.running());
  Json ready = s.next();
  ASSERT_EQ(ready.value("type", ""), "ready");
  EXPECT_EQ(ready.value("protocol", ""), "cudaperf-eval-serve/1");

  Json good = {{"id", "good"}, {"task_dir", src("data/tasks/vector_add")},
               {"source", fileText(src("data/tasks/vector_add/impls/baseline.cu")) + "\n// serve test\n"}};
  s.send(support::writeJson(good));
  s.send(support::writeJson(good)); // still building: a duplicate
  s.send("{this is not json");
  s.send(R"({"id": 7, "task_dir": ")" + src("data/tasks/vector_add") + R"(", "source": "int main( {"})");
  s.send(R"({"op": "cancel", "id": "nobody"})");
  s.send(R"({"op": "ping", "id": "p"})");
  s.send(R"({"id": 8, "task_dir": "/nonexistent", "source": "int x;", "name": "x.cu"})");
  s.send(R"({"op": "shutdown"})");

  std::map<std::string, Json> results;
  std::vector<std::string> errors;
  bool pong = false, bye = false;
  for (int i = 0; i < 12 && !bye; ++i) {
    Json m = s.next();
    ASSERT_TRUE(m.is_object()) << "the server went silent";
    std::string type = m.value("type", "");
    if (type == "result")
      results[m["id"].dump()] = m;
    else if (type == "error")
      errors.push_back(m.value("code", ""));
    else if (type == "pong")
      pong = m["id"] == "p";
    else if (type == "bye")
      bye = true;
  }
  EXPECT_TRUE(bye);
  EXPECT_TRUE(pong);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results["\"good\""]["outcome"], "ok"); // compile-only: it built
  EXPECT_EQ(results["\"good\""]["result"]["candidate"], "request \"good\"");
  EXPECT_EQ(results["7"]["outcome"], "compile_error");
  EXPECT_EQ(results["8"]["outcome"], "internal_error"); // the task does not load: a result, not a dead server
  EXPECT_EQ(std::count(errors.begin(), errors.end(), "duplicate_id"), 1);
  EXPECT_EQ(std::count(errors.begin(), errors.end(), "bad_json"), 1);
  EXPECT_EQ(std::count(errors.begin(), errors.end(), "unknown_id"), 1);
}

TEST(ServeTool, EndOfInputDrainsTheQueue) {
  Server s({"--compile-only", "--arch", "sm_90", "--queue", "1"});
  ASSERT_EQ(s.next().value("type", ""), "ready");
  for (int i = 0; i < 3; ++i)
    s.send(R"({"id": )" + std::to_string(i) + R"(, "task_dir": ")" + src("data/tasks/vector_add") +
           R"(", "source": "syntax error )" + std::to_string(i) + R"("})");
  s.closeInput();
  int results = 0;
  for (Json m; (m = s.next()).is_object();) {
    if (m.value("type", "") == "result") {
      ++results;
      EXPECT_EQ(m["outcome"], "compile_error");
    }
    if (m.value("type", "") == "bye")
      break;
  }
  EXPECT_EQ(results, 3);
}

TEST(ServeTool, UnixSocketClients) {
  std::string path = testing::TempDir() + "/cudaperf-serve-" + std::to_string(getpid()) + ".sock";
  Server s({"--compile-only", "--arch", "sm_90", "--socket", path});
  int fd = -1;
  for (int i = 0; i < 200 && fd < 0; ++i) { // until it listens
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    if (connect(c, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0)
      fd = c;
    else {
      close(c);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ASSERT_GE(fd, 0) << "the server does not listen on " << path;
  std::string lines = R"({"op": "ping", "id": 1})" "\n" R"({"oops": true})" "\n" R"({"op": "shutdown"})" "\n";
  ASSERT_EQ(write(fd, lines.data(), lines.size()), ssize_t(lines.size()));
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) {
    got.append(buf, size_t(n));
    if (got.find("\"bye\"") != std::string::npos)
      break;
  }
  close(fd);
  EXPECT_NE(got.find("\"ready\""), std::string::npos) << got;
  EXPECT_NE(got.find("\"pong\""), std::string::npos) << got;
  EXPECT_NE(got.find("\"bad_request\""), std::string::npos) << got;
  EXPECT_NE(got.find("\"bye\""), std::string::npos) << got;
}

TEST(ServeToolGpu, EvaluatesCandidatesInCompletionOrder) {
  if (!haveDriver())
    GTEST_SKIP() << "no CUDA driver (libcuda.so.1) on this machine";
  Server s({"--jobs", "4", "--budget-ms", "20"});
  Json ready = s.next(120);
  ASSERT_EQ(ready.value("type", ""), "ready");
  ASSERT_GE(ready["devices"].size(), 1u);
  for (const char *c : {"data/tasks/vector_add/impls/vectorized.cu", "test/runtime/bad/half_output.cu",
                        "test/runtime/bad/leak_pool_reserve.cu"})
    s.send(support::writeJson(Json{{"id", c}, {"task_dir", src("data/tasks/vector_add")}, {"candidate", src(c)},
                                   {"configs", {"small"}}}));
  std::map<std::string, std::string> outcome;
  for (int i = 0; i < 3; ++i) {
    Json m = s.next(300);
    ASSERT_EQ(m.value("type", ""), "result") << support::writeJson(m);
    outcome[m["id"].get<std::string>()] = m["outcome"].get<std::string>();
    EXPECT_TRUE(m["result"].contains("gpu_shared"));
    EXPECT_TRUE(m["result"]["gpu"].contains("uuid"));
    // The GPU slot's time and where the worker's went (a spare's context, and the job's wait for it).
    const Json &stages = m["result"]["stage_seconds"];
    EXPECT_GE(stages.value("device_slot", -1.0), stages.value("worker", 0.0)) << stages.dump();
    EXPECT_GE(stages.value("worker_context_wait", -1.0), 0.0) << stages.dump();
    const Json &ws = m["result"]["worker"]["stage_seconds"];
    EXPECT_GT(ws.value("context", -1.0), 0.0) << ws.dump();
    EXPECT_LE(ws.value("context_wait", 1e9), ws.value("context", 0.0) + 0.5) << ws.dump();
  }
  EXPECT_EQ(outcome["data/tasks/vector_add/impls/vectorized.cu"], "ok");
  EXPECT_EQ(outcome["test/runtime/bad/half_output.cu"], "wrong_answer");
  EXPECT_EQ(outcome["test/runtime/bad/leak_pool_reserve.cu"], "runtime_fault");
  s.send(R"({"op": "shutdown"})");
  Json bye = s.next(60);
  EXPECT_EQ(bye.value("type", ""), "bye");
  // Finished workers end beside the next run (the default): their exits were reaped and timed.
  EXPECT_GE(bye["worker_exit"].value("reaped", 0), 1) << bye.dump();
}
