// lib/Support's JSON rules on top of nlohmann: strict parsing with located errors, the writer's
// spelling of non-finite numbers and invalid UTF-8, member lookup; and SHA-256 known vectors.
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Sha256.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace cudaperf::support;

namespace {

std::string parseError(const std::string &text) {
  try {
    parseJson(text, "doc.json");
  } catch (const SupportError &e) {
    return e.what();
  }
  return "(accepted)";
}

} // namespace

TEST(Json, RoundTripKeepsOrderAndTypes) {
  Json v = parseJson(R"({"b": 1, "a": [true, null, -2.5, "x\"y\n"], "big": 1e300, "i": 9007199254740993})");
  EXPECT_EQ(writeJson(v), R"({"b":1,"a":[true,null,-2.5,"x\"y\n"],"big":1e+300,"i":9007199254740993})");
  EXPECT_TRUE(member(v, "b")->is_number_integer());
  EXPECT_EQ(member(v, "i")->get<int64_t>(), 9007199254740993LL);
}

TEST(Json, PrettyOutputHasTheRuntimeLayout) {
  Json v = Json::object({{"a", 1}, {"b", Json::array({2.0, "x"})}, {"c", Json::object()}, {"d", Json::array()}});
  EXPECT_EQ(writeJson(v, 2), "{\n  \"a\": 1,\n  \"b\": [\n    2.0,\n    \"x\"\n  ],\n  \"c\": {},\n  \"d\": []\n}");
}

TEST(Json, ErrorsSayWhere) {
  std::string dup = parseError("{\n  \"a\": 1,\n  \"a\": 2\n}");
  EXPECT_NE(dup.find("doc.json: duplicate key \"a\" in the top level"), std::string::npos) << dup;
  std::string nested = parseError(R"({"configs": [{"x": 1}, {"name": "a", "name": "b"}]})");
  EXPECT_NE(nested.find("duplicate key \"name\" in configs[1]"), std::string::npos) << nested;
  std::string comma = parseError("[1, 2,]");
  EXPECT_EQ(comma.rfind("doc.json:1:7: syntax error while parsing value", 0), 0u) << comma;
  EXPECT_EQ(parseError("{\n\"a\": 1} x").rfind("doc.json:2:9: ", 0), 0u);
  EXPECT_EQ(parseError("\"unterminated").rfind("doc.json:1:", 0), 0u);
  EXPECT_EQ(parseError("").rfind("doc.json:1:1: ", 0), 0u) << parseError("");
}

TEST(Json, DeepNestingIsRefused) {
  std::string deep(kMaxJsonDepth + 1, '[');
  deep += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_NE(parseError(deep).find("nesting deeper than"), std::string::npos);
  std::string ok(kMaxJsonDepth, '[');
  ok += std::string(kMaxJsonDepth, ']');
  EXPECT_EQ(parseError(ok), "(accepted)");
}

TEST(Json, ManyKeysParseInLinearTime) {
  std::string text = "{";
  for (int i = 0; i < 200000; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  text += "}";
  Json v = parseJson(text); // quadratic insertion would take minutes here
  EXPECT_EQ(v.size(), 200000u);
  EXPECT_EQ(member(v, "k199999")->get<int>(), 199999);
}

TEST(Json, NonFiniteNumbersAreWrittenAsStrings) {
  Json o = Json::object();
  o["nan"] = std::nan("");
  o["inf"] = -HUGE_VAL;
  o["list"] = Json::array({1.5, HUGE_VAL});
  EXPECT_EQ(writeJson(o), R"({"nan":"nan","inf":"-inf","list":[1.5,"inf"]})");
  EXPECT_TRUE(std::isnan(o["nan"].get<double>())); // the value itself is unchanged
}

TEST(Json, InvalidUtf8IsReplacedNotFatal) {
  Json o = Json::object({{"log", std::string("ok \xff\xfe end")}});
  EXPECT_EQ(writeJson(o), "{\"log\":\"ok \xef\xbf\xbd\xef\xbf\xbd end\"}");
}

TEST(Json, MemberAndTypeNames) {
  Json v = parseJson(R"({"a": {"b": "c"}, "n": 2.5})");
  EXPECT_EQ(member(v, "missing"), nullptr);
  EXPECT_EQ(member(*member(v, "n"), "b"), nullptr); // not an object
  EXPECT_EQ(*member(*member(v, "a"), "b"), "c");
  EXPECT_STREQ(jsonTypeName(v), "an object");
  EXPECT_STREQ(jsonTypeName(*member(v, "n")), "a number");
  EXPECT_STREQ(jsonTypeName(Json()), "null");
  EXPECT_EQ(jsonSnippet(Json(std::string(100, 'x')), 10), "\"xxxxxxxxx...");
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_NE(Sha256().field("ab").field("c").hex(), Sha256().field("a").field("bc").hex());
}
