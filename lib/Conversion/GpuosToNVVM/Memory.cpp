//===- Memory.cpp - strided and vector accesses of task buffers -----------===//
//
// A leaf access turns an index into element offsets under the leaf's
// strides. When the lanes of a thread sit at consecutive addresses (lane
// stride 1) and the first lane's offset is provably a multiple of the chunk
// size, lanes travel in chunks of up to 16 bytes (ld/st.global.v2/v4);
// the base pointers' 16-byte alignment is checked once at function entry.
// A lane stride of 0 (a broadcast) loads once; anything else is a scalar
// access per lane.
//
//===----------------------------------------------------------------------===//

#include "ScalarMath.h"
#include "TaskEmitter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include <numeric>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::codegen;

TaskEmitter::Offsets TaskEmitter::offsets(const Index &index,
                                          ArrayRef<int64_t> strides) {
  Offsets result;
  result.affine =
      llvm::all_of(index, [](const DimIndex &dim) { return dim.isAffine(); });
  if (result.affine) {
    Value base;
    int64_t divisor = int64_t(1) << 40; // the empty sum is 0
    for (auto [dim, stride] : llvm::zip(index, strides)) {
      if (stride == 0)
        continue; // broadcast dims do not move the address
      Value term = idxMul(dim.base, stride);
      base = base ? idxAdd(base, term) : term;
      result.laneStride += dim.coef * stride;
      divisor = std::gcd(divisor, dim.divisor * stride);
    }
    result.base = base ? base : idxConst(0);
    result.divisor = divisor;
    return result;
  }
  for (unsigned lane = 0; lane < lanes; ++lane) {
    Value offset;
    for (auto [dim, stride] : llvm::zip(index, strides)) {
      if (stride == 0)
        continue;
      Value term = idxMul(laneValue(dim, lane), stride);
      offset = offset ? idxAdd(offset, term) : term;
    }
    result.perLane.push_back(offset ? offset : idxConst(0));
  }
  return result;
}

Value TaskEmitter::elementPtr(const MemoryLeaf &leaf, Value offset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 1);
  return LLVM::GEPOp::create(b, ptrType, storageType(leaf.elementType),
                             leaf.ptr, ValueRange{offset});
}

unsigned TaskEmitter::vectorChunk(const MemoryLeaf &leaf, const Offsets &offs) {
  if (!allowVector || lanes == 1 || !offs.affine || offs.laneStride != 1)
    return 1;
  unsigned chunk = std::min<unsigned>(lanes, 16 / storageBytes(leaf.elementType));
  while (chunk > 1 && offs.divisor % chunk != 0)
    chunk /= 2;
  if (chunk > 1 && leaf.bufferIndex >= 0)
    vectorized[leaf.bufferIndex] = true;
  return chunk;
}

Lanes TaskEmitter::load(const MemoryLeaf &leaf, const Index &index) {
  Offsets offs = offsets(index, leaf.strides);
  Type storage = storageType(leaf.elementType);
  unsigned bytes = storageBytes(leaf.elementType);
  // Inputs and constant tables do not change while the task runs: outputs
  // never overlap inputs (docs/abi.md, "Aliasing"). Invariant loads may move
  // past the task's stores and become ld.global.nc.
  bool invariant = leaf.bufferIndex < int(abi.numInputs);
  auto scalarAt = [&](Value offset) {
    Value value = LLVM::LoadOp::create(b, storage, elementPtr(leaf, offset),
                                       /*alignment=*/bytes,
                                       /*isVolatile=*/false,
                                       /*isNonTemporal=*/false, invariant);
    return storageToCompute(b, value, leaf.elementType);
  };
  if (offs.affine && offs.laneStride == 0)
    return Lanes(lanes, scalarAt(offs.base));

  Lanes result;
  if (unsigned chunk = vectorChunk(leaf, offs); chunk > 1) {
    auto vectorType = VectorType::get({chunk}, storage);
    for (unsigned first = 0; first < lanes; first += chunk) {
      Value ptr = elementPtr(leaf, idxAdd(offs.base, idxConst(first)));
      Value vector = LLVM::LoadOp::create(b, vectorType, ptr,
                                          /*alignment=*/chunk * bytes,
                                          /*isVolatile=*/false,
                                          /*isNonTemporal=*/false, invariant);
      for (unsigned i = 0; i < chunk; ++i) {
        Value element = LLVM::ExtractElementOp::create(
            b, vector, arith::ConstantOp::create(b, b.getI32IntegerAttr(i)));
        result.push_back(storageToCompute(b, element, leaf.elementType));
      }
    }
    return result;
  }
  for (unsigned lane = 0; lane < lanes; ++lane)
    result.push_back(scalarAt(
        offs.affine ? idxAdd(offs.base, idxConst(offs.laneStride * lane))
                    : offs.perLane[lane]));
  return result;
}

void TaskEmitter::store(const MemoryLeaf &leaf, const Index &index,
                        const Lanes &values) {
  Offsets offs = offsets(index, leaf.strides);
  unsigned bytes = storageBytes(leaf.elementType);
  SmallVector<Value> stored;
  for (Value value : values)
    stored.push_back(computeToStorage(b, value, leaf.elementType));

  if (unsigned chunk = vectorChunk(leaf, offs); chunk > 1) {
    auto vectorType = VectorType::get({chunk}, storageType(leaf.elementType));
    for (unsigned first = 0; first < lanes; first += chunk) {
      Value vector = LLVM::PoisonOp::create(b, vectorType);
      for (unsigned i = 0; i < chunk; ++i)
        vector = LLVM::InsertElementOp::create(
            b, vector, stored[first + i],
            arith::ConstantOp::create(b, b.getI32IntegerAttr(i)));
      Value ptr = elementPtr(leaf, idxAdd(offs.base, idxConst(first)));
      LLVM::StoreOp::create(b, vector, ptr, /*alignment=*/chunk * bytes);
    }
    return;
  }
  // Lanes that alias (a stride-0 output) store in lane order: the last wins.
  for (unsigned lane = 0; lane < lanes; ++lane) {
    Value offset = offs.affine
                       ? idxAdd(offs.base, idxConst(offs.laneStride * lane))
                       : offs.perLane[lane];
    LLVM::StoreOp::create(b, stored[lane], elementPtr(leaf, offset),
                          /*alignment=*/bytes);
  }
}
