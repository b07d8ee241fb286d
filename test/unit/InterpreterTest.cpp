//===- InterpreterTest.cpp - the reference interpreter vs plain loops -----===//
//
// Each test parses a graph, runs it through the interpreter and checks the
// outputs against values computed here independently: float64 loops with
// their own index arithmetic, hand-derived constants, or llvm::APFloat.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Interpreter/Interpreter.h"
#include "gpuos/Interpreter/Kernels.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/bit.h"
#include "gtest/gtest.h"
#include <cmath>
#include <limits>
#include <set>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::interp;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double f32(double v) { return static_cast<float>(v); }

std::vector<double> valuesOf(const HostTensor &tensor) {
  std::vector<double> values;
  for (int64_t i = 0; i < tensor.getNumElements(); ++i)
    values.push_back(tensor.getDouble(i));
  return values;
}

/// Shape, and every element within atol + rtol * |expected|; NaN matches NaN.
void expectValues(const HostTensor &actual, ArrayRef<int64_t> shape,
                  const std::vector<double> &expected, double atol = 0,
                  double rtol = 0) {
  ASSERT_EQ(actual.getShape(), shape);
  ASSERT_EQ(actual.getNumElements(), static_cast<int64_t>(expected.size()));
  int failures = 0;
  for (size_t i = 0; i < expected.size() && failures < 5; ++i) {
    double a = actual.getDouble(i), e = expected[i];
    bool ok = (std::isnan(a) && std::isnan(e)) || a == e ||
              std::fabs(a - e) <= atol + rtol * std::fabs(e);
    if (!ok)
      ++failures;
    EXPECT_TRUE(ok) << "element " << i << ": actual " << a << ", expected "
                    << e;
  }
}

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    context.loadDialect<GpuosDialect>();
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &context, [this](Diagnostic &diag) {
          diagnostics += diag.str() + "\n";
          return success();
        });
  }

  /// Parses `source` and returns its first graph (null on parse errors,
  /// which land in `diagnostics`).
  GraphOp parse(StringRef source) {
    module = parseSourceString<ModuleOp>(source, ParserConfig(&context));
    if (!module)
      return {};
    GraphOp graph;
    module->walk([&](GraphOp g) {
      if (!graph)
        graph = g;
    });
    return graph;
  }

  FailureOr<SmallVector<HostTensor>> run(StringRef source,
                                         ArrayRef<HostTensor> inputs,
                                         InterpreterOptions options = {}) {
    GraphOp graph = parse(source);
    if (!graph) {
      ADD_FAILURE() << "parse failed:\n" << diagnostics;
      return failure();
    }
    return evaluateGraph(graph, inputs, options);
  }

  /// Runs a graph that must succeed.
  SmallVector<HostTensor> mustRun(StringRef source, ArrayRef<HostTensor> inputs,
                                  InterpreterOptions options = {}) {
    FailureOr<SmallVector<HostTensor>> outputs = run(source, inputs, options);
    if (failed(outputs)) {
      ADD_FAILURE() << "evaluation failed:\n" << diagnostics;
      return {};
    }
    return std::move(*outputs);
  }

  MLIRContext context;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  OwningOpRef<ModuleOp> module;
  std::string diagnostics;
};

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// A chain of elementwise ops over three broadcast shapes; the reference
// rounds to f32 after every op, as each op's result type demands.
TEST_F(InterpreterTest, ElementwiseChainWithBroadcasting) {
  const char *source = R"mlir(
    gpuos.graph @chain(%x : !gpuos.tensor<3x4xf32>, %b : !gpuos.tensor<4xf32>,
                       %c : !gpuos.tensor<3x1xf32>) -> (y : !gpuos.tensor<3x4xf32>) {
      %t = gpuos.add %x, %b : !gpuos.tensor<3x4xf32>, !gpuos.tensor<4xf32>
      %u = gpuos.mul %t, %c : !gpuos.tensor<3x4xf32>, !gpuos.tensor<3x1xf32>
      %g = gpuos.gelu %u : !gpuos.tensor<3x4xf32>
      %d = gpuos.div %g, %c : !gpuos.tensor<3x4xf32>, !gpuos.tensor<3x1xf32>
      %m = gpuos.max %d, %b : !gpuos.tensor<3x4xf32>, !gpuos.tensor<4xf32>
      %y = gpuos.sub %m, %x : !gpuos.tensor<3x4xf32>, !gpuos.tensor<3x4xf32>
      gpuos.yield %y : !gpuos.tensor<3x4xf32>
    })mlir";
  HostTensor x = makeRandom({3, 4}, DType::F32, 1, -2, 2);
  HostTensor b = makeRandom({4}, DType::F32, 2, -2, 2);
  HostTensor c = makeRandom({3, 1}, DType::F32, 3, 0.5, 2);
  SmallVector<HostTensor> out = mustRun(source, {x, b, c});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> expected;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      double xv = x.getDouble(i * 4 + j), bv = b.getDouble(j),
             cv = c.getDouble(i);
      double t = f32(xv + bv), u = f32(t * cv);
      double g = f32(0.5 * u * (1 + std::erf(u / std::sqrt(2.0))));
      double d = f32(g / cv), m = std::max(d, bv);
      expected.push_back(f32(m - xv));
    }
  expectValues(out[0], {3, 4}, expected, 1e-7, 1e-6);
}

// Every unary op against its libm formula. The erf form of gelu differs from
// the tanh approximation by ~1e-3, far above the tolerance.
TEST_F(InterpreterTest, UnaryOps) {
  const char *source = R"mlir(
    gpuos.graph @unary(%p : !gpuos.tensor<2x5xf32>, %s : !gpuos.tensor<2x5xf32>)
        -> (exp : !gpuos.tensor<2x5xf32>, log : !gpuos.tensor<2x5xf32>,
            sqrt : !gpuos.tensor<2x5xf32>, rsqrt : !gpuos.tensor<2x5xf32>,
            tanh : !gpuos.tensor<2x5xf32>, sigmoid : !gpuos.tensor<2x5xf32>,
            gelu : !gpuos.tensor<2x5xf32>, silu : !gpuos.tensor<2x5xf32>,
            erf : !gpuos.tensor<2x5xf32>, abs : !gpuos.tensor<2x5xf32>,
            relu : !gpuos.tensor<2x5xf32>, neg : !gpuos.tensor<2x5xf32>) {
      %0 = gpuos.exp %s : !gpuos.tensor<2x5xf32>
      %1 = gpuos.log %p : !gpuos.tensor<2x5xf32>
      %2 = gpuos.sqrt %p : !gpuos.tensor<2x5xf32>
      %3 = gpuos.rsqrt %p : !gpuos.tensor<2x5xf32>
      %4 = gpuos.tanh %s : !gpuos.tensor<2x5xf32>
      %5 = gpuos.sigmoid %s : !gpuos.tensor<2x5xf32>
      %6 = gpuos.gelu %s : !gpuos.tensor<2x5xf32>
      %7 = gpuos.silu %s : !gpuos.tensor<2x5xf32>
      %8 = gpuos.erf %s : !gpuos.tensor<2x5xf32>
      %9 = gpuos.abs %s : !gpuos.tensor<2x5xf32>
      %10 = gpuos.relu %s : !gpuos.tensor<2x5xf32>
      %11 = gpuos.neg %s : !gpuos.tensor<2x5xf32>
      gpuos.yield %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
          : !gpuos.tensor<2x5xf32>, !gpuos.tensor<2x5xf32>, !gpuos.tensor<2x5xf32>,
            !gpuos.tensor<2x5xf32>, !gpuos.tensor<2x5xf32>, !gpuos.tensor<2x5xf32>,
            !gpuos.tensor<2x5xf32>, !gpuos.tensor<2x5xf32>, !gpuos.tensor<2x5xf32>,
            !gpuos.tensor<2x5xf32>, !gpuos.tensor<2x5xf32>, !gpuos.tensor<2x5xf32>
    })mlir";
  HostTensor p = makeRandom({2, 5}, DType::F32, 11, 0.1, 3);
  HostTensor s = makeRandom({2, 5}, DType::F32, 12, -3, 3);
  SmallVector<HostTensor> out = mustRun(source, {p, s});
  ASSERT_EQ(out.size(), 12u);
  using Fn = double (*)(double);
  Fn onSigned[] = {
      [](double x) { return std::exp(x); },
      nullptr,
      nullptr,
      nullptr,
      [](double x) { return std::tanh(x); },
      [](double x) { return 1 / (1 + std::exp(-x)); },
      [](double x) { return x * (1 + std::erf(x / std::sqrt(2.0))) / 2; },
      [](double x) { return x / (1 + std::exp(-x)); },
      [](double x) { return std::erf(x); },
      [](double x) { return std::fabs(x); },
      [](double x) { return x > 0 ? x : 0.0; },
      [](double x) { return -x; }};
  Fn onPositive[] = {nullptr, [](double x) { return std::log(x); },
                     [](double x) { return std::sqrt(x); },
                     [](double x) { return 1 / std::sqrt(x); }};
  for (int op = 0; op < 12; ++op) {
    SCOPED_TRACE("output #" + std::to_string(op));
    bool positive = op >= 1 && op <= 3;
    const HostTensor &in = positive ? p : s;
    std::vector<double> expected;
    for (double v : valuesOf(in))
      expected.push_back(f32(positive ? onPositive[op](v) : onSigned[op](v)));
    expectValues(out[op], {2, 5}, expected, 1e-7, 1e-6);
  }
}

