//===- OpDispatch.cpp - maps gpuos compute ops onto kernels ---------------===//

#include "OpDispatch.h"
#include "Indexing.h"
#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "gpuos/Interpreter/Interpreter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gpuos;
using namespace gpuos::interp;
using llvm::Expected;

template <typename T> static bool readAs(ElementsAttr attr, HostTensor &out) {
  auto values = attr.tryGetValues<T>();
  if (!values)
    return false;
  int64_t i = 0;
  for (T value : *values) {
    if constexpr (std::is_same_v<T, APFloat>) {
      bool losesInfo;
      value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
      out.setDouble(i++, value.convertToDouble());
    } else if constexpr (std::is_same_v<T, APInt>) {
      // i1 `true` is all ones: read it unsigned, everything else signed.
      out.setInt(i++, value.getBitWidth() == 1 ? value.getZExtValue()
                                               : value.getSExtValue());
    } else if constexpr (std::is_floating_point_v<T>) {
      out.setDouble(i++, value);
    } else {
      out.setInt(i++, static_cast<int64_t>(value));
    }
  }
  return true;
}

Expected<HostTensor> gpuos::interp::readElements(ElementsAttr attr) {
  ShapedType type = attr.getShapedType();
  std::optional<DType> dtype = dtypeFromType(type.getElementType());
  if (!dtype || !type.hasStaticShape())
    return kernelError("constant needs a static shape and a gpuos element "
                       "type");
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    // A blob of packed elements, read through a dense attribute over it
    // (i1 is bit-packed there but a byte each in a blob: not read).
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    bool splat = false;
    if (!blob || type.getElementType().isInteger(1) ||
        !DenseElementsAttr::isValidRawBuffer(type, blob->getData(), splat))
      return kernelError("the constant's resource blob is missing or does not "
                         "hold its elements");
    return readElements(DenseElementsAttr::getFromRawBuffer(type, blob->getData()));
  }
  HostTensor result(type.getShape(), *dtype);
  bool read =
      isFloat(*dtype)
          ? readAs<APFloat>(attr, result) || readAs<float>(attr, result) ||
                readAs<double>(attr, result)
          : readAs<APInt>(attr, result) || readAs<bool>(attr, result) ||
                readAs<int8_t>(attr, result) || readAs<int32_t>(attr, result) ||
                readAs<int64_t>(attr, result);
  if (!read)
    return kernelError("cannot read the values of this constant attribute");
  return result;
}

static ReduceFn toReduceFn(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::sum:
    return ReduceFn::Sum;
  case ReductionKind::mean:
    return ReduceFn::Mean;
  case ReductionKind::max:
    return ReduceFn::Max;
  case ReductionKind::min:
    return ReduceFn::Min;
  }
  llvm_unreachable("unknown ReductionKind");
}

static CompareFn toCompareFn(ComparePredicate predicate) {
  switch (predicate) {
  case ComparePredicate::eq:
    return CompareFn::Eq;
  case ComparePredicate::ne:
    return CompareFn::Ne;
  case ComparePredicate::lt:
    return CompareFn::Lt;
  case ComparePredicate::le:
    return CompareFn::Le;
  case ComparePredicate::gt:
    return CompareFn::Gt;
  case ComparePredicate::ge:
    return CompareFn::Ge;
  }
  llvm_unreachable("unknown ComparePredicate");
}

/// The runtime target of a broadcast: a `?` takes the size of the operand
/// dim aligned with it, which the verifier allows only as that size or 1.
static Expected<SmallVector<int64_t>>
resolveBroadcastTarget(ArrayRef<int64_t> target, const HostTensor &input) {
  int64_t lead = static_cast<int64_t>(target.size()) - input.getRank();
  if (lead < 0)
    return kernelError("broadcast target rank is below the operand rank");
  SmallVector<int64_t> shape(target);
  for (auto [axis, dim] : llvm::enumerate(shape)) {
    if (dim != kDynamic)
      continue;
    if (static_cast<int64_t>(axis) < lead)
      return kernelError("broadcast target dimension " + llvm::Twine(axis) +
                         " is dynamic and has no operand dimension to take "
                         "its size from");
    dim = input.getDimSize(axis - lead);
  }
  return shape;
}

