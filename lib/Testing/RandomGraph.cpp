//===- RandomGraph.cpp - seeded random gpuos graphs -----------------------===//
//
// A generator keeps a pool of the values built so far and, step by step,
// adds one op or a small pattern reading pool values (recent ones more
// often, so chains form) or fresh graph inputs and constants. Every op is
// built only with operands its verifier accepts: shapes and element types
// are checked here before the builder infers the result type, because a
// failed inference would abort.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Testing/RandomGraph.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include <numeric>
#include <random>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::testing;

namespace {
using Shape = SmallVector<int64_t, 4>;

int64_t elementCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

class Generator {
public:
  Generator(ModuleOp module, uint64_t seed, StringRef name,
            const RandomGraphOptions &options)
      : options(options), rng(seed), context(module.getContext()),
        builder(module.getContext()), loc(UnknownLoc::get(context)) {
    OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module.getBody());
    graph = GraphOp::create(moduleBuilder, loc, name,
                            FunctionType::get(context, {}, {}),
                            moduleBuilder.getStrArrayAttr({}),
                            moduleBuilder.getStrArrayAttr({}), PriorityAttr());
    body = new Block();
    graph.getBody().push_back(body);
    builder.setInsertionPointToEnd(body);
  }

  GraphOp build();

private:
  //===--------------------------------------------------------------------===//
  // Randomness
  //===--------------------------------------------------------------------===//

  unsigned below(unsigned n) {
    return n ? static_cast<unsigned>(rng() % n) : 0;
  }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <typename T> T oneOf(std::initializer_list<T> values) {
    return *(values.begin() + below(values.size()));
  }

  //===--------------------------------------------------------------------===//
  // Types and values
  //===--------------------------------------------------------------------===//

  static StridedTensorType typeOf(Value value) {
    return cast<StridedTensorType>(value.getType());
  }
  static ArrayRef<int64_t> shapeOf(Value value) {
    return typeOf(value).getShape();
  }
  static Type elementOf(Value value) { return typeOf(value).getElementType(); }
  static bool isFloat(Value value) { return isa<FloatType>(elementOf(value)); }
  static bool isNumeric(Value value) {
    return !elementOf(value).isInteger(1);
  }
  static int64_t rank(Value value) { return shapeOf(value).size(); }

  Type f32() { return Float32Type::get(context); }
  Type floatType() {
    unsigned roll = below(100);
    if (roll < options.percentF16)
      return Float16Type::get(context);
    if (roll < options.percentF16 + options.percentBF16)
      return BFloat16Type::get(context);
    if (roll < options.percentF16 + options.percentBF16 + options.percentF64)
      return Float64Type::get(context);
    return f32();
  }
  Type inputType() {
    if (chance(options.percentI32))
      return IntegerType::get(context, 32);
    return floatType();
  }

  /// A dimension, small ones more often.
  int64_t dim(int64_t limit) {
    limit = std::max<int64_t>(1, std::min(limit, options.maxDim));
    int64_t d = oneOf<int64_t>({1, 2, 3, 4, 5, 7, 8, 8, 16, 16, 32, 64});
    while (d > limit)
      d = std::max<int64_t>(1, d / 2);
    return d;
  }
  Shape shape(unsigned minRank, unsigned maxRank) {
    unsigned r = minRank + below(maxRank - minRank + 1);
    Shape result;
    int64_t budget = options.maxElements;
    for (unsigned i = 0; i < r; ++i) {
      int64_t d = dim(budget);
      result.push_back(d);
      budget = std::max<int64_t>(1, budget / d);
    }
    return result;
  }