TEST_F(InterpreterTest, BinaryOpsBroadcast) {
  const char *source = R"mlir(
    gpuos.graph @binary(%a : !gpuos.tensor<3x4xf32>, %b : !gpuos.tensor<4xf32>)
        -> (add : !gpuos.tensor<3x4xf32>, sub : !gpuos.tensor<3x4xf32>,
            mul : !gpuos.tensor<3x4xf32>, div : !gpuos.tensor<3x4xf32>,
            max : !gpuos.tensor<3x4xf32>, min : !gpuos.tensor<3x4xf32>,
            pow : !gpuos.tensor<3x4xf32>) {
      %0 = gpuos.add %a, %b : !gpuos.tensor<3x4xf32>, !gpuos.tensor<4xf32>
      %1 = gpuos.sub %b, %a : !gpuos.tensor<4xf32>, !gpuos.tensor<3x4xf32>
      %2 = gpuos.mul %a, %b : !gpuos.tensor<3x4xf32>, !gpuos.tensor<4xf32>
      %3 = gpuos.div %a, %b : !gpuos.tensor<3x4xf32>, !gpuos.tensor<4xf32>
      %4 = gpuos.max %a, %b : !gpuos.tensor<3x4xf32>, !gpuos.tensor<4xf32>
      %5 = gpuos.min %a, %b : !gpuos.tensor<3x4xf32>, !gpuos.tensor<4xf32>
      %6 = gpuos.pow %a, %b : !gpuos.tensor<3x4xf32>, !gpuos.tensor<4xf32>
      gpuos.yield %0, %1, %2, %3, %4, %5, %6
          : !gpuos.tensor<3x4xf32>, !gpuos.tensor<3x4xf32>, !gpuos.tensor<3x4xf32>,
            !gpuos.tensor<3x4xf32>, !gpuos.tensor<3x4xf32>, !gpuos.tensor<3x4xf32>,
            !gpuos.tensor<3x4xf32>
    })mlir";
  HostTensor a = makeRandom({3, 4}, DType::F32, 21, 0.1, 2);
  HostTensor b = makeRandom({4}, DType::F32, 22, 0.1, 2);
  SmallVector<HostTensor> out = mustRun(source, {a, b});
  ASSERT_EQ(out.size(), 7u);
  for (int op = 0; op < 7; ++op) {
    SCOPED_TRACE("output #" + std::to_string(op));
    std::vector<double> expected;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) {
        double x = a.getDouble(i * 4 + j), y = b.getDouble(j);
        double r[] = {x + y,          y - x,          x * y,         x / y,
                      std::max(x, y), std::min(x, y), std::pow(x, y)};
        expected.push_back(f32(r[op]));
      }
    expectValues(out[op], {3, 4}, expected, 1e-7, 1e-6);
  }
}

// An f16 op rounds its result: 1 + 2^-11 is a tie and goes to even (1.0),
// 1 + 1.5 * 2^-11 rounds up to 1 + 2^-10.
TEST_F(InterpreterTest, F16ArithmeticRoundsEachResult) {
  const char *source = R"mlir(
    gpuos.graph @h(%a : !gpuos.tensor<3xf16>, %b : !gpuos.tensor<3xf16>)
        -> (y : !gpuos.tensor<3xf16>) {
      %y = gpuos.add %a, %b : !gpuos.tensor<3xf16>, !gpuos.tensor<3xf16>
      gpuos.yield %y : !gpuos.tensor<3xf16>
    })mlir";
  HostTensor a = HostTensor::fromDoubles({3}, DType::F16, {1.0, 1.0, 65504});
  HostTensor b = HostTensor::fromDoubles(
      {3}, DType::F16, {std::ldexp(1.0, -11), 1.5 * std::ldexp(1.0, -11), 32});
  SmallVector<HostTensor> out = mustRun(source, {a, b});
  ASSERT_EQ(out.size(), 1u);
  expectValues(out[0], {3}, {1.0, 1.0009765625, kInf});
}

// Integer arithmetic wraps and x / 0 is 0 instead of a trap.
TEST_F(InterpreterTest, IntegerArithmeticWrapsAndDivisionByZeroIsZero) {
  const char *source = R"mlir(
    gpuos.graph @ints(%a : !gpuos.tensor<5xi32>, %b : !gpuos.tensor<5xi32>)
        -> (div : !gpuos.tensor<5xi32>, add : !gpuos.tensor<5xi32>,
            mul : !gpuos.tensor<5xi32>, neg : !gpuos.tensor<5xi32>) {
      %0 = gpuos.div %a, %b : !gpuos.tensor<5xi32>, !gpuos.tensor<5xi32>
      %1 = gpuos.add %a, %b : !gpuos.tensor<5xi32>, !gpuos.tensor<5xi32>
      %2 = gpuos.mul %a, %b : !gpuos.tensor<5xi32>, !gpuos.tensor<5xi32>
      %3 = gpuos.neg %a : !gpuos.tensor<5xi32>
      gpuos.yield %0, %1, %2, %3 : !gpuos.tensor<5xi32>, !gpuos.tensor<5xi32>,
                                   !gpuos.tensor<5xi32>, !gpuos.tensor<5xi32>
    })mlir";
  const int64_t min = INT32_MIN, max = INT32_MAX;
  HostTensor a = HostTensor::fromInts({5}, DType::I32, {7, -7, min, max, 5});
  HostTensor b = HostTensor::fromInts({5}, DType::I32, {0, 2, -1, 1, -3});
  SmallVector<HostTensor> out = mustRun(source, {a, b});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].getIntData(), ArrayRef<int64_t>({0, -3, min, max, -1}));
  EXPECT_EQ(out[1].getIntData(), ArrayRef<int64_t>({7, -5, max, min, 2}));
  EXPECT_EQ(out[2].getIntData(), ArrayRef<int64_t>({0, -14, min, max, -15}));
  EXPECT_EQ(out[3].getIntData(), ArrayRef<int64_t>({-7, 7, min, -max, -5}));

  const char *wide = R"mlir(
    gpuos.graph @wide(%a : !gpuos.tensor<2xi64>, %b : !gpuos.tensor<2xi64>,
                      %c : !gpuos.tensor<2xi8>)
        -> (div : !gpuos.tensor<2xi64>, abs : !gpuos.tensor<2xi8>) {
      %0 = gpuos.div %a, %b : !gpuos.tensor<2xi64>, !gpuos.tensor<2xi64>
      %1 = gpuos.abs %c : !gpuos.tensor<2xi8>
      gpuos.yield %0, %1 : !gpuos.tensor<2xi64>, !gpuos.tensor<2xi8>
    })mlir";
  const int64_t min64 = std::numeric_limits<int64_t>::min();
  out = mustRun(wide, {HostTensor::fromInts({2}, DType::I64, {min64, 9}),
                       HostTensor::fromInts({2}, DType::I64, {-1, 0}),
                       HostTensor::fromInts({2}, DType::I8, {-128, -5})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].getIntData(), ArrayRef<int64_t>({min64, 0}));
  EXPECT_EQ(out[1].getIntData(), ArrayRef<int64_t>({-128, 5}));
}

