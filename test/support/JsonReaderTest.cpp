// JsonField: typed reads whose errors name the document, the field path and the value.
#include "cudaperf/Support/JsonReader.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace cudaperf::support;

namespace {

template <typename F> std::string errorOf(F read) {
  try {
    read();
  } catch (const SupportError &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(JsonReader, ReadsTypedValuesAlongPaths) {
  Json doc = parseJson(R"({"configs": [{"name": "a", "n": 4.0, "t": "nan"}, {"name": "b", "x": null}]})");
  JsonField root(doc, "r.json");
  std::vector<JsonField> configs = root.require("configs").elements();
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].require("name").string(), "a");
  EXPECT_EQ(configs[0].require("n").integer(), 4);
  EXPECT_TRUE(std::isnan(configs[0].require("t").number()));
  EXPECT_EQ(configs[1].require("name").path(), "configs[1].name");
  EXPECT_FALSE(configs[1].get("x")); // null is absent
  EXPECT_FALSE(configs[1].optionalNumber("missing"));
  EXPECT_TRUE(configs[1].require("x").isNull());
  EXPECT_EQ(root.members().front().first, "configs");
}

TEST(JsonReader, ErrorsNameTheFieldAndTheValue) {
  Json doc = parseJson(R"({"configs": [{}, {"candidate": {"median_ms": "abc", "runs": 2.5, "list": [1]}}]})");
  JsonField root(doc, "result.json");
  auto candidate = [&] { return root.require("configs").elements()[1].require("candidate"); };
  EXPECT_EQ(errorOf([&] { candidate().require("median_ms").number(); }),
            "result.json: configs[1].candidate.median_ms: expected a number, got \"abc\"");
  EXPECT_EQ(errorOf([&] { candidate().require("runs").integer(); }),
            "result.json: configs[1].candidate.runs: expected a whole number, got 2.5");
  EXPECT_EQ(errorOf([&] { candidate().require("runs").integer(3); }),
            "result.json: configs[1].candidate.runs: expected a whole number, got 2.5");
  EXPECT_EQ(errorOf([&] { candidate().require("spread"); }),
            "result.json: configs[1].candidate.spread: missing");
  EXPECT_EQ(errorOf([&] { candidate().require("list").string(); }),
            "result.json: configs[1].candidate.list: expected a string, got an array");
  EXPECT_EQ(errorOf([&] { candidate().require("list").elements()[0].boolean(); }),
            "result.json: configs[1].candidate.list[0]: expected true or false, got 1");
  EXPECT_EQ(errorOf([&] { root.require("configs").require("x"); }),
            "result.json: configs: expected an object, got an array");
  EXPECT_EQ(errorOf([&] { root.require("configs").elements()[0].optionalInteger("n"); }), "(no error)");
  Json n = parseJson(R"({"n": -3})");
  EXPECT_EQ(errorOf([&] { JsonField(n, "d").require("n").integer(0); }), "d: n: expected a whole number at least 0, got -3");
  EXPECT_EQ(errorOf([&] { JsonField(n, "").fail("bad"); }), "the top level: bad");
}
