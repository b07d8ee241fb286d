//===- ViewOps.cpp - broadcast, reshape, transpose, slice, concat ---------===//
//
// View ops compute the shape and strides of a new view of their operand;
// no data moves. concat is the one data-moving op here.
//
//===----------------------------------------------------------------------===//

#include "AsmDirectives.h"
#include "OpDiagnostics.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace gpuos;

//===----------------------------------------------------------------------===//
// custom<DimList>
//===----------------------------------------------------------------------===//

ParseResult gpuos::parseDimList(OpAsmParser &parser, DenseI64ArrayAttr &dims) {
  SmallVector<int64_t> values;
  auto parseOne = [&]() -> ParseResult {
    if (succeeded(parser.parseOptionalQuestion())) {
      values.push_back(kDynamic);
      return success();
    }
    int64_t value;
    if (parser.parseInteger(value))
      return failure();
    values.push_back(value);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseOne))
    return failure();
  dims = DenseI64ArrayAttr::get(parser.getContext(), values);
  return success();
}

void gpuos::printDimList(OpAsmPrinter &printer, Operation *,
                         DenseI64ArrayAttr dims) {
  printer << '[';
  llvm::interleaveComma(dims.asArrayRef(), printer, [&](int64_t dim) {
    if (dim == kDynamic)
      printer << '?';
    else
      printer << dim;
  });
  printer << ']';
}