TEST_F(InterpreterTest, CompareAndSelect) {
  const char *source = R"mlir(
    gpuos.graph @cmp(%x : !gpuos.tensor<2x3xf32>, %y : !gpuos.tensor<3xf32>)
        -> (eq : !gpuos.tensor<2x3xi1>, ne : !gpuos.tensor<2x3xi1>,
            lt : !gpuos.tensor<2x3xi1>, le : !gpuos.tensor<2x3xi1>,
            gt : !gpuos.tensor<2x3xi1>, ge : !gpuos.tensor<2x3xi1>,
            sel : !gpuos.tensor<2x3xf32>) {
      %0 = gpuos.cmp eq, %x, %y : !gpuos.tensor<2x3xf32>, !gpuos.tensor<3xf32>
      %1 = gpuos.cmp ne, %x, %y : !gpuos.tensor<2x3xf32>, !gpuos.tensor<3xf32>
      %2 = gpuos.cmp lt, %x, %y : !gpuos.tensor<2x3xf32>, !gpuos.tensor<3xf32>
      %3 = gpuos.cmp le, %x, %y : !gpuos.tensor<2x3xf32>, !gpuos.tensor<3xf32>
      %4 = gpuos.cmp gt, %x, %y : !gpuos.tensor<2x3xf32>, !gpuos.tensor<3xf32>
      %5 = gpuos.cmp ge, %x, %y : !gpuos.tensor<2x3xf32>, !gpuos.tensor<3xf32>
      %c = gpuos.constant dense<-100.0> : tensor<f32>
      %6 = gpuos.select %2, %x, %c
          : !gpuos.tensor<2x3xi1>, !gpuos.tensor<2x3xf32>, !gpuos.tensor<f32>
      gpuos.yield %0, %1, %2, %3, %4, %5, %6
          : !gpuos.tensor<2x3xi1>, !gpuos.tensor<2x3xi1>, !gpuos.tensor<2x3xi1>,
            !gpuos.tensor<2x3xi1>, !gpuos.tensor<2x3xi1>, !gpuos.tensor<2x3xi1>,
            !gpuos.tensor<2x3xf32>
    })mlir";
  std::vector<double> xs = {1, 2, 3, 0.5, 2, kNaN}, ys = {1, 1, 4};
  SmallVector<HostTensor> out =
      mustRun(source, {HostTensor::fromDoubles({2, 3}, DType::F32, xs),
                       HostTensor::fromDoubles({3}, DType::F32, ys)});
  ASSERT_EQ(out.size(), 7u);
  std::vector<double> expected[7];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      double x = xs[i * 3 + j], y = ys[j];
      expected[0].push_back(x == y);
      expected[1].push_back(x != y);
      expected[2].push_back(x < y);
      expected[3].push_back(x <= y);
      expected[4].push_back(x > y);
      expected[5].push_back(x >= y);
      expected[6].push_back(x < y ? x : -100.0);
    }
  for (int op = 0; op < 6; ++op) {
    SCOPED_TRACE("predicate #" + std::to_string(op));
    EXPECT_EQ(out[op].getDType(), DType::I1);
    expectValues(out[op], {2, 3}, expected[op]);
  }
  expectValues(out[6], {2, 3}, expected[6]);
}

//===----------------------------------------------------------------------===//
// Views and data movement
//===----------------------------------------------------------------------===//

// transpose + strided slice + broadcast feeding an add: the views' strides
// must compose, so the reference indexes the original buffer directly.
TEST_F(InterpreterTest, StridedViewsFeedingAnAdd) {
  const char *source = R"mlir(
    gpuos.graph @views(%x : !gpuos.tensor<4x6xf32>, %b : !gpuos.tensor<2xf32>)
        -> (y : !gpuos.tensor<3x2xf32>) {
      %y = gpuos.add %s, %bb : !gpuos.tensor<3x2xf32, strides = [2, 18]>,
                               !gpuos.tensor<3x2xf32, strides = [0, 1]>
      %t = gpuos.transpose %x [1, 0] : !gpuos.tensor<4x6xf32>
      %s = gpuos.slice %t starts [1, 0] sizes [3, 2] steps [2, 3]
          : !gpuos.tensor<6x4xf32, strides = [1, 6]>
      %bb = gpuos.broadcast %b to [3, 2] : !gpuos.tensor<2xf32>
      gpuos.yield %y : !gpuos.tensor<3x2xf32>
    })mlir";
  std::vector<double> xs(24);
  for (int i = 0; i < 24; ++i)
    xs[i] = i;
  SmallVector<HostTensor> out =
      mustRun(source, {HostTensor::fromDoubles({4, 6}, DType::F32, xs),
                       HostTensor::fromDoubles({2}, DType::F32, {100, 200})});
  ASSERT_EQ(out.size(), 1u);
  // s[i][j] = t[1 + 2i][3j] = x[3j][1 + 2i] = 6 * 3j + 1 + 2i.
  std::vector<double> expected;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      expected.push_back(18 * j + 1 + 2 * i + (j ? 200 : 100));
  expectValues(out[0], {3, 2}, expected);
}

TEST_F(InterpreterTest, ReshapeAndLeadingBroadcast) {
  const char *source = R"mlir(
    gpuos.graph @r(%x : !gpuos.tensor<2x3xi32>)
        -> (r : !gpuos.tensor<3x2xi32>, b : !gpuos.tensor<2x3x2xi32>) {
      %r = gpuos.reshape %x to [3, 2] : !gpuos.tensor<2x3xi32>
      %b = gpuos.broadcast %r to [2, 3, 2] : !gpuos.tensor<3x2xi32>
      %c = gpuos.add %b, %b : !gpuos.tensor<2x3x2xi32, strides = [0, 2, 1]>,
                              !gpuos.tensor<2x3x2xi32, strides = [0, 2, 1]>
      gpuos.yield %r, %c : !gpuos.tensor<3x2xi32>, !gpuos.tensor<2x3x2xi32>
    })mlir";
  SmallVector<HostTensor> out = mustRun(
      source, {HostTensor::fromInts({2, 3}, DType::I32, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(out.size(), 2u);
  expectValues(out[0], {3, 2}, {1, 2, 3, 4, 5, 6});
  expectValues(out[1], {2, 3, 2}, {2, 4, 6, 8, 10, 12, 2, 4, 6, 8, 10, 12});
}

TEST_F(InterpreterTest, Concat) {
  const char *source = R"mlir(
    gpuos.graph @cat(%a : !gpuos.tensor<2x2xf32>, %b : !gpuos.tensor<2x3xf32>,
                     %c : !gpuos.tensor<1x2xf32>)
        -> (cols : !gpuos.tensor<2x5xf32>, rows : !gpuos.tensor<5x2xf32>) {
      %0 = gpuos.concat %a, %b axis 1 : !gpuos.tensor<2x2xf32>, !gpuos.tensor<2x3xf32>
      %1 = gpuos.concat %a, %c, %a axis 0
          : !gpuos.tensor<2x2xf32>, !gpuos.tensor<1x2xf32>, !gpuos.tensor<2x2xf32>
      gpuos.yield %0, %1 : !gpuos.tensor<2x5xf32>, !gpuos.tensor<5x2xf32>
    })mlir";
  SmallVector<HostTensor> out = mustRun(
      source, {HostTensor::fromDoubles({2, 2}, DType::F32, {1, 2, 3, 4}),
               HostTensor::fromDoubles({2, 3}, DType::F32, {5, 6, 7, 8, 9, 10}),
               HostTensor::fromDoubles({1, 2}, DType::F32, {-1, -2})});
  ASSERT_EQ(out.size(), 2u);
  expectValues(out[0], {2, 5}, {1, 2, 5, 6, 7, 3, 4, 8, 9, 10});
  expectValues(out[1], {5, 2}, {1, 2, 3, 4, -1, -2, 1, 2, 3, 4});
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, ReduceEachKindWithKeepdim) {
  const char *source = R"mlir(
    gpuos.graph @red(%x : !gpuos.tensor<2x3x4xf32>)
        -> (sum : !gpuos.tensor<1x3x1xf32>, mean : !gpuos.tensor<2x4xf32>,
            max : !gpuos.tensor<2x3x1xf32>, min : !gpuos.tensor<4xf32>) {
      %0 = gpuos.reduce sum %x axes [2, 0] keepdim : !gpuos.tensor<2x3x4xf32>
      %1 = gpuos.reduce mean %x axes [1] : !gpuos.tensor<2x3x4xf32>
      %2 = gpuos.reduce max %x axes [2] keepdim : !gpuos.tensor<2x3x4xf32>
      %3 = gpuos.reduce min %x axes [0, 1] : !gpuos.tensor<2x3x4xf32>
      gpuos.yield %0, %1, %2, %3 : !gpuos.tensor<1x3x1xf32>, !gpuos.tensor<2x4xf32>,
                                   !gpuos.tensor<2x3x1xf32>, !gpuos.tensor<4xf32>
    })mlir";
  HostTensor x = makeRandom({2, 3, 4}, DType::F32, 31, -1, 1);
  SmallVector<HostTensor> out = mustRun(source, {x});
  ASSERT_EQ(out.size(), 4u);
  auto at = [&](int i, int j, int k) {
    return x.getDouble((i * 3 + j) * 4 + k);
  };
  std::vector<double> sum(3, 0), mean(8, 0), max(6, -kInf), min(4, kInf);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        sum[j] += at(i, j, k);
        mean[i * 4 + k] += at(i, j, k) / 3;
        max[i * 3 + j] = std::max(max[i * 3 + j], at(i, j, k));
        min[k] = std::min(min[k], at(i, j, k));
      }
  expectValues(out[0], {1, 3, 1}, sum, 1e-6, 1e-6);
  expectValues(out[1], {2, 4}, mean, 1e-6, 1e-6);
  expectValues(out[2], {2, 3, 1}, max);
  expectValues(out[3], {4}, min);
}

