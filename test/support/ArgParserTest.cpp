// The argv parser of the non-LLVM mains: value forms, repetition, "--", and the messages.
#include "cudaperf/Support/ArgParser.h"

#include <gtest/gtest.h>

using namespace cudaperf::support;

namespace {

struct Parsed {
  std::string arch;
  int jobs = 1;
  bool counters = false;
  std::vector<std::string> configs;
};

ArgParser parserFor(Parsed &p) {
  ArgParser a("tool", {"TASK_DIR CANDIDATE.cu [options]", "--batch FILE"}, "Does things.");
  a.option("--arch", "sm_XX", "target", p.arch)
      .option("--jobs,-j", "N", "parallel builds",
              [&](const std::string &v) { p.jobs = int(parseInteger(v, 1, 64)); })
      .flag("--counters", "hardware counters\nin a second pass", p.counters)
      .option("--config", "NAME", "a configuration (repeatable)",
              [&](const std::string &v) { p.configs.push_back(v); })
      .epilog("exit codes: 0 ok, 2 bad usage");
  return a;
}

std::string errorOf(const std::vector<std::string> &args) {
  Parsed p;
  try {
    parserFor(p).parse(args);
  } catch (const SupportError &e) {
    return e.what();
  }
  return "(accepted)";
}

} // namespace

TEST(ArgParser, BothValueFormsRepeatsAndPositionals) {
  Parsed p;
  ParsedArgs r = parserFor(p).parse(
      {"task", "--arch=sm_80", "-j", "4", "--counters", "--config", "a", "--config=b", "x.cu", "-"});
  EXPECT_EQ(p.arch, "sm_80");
  EXPECT_EQ(p.jobs, 4);
  EXPECT_TRUE(p.counters);
  EXPECT_EQ(p.configs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.positional, (std::vector<std::string>{"task", "x.cu", "-"}));
  EXPECT_FALSE(r.helpRequested);
}

TEST(ArgParser, DoubleDashEndsOptions) {
  Parsed p;
  ParsedArgs r = parserFor(p).parse({"--arch", "sm_90", "--", "--counters", "-j"});
  EXPECT_FALSE(p.counters);
  EXPECT_EQ(r.positional, (std::vector<std::string>{"--counters", "-j"}));
}

TEST(ArgParser, ClearErrors) {
  EXPECT_EQ(errorOf({"--countres"}), "unknown option '--countres' (did you mean '--counters'?)");
  EXPECT_EQ(errorOf({"--frobnicate"}), "unknown option '--frobnicate'");
  EXPECT_EQ(errorOf({"--arch"}), "option '--arch' needs a value (sm_XX)");
  EXPECT_EQ(errorOf({"--arch", "--counters"}), "option '--arch' needs a value (sm_XX)");
  EXPECT_EQ(errorOf({"--counters=yes"}), "option '--counters' takes no value (got 'yes')");
  EXPECT_EQ(errorOf({"-j", "x"}), "option '-j': expected a whole number, got 'x'");
  EXPECT_EQ(errorOf({"--jobs=0"}), "option '--jobs': expected a whole number from 1 to 64, got '0'");
  EXPECT_EQ(errorOf({"--arch=--x"}), "(accepted)"); // the = form takes any value
}

TEST(ArgParser, HelpIsGeneratedFromTheDeclarations) {
  Parsed p;
  ArgParser a = parserFor(p);
  EXPECT_TRUE(a.parse({"--counters", "-h"}).helpRequested);
  std::string help = a.help();
  EXPECT_EQ(help.rfind("usage: tool TASK_DIR CANDIDATE.cu [options]\n       tool --batch FILE\n\nDoes things.\n", 0),
            0u)
      << help;
  EXPECT_NE(help.find("  --arch sm_XX"), std::string::npos) << help;
  EXPECT_NE(help.find("  --jobs, -j N"), std::string::npos) << help;
  EXPECT_NE(help.find("hardware counters\n"), std::string::npos) << help;
  EXPECT_NE(help.find("  -h, --help"), std::string::npos) << help;
  EXPECT_NE(help.find("exit codes: 0 ok, 2 bad usage\n"), std::string::npos) << help;
  // Continuation lines line up with the first line of the help text.
  size_t first = help.find("hardware counters");
  size_t lineStart = help.rfind('\n', first) + 1;
  size_t next = help.find("in a second pass");
  EXPECT_EQ(next - help.rfind('\n', next) - 1, first - lineStart) << help;
  EXPECT_NE(a.usageHint().find("Try 'tool --help' for more."), std::string::npos);
}

TEST(ArgParser, NumberConversions) {
  EXPECT_EQ(parseNumber("2.5"), 2.5);
  EXPECT_THROW(parseNumber("2.5x"), SupportError);
  EXPECT_THROW(parseNumber("nan"), SupportError);
  EXPECT_THROW(parseNumber("-1", 0), SupportError);
  EXPECT_EQ(parseInteger("-3"), -3);
  EXPECT_THROW(parseInteger("3.0"), SupportError);
  EXPECT_THROW(parseInteger("99999999999999999999"), SupportError);
  EXPECT_EQ(parseUnsigned("18446744073709551615"), 18446744073709551615ull);
  EXPECT_THROW(parseUnsigned("-1"), SupportError);
  EXPECT_TRUE(parseOnOff("on"));
  EXPECT_FALSE(parseOnOff("off"));
  EXPECT_THROW(parseOnOff("yes"), SupportError);
  try {
    parseNumber("-1", 0);
  } catch (const SupportError &e) {
    EXPECT_STREQ(e.what(), "expected a number at least 0, got '-1'");
  }
}
