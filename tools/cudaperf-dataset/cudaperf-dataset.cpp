// cudaperf-dataset: generates the C->CUDA and PyTorch->CUDA training tasks (docs/dataset.md).
#include "cudaperf/Dataset/Generator.h"
#include "cudaperf/Support/Error.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

using namespace cudaperf::dataset;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1; // a family failed to generate, or the output could not be written
constexpr int kExitUsage = 2;

const char *kUsage =
    "usage: cudaperf-dataset generate --out DIR [--seed N] [--families GLOB[,GLOB]] [--limit N]\n"
    "                                 [--kind c|pytorch|all] [--jobs N] [--quiet]\n"
    "       cudaperf-dataset list-families [--kind c|pytorch|all]\n"
    "\n"
    "generate writes DIR/{c,pytorch}/<family>/<task>/ (task.json, reference.c or model.py,\n"
    "impls/*.cu), DIR/manifest.jsonl and DIR/dataset.json. The same seed gives byte-identical\n"
    "output. --limit N keeps the first N tasks of each family (the same tasks as in the full set).\n"
    "\n"
    "exit status: 0 done, 1 generation failed (the message names the family and task), 2 bad usage\n";

[[noreturn]] void usageError(const std::string &msg) {
  std::cerr << "cudaperf-dataset: " << msg << "\n\n" << kUsage;
  std::exit(kExitUsage);
}

long long parseNumber(const std::string &option, const std::string &text) {
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || v < 0)
    usageError("bad number for " + option + ": '" + text + "'");
  return v;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    usageError("expected a command: generate or list-families");
  std::string command = argv[1];
  if (command == "-h" || command == "--help") {
    std::cout << kUsage;
    return kExitOk;
  }
  GenerateOptions o;
  bool quiet = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usageError("missing value for " + a);
      return argv[++i];
    };
    if (a == "--out") o.outDir = value();
    else if (a == "--seed") o.seed = uint64_t(parseNumber(a, value()));
    else if (a == "--families") o.familyGlob = value();
    else if (a == "--limit") o.limit = int(parseNumber(a, value()));
    else if (a == "--kind") o.kind = value();
    else if (a == "--jobs" || a == "-j") o.jobs = std::max(1, int(parseNumber(a, value())));
    else if (a == "--quiet") quiet = true;
    else if (a == "-h" || a == "--help") { std::cout << kUsage; return kExitOk; }
    else usageError("unknown option " + a);
  }
  if (o.kind != "all" && o.kind != "c" && o.kind != "pytorch")
    usageError("--kind must be c, pytorch or all");
  try {
    if (command == "list-families") {
      for (const Family *f : selectFamilies(o))
        std::cout << fmt::format("{:<26} {:<8} {:>4} tasks  {}{}\n", f->name, kindName(f->kind), f->tasks,
                                 f->heldOut ? "[held-out test family] " : "", f->description);
      return kExitOk;
    }
    if (command != "generate")
      usageError("unknown command '" + command + "'");
    if (o.outDir.empty())
      usageError("generate needs --out DIR");
    if (!quiet)
      o.progress = [](const std::string &line) { std::cerr << line << "\n"; };
    auto start = std::chrono::steady_clock::now();
    GenerateSummary s = generate(o);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!quiet)
      std::cerr << fmt::format("cudaperf-dataset: {} tasks, {} implementations, {} families in {:.1f} s -> {}\n",
                               s.tasks, s.implementations, s.families, seconds, o.outDir);
    return kExitOk;
  } catch (const std::exception &e) { // DatasetError and the rest by kind (docs/architecture.md)
    return cudaperf::support::reportError("cudaperf-dataset", e);
  }
}