// Integer sums wrap to the element width; max over ints is exact.
TEST_F(InterpreterTest, IntegerReductions) {
  const char *source = R"mlir(
    gpuos.graph @ired(%x : !gpuos.tensor<2x3xi8>)
        -> (sum : !gpuos.tensor<2xi8>, max : !gpuos.tensor<3xi8>) {
      %0 = gpuos.reduce sum %x axes [1] : !gpuos.tensor<2x3xi8>
      %1 = gpuos.reduce max %x axes [0] : !gpuos.tensor<2x3xi8>
      gpuos.yield %0, %1 : !gpuos.tensor<2xi8>, !gpuos.tensor<3xi8>
    })mlir";
  SmallVector<HostTensor> out = mustRun(
      source,
      {HostTensor::fromInts({2, 3}, DType::I8, {100, 100, 100, -5, 7, -128})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].getIntData(), ArrayRef<int64_t>({300 - 256, -126}));
  EXPECT_EQ(out[1].getIntData(), ArrayRef<int64_t>({100, 100, 100}));
}

TEST_F(InterpreterTest, ArgmaxTiesPickTheFirstIndex) {
  const char *source = R"mlir(
    gpuos.graph @am(%x : !gpuos.tensor<2x5xf32>, %n : !gpuos.tensor<4xi32>)
        -> (rows : !gpuos.tensor<2xi64>, cols : !gpuos.tensor<1x5xi64>,
            ints : !gpuos.tensor<i64>) {
      %0 = gpuos.argmax %x axis 1 : !gpuos.tensor<2x5xf32>
      %1 = gpuos.argmax %x axis 0 keepdim : !gpuos.tensor<2x5xf32>
      %2 = gpuos.argmax %n axis 0 : !gpuos.tensor<4xi32>
      gpuos.yield %0, %1, %2 : !gpuos.tensor<2xi64>, !gpuos.tensor<1x5xi64>,
                               !gpuos.tensor<i64>
    })mlir";
  SmallVector<HostTensor> out =
      mustRun(source, {HostTensor::fromDoubles({2, 5}, DType::F32,
                                               {1, 3, 3, 2, 3, -1, 5, 3, 2, 3}),
                       HostTensor::fromInts({4}, DType::I32, {-4, 9, 2, 9})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].getIntData(), ArrayRef<int64_t>({1, 1}));
  EXPECT_EQ(out[1].getShape(), ArrayRef<int64_t>({1, 5}));
  EXPECT_EQ(out[1].getIntData(), ArrayRef<int64_t>({0, 1, 0, 0, 0}));
  EXPECT_EQ(out[2].getShape(), ArrayRef<int64_t>({}));
  EXPECT_EQ(out[2].getIntData(), ArrayRef<int64_t>({1}));
}

// NaN counts as the largest value (as torch.argmax does).
TEST_F(InterpreterTest, ArgmaxKernelTreatsNaNAsLargest) {
  llvm::Expected<HostTensor> index = argmax(
      HostTensor::fromDoubles({4}, DType::F32, {1, kNaN, 5, kNaN}), 0, false);
  ASSERT_TRUE(static_cast<bool>(index)) << llvm::toString(index.takeError());
  EXPECT_EQ(index->getIntData(), ArrayRef<int64_t>({1}));
}

TEST_F(InterpreterTest, SoftmaxRowsSumToOneAndMatchReference) {
  const char *source = R"mlir(
    gpuos.graph @sm(%x : !gpuos.tensor<3x7xf32>)
        -> (rows : !gpuos.tensor<3x7xf32>, cols : !gpuos.tensor<3x7xf32>) {
      %0 = gpuos.softmax %x axis 1 : !gpuos.tensor<3x7xf32>
      %1 = gpuos.softmax %x axis 0 : !gpuos.tensor<3x7xf32>
      gpuos.yield %0, %1 : !gpuos.tensor<3x7xf32>, !gpuos.tensor<3x7xf32>
    })mlir";
  HostTensor x = makeRandom({3, 7}, DType::F32, 41, -4, 4);
  SmallVector<HostTensor> out = mustRun(source, {x});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> rows(21), cols(21);
  for (int i = 0; i < 3; ++i) {
    double total = 0, rowSum = 0;
    for (int j = 0; j < 7; ++j)
      total += std::exp(x.getDouble(i * 7 + j));
    for (int j = 0; j < 7; ++j) {
      rows[i * 7 + j] = std::exp(x.getDouble(i * 7 + j)) / total;
      rowSum += out[0].getDouble(i * 7 + j);
    }
    EXPECT_NEAR(rowSum, 1.0, 1e-6) << "row " << i;
  }
  for (int j = 0; j < 7; ++j) {
    double total = 0;
    for (int i = 0; i < 3; ++i)
      total += std::exp(x.getDouble(i * 7 + j));
    for (int i = 0; i < 3; ++i)
      cols[i * 7 + j] = std::exp(x.getDouble(i * 7 + j)) / total;
  }
  expectValues(out[0], {3, 7}, rows, 1e-7, 1e-6);
  expectValues(out[1], {3, 7}, cols, 1e-7, 1e-6);
}

// Subtracting the max keeps exp finite where a naive softmax overflows.
TEST_F(InterpreterTest, SoftmaxIsStable) {
  llvm::Expected<HostTensor> y = softmax(
      HostTensor::fromDoubles({3}, DType::F32, {1000, 1001, 1002}), 0, {});
  ASSERT_TRUE(static_cast<bool>(y)) << llvm::toString(y.takeError());
  double total = 1 + std::exp(1.0) + std::exp(2.0);
  expectValues(
      *y, {3},
      {f32(1 / total), f32(std::exp(1.0) / total), f32(std::exp(2.0) / total)},
      0, 1e-6);
}