  Value input(ArrayRef<int64_t> shape, Type element) {
    return body->addArgument(StridedTensorType::get(shape, element), loc);
  }
  Attribute scalarAttr(Type element, double value) {
    if (isa<FloatType>(element))
      return FloatAttr::get(element, value);
    unsigned width = element.getIntOrFloatBitWidth();
    int64_t v = width == 1 ? value != 0 : static_cast<int64_t>(value);
    return IntegerAttr::get(element, APInt(width, static_cast<uint64_t>(v),
                                           /*isSigned=*/true,
                                           /*implicitTrunc=*/true));
  }
  /// A splat constant, or (sometimes) one with distinct small values.
  Value constant(ArrayRef<int64_t> shape, Type element, double value) {
    auto type = RankedTensorType::get(shape, element);
    int64_t count = elementCount(shape);
    if (count > 1 && count <= 64 && chance(30)) {
      SmallVector<Attribute> values;
      for (int64_t i = 0; i < count; ++i)
        values.push_back(scalarAttr(element, static_cast<int>(below(9)) - 4));
      return ConstantOp::create(builder, loc,
                                DenseElementsAttr::get(type, values));
    }
    return ConstantOp::create(
        builder, loc, DenseElementsAttr::get(type, scalarAttr(element, value)));
  }
  Value scalar(Type element, double value) {
    return constant({}, element, value);
  }

  /// A pool value satisfying `pred`, recent ones more often; null if none.
  Value pick(function_ref<bool(Value)> pred) {
    SmallVector<Value> candidates;
    for (Value value : pool)
      if (pred(value))
        candidates.push_back(value);
    if (candidates.empty())
      return {};
    if (chance(60))
      return candidates[candidates.size() - 1 -
                        below(std::min<size_t>(3, candidates.size()))];
    return candidates[below(candidates.size())];
  }
  Value floatValue(unsigned minRank = 0, unsigned maxRank = 4) {
    auto fits = [&](Value v) {
      return isFloat(v) && rank(v) >= minRank && rank(v) <= maxRank;
    };
    if (Value v = chance(85) ? pick(fits) : Value())
      return v;
    return input(
        shape(std::max(1u, minRank), std::min(maxRank, options.maxRank)),
        floatType());
  }
  Value numericValue(unsigned minRank = 0) {
    auto fits = [&](Value v) { return isNumeric(v) && rank(v) >= minRank; };
    if (Value v = chance(85) ? pick(fits) : Value())
      return v;
    return input(shape(std::max(1u, minRank), options.maxRank), inputType());
  }
  Value anyValue(unsigned minRank = 0) {
    auto fits = [&](Value v) { return rank(v) >= minRank; };
    if (Value v = chance(85) ? pick(fits) : Value())
      return v;
    return input(shape(std::max(1u, minRank), options.maxRank), inputType());
  }

  std::optional<Shape> broadcast(ArrayRef<ArrayRef<int64_t>> shapes) {
    std::optional<SmallVector<int64_t>> result = broadcastShapes(shapes);
    if (!result || elementCount(*result) > options.maxElements)
      return std::nullopt;
    return Shape(result->begin(), result->end());
  }

  /// A second operand for an elementwise op on `lhs`: same element type,
  /// broadcasting with it (a pool value, a fresh input or a constant).
  Value partner(Value lhs) {
    ArrayRef<int64_t> s = shapeOf(lhs);
    Type element = elementOf(lhs);
    if (chance(50)) {
      Value found = pick([&](Value v) {
        return v != lhs && elementOf(v) == element &&
               broadcast({s, shapeOf(v)}).has_value();
      });
      if (found)
        return found;
    }
    // A suffix of lhs's shape; some dims 1, some 1s stretched.
    Shape t;
    unsigned keep = below(s.size() + 1);
    for (size_t i = s.size() - keep; i < s.size(); ++i) {
      int64_t d = s[i];
      if (chance(25))
        d = 1;
      else if (d == 1 && chance(30))
        d = dim(options.maxElements / std::max<int64_t>(1, elementCount(s)));
      t.push_back(d);
    }
    if (!broadcast({s, t}))
      t.assign(s.begin(), s.end());
    if (chance(30))
      return constant(t, element, isa<FloatType>(element) ? 0.75 : 3);
    return input(t, element);
  }

  /// |x| + 0.5: positive, for log, sqrt, rsqrt and the base of pow.
  Value positive(Value x) {
    Value a = AbsOp::create(builder, loc, x);
    return AddOp::create(builder, loc, a, scalar(elementOf(x), 0.5));
  }

  Value keep(Value value) {
    pool.push_back(value);
    return value;
  }

  //===--------------------------------------------------------------------===//
  // Steps
  //===--------------------------------------------------------------------===//

