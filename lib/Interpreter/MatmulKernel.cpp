//===- MatmulKernel.cpp - batched matmul with broadcast batch dims --------===//

#include "Indexing.h"
#include "gpuos/Interpreter/Kernels.h"

using namespace gpuos::interp;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;

Expected<HostTensor> gpuos::interp::matmul(const HostTensor &lhs,
                                           const HostTensor &rhs,
                                           bool transposeLhs, bool transposeRhs,
                                           Accumulation acc) {
  if (!lhs.isFloat() || lhs.getDType() != rhs.getDType() || lhs.getRank() < 2 ||
      rhs.getRank() < 2)
    return kernelError("matmul needs float operands of one element type and "
                       "rank >= 2, got " +
                       lhs.getTypeString() + " and " + rhs.getTypeString());
  ArrayRef<int64_t> a = lhs.getShape(), b = rhs.getShape();
  // Stored extents: lhs is rows0 x cols0, rhs rows1 x cols1.
  int64_t rows0 = a[a.size() - 2], cols0 = a.back();
  int64_t rows1 = b[b.size() - 2], cols1 = b.back();
  int64_t m = transposeLhs ? cols0 : rows0, k = transposeLhs ? rows0 : cols0;
  int64_t kb = transposeRhs ? cols1 : rows1, n = transposeRhs ? rows1 : cols1;
  if (k != kb)
    return kernelError("matmul contraction sizes differ at run time: lhs " +
                       shapeString(a) + " gives K = " + llvm::Twine(k) +
                       ", rhs " + shapeString(b) +
                       " gives K = " + llvm::Twine(kb));
  SmallVector<SmallVector<int64_t>> batches = {
      SmallVector<int64_t>(a.drop_back(2)),
      SmallVector<int64_t>(b.drop_back(2))};
  Expected<SmallVector<int64_t>> batch = broadcastRuntimeShapes(batches);
  if (!batch)
    return batch.takeError();
  // Batch strides count whole matrices.
  SmallVector<SmallVector<int64_t>> strides = {
      broadcastStrides(batches[0], *batch),
      broadcastStrides(batches[1], *batch)};
  for (int64_t &s : strides[0])
    s *= rows0 * cols0;
  for (int64_t &s : strides[1])
    s *= rows1 * cols1;

  SmallVector<int64_t> shape(*batch);
  shape.push_back(m);
  shape.push_back(n);
  if (!hostElementCount(shape))
    return kernelError("the result shape " + shapeString(shape) +
                       " has more elements than the interpreter holds (" +
                       llvm::Twine(kMaxHostElements) + ")");
  HostTensor result(shape, lhs.getDType());
  int64_t batchCount = 1;
  for (int64_t dim : *batch)
    batchCount *= dim;
  AccRounder round{acc.inF64,
                   lhs.getDType() == DType::F64 ? DType::F64 : DType::F32};
  OffsetWalker walker(*batch, strides);
  int64_t out = 0;
  for (int64_t bi = 0; bi < batchCount; ++bi, walker.next()) {
    int64_t lhsBase = walker.offset(0), rhsBase = walker.offset(1);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          double x = lhs.getDouble(
              lhsBase + (transposeLhs ? p * cols0 + i : i * cols0 + p));
          double y = rhs.getDouble(
              rhsBase + (transposeRhs ? j * cols1 + p : p * cols1 + j));
          sum = round(sum + x * y);
        }
        result.setDouble(out++, sum);
      }
  }
  return result;
}