/// The runtime target of a reshape: one `?` takes what the element count
/// leaves, as numpy's -1 does.
static Expected<SmallVector<int64_t>>
resolveReshapeTarget(ArrayRef<int64_t> target, const HostTensor &input) {
  SmallVector<int64_t> shape(target);
  int64_t known = 1, dynamicAxis = -1;
  for (auto [axis, dim] : llvm::enumerate(shape)) {
    if (dim != kDynamic) {
      known *= dim;
      continue;
    }
    if (dynamicAxis >= 0)
      return kernelError("reshape target has more than one dynamic "
                         "dimension; their sizes are ambiguous");
    dynamicAxis = axis;
  }
  if (dynamicAxis >= 0) {
    if (known == 0 || input.getNumElements() % known != 0)
      return kernelError("cannot reshape " + shapeString(input.getShape()) +
                         " to a target whose static dimensions hold " +
                         llvm::Twine(known) + " elements");
    shape[dynamicAxis] = input.getNumElements() / known;
  }
  return shape;
}

/// gpuos.custom through its reference graph, element by element: its CUDA
/// C++ is not something the interpreter can run.
static Expected<HostTensor> evaluateCustom(CustomOp custom,
                                           ArrayRef<const HostTensor *> inputs,
                                           Accumulation acc) {
  std::string callee = "@" + custom.getCallee().str();
  std::optional<mlir::FlatSymbolRefAttr> reference = custom.getReferenceAttr()
      ? std::optional(custom.getReferenceAttr()) : std::nullopt;
  if (!reference)
    return kernelError(callee + " is a custom CUDA C++ op without a reference "
                       "graph (`reference @graph`), so only the GPU can run it");
  auto module = custom->getParentOfType<ModuleOp>();
  auto graph = module ? module.lookupSymbol<GraphOp>(reference->getValue())
                      : GraphOp();
  if (!graph)
    return kernelError(callee + "'s reference @" + reference->getValue().str() +
                       " is not a gpuos.graph of this module");
  auto resultType = cast<StridedTensorType>(custom.getType());
  std::optional<DType> dtype = dtypeFromType(resultType.getElementType());
  // Built-in ops only: a custom op inside would recurse (into itself, at
  // worst) once per element.
  if (graph.walk([](CustomOp) { return WalkResult::interrupt(); }).wasInterrupted())
    return kernelError(callee + "'s reference @" + reference->getValue().str() +
                       " holds a gpuos.custom; a reference is of built-in ops");
  if (graph.getInputTypes().size() != inputs.size() ||
      graph.getOutputTypes().size() != 1)
    return kernelError(callee + "'s reference @" + reference->getValue().str() +
                       " must take " + llvm::Twine(inputs.size()) +
                       " rank-0 inputs and give one rank-0 output");
  // The result's size from the operands' run-time shapes: its type may
  // hold `?`.
  Expected<SmallVector<int64_t>> shape = broadcastRuntimeShapes(inputs);
  if (!shape)
    return shape.takeError();
  SmallVector<HostTensor> broadcast;
  for (const HostTensor *input : inputs) {
    Expected<HostTensor> wide = broadcastTo(*input, *shape);
    if (!wide)
      return wide.takeError();
    broadcast.push_back(std::move(*wide));
  }
  HostTensor result(*shape, *dtype);
  InterpreterOptions options;
  options.accumulateInF64 = acc.inF64;
  for (int64_t flat = 0, e = result.getNumElements(); flat < e; ++flat) {
    SmallVector<HostTensor> scalars;
    for (const HostTensor &input : broadcast) {
      HostTensor scalar({}, input.getDType());
      if (input.isFloat())
        scalar.setDouble(0, input.getDouble(flat));
      else
        scalar.setInt(0, input.getInt(flat));
      scalars.push_back(std::move(scalar));
    }
    FailureOr<SmallVector<HostTensor>> value =
        evaluateGraph(graph, scalars, options);
    if (failed(value))
      return kernelError(callee + "'s reference @" +
                         reference->getValue().str() + " failed (see above)");
    const HostTensor &out = value->front();
    if (out.getRank() != 0 || out.getDType() != *dtype)
      return kernelError(callee + "'s reference @" + reference->getValue().str() +
                         " gives " + out.getTypeString() + ", not a rank-0 " +
                         dtypeName(*dtype).str());
    if (out.isFloat())
      result.setDouble(flat, out.getDouble(0));
    else
      result.setInt(flat, out.getInt(0));
  }
  return result;
}