TEST_F(InterpreterTest, LayerNormAndRmsNormMatchReference) {
  const char *source = R"mlir(
    gpuos.graph @norms(%x : !gpuos.tensor<3x16xf32>, %w : !gpuos.tensor<16xf32>,
                       %b : !gpuos.tensor<16xf32>)
        -> (ln : !gpuos.tensor<3x16xf32>, plain : !gpuos.tensor<3x16xf32>,
            rms : !gpuos.tensor<3x16xf32>) {
      %0 = gpuos.layer_norm %x weight(%w : !gpuos.tensor<16xf32>)
          bias(%b : !gpuos.tensor<16xf32>) eps 1.0e-05 : !gpuos.tensor<3x16xf32>
      %1 = gpuos.layer_norm %x eps 1.0e-05 : !gpuos.tensor<3x16xf32>
      %2 = gpuos.rms_norm %x weight(%w : !gpuos.tensor<16xf32>) eps 1.0e-06
          : !gpuos.tensor<3x16xf32>
      gpuos.yield %0, %1, %2 : !gpuos.tensor<3x16xf32>, !gpuos.tensor<3x16xf32>,
                               !gpuos.tensor<3x16xf32>
    })mlir";
  HostTensor x = makeRandom({3, 16}, DType::F32, 51, -2, 3);
  HostTensor w = makeRandom({16}, DType::F32, 52, 0.5, 1.5);
  HostTensor b = makeRandom({16}, DType::F32, 53, -1, 1);
  SmallVector<HostTensor> out = mustRun(source, {x, w, b});
  ASSERT_EQ(out.size(), 3u);
  std::vector<double> ln, plain, rms;
  for (int i = 0; i < 3; ++i) {
    double mean = 0, var = 0, squares = 0;
    for (int j = 0; j < 16; ++j)
      mean += x.getDouble(i * 16 + j) / 16;
    for (int j = 0; j < 16; ++j) {
      double v = x.getDouble(i * 16 + j);
      var += (v - mean) * (v - mean) / 16; // biased
      squares += v * v / 16;
    }
    for (int j = 0; j < 16; ++j) {
      double v = x.getDouble(i * 16 + j);
      double normed = (v - mean) / std::sqrt(var + 1e-5);
      plain.push_back(normed);
      ln.push_back(normed * w.getDouble(j) + b.getDouble(j));
      rms.push_back(v / std::sqrt(squares + 1e-6) * w.getDouble(j));
    }
  }
  expectValues(out[0], {3, 16}, ln, 1e-6, 1e-6);
  expectValues(out[1], {3, 16}, plain, 1e-6, 1e-6);
  expectValues(out[2], {3, 16}, rms, 1e-6, 1e-6);
}

// Batch dims [2, 1] and [3] broadcast to [2, 3]; lhs is stored K x M and
// rhs N x K, so both flags are exercised against naive loops.
TEST_F(InterpreterTest, BatchedMatmulWithTransposes) {
  const char *source = R"mlir(
    gpuos.graph @mm(%a : !gpuos.tensor<2x1x5x3xf32>, %b : !gpuos.tensor<3x4x5xf32>,
                    %c : !gpuos.tensor<3x5xf32>, %d : !gpuos.tensor<5x2xf32>)
        -> (y : !gpuos.tensor<2x3x3x4xf32>, z : !gpuos.tensor<3x2xf32>) {
      %y = gpuos.matmul %a, %b transpose_lhs transpose_rhs
          : !gpuos.tensor<2x1x5x3xf32>, !gpuos.tensor<3x4x5xf32>
      %z = gpuos.matmul %c, %d : !gpuos.tensor<3x5xf32>, !gpuos.tensor<5x2xf32>
      gpuos.yield %y, %z : !gpuos.tensor<2x3x3x4xf32>, !gpuos.tensor<3x2xf32>
    })mlir";
  HostTensor a = makeRandom({2, 1, 5, 3}, DType::F32, 61, -1, 1);
  HostTensor b = makeRandom({3, 4, 5}, DType::F32, 62, -1, 1);
  HostTensor c = makeRandom({3, 5}, DType::F32, 63, -1, 1);
  HostTensor d = makeRandom({5, 2}, DType::F32, 64, -1, 1);
  SmallVector<HostTensor> out = mustRun(source, {a, b, c, d});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> y;
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 3; ++q)
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 4; ++n) {
          double sum = 0;
          for (int k = 0; k < 5; ++k)
            sum += a.getDouble((p * 5 + k) * 3 + m) * // a[p][0][k][m]
                   b.getDouble((q * 4 + n) * 5 + k);  // b[q][n][k]
          y.push_back(sum);
        }
  expectValues(out[0], {2, 3, 3, 4}, y, 1e-6, 1e-6);
  std::vector<double> z;
  for (int m = 0; m < 3; ++m)
    for (int n = 0; n < 2; ++n) {
      double sum = 0;
      for (int k = 0; k < 5; ++k)
        sum += c.getDouble(m * 5 + k) * d.getDouble(k * 2 + n);
      z.push_back(sum);
    }
  expectValues(out[1], {3, 2}, z, 1e-6, 1e-6);
}

// f64 accumulation gives the exact 3000; accumulating in f16 stalls at 2048,
// where adding 1 is a tie that rounds back to even. matmul accumulates in
// f32 even for bf16 operands, so it still reaches 300 (bf16 alone would
// stall at 256).
TEST_F(InterpreterTest, AccumulationOption) {
  const char *source = R"mlir(
    gpuos.graph @acc(%x : !gpuos.tensor<3000xf16>, %a : !gpuos.tensor<1x300xbf16>,
                     %b : !gpuos.tensor<300x1xbf16>)
        -> (s : !gpuos.tensor<f16>, m : !gpuos.tensor<1x1xbf16>) {
      %s = gpuos.reduce sum %x axes [0] : !gpuos.tensor<3000xf16>
      %m = gpuos.matmul %a, %b : !gpuos.tensor<1x300xbf16>, !gpuos.tensor<300x1xbf16>
      gpuos.yield %s, %m : !gpuos.tensor<f16>, !gpuos.tensor<1x1xbf16>
    })mlir";
  SmallVector<HostTensor> inputs = {
      HostTensor::fromDoubles({3000}, DType::F16, std::vector<double>(3000, 1)),
      HostTensor::fromDoubles({1, 300}, DType::BF16,
                              std::vector<double>(300, 1)),
      HostTensor::fromDoubles({300, 1}, DType::BF16,
                              std::vector<double>(300, 1))};
  SmallVector<HostTensor> exact = mustRun(source, inputs);
  ASSERT_EQ(exact.size(), 2u);
  expectValues(exact[0], {}, {3000});
  expectValues(exact[1], {1, 1}, {300});
  InterpreterOptions narrow;
  narrow.accumulateInF64 = false;
  SmallVector<HostTensor> stalled = mustRun(source, inputs, narrow);
  ASSERT_EQ(stalled.size(), 2u);
  expectValues(stalled[0], {}, {2048});
  expectValues(stalled[1], {1, 1}, {300});
}

//===----------------------------------------------------------------------===//
// Casts and rounding
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, CastRounding) {
  const char *source = R"mlir(
    gpuos.graph @casts(%x : !gpuos.tensor<9xf32>, %y : !gpuos.tensor<5xf32>,
                       %n : !gpuos.tensor<5xi32>)
        -> (h : !gpuos.tensor<9xf16>, bf : !gpuos.tensor<5xbf16>,
            i : !gpuos.tensor<5xi8>, w : !gpuos.tensor<5xi8>,
            z : !gpuos.tensor<5xi1>, d : !gpuos.tensor<5xf64>) {
      %0 = gpuos.cast %x : !gpuos.tensor<9xf32> to f16
      %1 = gpuos.cast %y : !gpuos.tensor<5xf32> to bf16
      %2 = gpuos.cast %y : !gpuos.tensor<5xf32> to i8
      %3 = gpuos.cast %n : !gpuos.tensor<5xi32> to i8
      %4 = gpuos.cast %n : !gpuos.tensor<5xi32> to i1
      %5 = gpuos.cast %n : !gpuos.tensor<5xi32> to f64
      gpuos.yield %0, %1, %2, %3, %4, %5
          : !gpuos.tensor<9xf16>, !gpuos.tensor<5xbf16>, !gpuos.tensor<5xi8>,
            !gpuos.tensor<5xi8>, !gpuos.tensor<5xi1>, !gpuos.tensor<5xf64>
    })mlir";
  double tiny = std::ldexp(1.0, -25); // half of the smallest f16 subnormal
  std::vector<double> xs = {1.0009765625, 1.00048828125, 1.00146484375,
                            65519,        65520,         70000,
                            tiny,         3 * tiny,      -2.5};
  std::vector<double> ys = {1.00390625, 1.01171875, 3.4028234663852886e38, -2.7,
                            kNaN};
  SmallVector<HostTensor> out = mustRun(
      source,
      {HostTensor::fromDoubles({9}, DType::F32, xs),
       HostTensor::fromDoubles({5}, DType::F32, ys),
       HostTensor::fromInts({5}, DType::I32, {300, -129, 128, 0, 255})});
  ASSERT_EQ(out.size(), 6u);
  // f16: exact, tie to even (down), tie to even (up), below the rounding
  // boundary of 65504, at it (to inf), overflow, subnormal ties.
  expectValues(out[0], {9},
               {1.0009765625, 1.0, 1.001953125, 65504, kInf, kInf, 0,
                std::ldexp(1.0, -23), -2.5});
  // bf16: 1 + 2^-8 and 1 + 3 * 2^-8 are ties; FLT_MAX rounds past the top.
  expectValues(out[1], {5}, {1.0, 1.015625, kInf, -2.703125, kNaN});
  // f32 -> i8 truncates toward zero, saturates, and NaN gives 0.
  EXPECT_EQ(out[2].getIntData(), ArrayRef<int64_t>({1, 1, 127, -2, 0}));
  // i32 -> i8 wraps.
  EXPECT_EQ(out[3].getIntData(), ArrayRef<int64_t>({44, 127, -128, 0, -1}));
  EXPECT_EQ(out[4].getIntData(), ArrayRef<int64_t>({1, 1, 1, 0, 1}));
  expectValues(out[5], {5}, {300, -129, 128, 0, 255});
}