  void unary() {
    if (chance(30)) {
      Value x = numericValue();
      switch (below(3)) {
      case 0:
        keep(NegOp::create(builder, loc, x));
        return;
      case 1:
        keep(AbsOp::create(builder, loc, x));
        return;
      default:
        keep(ReluOp::create(builder, loc, x));
        return;
      }
    }
    Value x = floatValue();
    switch (below(6)) {
    case 0:
      keep(ExpOp::create(builder, loc, x));
      return;
    case 1:
      keep(TanhOp::create(builder, loc, x));
      return;
    case 2:
      keep(SigmoidOp::create(builder, loc, x));
      return;
    case 3:
      keep(GeluOp::create(builder, loc, x));
      return;
    case 4:
      keep(SiluOp::create(builder, loc, x));
      return;
    default:
      keep(ErfOp::create(builder, loc, x));
      return;
    }
  }

  void positiveUnary() {
    Value p = positive(floatValue());
    switch (below(3)) {
    case 0:
      keep(LogOp::create(builder, loc, p));
      return;
    case 1:
      keep(SqrtOp::create(builder, loc, p));
      return;
    default:
      keep(RsqrtOp::create(builder, loc, p));
      return;
    }
  }

  Value binaryOp(unsigned which, Value lhs, Value rhs) {
    switch (which) {
    case 0:
      return AddOp::create(builder, loc, lhs, rhs);
    case 1:
      return SubOp::create(builder, loc, lhs, rhs);
    case 2:
      return MulOp::create(builder, loc, lhs, rhs);
    case 3:
      return DivOp::create(builder, loc, lhs, rhs);
    case 4:
      return MaxOp::create(builder, loc, lhs, rhs);
    default:
      return MinOp::create(builder, loc, lhs, rhs);
    }
  }

  void binary() {
    Value lhs = numericValue();
    Value rhs = partner(lhs);
    if (chance(30))
      std::swap(lhs, rhs);
    keep(binaryOp(below(6), lhs, rhs));
  }

  void pow() {
    Value base = positive(floatValue());
    Value exponent = TanhOp::create(builder, loc, partner(base));
    if (chance(50))
      exponent = MulOp::create(builder, loc, exponent,
                               scalar(elementOf(base), 2.0));
    keep(PowOp::create(builder, loc, base, exponent));
  }

  void castStep() {
    Value x = anyValue();
    Type to;
    switch (below(8)) {
    case 0:
      to = Float16Type::get(context);
      break;
    case 1:
      to = BFloat16Type::get(context);
      break;
    case 2:
      to = Float64Type::get(context);
      break;
    case 3:
      to = IntegerType::get(context, 32);
      break;
    case 4:
      to = IntegerType::get(context, chance(50) ? 8 : 64);
      break;
    case 5:
      to = IntegerType::get(context, 1);
      break;
    default:
      to = f32();
      break;
    }
    keep(CastOp::create(builder, loc, x, to));
  }

  void cmpSelect() {
    Value a = numericValue();
    Value b = partner(a);
    auto predicate = static_cast<ComparePredicate>(below(6));
    Value cond = CmpOp::create(builder, loc, predicate, a, b);
    Value x = chance(50) ? a : anyValue();
    Value y = partner(x);
    if (!broadcast({shapeOf(cond), shapeOf(x), shapeOf(y)})) {
      x = a;
      y = b;
    }
    keep(SelectOp::create(builder, loc, cond, x, y));
  }

