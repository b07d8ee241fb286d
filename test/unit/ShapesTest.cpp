//===- ShapesTest.cpp - broadcast and stride rules ------------------------===//

#include "gpuos/Dialect/Gpuos/IR/Shapes.h"
#include "gtest/gtest.h"

using namespace gpuos;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace {

SmallVector<int64_t> bcast(std::initializer_list<SmallVector<int64_t>> shapes,
                           bool *ok = nullptr) {
  SmallVector<ArrayRef<int64_t>> refs;
  for (const auto &s : shapes)
    refs.push_back(s);
  auto result = broadcastShapes(refs);
  if (ok)
    *ok = result.has_value();
  return result ? *result : SmallVector<int64_t>{};
}

// Numpy rules: right alignment, 1 stretches, rank grows to the largest.
TEST(Broadcast, NumpyRules) {
  EXPECT_EQ(bcast({{4, 1}, {8}}), (SmallVector<int64_t>{4, 8}));
  EXPECT_EQ(bcast({{2, 1, 3}, {5, 1}}), (SmallVector<int64_t>{2, 5, 3}));
  EXPECT_EQ(bcast({{}, {3, 2}}), (SmallVector<int64_t>{3, 2}));
  EXPECT_EQ(bcast({{1}, {1}}), (SmallVector<int64_t>{1}));
}

// A dynamic dim takes a static partner's size; against 1 or `?` it stays `?`.
TEST(Broadcast, DynamicDims) {
  EXPECT_EQ(bcast({{kDynamic, 4}, {8, 4}}), (SmallVector<int64_t>{8, 4}));
  EXPECT_EQ(bcast({{8, 4}, {kDynamic, 4}}), (SmallVector<int64_t>{8, 4}));
  EXPECT_EQ(bcast({{kDynamic}, {1}}), (SmallVector<int64_t>{kDynamic}));
  EXPECT_EQ(bcast({{kDynamic}, {kDynamic}}), (SmallVector<int64_t>{kDynamic}));
}

TEST(Broadcast, ConflictIsReported) {
  SmallVector<int64_t> a = {4, 3}, b = {2, 1, 5};
  SmallVector<ArrayRef<int64_t>> refs = {a, b};
  BroadcastConflict conflict{};
  EXPECT_FALSE(broadcastShapes(refs, &conflict).has_value());
  EXPECT_EQ(conflict.lhsOperand, 0u);
  EXPECT_EQ(conflict.rhsOperand, 1u);
  EXPECT_EQ(conflict.lhsDim, 3);
  EXPECT_EQ(conflict.rhsDim, 5);
  EXPECT_EQ(conflict.resultAxis, 2u);
}

TEST(Strides, RowMajor) {
  EXPECT_EQ(rowMajorStrides({4, 8, 16}), (SmallVector<int64_t>{128, 16, 1}));
  EXPECT_EQ(rowMajorStrides({}), (SmallVector<int64_t>{}));
  // A dynamic dim makes every stride to its left unknown.
  EXPECT_EQ(rowMajorStrides({4, kDynamic, 16}),
            (SmallVector<int64_t>{kDynamic, 16, 1}));
}

TEST(Shapes, Format) {
  EXPECT_EQ(formatShape({4, kDynamic, 8}), "4x?x8");
  EXPECT_EQ(formatShape({}), "scalar");
}

} // namespace
