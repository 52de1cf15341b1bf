#include "cudaperf/Runtime/Json.h"
#include "cudaperf/Runtime/Sha256.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace cudaperf;

TEST(Json, RoundTripKeepsOrderAndTypes) {
  json::Value v = json::parse(R"({"b": 1, "a": [true, null, -2.5, "x\"y\n"], "big": 1e300, "i": 9007199254740993})");
  EXPECT_EQ(json::write(v), R"({"b":1,"a":[true,null,-2.5,"x\"y\n"],"big":1e+300,"i":9007199254740993})");
  EXPECT_TRUE(v.get("b")->isInteger());
  EXPECT_EQ(v.get("i")->asInteger(), 9007199254740993LL);
}

TEST(Json, RejectsMalformedWithPosition) {
  try {
    json::parse("{\n  \"a\": 1,\n  \"a\": 2\n}");
    FAIL() << "duplicate key accepted";
  } catch (const json::ParseError &e) {
    EXPECT_EQ(e.line, 3u);
    EXPECT_NE(std::string(e.what()).find("duplicate"), std::string::npos);
  }
  EXPECT_THROW(json::parse("[1, 2,]"), json::ParseError);
  EXPECT_THROW(json::parse("{\"a\": 1} x"), json::ParseError);
  EXPECT_THROW(json::parse("\"unterminated"), json::ParseError);
}

TEST(Json, NonFiniteNumbersAreWrittenAsStrings) {
  json::Object o;
  o["nan"] = std::nan("");
  o["inf"] = -HUGE_VAL;
  EXPECT_EQ(json::write(json::Value(o)), R"({"nan":"nan","inf":"-inf"})");
}

TEST(Json, CopiesAreIndependent) {
  json::Value a = json::parse(R"({"x": [1]})");
  json::Value b = a;
  b.asObject()["x"].asArray().push_back(json::Value(2));
  EXPECT_EQ(json::write(a), R"({"x":[1]})");
  EXPECT_EQ(json::write(b), R"({"x":[1,2]})");
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(runtime::sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(runtime::sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(runtime::sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_NE(runtime::Sha256().field("ab").field("c").hex(), runtime::Sha256().field("a").field("bc").hex());
}