// The fast f16/bf16 rounding against llvm::APFloat on random doubles of
// every magnitude plus the edge cases.
TEST(RoundingTest, MatchesAPFloat) {
  auto viaAPFloat = [](double value, const llvm::fltSemantics &sem) {
    llvm::APFloat f(value);
    bool losesInfo;
    f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &losesInfo);
    return f.convertToDouble();
  };
  std::mt19937_64 rng(7);
  std::vector<double> values = {0.0,    -0.0,   65504,   65519.99, 65520,
                                -65520, 6.0e-8, 2.98e-8, 1e-45,    kInf,
                                -kInf,  3.4e38, 3.39e38, 1.0 / 3};
  for (int i = 0; i < 200000; ++i) {
    // Random float bit patterns cover every exponent; random doubles add the
    // bits below float precision that make double rounding visible.
    uint64_t bits = rng();
    float asFloat = llvm::bit_cast<float>(static_cast<uint32_t>(bits));
    if (!std::isnan(asFloat))
      values.push_back(asFloat);
    double wide = std::ldexp(static_cast<double>(bits >> 11) * 0x1.0p-53,
                             static_cast<int>(rng() % 80) - 40);
    values.push_back(i % 2 ? wide : -wide);
  }
  for (double v : values) {
    ASSERT_EQ(roundToF16(v), viaAPFloat(v, llvm::APFloat::IEEEhalf()))
        << "f16 of " << v;
    ASSERT_EQ(roundToBF16(v), viaAPFloat(v, llvm::APFloat::BFloat()))
        << "bf16 of " << v;
  }
  EXPECT_TRUE(std::isnan(roundToF16(kNaN)));
  EXPECT_TRUE(std::isnan(roundToBF16(kNaN)));
}

//===----------------------------------------------------------------------===//
// Constants, tasks, graph order
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, Constants) {
  const char *source = R"mlir(
    gpuos.graph @consts(%x : !gpuos.tensor<2x2xf32>)
        -> (a : !gpuos.tensor<2x2xf32>, s : !gpuos.tensor<3xi32>,
            m : !gpuos.tensor<3xi1>, h : !gpuos.tensor<2xbf16>,
            q : !gpuos.tensor<2xi8>) {
      %c = gpuos.constant dense<[[1.5, -2.0], [0.25, 3.0]]> : tensor<2x2xf32>
      %a = gpuos.add %x, %c : !gpuos.tensor<2x2xf32>, !gpuos.tensor<2x2xf32>
      %s = gpuos.constant dense<7> : tensor<3xi32>
      %m = gpuos.constant dense<[true, false, true]> : tensor<3xi1>
      %h = gpuos.constant dense<-1.5> : tensor<2xbf16>
      %q = gpuos.constant dense<[-128, 127]> : tensor<2xi8>
      gpuos.yield %a, %s, %m, %h, %q : !gpuos.tensor<2x2xf32>, !gpuos.tensor<3xi32>,
          !gpuos.tensor<3xi1>, !gpuos.tensor<2xbf16>, !gpuos.tensor<2xi8>
    })mlir";
  SmallVector<HostTensor> out = mustRun(
      source, {HostTensor::fromDoubles({2, 2}, DType::F32, {10, 20, 30, 40})});
  ASSERT_EQ(out.size(), 5u);
  expectValues(out[0], {2, 2}, {11.5, 18, 30.25, 43});
  EXPECT_EQ(out[1].getIntData(), ArrayRef<int64_t>({7, 7, 7}));
  EXPECT_EQ(out[2].getIntData(), ArrayRef<int64_t>({1, 0, 1}));
  EXPECT_EQ(out[3].getDType(), DType::BF16);
  expectValues(out[3], {2}, {-1.5, -1.5});
  EXPECT_EQ(out[4].getIntData(), ArrayRef<int64_t>({-128, 127}));
}

// A task evaluates its body on its operands; the graph body uses a task
// result before the task is written (graph regions allow any order).
TEST_F(InterpreterTest, TaskBodyAndOutOfOrderGraph) {
  const char *source = R"mlir(
    gpuos.graph @tasks(%x : !gpuos.tensor<2x4xf32>, %b : !gpuos.tensor<4xf32>)
        -> (y : !gpuos.tensor<2x4xf32>, z : !gpuos.tensor<2xf32>) {
      %z = gpuos.reduce sum %r#1 axes [1] : !gpuos.tensor<2x4xf32>
      %r:2 = gpuos.task "fused_add_exp" ins(%a = %x : !gpuos.tensor<2x4xf32>,
                                           %c = %b : !gpuos.tensor<4xf32>)
          tile [1, 4] -> (!gpuos.tensor<2x4xf32>, !gpuos.tensor<2x4xf32>) {
        %s = gpuos.add %a, %c : !gpuos.tensor<2x4xf32>, !gpuos.tensor<4xf32>
        %e = gpuos.exp %s : !gpuos.tensor<2x4xf32>
        gpuos.yield %e, %s : !gpuos.tensor<2x4xf32>, !gpuos.tensor<2x4xf32>
      }
      gpuos.yield %r#0, %z : !gpuos.tensor<2x4xf32>, !gpuos.tensor<2xf32>
    })mlir";
  HostTensor x = makeRandom({2, 4}, DType::F32, 71, -1, 1);
  HostTensor b = makeRandom({4}, DType::F32, 72, -1, 1);
  SmallVector<HostTensor> out = mustRun(source, {x, b});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> y, z(2, 0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      double s = f32(x.getDouble(i * 4 + j) + b.getDouble(j));
      y.push_back(f32(std::exp(s)));
      z[i] += s;
    }
  expectValues(out[0], {2, 4}, y, 1e-7, 1e-6);
  expectValues(out[1], {2}, z, 1e-6, 1e-6);
}

//===----------------------------------------------------------------------===//
// Dynamic shapes and errors
//===----------------------------------------------------------------------===//

const char *kDynamicAdd = R"mlir(
  gpuos.graph @dyn(%x : !gpuos.tensor<?x4xf32>, %y : !gpuos.tensor<8x4xf32>)
      -> (s : !gpuos.tensor<8x4xf32>, flat : !gpuos.tensor<?xf32>) {
    %s = gpuos.add %x, %y : !gpuos.tensor<?x4xf32>, !gpuos.tensor<8x4xf32>
    %flat = gpuos.reshape %x to [?] : !gpuos.tensor<?x4xf32>
    gpuos.yield %s, %flat : !gpuos.tensor<8x4xf32>, !gpuos.tensor<?xf32>
  })mlir";

// A dynamic dim binds at run time: 1 stretches, 8 matches, and reshape's `?`
// takes the remaining element count.
TEST_F(InterpreterTest, DynamicDimsBindAtRunTime) {
  HostTensor y = makeRandom({8, 4}, DType::F32, 81, -1, 1);
  for (int64_t rows : {1, 8}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    HostTensor x = makeRandom({rows, 4}, DType::F32, 82, -1, 1);
    SmallVector<HostTensor> out = mustRun(kDynamicAdd, {x, y});
    ASSERT_EQ(out.size(), 2u);
    std::vector<double> sum;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 4; ++j)
        sum.push_back(f32(x.getDouble((rows == 1 ? 0 : i) * 4 + j) +
                          y.getDouble(i * 4 + j)));
    expectValues(out[0], {8, 4}, sum);
    expectValues(out[1], {rows * 4}, valuesOf(x));
  }
}

