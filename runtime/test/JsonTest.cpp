//===- JsonTest.cpp - the manifest JSON reader ----------------------------===//

#include "gpuos/runtime/Json.h"

#include "gtest/gtest.h"

using namespace gpuos::runtime::json;

// Objects keep order, integers stay integers, nesting works.
TEST(Json, ParsesNestedDocument) {
  Value v;
  std::string error;
  ASSERT_TRUE(parse(R"({"a": [1, -2, 3.5e1, true, null], "b": {"c": "d"}})", v,
                    error))
      << error;
  ASSERT_TRUE(v.isObject());
  ASSERT_EQ(v.members().size(), 2u);
  EXPECT_EQ(v.members()[0].first, "a");
  const Value *a = v.find("a");
  ASSERT_TRUE(a && a->isArray());
  ASSERT_EQ(a->items().size(), 5u);
  EXPECT_TRUE(a->items()[0].isInteger());
  EXPECT_EQ(a->items()[1].asInteger(), -2);
  EXPECT_FALSE(a->items()[2].isInteger());
  EXPECT_DOUBLE_EQ(a->items()[2].asNumber(), 35.0);
  EXPECT_TRUE(a->items()[3].asBool());
  EXPECT_TRUE(a->items()[4].isNull());
  EXPECT_EQ(v.find("b")->find("c")->asString(), "d");
  EXPECT_EQ(v.find("missing"), nullptr);
}

// Escapes, including a surrogate pair, decode to UTF-8.
TEST(Json, DecodesEscapes) {
  Value v;
  std::string error;
  ASSERT_TRUE(parse(R"("q\"b\\s\/n\nt\tu\u00e9\ud83d\ude00")", v, error)) << error;
  EXPECT_EQ(v.asString(), "q\"b\\s/n\nt\tu\xC3\xA9\xF0\x9F\x98\x80");
}

// Errors name the line and column and what was expected.
TEST(Json, ErrorsHaveLineAndColumn) {
  Value v;
  std::string error;
  EXPECT_FALSE(parse("{\n  \"a\": [1, 2,,]\n}", v, error));
  EXPECT_EQ(error, "line 2, column 14: unexpected character ','");
  EXPECT_FALSE(parse("{\"a\": 1, \"a\": 2}", v, error));
  EXPECT_NE(error.find("duplicate key \"a\""), std::string::npos);
  EXPECT_FALSE(parse("[1] x", v, error));
  EXPECT_NE(error.find("trailing characters"), std::string::npos);
  EXPECT_FALSE(parse("\"abc", v, error));
  EXPECT_NE(error.find("unterminated string"), std::string::npos);
  EXPECT_FALSE(parse("01", v, error));
  EXPECT_FALSE(parse("-", v, error));
  EXPECT_NE(error.find("invalid number"), std::string::npos);
  EXPECT_FALSE(parse("\"\\ud800\"", v, error));
  EXPECT_NE(error.find("unpaired surrogate"), std::string::npos);
  EXPECT_FALSE(parse("", v, error));
  EXPECT_NE(error.find("unexpected end of input"), std::string::npos);
}

// Pathological nesting is refused, not a stack overflow.
TEST(Json, DeepNestingIsRefused) {
  Value v;
  std::string error;
  EXPECT_FALSE(parse(std::string(10000, '[') + std::string(10000, ']'), v, error));
  EXPECT_NE(error.find("nesting deeper than 256"), std::string::npos);
}

// Integers beyond int64 fall back to doubles.
TEST(Json, HugeIntegersBecomeNumbers) {
  Value v;
  std::string error;
  ASSERT_TRUE(parse("123456789012345678901234567890", v, error));
  EXPECT_FALSE(v.isInteger());
  EXPECT_GT(v.asNumber(), 1e29);
}