Expected<HostTensor>
gpuos::interp::evaluateComputeOp(Operation *op,
                                 function_ref<const HostTensor &(Value)> lookup,
                                 Accumulation acc) {
  auto in = [&](unsigned index) -> const HostTensor & {
    return lookup(op->getOperand(index));
  };
  auto optional = [&](Value value) -> const HostTensor * {
    return value ? &lookup(value) : nullptr;
  };
  auto un = [&](UnaryFn fn) { return unary(fn, in(0)); };
  auto bin = [&](BinaryFn fn) { return binary(fn, in(0), in(1)); };
  using Result = Expected<HostTensor>;
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case([&](NegOp) { return un(UnaryFn::Neg); })
      .Case([&](AbsOp) { return un(UnaryFn::Abs); })
      .Case([&](ReluOp) { return un(UnaryFn::Relu); })
      .Case([&](ExpOp) { return un(UnaryFn::Exp); })
      .Case([&](LogOp) { return un(UnaryFn::Log); })
      .Case([&](SqrtOp) { return un(UnaryFn::Sqrt); })
      .Case([&](RsqrtOp) { return un(UnaryFn::Rsqrt); })
      .Case([&](TanhOp) { return un(UnaryFn::Tanh); })
      .Case([&](SigmoidOp) { return un(UnaryFn::Sigmoid); })
      .Case([&](GeluOp) { return un(UnaryFn::Gelu); })
      .Case([&](SiluOp) { return un(UnaryFn::Silu); })
      .Case([&](ErfOp) { return un(UnaryFn::Erf); })
      .Case([&](AddOp) { return bin(BinaryFn::Add); })
      .Case([&](SubOp) { return bin(BinaryFn::Sub); })
      .Case([&](MulOp) { return bin(BinaryFn::Mul); })
      .Case([&](DivOp) { return bin(BinaryFn::Div); })
      .Case([&](MaxOp) { return bin(BinaryFn::Max); })
      .Case([&](MinOp) { return bin(BinaryFn::Min); })
      .Case([&](PowOp) { return bin(BinaryFn::Pow); })
      .Case([&](CastOp castOp) -> Result {
        std::optional<DType> dtype = dtypeFromType(castOp.getDtype());
        if (!dtype)
          return kernelError("cast to an element type gpuos lacks");
        return castTo(in(0), *dtype);
      })
      .Case([&](CmpOp cmp) {
        return compare(toCompareFn(cmp.getPredicate()), in(0), in(1));
      })
      .Case([&](SelectOp) { return select(in(0), in(1), in(2)); })
      .Case([&](ConstantOp constant) {
        return readElements(constant.getValue());
      })
      .Case([&](BroadcastOp broadcast) -> Result {
        Expected<SmallVector<int64_t>> shape =
            resolveBroadcastTarget(broadcast.getShape(), in(0));
        if (!shape)
          return shape.takeError();
        return broadcastTo(in(0), *shape);
      })
      .Case([&](ReshapeOp reshapeOp) -> Result {
        // Same as the folder: a reshape to its operand's own type is the
        // identity, even where several `?` would otherwise be ambiguous.
        if (reshapeOp.getInput().getType() == reshapeOp.getType())
          return in(0);
        Expected<SmallVector<int64_t>> shape =
            resolveReshapeTarget(reshapeOp.getShape(), in(0));
        if (!shape)
          return shape.takeError();
        return reshape(in(0), *shape);
      })
      .Case([&](TransposeOp transposeOp) {
        return transpose(in(0), transposeOp.getPermutation());
      })
      .Case([&](SliceOp sliceOp) {
        return slice(in(0), sliceOp.getStarts(), sliceOp.getSizes(),
                     sliceOp.getSteps());
      })
      .Case([&](ConcatOp concatOp) {
        SmallVector<const HostTensor *> inputs;
        for (Value value : concatOp.getInputs())
          inputs.push_back(&lookup(value));
        return concat(inputs, concatOp.getAxis());
      })
      .Case([&](ReduceOp reduceOp) {
        return reduce(toReduceFn(reduceOp.getKind()), in(0), reduceOp.getAxes(),
                      reduceOp.getKeepdim(), acc);
      })
      .Case([&](ArgmaxOp argmaxOp) {
        return argmax(in(0), argmaxOp.getAxis(), argmaxOp.getKeepdim());
      })
      .Case([&](SoftmaxOp softmaxOp) {
        return softmax(in(0), softmaxOp.getAxis(), acc);
      })
      .Case([&](LayerNormOp norm) {
        return layerNorm(in(0), optional(norm.getWeight()),
                         optional(norm.getBias()),
                         norm.getEpsilon().convertToDouble(), acc);
      })
      .Case([&](RmsNormOp norm) {
        return rmsNorm(in(0), optional(norm.getWeight()),
                       norm.getEpsilon().convertToDouble(), acc);
      })
      .Case([&](MatmulOp mm) {
        return matmul(in(0), in(1), mm.getTransposeLhs(), mm.getTransposeRhs(),
                      acc);
      })
      .Case([&](CustomOp custom) -> Result {
        SmallVector<const HostTensor *> inputs;
        for (unsigned i = 0, e = custom.getInputs().size(); i < e; ++i)
          inputs.push_back(&in(i));
        return evaluateCustom(custom, inputs, acc);
      })
      .Default([&](Operation *) -> Result {
        return kernelError("the interpreter has no semantics for this op");
      });
}