TEST_F(InterpreterTest, IllegalDynamicBroadcastIsAnError) {
  FailureOr<SmallVector<HostTensor>> out =
      run(kDynamicAdd, {makeRandom({3, 4}, DType::F32, 1, -1, 1),
                        makeRandom({8, 4}, DType::F32, 2, -1, 1)});
  EXPECT_TRUE(failed(out));
  EXPECT_NE(diagnostics.find("'gpuos.add' op failed at run time"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("3x4, 8x4 do not broadcast"), std::string::npos)
      << diagnostics;
}

// Sizes that become known at run time are held to the host limit where the
// shape is computed: an outer broadcast (or, below, an outer-product matmul)
// of two inputs that fit is an error, not an allocation of 2^32 elements.
TEST_F(InterpreterTest, BroadcastBeyondTheHostLimitIsAnError) {
  const char *source = R"mlir(
    gpuos.graph @outer(%a : !gpuos.tensor<?x1xf32>, %b : !gpuos.tensor<1x?xf32>)
        -> (s : !gpuos.tensor<?x?xf32>) {
      %s = gpuos.add %a, %b : !gpuos.tensor<?x1xf32>, !gpuos.tensor<1x?xf32>
      gpuos.yield %s : !gpuos.tensor<?x?xf32>
    })mlir";
  // 4 x 8 fits: the outer sum.
  HostTensor a = makeRandom({4, 1}, DType::F32, 93, -1, 1);
  HostTensor b = makeRandom({1, 8}, DType::F32, 94, -1, 1);
  SmallVector<HostTensor> out = mustRun(source, {a, b});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> sum;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j)
      sum.push_back(f32(a.getDouble(i) + b.getDouble(j)));
  expectValues(out[0], {4, 8}, sum);

  int64_t side = int64_t(1) << 16; // side^2 = 2^32 > kMaxHostElements
  EXPECT_TRUE(failed(run(source, {makeRandom({side, 1}, DType::F32, 95, -1, 1),
                                  makeRandom({1, side}, DType::F32, 96, -1, 1)})));
  EXPECT_NE(diagnostics.find("the broadcast shape 65536x65536 has more "
                             "elements than the interpreter holds"),
            std::string::npos)
      << diagnostics;
}

// A custom op over dynamic shapes: its result's size is the broadcast of
// its operands' run-time shapes (the static type holds `?`).
TEST_F(InterpreterTest, CustomOpWithDynamicShapes) {
  const char *source = R"mlir(
    gpuos.graph @g(%a : !gpuos.tensor<?x8xf32>, %b : !gpuos.tensor<8xf32>)
        -> (s : !gpuos.tensor<?x8xf32>) {
      %s = gpuos.custom @twice_plus(%a, %b) reference @twice_plus
          : !gpuos.tensor<?x8xf32>, !gpuos.tensor<8xf32> -> f32
      gpuos.yield %s : !gpuos.tensor<?x8xf32>
    }
    gpuos.graph @twice_plus(%x : !gpuos.tensor<f32>, %y : !gpuos.tensor<f32>)
        -> (r : !gpuos.tensor<f32>) {
      %two = gpuos.constant dense<2.0> : tensor<f32>
      %a = gpuos.mul %x, %two : !gpuos.tensor<f32>, !gpuos.tensor<f32>
      %r = gpuos.add %a, %y : !gpuos.tensor<f32>, !gpuos.tensor<f32>
      gpuos.yield %r : !gpuos.tensor<f32>
    })mlir";
  HostTensor a = makeRandom({3, 8}, DType::F32, 97, -1, 1);
  HostTensor b = makeRandom({8}, DType::F32, 98, -1, 1);
  SmallVector<HostTensor> out = mustRun(source, {a, b});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 8; ++j)
      want.push_back(f32(f32(2 * a.getDouble(i * 8 + j)) + b.getDouble(j)));
  expectValues(out[0], {3, 8}, want);
}

TEST_F(InterpreterTest, MatmulResultBeyondTheHostLimitIsAnError) {
  const char *source = R"mlir(
    gpuos.graph @outer(%a : !gpuos.tensor<?x1xf32>, %b : !gpuos.tensor<1x?xf32>)
        -> (p : !gpuos.tensor<?x?xf32>) {
      %p = gpuos.matmul %a, %b : !gpuos.tensor<?x1xf32>, !gpuos.tensor<1x?xf32>
      gpuos.yield %p : !gpuos.tensor<?x?xf32>
    })mlir";
  int64_t side = int64_t(1) << 16;
  EXPECT_TRUE(failed(run(source, {makeRandom({side, 1}, DType::F32, 97, -1, 1),
                                  makeRandom({1, side}, DType::F32, 98, -1, 1)})));
  EXPECT_NE(diagnostics.find("'gpuos.matmul' op failed at run time: the "
                             "result shape 65536x65536 has more elements"),
            std::string::npos)
      << diagnostics;
}

TEST(HostTensorTest, ElementCountLimit) {
  EXPECT_EQ(hostElementCount({}), 1);
  EXPECT_EQ(hostElementCount({kMaxHostElements}), kMaxHostElements);
  EXPECT_EQ(hostElementCount({kMaxHostElements + 1}), std::nullopt);
  EXPECT_EQ(hostElementCount({int64_t(1) << 40, int64_t(1) << 40}),
            std::nullopt);
  // A zero anywhere empties the tensor, even after the product overflowed.
  EXPECT_EQ(hostElementCount({int64_t(1) << 40, int64_t(1) << 40, 0}), 0);
}

// A static slice of a dynamic dim is checked against the runtime size.
TEST_F(InterpreterTest, DynamicSliceOutOfRangeIsAnError) {
  const char *source = R"mlir(
    gpuos.graph @cut(%x : !gpuos.tensor<?x4xf32>) -> (y : !gpuos.tensor<2x4xf32>) {
      %s = gpuos.slice %x starts [2, 0] sizes [2, 4] steps [1, 1]
          : !gpuos.tensor<?x4xf32>
      %y = gpuos.exp %s : !gpuos.tensor<2x4xf32>
      gpuos.yield %y : !gpuos.tensor<2x4xf32>
    })mlir";
  HostTensor x = makeRandom({4, 4}, DType::F32, 91, -1, 1);
  SmallVector<HostTensor> out = mustRun(source, {x});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> expected;
  for (int i = 2; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      expected.push_back(f32(std::exp(x.getDouble(i * 4 + j))));
  expectValues(out[0], {2, 4}, expected, 1e-7, 1e-6);

  EXPECT_TRUE(failed(run(source, {makeRandom({3, 4}, DType::F32, 92, -1, 1)})));
  EXPECT_NE(diagnostics.find("'gpuos.slice' op failed at run time"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("past its runtime size 3"), std::string::npos)
      << diagnostics;
}

// Float max/min and reduce max propagate NaN rather than dropping it.
TEST_F(InterpreterTest, MaxPropagatesNaN) {
  HostTensor a = HostTensor::fromDoubles({3}, DType::F32, {1, kNaN, -1});
  HostTensor b = HostTensor::fromDoubles({3}, DType::F32, {kNaN, 2, -2});
  llvm::Expected<HostTensor> max = binary(BinaryFn::Max, a, b);
  ASSERT_TRUE(static_cast<bool>(max)) << llvm::toString(max.takeError());
  expectValues(*max, {3}, {kNaN, kNaN, -1});
  llvm::Expected<HostTensor> red = reduce(ReduceFn::Max, a, {0}, false, {});
  ASSERT_TRUE(static_cast<bool>(red)) << llvm::toString(red.takeError());
  EXPECT_TRUE(std::isnan(red->getDouble(0)));
}

// Float max/min order -0 below +0 (IEEE maximum/minimum, as the lowering's
// arith.maximumf/minimumf): max is +0 and min -0 in either operand order,
// elementwise and in reduce. (== cannot tell the zeros apart: signbit.)
TEST_F(InterpreterTest, MaxMinOfSignedZerosIgnoreOperandOrder) {
  HostTensor a = HostTensor::fromDoubles({2}, DType::F32, {-0.0, 0.0});
  HostTensor b = HostTensor::fromDoubles({2}, DType::F32, {0.0, -0.0});
  for (auto [lhs, rhs] : {std::pair(&a, &b), std::pair(&b, &a)}) {
    llvm::Expected<HostTensor> max = binary(BinaryFn::Max, *lhs, *rhs);
    llvm::Expected<HostTensor> min = binary(BinaryFn::Min, *lhs, *rhs);
    ASSERT_TRUE(static_cast<bool>(max)) << llvm::toString(max.takeError());
    ASSERT_TRUE(static_cast<bool>(min)) << llvm::toString(min.takeError());
    for (int64_t i = 0; i < 2; ++i) {
      EXPECT_EQ(max->getDouble(i), 0.0);
      EXPECT_FALSE(std::signbit(max->getDouble(i))) << "max, element " << i;
      EXPECT_EQ(min->getDouble(i), 0.0);
      EXPECT_TRUE(std::signbit(min->getDouble(i))) << "min, element " << i;
    }
  }
  for (const HostTensor *input : {&a, &b}) {
    llvm::Expected<HostTensor> max = reduce(ReduceFn::Max, *input, {0}, false, {});
    llvm::Expected<HostTensor> min = reduce(ReduceFn::Min, *input, {0}, false, {});
    ASSERT_TRUE(static_cast<bool>(max)) << llvm::toString(max.takeError());
    ASSERT_TRUE(static_cast<bool>(min)) << llvm::toString(min.takeError());
    EXPECT_FALSE(std::signbit(max->getDouble(0)));
    EXPECT_TRUE(std::signbit(min->getDouble(0)));
  }
}

const char *kTwoInputs = R"mlir(
  gpuos.graph @pair(%x : !gpuos.tensor<2x4xf32>, %w : !gpuos.tensor<4xf32>)
      -> (y : !gpuos.tensor<2x4xf32>) {
    %y = gpuos.mul %x, %w : !gpuos.tensor<2x4xf32>, !gpuos.tensor<4xf32>
    gpuos.yield %y : !gpuos.tensor<2x4xf32>
  })mlir";

