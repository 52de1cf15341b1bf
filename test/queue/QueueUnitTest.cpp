// lib/Queue's parsers of hostile input: queue URLs, task files in a job, idempotency keys, names.
#include "cudaperf/Queue/Jobs.h"
#include "cudaperf/Queue/WorkQueue.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace cudaperf;
using namespace cudaperf::queue;
namespace fs = std::filesystem;

namespace {

std::string errorOf(const std::string &url) {
  try {
    parseRedisUrl(url);
  } catch (const QueueError &e) {
    return e.what();
  }
  return "";
}

struct TempDir {
  std::string path;
  TempDir() {
    std::string t = fs::temp_directory_path().string() + "/queue-unit-XXXXXX";
    path = mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

} // namespace

TEST(QueueUrl, Accepted) {
  RedisUrl u = parseRedisUrl("redis://127.0.0.1:6380/evals");
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 6380);
  EXPECT_EQ(u.queue, "evals");
  EXPECT_EQ(parseRedisUrl("redis://gpu-host.example/q_1.a-b").port, 6379);
  RedisUrl v6 = parseRedisUrl("redis://[::1]:7000/q");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 7000);
  EXPECT_EQ(v6.text(), "redis://[::1]:7000/q");
}

TEST(QueueUrl, RefusedWithReason) {
  EXPECT_NE(errorOf("http://h:1/q").find("must start with redis://"), std::string::npos);
  EXPECT_NE(errorOf("redis://h:1").find("no /QUEUE"), std::string::npos);
  EXPECT_NE(errorOf("redis://h:1/").find("no queue name"), std::string::npos);
  EXPECT_NE(errorOf("redis://h:0/q").find("out of range"), std::string::npos);
  EXPECT_NE(errorOf("redis://h:65536/q").find("out of range"), std::string::npos);
  EXPECT_NE(errorOf("redis://h:12a/q").find("not a number"), std::string::npos);
  EXPECT_NE(errorOf("redis://h:/q").find("empty port"), std::string::npos);
  EXPECT_NE(errorOf("redis://user:pw@h:1/q").find("passwords"), std::string::npos);
  EXPECT_NE(errorOf("redis://h:1/q/x").find("[A-Za-z0-9_.-]"), std::string::npos);
  EXPECT_NE(errorOf("redis://h:1/q?db=2").find("[A-Za-z0-9_.-]"), std::string::npos);
  EXPECT_NE(errorOf("redis://:1/q").find("no host"), std::string::npos);
  EXPECT_NE(errorOf("redis://h h:1/q").find("bad character"), std::string::npos);
  EXPECT_NE(errorOf("redis://[::1/q").find("unclosed"), std::string::npos);
  EXPECT_NE(errorOf("redis://h:1/" + std::string(65, 'q')).find("longer than 64"), std::string::npos);
  EXPECT_NE(errorOf("redis://h:99999999999999999999/q").find("out of range"), std::string::npos);
}

TEST(QueueReply, TypesAreChecked) {
  Reply r;
  r.type = Reply::Type::Integer;
  r.integer = 3;
  EXPECT_EQ(r.integerValue("x"), 3);
  EXPECT_THROW(r.string("XLEN"), QueueError);
  EXPECT_THROW(r.array("XLEN"), QueueError);
  Reply s;
  s.type = Reply::Type::String;
  EXPECT_THROW(s.integerValue("n"), QueueError);
  try {
    s.array("XREADGROUP");
  } catch (const QueueError &e) {
    EXPECT_NE(std::string(e.what()).find("XREADGROUP: expected an array from Redis, got string"), std::string::npos);
  }
}

TEST(QueueNames, Validated) {
  EXPECT_TRUE(validKey(std::string(64, 'a')));
  EXPECT_FALSE(validKey(std::string(64, 'A')));
  EXPECT_FALSE(validKey(std::string(63, 'a')));
  EXPECT_TRUE(validToken("abc_1.2-3"));
  EXPECT_FALSE(validToken("a:b"));
  EXPECT_FALSE(validToken(""));
  EXPECT_TRUE(validConsumerName("gpu-7:1234"));
  EXPECT_FALSE(validConsumerName("a b"));
}

TEST(QueueTaskFiles, HostileNamesRefused) {
  for (const char *name : {"../x", "/etc/passwd", "a//b", ".", "a/../b", "a/./b", "", "a b", "dir/"}) {
    TempDir d;
    support::Json files = {{name, "x"}};
    EXPECT_THROW(unpackTaskFiles(files, d.path), QueueError) << name;
    EXPECT_TRUE(fs::is_empty(d.path)) << name;
  }
  TempDir d;
  EXPECT_THROW(unpackTaskFiles(support::Json{{"a", 1}}, d.path), QueueError);
  EXPECT_THROW(unpackTaskFiles(support::Json::array(), d.path), QueueError);
  TaskFileLimits small;
  small.maxBytes = 4;
  EXPECT_THROW(unpackTaskFiles(support::Json{{"a", "12345"}}, d.path, small), QueueError);
  small = TaskFileLimits();
  small.maxFiles = 1;
  EXPECT_THROW(unpackTaskFiles(support::Json{{"a", "1"}, {"b", "2"}}, d.path, small), QueueError);
  small = TaskFileLimits();
  small.maxDepth = 2;
  EXPECT_THROW(unpackTaskFiles(support::Json{{"a/b/c", "1"}}, d.path, small), QueueError);
}

TEST(QueueTaskFiles, RoundTrip) {
  TempDir src, dst;
  fs::create_directories(src.path + "/impls");
  std::ofstream(src.path + "/task.json") << "{\"name\": \"t\"}";
  std::ofstream(src.path + "/impls/baseline.cu") << "__global__ void k() {}";
  support::Json files = packTaskDir(src.path);
  ASSERT_EQ(files.size(), 2u);
  unpackTaskFiles(files, dst.path);
  EXPECT_EQ(support::readRegularFile(dst.path + "/impls/baseline.cu"), "__global__ void k() {}");
  // A second unpack into the same place collides instead of overwriting.
  EXPECT_THROW(unpackTaskFiles(files, dst.path), QueueError);
  // Links are refused (a link could send /etc/shadow to every worker).
  fs::create_symlink("/etc/hostname", src.path + "/link");
  EXPECT_THROW(packTaskDir(src.path), QueueError);
}

TEST(QueueKey, DependsOnTaskCandidateAndOptions) {
  support::Json files = {{"task.json", "{}"}};
  support::Json req = {{"source", "int x;"}, {"name", "a.cu"}};
  std::string k = idempotencyKey(makeJob(req, &files));
  EXPECT_TRUE(validKey(k));
  EXPECT_EQ(k, idempotencyKey(makeJob(req, &files)));
  support::Json other = req;
  other["source"] = "int y;";
  EXPECT_NE(k, idempotencyKey(makeJob(other, &files)));
  other = req;
  other["configs"] = {"small"};
  EXPECT_NE(k, idempotencyKey(makeJob(other, &files)));
  other = req;
  other["counters"] = true;
  EXPECT_NE(k, idempotencyKey(makeJob(other, &files)));
  support::Json otherFiles = {{"task.json", "{ }"}};
  EXPECT_NE(k, idempotencyKey(makeJob(req, &otherFiles)));
}
