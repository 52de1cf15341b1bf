// ConfigFields (ConfigFields.h), the key table behind SftConfig and RlConfig, on a config of its own:
// errors name the source and the key (and, for a wrong type, the type expected), every type round-trips,
// --set takes strings as written and reads the rest as JSON.
#include "cudaperf/Learn/ConfigFields.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <unistd.h>

using namespace cudaperf;
using namespace cudaperf::learn;

namespace {

struct ToyConfig {
  std::string name = "toy";
  int64_t count = 3;
  uint64_t seed = 0;
  double rate = 0.5;
  bool on = false;
  std::string mode = "fast";
  std::vector<std::string> args;
};

const ConfigFields<ToyConfig> &toyFields() {
  static const ConfigFields<ToyConfig> fields("toy-config/1", "toy settings", "toy --print-config",
                                              {{"name", &ToyConfig::name, 0, 0, "a name"},
                                               {"count", &ToyConfig::count, 1, 10, "how many"},
                                               {"seed", &ToyConfig::seed, 0, 0, "the seed"},
                                               {"rate", &ToyConfig::rate, 0, 1, "a fraction"},
                                               {"on", &ToyConfig::on, 0, 0, "a switch"},
                                               {"mode", &ToyConfig::mode, 0, 0, "fast|slow", "a choice"},
                                               {"args", &ToyConfig::args, 0, 0, "a list"}});
  return fields;
}

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const LearnError &e) {
    return e.what();
  }
  return "(no LearnError)";
}

std::string applyError(const support::Json &doc) {
  return errorOf([&] {
    ToyConfig c;
    toyFields().apply(c, doc, "toy.json");
  });
}

} // namespace

TEST(ConfigFields, UnknownKeyNamesTheKeyAndTheLister) {
  EXPECT_EQ(applyError(support::Json{{"cuont", 2}}), "toy.json: unknown key \"cuont\" (toy --print-config lists them)");
  ToyConfig c;
  EXPECT_EQ(errorOf([&] { toyFields().applyOverride(c, "bogus=1"); }),
            "--set: unknown key \"bogus\" (toy --print-config lists them)");
}

TEST(ConfigFields, WrongTypeNamesTheKeyAndTheTypeExpected) {
  EXPECT_EQ(applyError(support::Json{{"name", 5}}), "toy.json: name: expected a string, got 5");
  EXPECT_EQ(applyError(support::Json{{"count", "3"}}), "toy.json: count: expected a whole number, got \"3\"");
  EXPECT_EQ(applyError(support::Json{{"count", 2.5}}), "toy.json: count: expected a whole number, got 2.5");
  EXPECT_EQ(applyError(support::Json{{"count", 18446744073709551615ull}}),
            "toy.json: count: expected a value in [1.0, 10.0], got 18446744073709551615");
  EXPECT_EQ(applyError(support::Json{{"seed", -1}}), "toy.json: seed: expected a whole number >= 0, got -1");
  EXPECT_EQ(applyError(support::Json{{"rate", nullptr}}), "toy.json: rate: expected a number, got null");
  EXPECT_EQ(applyError(support::Json{{"on", "yes"}}), "toy.json: on: expected true or false, got \"yes\"");
  EXPECT_EQ(applyError(support::Json{{"args", "x"}}), "toy.json: args: expected a list of strings, got \"x\"");
  EXPECT_EQ(applyError(support::Json{{"args", {1}}}), "toy.json: args: expected a list of strings, got [1]");
}

TEST(ConfigFields, RangesChoicesSchemaAndShape) {
  EXPECT_EQ(applyError(support::Json{{"count", 11}}), "toy.json: count: expected a value in [1.0, 10.0], got 11");
  EXPECT_EQ(applyError(support::Json{{"rate", 1.5}}), "toy.json: rate: expected a value in [0.0, 1.0], got 1.5");
  EXPECT_EQ(applyError(support::Json{{"mode", "medium"}}), "toy.json: mode: expected one of fast|slow, got \"medium\"");
  EXPECT_EQ(applyError(support::Json{{"schema", "other/1"}}), "toy.json: schema: expected \"toy-config/1\", got \"other/1\"");
  EXPECT_EQ(applyError(support::Json::array()), "toy.json: expected a JSON object of toy settings");
  EXPECT_EQ(applyError(support::Json{{"schema", "toy-config/1"}, {"count", 10}}), "(no LearnError)");
}

TEST(ConfigFields, RoundTripsAndListsTheKeys) {
  ToyConfig c;
  c.name = "n";
  c.count = 7;
  c.seed = 18446744073709551615ull;
  c.rate = 0.25;
  c.on = true;
  c.mode = "slow";
  c.args = {"--sets", "2"};
  support::Json j = toyFields().toJson(c);
  EXPECT_EQ(support::writeJson(j), "{\"schema\":\"toy-config/1\",\"name\":\"n\",\"count\":7,\"seed\":18446744073709551615,"
                                   "\"rate\":0.25,\"on\":true,\"mode\":\"slow\",\"args\":[\"--sets\",\"2\"]}"); // table order
  ToyConfig back;
  toyFields().apply(back, j, "back");
  EXPECT_EQ(toyFields().toJson(back), j);

  std::vector<ConfigKeyInfo> keys = toyFields().keys();
  ASSERT_EQ(keys.size(), 7u);
  EXPECT_EQ(keys[1].key, "count");
  EXPECT_EQ(keys[1].type, "integer");
  EXPECT_EQ(keys[1].defaultValue, 3);
  EXPECT_EQ(keys[2].type, "unsigned");
  EXPECT_EQ(keys[3].type, "number");
  EXPECT_EQ(keys[4].type, "boolean");
  EXPECT_EQ(keys[6].type, "list of strings");
  EXPECT_EQ(keys[5].meaning, "a choice");
}

TEST(ConfigFields, OverridesReadJsonButTakeStringsAsWritten) {
  ToyConfig c;
  toyFields().applyOverride(c, "name=123");
  toyFields().applyOverride(c, "count=4");
  toyFields().applyOverride(c, "args=[\"a\",\"b\"]");
  toyFields().applyOverride(c, "on=true");
  EXPECT_EQ(c.name, "123");
  EXPECT_EQ(c.count, 4);
  EXPECT_EQ(c.args, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(c.on);
  EXPECT_EQ(errorOf([&] { toyFields().applyOverride(c, "count"); }), "--set count: expected KEY=VALUE");
  EXPECT_EQ(errorOf([&] { toyFields().applyOverride(c, "=4"); }), "--set =4: expected KEY=VALUE");
  EXPECT_EQ(errorOf([&] { toyFields().applyOverride(c, "count=many"); }),
            "--set: count: expected a whole number, got \"many\"");
}

TEST(ConfigFields, LoadsAFileOverTheDefaults) {
  std::string path = testing::TempDir() + "config-fields-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << R"({"schema": "toy-config/1", "count": 9})";
  ToyConfig c = toyFields().load(path);
  EXPECT_EQ(c.count, 9);
  EXPECT_EQ(c.name, "toy");
  std::ofstream(path) << R"({"count": 0})";
  EXPECT_EQ(errorOf([&] { toyFields().load(path); }), path + ": count: expected a value in [1.0, 10.0], got 0");
  std::remove(path.c_str());
  EXPECT_NE(errorOf([&] { toyFields().load(path); }).find(path), std::string::npos); // unreadable: a LearnError naming it
}
