// Issue 35 ("Hostile clients and hostile files"): the reproducers that reach lib/Support. Each
// failed before the fix (a signal, a hang, a file read, a leak) and must give a clear error now.
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/SourceGate.h"
#include "cudaperf/Support/Subprocess.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace cudaperf::support;

TEST(HostileInput, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  EXPECT_THROW(parseJson(deep, "tokenizer.json"), SupportError);
}

TEST(HostileInput, ValueLimitStopsAHugeObjectWhileParsing) {
  std::string doc = "{";
  for (int i = 0; i < 2000; ++i)
    doc += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
  doc += "}";
  JsonLimits limits;
  limits.maxValues = 1000;
  try {
    parseJson(doc, "body", limits);
    FAIL() << "no error";
  } catch (const SupportError &e) {
    EXPECT_NE(std::string(e.what()).find("more than 1000 values"), std::string::npos) << e.what();
  }
  limits.maxBytes = 10;
  EXPECT_THROW(parseJson(doc, "body", limits), SupportError);
}

TEST(HostileInput, DevZeroAndFifosAreRefusedAtOnce) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(readJsonFile("/dev/zero"), SupportError);
  std::string fifo = "/tmp/cudaperf-hostile-fifo-" + std::to_string(getpid());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(readRegularFile(fifo), SupportError); // no writer: a blocking open would hang
  unlink(fifo.c_str());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
  std::string big = "/tmp/cudaperf-hostile-big-" + std::to_string(getpid());
  std::ofstream(big) << std::string(4096, ' ');
  EXPECT_THROW(readRegularFile(big, 1000), SupportError);
  EXPECT_EQ(readRegularFile(big, 4096).size(), 4096u);
  unlink(big.c_str());
}

TEST(HostileInput, IncludesOfServerFilesAreRefused) {
  for (const char *source : {"#include \"/etc/passwd\"\n", "#include </etc/shadow>\n",
                             "#include \"../../../../etc/passwd\"\n", "# include <cuda/../../../etc/passwd>\n",
                             "#define F \"/etc/passwd\"\n#include F\n", "#if __has_include(\"/root/.env\")\n#error yes\n#endif\n",
                             "%:include \"/etc/passwd\"\n", "??=include \"/etc/passwd\"\n",
                             "#inc\\\nlude \"/etc/passwd\"\n", "/* x */ #include \"/proc/self/environ\"\n",
                             "#include_next \"/etc/passwd\"\n", "#line 1 \"/etc/passwd\"\n", "# 1 \"other.cu\"\n",
                             "#pragma GCC dependency \"/etc/passwd\"\n", "_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")\n",
                             "#include /**/ \"/etc/passwd\"\n", "#embed \"/etc/passwd\"\n"})
    EXPECT_TRUE(refuseHostileSource(source).has_value()) << source;
  std::optional<std::string> why = refuseHostileSource("int x;\n#include \"/etc/passwd\"\n");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("line 2"), std::string::npos) << *why;
  EXPECT_NE(why->find("absolute path"), std::string::npos) << *why;
  // What candidates really write stays allowed.
  EXPECT_FALSE(refuseHostileSource("#include <cuda_runtime.h>\n#include <cub/cub.cuh>\n#include \"corpus_util.h\"\n"
                                   "#define STR(x) #x\n#pragma unroll\n__global__ void k() {}\n"));
}

TEST(HostileInput, MessagesOfOtherFilesAreDropped) {
  std::string log = "/etc/passwd(1): error: unrecognized token\n  root:x:0:0:root:/root:/bin/bash\n  ^\n\n"
                    "candidate.cu(6): error: expected a \";\"\n    this is not C++;\n         ^\n\n"
                    "In file included from /etc/secret.h:1,\n/etc/secret.h:3:5: error: TOKEN=abc\n";
  std::string kept = keepOwnDiagnostics(log, {"candidate.cu", "shim.cu"});
  EXPECT_EQ(kept.find("root:x"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("TOKEN"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("/etc/"), std::string::npos) << kept;
  EXPECT_NE(kept.find("candidate.cu(6): error: expected a \";\""), std::string::npos) << kept;
  EXPECT_NE(kept.find("2 messages located outside"), std::string::npos) << kept;
  EXPECT_EQ(keepOwnDiagnostics("Outcome: ok\nn:1024 speedup 2x", {"candidate.cu"}), "Outcome: ok\nn:1024 speedup 2x");
}

TEST(HostileInput, RootsHoldAfterSymbolicLinks) {
  std::string root = "/tmp/cudaperf-hostile-root-" + std::to_string(getpid());
  mkdir(root.c_str(), 0700);
  std::ofstream(root + "/a.cu") << "x";
  ASSERT_EQ(symlink("/etc/passwd", (root + "/link.cu").c_str()), 0);
  std::string resolved;
  EXPECT_TRUE(resolveInside(root, "a.cu", resolved));
  EXPECT_FALSE(resolveInside(root, "link.cu", resolved));
  EXPECT_FALSE(resolveInside(root, "../../etc/passwd", resolved));
  EXPECT_FALSE(resolveInside(root, "/etc/shadow", resolved));
  EXPECT_FALSE(resolveInside("", "a.cu", resolved));
  removeTree(root);
}

TEST(HostileInput, ChildrenGetAMinimalEnvironment) {
  setenv("HF_TOKEN", "hf_secret_for_the_test", 1);
  ProcessOptions po;
  po.minimalEnvironment = true;
  ProcessResult r = runProcess({"/usr/bin/env"}, po);
  ASSERT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(r.output.find("HF_TOKEN"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PATH="), std::string::npos) << r.output;
  po.minimalEnvironment = false;
  EXPECT_NE(runProcess({"/usr/bin/env"}, po).output.find("HF_TOKEN"), std::string::npos);
  unsetenv("HF_TOKEN");
}

TEST(HostileInput, MemoryLimitStopsAnAllocation) {
  ProcessOptions po;
  po.addressSpaceLimit = int64_t(128) << 20;
  // Python (or any program) cannot map 256 MiB under a 128 MiB address-space limit.
  std::vector<std::string> argv = {"/bin/sh", "-c", "exec python3 -c 'b = bytearray(1 << 28)'"};
  ProcessResult r = runProcess(argv, po);
  EXPECT_FALSE(r.succeeded()) << r.describe() << r.output;
  po.addressSpaceLimit = int64_t(4) << 30; // the same program fits in 4 GiB: the limit was the cause
  ProcessResult ok = runProcess(argv, po);
  EXPECT_TRUE(ok.succeeded()) << ok.describe() << ok.output;
}

TEST(HostileInput, TimeoutKillsDescendantsThatLeftTheGroup) {
  std::string pidFile = "/tmp/cudaperf-hostile-pid-" + std::to_string(getpid());
  ProcessOptions po;
  po.timeoutSeconds = 0.5;
  // setsid: the grandchild (the analyzer's nvcc, in the issue) runs in a session of its own, which a
  // kill of the child's group alone misses.
  ProcessResult r = runProcess({"/bin/sh", "-c", "setsid sleep 300 & echo $! > " + pidFile + "; wait"}, po);
  EXPECT_TRUE(r.timedOut);
  std::ifstream in(pidFile);
  int pid = 0;
  in >> pid;
  ASSERT_GT(pid, 0);
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    gone = !stat || line.find(") Z") != std::string::npos;
    if (!gone)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "the setsid grandchild " << pid << " survived the timeout";
  if (!gone)
    kill(pid, SIGKILL);
  unlink(pidFile.c_str());
}
