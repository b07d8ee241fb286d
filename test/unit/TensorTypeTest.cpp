//===- TensorTypeTest.cpp - !gpuos.tensor construction and layout ---------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace gpuos;

namespace {

class TensorTypeTest : public ::testing::Test {
protected:
  TensorTypeTest() { context.loadDialect<GpuosDialect>(); }
  MLIRContext context;
  Type f32 = Float32Type::get(&context);
};

// Row-major strides are canonicalized away, so equal layouts are equal types.
TEST_F(TensorTypeTest, RowMajorStridesAreCanonical) {
  auto implicit = StridedTensorType::get({4, 8}, f32);
  auto spelled = StridedTensorType::get({4, 8}, f32, {8, 1});
  EXPECT_EQ(implicit, spelled);
  EXPECT_TRUE(spelled.isContiguous());
  auto transposed = StridedTensorType::get({8, 4}, f32, {1, 8});
  EXPECT_FALSE(transposed.isContiguous());
  EXPECT_EQ(transposed.getEffectiveStrides(), (SmallVector<int64_t>{1, 8}));
}

TEST_F(TensorTypeTest, NumElements) {
  EXPECT_EQ(StridedTensorType::get({4, 8}, f32).getNumElements(), 32);
  EXPECT_EQ(StridedTensorType::get({}, f32).getNumElements(), 1);
  EXPECT_FALSE(StridedTensorType::get({kDynamic, 8}, f32).getNumElements());
}

// The parser applies the same canonicalization as the builder.
TEST_F(TensorTypeTest, ParsePrintRoundTrip) {
  Type parsed = parseType("!gpuos.tensor<4x8xf32, strides = [8, 1]>", &context);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed, StridedTensorType::get({4, 8}, f32));
  Type strided =
      parseType("!gpuos.tensor<?x8xbf16, strides = [?, 0]>", &context);
  ASSERT_TRUE(strided);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << strided;
  EXPECT_EQ(text, "!gpuos.tensor<?x8xbf16, strides = [?, 0]>");
}

TEST_F(TensorTypeTest, ElementTypeSupport) {
  EXPECT_TRUE(isSupportedElementType(BFloat16Type::get(&context)));
  EXPECT_TRUE(isSupportedElementType(IntegerType::get(&context, 1)));
  EXPECT_FALSE(isSupportedElementType(IntegerType::get(&context, 16)));
  EXPECT_FALSE(isSupportedElementType(
      IntegerType::get(&context, 32, IntegerType::Unsigned)));
  EXPECT_TRUE(isInClass(f32, DTypeClass::Float));
  EXPECT_FALSE(isInClass(IntegerType::get(&context, 32), DTypeClass::Float));
  EXPECT_FALSE(isInClass(IntegerType::get(&context, 1), DTypeClass::Numeric));
}

// Verifier paths the parser cannot reach (it canonicalizes and rejects
// negative sizes earlier) are still checked for programmatic builders.
TEST_F(TensorTypeTest, GetCheckedRejectsWhatTheParserCannotSpell) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
  EXPECT_FALSE(StridedTensorType::getChecked(emitError, &context, {4, -3}, f32,
                                             {}));
  EXPECT_EQ(message, "dimension 1 has negative size -3");
  EXPECT_FALSE(StridedTensorType::getChecked(emitError, &context, {4, 8}, f32,
                                             {8, 1}));
  EXPECT_EQ(message, "row-major strides must be omitted (the contiguous form "
                     "is canonical)");
}

} // namespace
