//===- GpuosTypes.cpp - !gpuos.tensor -------------------------------------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace gpuos;

#define GET_TYPEDEF_CLASSES
#include "gpuos/Dialect/Gpuos/GpuosTypes.cpp.inc"

void GpuosDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "gpuos/Dialect/Gpuos/GpuosTypes.cpp.inc"
      >();
}

SmallVector<int64_t> gpuos::canonicalStrides(ArrayRef<int64_t> shape,
                                             ArrayRef<int64_t> strides) {
  if (strides.empty() || strides.size() != shape.size())
    return SmallVector<int64_t>(strides);
  // Only a fully known row-major layout is the canonical one; a dynamic
  // stride may or may not be row-major at run time, so it stays explicit.
  if (ArrayRef<int64_t>(rowMajorStrides(shape)) == strides &&
      !llvm::is_contained(strides, kDynamic))
    return {};
  return SmallVector<int64_t>(strides);
}

static void printDim(llvm::raw_ostream &os, int64_t dim) {
  if (dim == kDynamic)
    os << '?';
  else
    os << dim;
}

/// tensor-type ::= `<` dimension-list element-type (`,` `strides` `=`
///                 `[` (stride (`,` stride)*)? `]`)? `>`
Type StridedTensorType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape, strides;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    auto parseStride = [&]() -> ParseResult {
      if (succeeded(parser.parseOptionalQuestion())) {
        strides.push_back(kDynamic);
        return success();
      }
      int64_t stride;
      if (parser.parseInteger(stride))
        return failure();
      strides.push_back(stride);
      return success();
    };
    if (parser.parseKeyword("strides") || parser.parseEqual() ||
        parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                       parseStride))
      return {};
    if (strides.empty()) {
      parser.emitError(loc, "strides must list one stride per dimension; "
                            "omit `strides` for a contiguous tensor");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<StridedTensorType>(loc, parser.getContext(), shape,
                                       elementType,
                                       canonicalStrides(shape, strides));
}

void StridedTensorType::print(AsmPrinter &printer) const {
  auto &os = printer.getStream();
  os << '<';
  for (int64_t dim : getShape()) {
    printDim(os, dim);
    os << 'x';
  }
  printer.printType(getElementType());
  if (!getStrides().empty()) {
    os << ", strides = [";
    llvm::interleaveComma(getStrides(), os,
                          [&](int64_t s) { printDim(os, s); });
    os << ']';
  }
  os << '>';
}

LogicalResult
StridedTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                   ArrayRef<int64_t> shape, Type elementType,
                   ArrayRef<int64_t> strides) {
  if (!isSupportedElementType(elementType))
    return emitError() << "unsupported element type " << elementType
                       << "; gpuos tensors hold f32, f16, bf16, f64, i64, "
                          "i32, i8 or i1";
  for (auto [axis, dim] : llvm::enumerate(shape))
    if (dim < 0 && dim != kDynamic)
      return emitError() << "dimension " << axis << " has negative size "
                         << dim;
  if (strides.empty())
    return success();
  if (strides.size() != shape.size())
    return emitError() << "has " << strides.size() << " strides for rank "
                       << shape.size() << "; give one stride per dimension";
  for (auto [axis, stride] : llvm::enumerate(strides))
    if (stride < 0 && stride != kDynamic)
      return emitError() << "stride " << stride << " of dimension " << axis
                         << " is negative; gpuos views need strides >= 0";
  if (ArrayRef<int64_t>(canonicalStrides(shape, strides)) != strides)
    return emitError() << "row-major strides must be omitted (the "
                          "contiguous form is canonical)";
  return success();
}

bool StridedTensorType::hasStaticShape() const {
  return !llvm::is_contained(getShape(), kDynamic);
}

bool StridedTensorType::hasRowMajorOrder() const {
  if (isContiguous() || llvm::is_contained(getShape(), 0))
    return true;
  // Walks from the innermost dimension, skipping those of size 1; the
  // expected stride becomes unknown behind a dynamic size, and an unknown
  // stride proves nothing.
  int64_t expected = 1;
  for (int64_t axis = getRank() - 1; axis >= 0; --axis) {
    int64_t dim = getDimSize(axis), stride = getStrides()[axis];
    if (dim == 1)
      continue;
    if (expected == kDynamic || stride != expected)
      return false;
    if (dim == kDynamic || llvm::MulOverflow(expected, dim, expected))
      expected = kDynamic;
  }
  return true;
}

SmallVector<int64_t> StridedTensorType::getEffectiveStrides() const {
  if (isContiguous())
    return rowMajorStrides(getShape());
  return SmallVector<int64_t>(getStrides());
}

std::optional<int64_t> StridedTensorType::getNumElements() const {
  int64_t count = 1;
  for (int64_t dim : getShape()) {
    // Unknown as well when the count does not fit in int64.
    if (dim == kDynamic || llvm::MulOverflow(count, dim, count))
      return std::nullopt;
  }
  return count;
}

StridedTensorType StridedTensorType::getContiguous() const {
  return StridedTensorType::get(getContext(), getShape(), getElementType(), {});
}

StridedTensorType StridedTensorType::withElementType(Type type) const {
  return StridedTensorType::get(getContext(), getShape(), type, getStrides());
}