TEST_F(InterpreterTest, WrongInputCountIsAnError) {
  EXPECT_TRUE(
      failed(run(kTwoInputs, {makeRandom({2, 4}, DType::F32, 1, -1, 1)})));
  EXPECT_NE(diagnostics.find("graph @pair takes 2 input(s) (x, w) but got 1"),
            std::string::npos)
      << diagnostics;
}

TEST_F(InterpreterTest, WrongInputShapeIsAnError) {
  EXPECT_TRUE(failed(run(kTwoInputs, {makeRandom({2, 4}, DType::F32, 1, -1, 1),
                                      makeRandom({5}, DType::F32, 2, -1, 1)})));
  EXPECT_NE(diagnostics.find("input 'w' expects shape 4"), std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("got 5"), std::string::npos) << diagnostics;

  diagnostics.clear();
  EXPECT_TRUE(
      failed(run(kTwoInputs, {makeRandom({2, 4, 1}, DType::F32, 1, -1, 1),
                              makeRandom({4}, DType::F32, 2, -1, 1)})));
  EXPECT_NE(diagnostics.find("input 'x' expects shape 2x4"), std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("got 2x4x1"), std::string::npos) << diagnostics;
}

TEST_F(InterpreterTest, WrongInputDTypeIsAnError) {
  EXPECT_TRUE(failed(run(kTwoInputs, {makeRandom({2, 4}, DType::F32, 1, -1, 1),
                                      makeRandom({4}, DType::I32, 2, 0, 8)})));
  EXPECT_NE(diagnostics.find("input 'w' expects element type f32"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("got i32"), std::string::npos) << diagnostics;
}

//===----------------------------------------------------------------------===//
// HostTensor helpers
//===----------------------------------------------------------------------===//

TEST(HostTensorTest, RandomIsSeededAndInRange) {
  HostTensor a = makeRandom({64}, DType::F32, 5, -1, 1);
  HostTensor b = makeRandom({64}, DType::F32, 5, -1, 1);
  HostTensor c = makeRandom({64}, DType::F32, 6, -1, 1);
  EXPECT_EQ(a.getFloatData(), b.getFloatData());
  EXPECT_NE(a.getFloatData(), c.getFloatData());
  for (double v : a.getFloatData()) {
    EXPECT_GE(v, -1);
    EXPECT_LT(v, 1);
    EXPECT_EQ(v, f32(v)) << "not rounded to f32";
  }
  // The documented formula, recomputed from the raw stream.
  std::mt19937_64 rng(5);
  double first = -1 + 2 * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
  EXPECT_EQ(a.getDouble(0), f32(first));

  HostTensor ints = makeRandom({256}, DType::I32, 9, 0, 8);
  std::set<int64_t> seen(ints.getIntData().begin(), ints.getIntData().end());
  EXPECT_EQ(seen, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

// Random values for a layout that maps several elements to one address
// take the first one's value there; other layouts keep their draws.
TEST(HostTensorTest, RandomInputsFitTheirLayout) {
  // A broadcast row (stride 0): every row is row 0.
  HostTensor rows = makeRandom({4, 8}, DType::F32, 3, -1, 1);
  HostTensor drawn = rows;
  makeConsistentWithLayout(rows, {0, 1});
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 8; ++c)
      EXPECT_EQ(rows.at({r, c}), drawn.at({0, c})) << r << "," << c;
  // A sliding window (strides [1, 1]): element (r, c) lives at r + c.
  HostTensor window = makeRandom({3, 3}, DType::I32, 4, 0, 1000);
  drawn = window;
  makeConsistentWithLayout(window, {1, 1});
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t c = 0; c < 3; ++c) {
      int64_t address = r + c;
      int64_t firstRow = std::max<int64_t>(0, address - 2);
      EXPECT_EQ(window.at({r, c}), drawn.at({firstRow, address - firstRow}));
    }
  // Rows of 4 three apart: (0, 3) and (1, 0) share address 3.
  HostTensor tight = makeRandom({2, 4}, DType::F32, 6, -1, 1);
  drawn = tight;
  makeConsistentWithLayout(tight, {3, 1});
  EXPECT_EQ(tight.at({1, 0}), drawn.at({0, 3}));
  EXPECT_EQ(tight.at({1, 1}), drawn.at({1, 1}));
  // A transpose and a padded row overlap nothing: unchanged.
  for (std::vector<int64_t> strides : {std::vector<int64_t>{1, 4}, {16, 1}}) {
    HostTensor t = makeRandom({4, 8}, DType::F32, 5, -1, 1);
    HostTensor before = t;
    makeConsistentWithLayout(t, strides);
    EXPECT_EQ(t.getFloatData(), before.getFloatData());
  }
}

TEST(HostTensorTest, CompareReportsErrorsAndFirstMismatch) {
  HostTensor expected =
      HostTensor::fromDoubles({4}, DType::F32, {1.0, 2.0, 100.0, kNaN});
  HostTensor close =
      HostTensor::fromDoubles({4}, DType::F32, {1.0, 2.0, 100.001, kNaN});
  CompareOptions options;
  options.atol = 0;
  options.rtol = 1e-4;
  CompareResult ok = compareTensors(close, expected, options);
  EXPECT_TRUE(ok.ok) << ok.message;
  EXPECT_NEAR(ok.maxAbsError, 0.001, 1e-5);
  EXPECT_NEAR(ok.maxRelError, 1e-5, 1e-7);
  EXPECT_EQ(ok.firstMismatch, -1);

  HostTensor far =
      HostTensor::fromDoubles({4}, DType::F32, {1.0, 2.5, 101.0, 0.0});
  CompareResult bad = compareTensors(far, expected, options);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.firstMismatch, 1);
  EXPECT_EQ(bad.numMismatches, 3); // 2.5, 101 and the missing NaN
  EXPECT_DOUBLE_EQ(bad.maxAbsError, 1.0);
  EXPECT_DOUBLE_EQ(bad.maxRelError, 0.25);
  EXPECT_NE(bad.message.find("first at flat index 1"), std::string::npos)
      << bad.message;

  options.nanEqual = false;
  EXPECT_FALSE(compareTensors(expected, expected, options).ok);
  CompareResult shape = compareTensors(
      HostTensor::fromDoubles({2, 2}, DType::F32, {1, 2, 100, 0}), expected);
  EXPECT_FALSE(shape.ok);
  EXPECT_NE(shape.message.find("2x2xf32"), std::string::npos) << shape.message;
  // Across dtypes only when asked to.
  HostTensor half = HostTensor::fromDoubles({2}, DType::F16, {1.0, 2.0});
  HostTensor wide = HostTensor::fromDoubles({2}, DType::F64, {1.0, 2.0004});
  EXPECT_FALSE(compareTensors(half, wide).ok);
  CompareOptions loose;
  loose.checkDType = false;
  loose.atol = 1e-3;
  EXPECT_TRUE(compareTensors(half, wide, loose).ok);
}

} // namespace