  void view() {
    switch (below(4)) {
    case 0: { // transpose
      Value x = anyValue(2);
      Shape perm(rank(x));
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      keep(TransposeOp::create(builder, loc, x, perm));
      return;
    }
    case 1: { // slice
      Value x = anyValue(1);
      Shape starts, sizes, steps;
      for (int64_t d : shapeOf(x)) {
        int64_t step = d > 2 && chance(25) ? 2 : 1;
        int64_t size = 1 + below((d - 1) / step + 1);
        int64_t last = (size - 1) * step;
        starts.push_back(below(d - last));
        sizes.push_back(size);
        steps.push_back(step);
      }
      keep(SliceOp::create(builder, loc, x, starts, sizes, steps));
      return;
    }
    case 2: { // broadcast: stretch 1s, maybe add a leading dim
      Value x = anyValue();
      ArrayRef<int64_t> s = shapeOf(x);
      int64_t budget =
          options.maxElements / std::max<int64_t>(1, elementCount(s));
      Shape target;
      if (s.size() < options.maxRank && (s.empty() || chance(50))) {
        int64_t d = dim(budget);
        target.push_back(d);
        budget /= d;
      }
      for (int64_t d : s) {
        if (d == 1 && budget > 1 && chance(60)) {
          int64_t stretched = dim(budget);
          budget /= stretched;
          d = stretched;
        }
        target.push_back(d);
      }
      keep(BroadcastOp::create(builder, loc, x, target));
      return;
    }
    default: { // reshape of a contiguous value
      Value x = pick([](Value v) {
        return typeOf(v).isContiguous() && rank(v) >= 1;
      });
      if (!x)
        x = input(shape(1, options.maxRank), inputType());
      ArrayRef<int64_t> s = shapeOf(x);
      Shape target;
      switch (below(3)) {
      case 0: // flatten
        target.push_back(elementCount(s));
        break;
      case 1: { // merge two adjacent dims, or add a unit dim
        target.assign(s.begin(), s.end());
        if (target.size() >= 2) {
          unsigned i = below(target.size() - 1);
          target[i] *= target[i + 1];
          target.erase(target.begin() + i + 1);
        } else {
          target.insert(target.begin(), 1);
        }
        break;
      }
      default: { // split a dim with a small factor
        target.assign(s.begin(), s.end());
        for (unsigned i = 0; i < target.size(); ++i) {
          int64_t d = target[i];
          for (int64_t f : {2, 3, 4}) {
            if (d % f == 0 && d > f) {
              target[i] = d / f;
              target.insert(target.begin() + i, f);
              break;
            }
          }
          if (target.size() != s.size())
            break;
        }
        break;
      }
      }
      keep(ReshapeOp::create(builder, loc, x, target));
      return;
    }
    }
  }

  Shape randomAxes(int64_t r) {
    Shape axes;
    for (int64_t axis = 0; axis < r; ++axis)
      if (chance(40))
        axes.push_back(axis);
    if (axes.empty())
      axes.push_back(below(r));
    if (chance(30))
      std::shuffle(axes.begin(), axes.end(), rng);
    return axes;
  }

  void reduce() {
    Value x = numericValue(1);
    auto kind = static_cast<ReductionKind>(below(4));
    if (kind == ReductionKind::mean && !isFloat(x))
      kind = ReductionKind::sum;
    keep(ReduceOp::create(builder, loc, kind, x, randomAxes(rank(x)),
                          chance(50)));
  }

  void argmax() {
    Value x = numericValue(1);
    keep(ArgmaxOp::create(builder, loc, x, below(rank(x)), chance(50)));
  }

  void softmax() {
    Value x = floatValue(1);
    keep(SoftmaxOp::create(builder, loc, x, below(rank(x))));
  }

  /// A [D] parameter of `x`'s element type: a pool value or a new input.
  Value normParameter(Value x) {
    int64_t d = shapeOf(x).back();
    Type element = elementOf(x);
    Value found = pick([&](Value v) {
      return elementOf(v) == element && rank(v) == 1 && shapeOf(v)[0] == d;
    });
    return found && chance(50) ? found : input({d}, element);
  }

  Value norm(Value x) {
    llvm::APFloat eps(chance(50) ? 1e-5 : 1e-6);
    if (chance(50)) {
      Value weight = chance(70) ? normParameter(x) : Value();
      Value bias = chance(60) ? normParameter(x) : Value();
      return LayerNormOp::create(builder, loc, x, weight, bias, eps);
    }
    Value weight = chance(70) ? normParameter(x) : Value();
    return RmsNormOp::create(builder, loc, x, weight, eps);
  }

  void normStep() { keep(norm(floatValue(1))); }