/// `stride * factor`, or std::nullopt when that overflows int64.
static std::optional<int64_t> scaleStride(int64_t stride, int64_t factor) {
  int64_t scaled;
  if (stride == kDynamic)
    return kDynamic;
  if (llvm::MulOverflow(stride, factor, scaled))
    return std::nullopt;
  return scaled;
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  auto input = cast<StridedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> target = adaptor.getShape();
  ArrayRef<int64_t> shape = input.getShape();
  if (target.size() < shape.size())
    return emitOptionalError(loc, "'", getOperationName(), "' target rank ",
                             target.size(), " is below the operand rank ",
                             shape.size());
  SmallVector<int64_t> inStrides = input.getEffectiveStrides();
  SmallVector<int64_t> strides(target.size(), 0);
  size_t lead = target.size() - shape.size();
  for (auto [axis, want] : llvm::enumerate(target)) {
    if (want < 0 && want != kDynamic)
      return emitOptionalError(loc, "'", getOperationName(),
                               "' target dimension ", axis,
                               " has negative size ", want);
    // A dynamic target size must come from the operand: gpuos has no size
    // operands, so `?` only passes an operand's own `?` through.
    if (want == kDynamic && (axis < lead || shape[axis - lead] != kDynamic))
      return emitOptionalError(
          loc, "'", getOperationName(), "' target dimension ", axis,
          " is dynamic but its size cannot come from the operand (",
          axis < lead ? std::string("a new dimension")
                      : "operand size " + std::to_string(shape[axis - lead]),
          "); give a static size");
    if (axis < lead)
      continue; // a new leading dimension reads the same data: stride 0
    int64_t have = shape[axis - lead];
    int64_t stride = inStrides[axis - lead];
    if (have == want)
      strides[axis] = stride;
    else if (have == 1)
      strides[axis] = 0;
    else if (have == kDynamic)
      strides[axis] = kDynamic; // 1 or `want` at run time
    else
      return emitOptionalError(
          loc, "'", getOperationName(), "' cannot broadcast operand shape ",
          formatShape(shape), " to ", formatShape(target), ": dimension ",
          axis - lead, " has size ", have, ", not 1 or ", want);
  }
  results.push_back(
      StridedTensorType::get(target, input.getElementType(), strides));
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

/// The type of `input` reshaped to `target`, or a failure (emitted at `loc`
/// when there is one): ReshapeOp's inference, and the fold's check that
/// a chain of reshapes is one valid reshape.
static FailureOr<StridedTensorType> reshapedType(std::optional<Location> loc,
                                                 StridedTensorType input,
                                                 ArrayRef<int64_t> target) {
  StringRef opName = ReshapeOp::getOperationName();
  // Strides that only differ from row-major on size-1 dimensions keep the
  // elements in row-major order: the same memory reads as the new shape.
  if (!input.hasRowMajorOrder())
    return emitOptionalError(loc, "'", opName,
                             "' needs an operand laid out in row-major order, "
                             "got strides ",
                             formatStrides(input.getStrides()),
                             "; a reshape of a strided view would need a copy");
  int64_t count = 1;
  bool dynamic = false;
  for (auto [axis, dim] : llvm::enumerate(target)) {
    if (dim == kDynamic) {
      // Like numpy's -1: one unknown size is implied by the element count.
      if (dynamic)
        return emitOptionalError(loc, "'", opName, "' target ",
                                 formatShape(target),
                                 " has more than one dynamic dimension");
      dynamic = true;
      continue;
    }
    if (dim < 0)
      return emitOptionalError(loc, "'", opName,
                               "' target dimension ", axis,
                               " has negative size ", dim);
    if (llvm::MulOverflow(count, dim, count))
      return emitOptionalError(loc, "'", opName, "' target ",
                               formatShape(target),
                               " has more elements than int64 counts");
  }
  std::optional<int64_t> have = input.getNumElements();
  if (!have && input.hasStaticShape())
    return emitOptionalError(loc, "'", opName, "' operand ",
                             formatShape(input.getShape()),
                             " has more elements than int64 counts");
  if (have && !dynamic && *have != count)
    return emitOptionalError(loc, "'", opName, "' cannot reshape ",
                             formatShape(input.getShape()), " (", *have,
                             " elements) to ", formatShape(target), " (",
                             count, " elements)");
  // With a static operand, `?` is the count over the static sizes: when
  // that does not divide evenly no size fits, and only the interpreter
  // would notice (at run time).
  if (have && dynamic && count == 0 && *have != 0)
    return emitOptionalError(loc, "'", opName, "' cannot reshape ",
                             formatShape(input.getShape()), " (", *have,
                             " elements) to ", formatShape(target),
                             " (0 elements for any size of ?)");
  if (have && dynamic && count != 0 && *have % count != 0)
    return emitOptionalError(loc, "'", opName, "' cannot reshape ",
                             formatShape(input.getShape()), " (", *have,
                             " elements) to ", formatShape(target), ": ",
                             *have, " is not a multiple of ", count,
                             ", the product of the static sizes");
  return StridedTensorType::get(target, input.getElementType());
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  FailureOr<StridedTensorType> type = reshapedType(
      loc, cast<StridedTensorType>(adaptor.getInput().getType()), adaptor.getShape());
  if (failed(type))
    return failure();
  results.push_back(*type);
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // reshape(reshape(x)) is one reshape of x, when that one is valid: with a
  // `?` in between, x's static count can rule out the last shape, and the
  // chain is then left for the interpreter's run-time error.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    auto source = cast<StridedTensorType>(inner.getInput().getType());
    FailureOr<StridedTensorType> type = reshapedType(std::nullopt, source, getShape());
    if (succeeded(type) && *type == getType()) {
      getInputMutable().assign(inner.getInput());
      return getResult();
    }
  }
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  auto input = cast<StridedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOptionalError(loc, "'", getOperationName(), "' permutation has ",
                             perm.size(), " entries for an operand of rank ",
                             rank);
  SmallVector<bool> seen(rank, false);
  for (int64_t axis : perm) {
    if (failed(checkAxis(loc, getOperationName(), axis, rank)))
      return failure();
    if (seen[axis])
      return emitOptionalError(loc, "'", getOperationName(),
                               "' permutation repeats axis ", axis);
    seen[axis] = true;
  }
  SmallVector<int64_t> inStrides = input.getEffectiveStrides();
  SmallVector<int64_t> shape, strides;
  for (int64_t axis : perm) {
    shape.push_back(input.getDimSize(axis));
    strides.push_back(inStrides[axis]);
  }
  results.push_back(StridedTensorType::get(shape, input.getElementType(), strides));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (llvm::equal(getPermutation(),
                  llvm::seq<int64_t>(0, getPermutation().size())))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  auto input = cast<StridedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> starts = adaptor.getStarts(), sizes = adaptor.getSizes(),
                    steps = adaptor.getSteps();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(starts.size()) != rank ||
      static_cast<int64_t>(sizes.size()) != rank ||
      static_cast<int64_t>(steps.size()) != rank)
    return emitOptionalError(loc, "'", getOperationName(),
                             "' needs one start, size and step per "
                             "dimension of its rank-",
                             rank, " operand; got ", starts.size(), ", ",
                             sizes.size(), " and ", steps.size());
  SmallVector<int64_t> inStrides = input.getEffectiveStrides();
  SmallVector<int64_t> strides;
  for (int64_t axis = 0; axis < rank; ++axis) {
    if (starts[axis] < 0 || sizes[axis] < 1 || steps[axis] < 1)
      return emitOptionalError(loc, "'", getOperationName(), "' dimension ",
                               axis, " needs start >= 0, size >= 1 and step "
                               ">= 1; got start ",
                               starts[axis], ", size ", sizes[axis],
                               ", step ", steps[axis]);
    int64_t dim = input.getDimSize(axis);
    int64_t last;
    if (llvm::MulOverflow(sizes[axis] - 1, steps[axis], last) ||
        llvm::AddOverflow(starts[axis], last, last))
      return emitOptionalError(loc, "'", getOperationName(), "' dimension ",
                               axis, " reads past index ",
                               std::numeric_limits<int64_t>::max());
    if (dim != kDynamic && last >= dim)
      return emitOptionalError(loc, "'", getOperationName(), "' dimension ",
                               axis, " reads index ", last,
                               ", past its size ", dim);
    std::optional<int64_t> stride = scaleStride(inStrides[axis], steps[axis]);
    if (!stride)
      return emitOptionalError(loc, "'", getOperationName(), "' dimension ",
                               axis, " stride ", inStrides[axis],
                               " times step ", steps[axis],
                               " overflows int64");
    strides.push_back(*stride);
  }
  results.push_back(StridedTensorType::get(sizes, input.getElementType(), strides));
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "'", getOperationName(),
                             "' needs at least one operand");
  auto first = cast<StridedTensorType>(inputs.front().getType());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, getOperationName(), axis, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [index, value] : llvm::enumerate(inputs.drop_front())) {
    auto type = cast<StridedTensorType>(value.getType());
    if (type.getElementType() != first.getElementType())
      return emitOptionalError(loc, "'", getOperationName(), "' operand ",
                               index + 1, " has element type ",
                               type.getElementType(), ", operand 0 has ",
                               first.getElementType());
    if (type.getRank() != first.getRank())
      return emitOptionalError(loc, "'", getOperationName(), "' operand ",
                               index + 1, " has rank ", type.getRank(),
                               ", operand 0 has rank ", first.getRank());
    for (int64_t d = 0; d < first.getRank(); ++d) {
      int64_t dim = type.getDimSize(d);
      if (d == axis) {
        if (shape[d] == kDynamic || dim == kDynamic)
          shape[d] = kDynamic;
        else if (llvm::AddOverflow(shape[d], dim, shape[d]))
          return emitOptionalError(loc, "'", getOperationName(),
                                   "' result dimension ", d,
                                   " overflows int64");
      } else if (!dimsCompatible(shape[d], dim)) {
        return emitOptionalError(
            loc, "'", getOperationName(), "' operand ", index + 1,
            " has shape ", formatShape(type.getShape()),
            ", which differs from operand 0's ",
            formatShape(first.getShape()), " at dimension ", d,
            " (only the concat axis ", axis, " may differ)");
      } else if (shape[d] == kDynamic) {
        shape[d] = dim;
      }
    }
  }
  results.push_back(StridedTensorType::get(shape, first.getElementType()));
  return success();
}