  void matmul() {
    Value lhs = floatValue(2, 3);
    ArrayRef<int64_t> a = shapeOf(lhs);
    bool transposeLhs = chance(25), transposeRhs = chance(30);
    int64_t m = a[a.size() - 2], k = a.back();
    if (transposeLhs)
      std::swap(m, k);
    Shape batch(a.begin(), a.end() - 2);
    int64_t batchCount = elementCount(batch);
    int64_t n =
        dim(std::max<int64_t>(1, options.maxElements / (m * batchCount)));
    Shape b;
    if (batch.empty() && chance(25)) {
      b.push_back(dim(std::max<int64_t>(1, options.maxElements / (m * n))));
    } else if (!batch.empty() && chance(40)) {
      b.push_back(chance(50) ? 1 : batch.back());
    }
    if (transposeRhs) {
      b.push_back(n);
      b.push_back(k);
    } else {
      b.push_back(k);
      b.push_back(n);
    }
    Value rhs = pick([&](Value v) {
      return elementOf(v) == elementOf(lhs) &&
             shapeOf(v) == ArrayRef<int64_t>(b);
    });
    if (!rhs || chance(50))
      rhs = input(b, elementOf(lhs));
    keep(MatmulOp::create(builder, loc, lhs, rhs, transposeLhs, transposeRhs));
  }

  /// Micro-batches through one weight: slices of one activation or separate
  /// inputs, each times the same weight.
  void microBatches() {
    Type element = floatType();
    int64_t count = 2 + below(7), m = dim(8), k = dim(64);
    int64_t n = dim(std::max<int64_t>(1, options.maxElements / m));
    Value weight = input({k, n}, element);
    Value whole;
    if (chance(50) && count * m * k <= options.maxElements)
      whole = input({count * m, k}, element);
    for (int64_t i = 0; i < count; ++i) {
      Value x = whole ? Value(SliceOp::create(builder, loc, whole,
                                              ArrayRef<int64_t>{i * m, 0},
                                              ArrayRef<int64_t>{m, k},
                                              ArrayRef<int64_t>{1, 1}))
                      : input({m, k}, element);
      keep(MatmulOp::create(builder, loc, x, weight, false, false));
    }
  }

  void concat() {
    Value a = anyValue(1);
    ArrayRef<int64_t> s = shapeOf(a);
    int64_t axis = below(s.size());
    SmallVector<Value> parts = {a};
    int64_t total = elementCount(s);
    unsigned extra = 1 + below(2);
    for (unsigned i = 0; i < extra; ++i) {
      Value found = pick([&](Value v) {
        if (elementOf(v) != elementOf(a) || rank(v) != rank(a))
          return false;
        for (int64_t d = 0; d < rank(a); ++d)
          if (d != axis && shapeOf(v)[d] != s[d])
            return false;
        return true;
      });
      Value part = found;
      if (!part || chance(40)) {
        Shape t(s.begin(), s.end());
        t[axis] = dim(8);
        part = input(t, elementOf(a));
      }
      if (total + elementCount(shapeOf(part)) > options.maxElements)
        break;
      total += elementCount(shapeOf(part));
      parts.push_back(part);
    }
    keep(ConcatOp::create(builder, loc, parts, axis));
  }

  void constantBinary() {
    Value x = numericValue();
    Value c = constant(chance(50) ? ArrayRef<int64_t>{} : shapeOf(x),
                       elementOf(x), isFloat(x) ? 1.5 : 2);
    keep(binaryOp(below(6), x, c));
  }

  /// Scaled, masked scores through a softmax over the last axis.
  void softmaxPattern() {
    Value x = floatValue(2, 3);
    Type element = elementOf(x);
    Value scaled = MulOp::create(builder, loc, x, scalar(element, 0.125));
    ArrayRef<int64_t> s = shapeOf(x);
    Value other = input(s.take_back(2), element);
    Value mask = CmpOp::create(builder, loc, ComparePredicate::gt, other,
                               scalar(element, -0.5));
    Value masked = SelectOp::create(builder, loc, mask, scaled,
                                    scalar(element, -1.0e4));
    keep(SoftmaxOp::create(builder, loc, masked, rank(x) - 1));
  }

  /// Residual add, a norm, then a gain or an activation and the residual.
  void normPattern() {
    Value x = floatValue(1);
    Value h = AddOp::create(builder, loc, x, input(shapeOf(x), elementOf(x)));
    Value n = norm(h);
    Value y = chance(50)
                  ? Value(MulOp::create(builder, loc, n, normParameter(x)))
                  : Value(GeluOp::create(builder, loc, n));
    if (chance(50))
      y = AddOp::create(builder, loc, y, h);
    keep(y);
  }

  /// exp(x - max) / sum(exp(x - max)) spelled out.
  void manualSoftmax() {
    Value x = floatValue(1);
    int64_t axis = below(rank(x));
    Value m = ReduceOp::create(builder, loc, ReductionKind::max, x,
                               ArrayRef<int64_t>{axis}, true);
    Value e = ExpOp::create(builder, loc, SubOp::create(builder, loc, x, m));
    Value s = ReduceOp::create(builder, loc, ReductionKind::sum, e,
                               ArrayRef<int64_t>{axis}, true);
    keep(DivOp::create(builder, loc, e, s));
  }

  void step() {
    struct Choice {
      unsigned weight;
      void (Generator::*fn)();
    };
    static const Choice choices[] = {
        {12, &Generator::unary},          {5, &Generator::positiveUnary},
        {16, &Generator::binary},         {2, &Generator::pow},
        {5, &Generator::castStep},        {5, &Generator::cmpSelect},
        {10, &Generator::view},           {6, &Generator::reduce},
        {2, &Generator::argmax},          {3, &Generator::softmax},
        {4, &Generator::normStep},        {6, &Generator::matmul},
        {2, &Generator::microBatches},    {4, &Generator::concat},
        {3, &Generator::constantBinary},  {3, &Generator::softmaxPattern},
        {3, &Generator::normPattern},     {3, &Generator::manualSoftmax},
    };
    unsigned total = 0;
    for (const Choice &choice : choices)
      total += choice.weight;
    unsigned roll = below(total);
    for (const Choice &choice : choices) {
      if (roll < choice.weight) {
        (this->*choice.fn)();
        return;
      }
      roll -= choice.weight;
    }
  }

  const RandomGraphOptions &options;
  std::mt19937_64 rng;
  MLIRContext *context;
  OpBuilder builder;
  Location loc;
  GraphOp graph;
  Block *body = nullptr;
  SmallVector<Value> pool;
};

GraphOp Generator::build() {
  unsigned steps = options.minSteps +
                   below(std::max(options.maxSteps, options.minSteps) -
                         options.minSteps + 1);
  for (unsigned i = 0; i < std::max(steps, 1u); ++i)
    step();

  // Every op result without a user is an output.
  SmallVector<Value> outputs;
  for (Operation &op : *body)
    for (Value result : op.getResults())
      if (result.use_empty())
        outputs.push_back(result);
  YieldOp::create(builder, loc, outputs);

  SmallVector<Attribute> inputNames, outputNames;
  for (unsigned i = 0; i < body->getNumArguments(); ++i)
    inputNames.push_back(builder.getStringAttr("in" + std::to_string(i)));
  SmallVector<Type> outputTypes;
  for (auto [i, value] : llvm::enumerate(outputs)) {
    outputNames.push_back(builder.getStringAttr("out" + std::to_string(i)));
    outputTypes.push_back(value.getType());
  }
  graph.setFunctionTypeAttr(TypeAttr::get(
      FunctionType::get(context, body->getArgumentTypes(), outputTypes)));
  graph.setInputNamesAttr(builder.getArrayAttr(inputNames));
  graph.setOutputNamesAttr(builder.getArrayAttr(outputNames));
  switch (below(4)) {
  case 0:
    graph.setPriorityAttr(PriorityAttr::get(context, PriorityClass::urgent,
                                            int64_t(100 + below(900))));
    break;
  case 1:
    graph.setPriorityAttr(
        PriorityAttr::get(context, PriorityClass::background, std::nullopt));
    break;
  default:
    break;
  }
  return graph;
}
} // namespace

GraphOp gpuos::testing::buildRandomGraph(ModuleOp module, uint64_t seed,
                                         StringRef name,
                                         const RandomGraphOptions &options) {
  return Generator(module, seed, name, options).build();
}
