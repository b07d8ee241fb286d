//===- Memory.cpp - strided and vector accesses of task buffers -----------===//
//
// A leaf access turns an index into element offsets under the leaf's
// strides. When the lanes of a thread sit at consecutive addresses (lane
// stride 1) and the first lane's offset is provably a multiple of the chunk
// size, lanes travel in chunks of up to 16 bytes (ld/st.global.v2/v4);
// the base pointers' 16-byte alignment is checked once at function entry.
// A lane stride of 0 (a broadcast) loads once; anything else is a scalar
// access per lane. Background tasks under backgroundEvictFirst make their
// accesses of 4, 8 and 16 bytes with an L2 evict-first cache hint.
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
    Value value = globalLoad(storage, elementPtr(leaf, offset), bytes, invariant);
    return storageToCompute(b, value, leaf.elementType);
  };
  if (offs.affine && offs.laneStride == 0)
    return Lanes(lanes, scalarAt(offs.base));

  Lanes result;
  if (unsigned chunk = vectorChunk(leaf, offs); chunk > 1) {
    auto vectorType = VectorType::get({chunk}, storage);
    for (unsigned first = 0; first < lanes; first += chunk) {
      Value ptr = elementPtr(leaf, idxAdd(offs.base, idxConst(first)));
      Value vector = globalLoad(vectorType, ptr, chunk * bytes, invariant);
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
      globalStore(vector, ptr, /*alignment=*/chunk * bytes);
    }
    return;
  }
  // Lanes that alias (a stride-0 output) store in lane order: the last wins.
  for (unsigned lane = 0; lane < lanes; ++lane) {
    Value offset = offs.affine
                       ? idxAdd(offs.base, idxConst(offs.laneStride * lane))
                       : offs.perLane[lane];
    globalStore(stored[lane], elementPtr(leaf, offset), /*alignment=*/bytes);
  }
}

// ptxas takes the `.L2::evict_first` qualifier of ld/st only on 256-bit
// accesses (`.v8.b32`, sm_100), so the hint is an explicit policy:
// `.L2::cache_hint` with the operand that `createpolicy.fractional
// .L2::evict_first` made at function entry.
// The access goes through inline PTX as 1, 2 or 4 b32 words and is bitcast
// to and from its type. Loads of inputs keep `.nc` and no side effects
// (nothing writes them while the task runs); other loads and all stores
// are ordered like any memory access.
static unsigned hintedWords(Value policy, Type type) {
  if (!policy)
    return 0;
  unsigned bits = 0;
  if (auto vector = dyn_cast<VectorType>(type))
    bits = vector.getNumElements() * vector.getElementType().getIntOrFloatBitWidth();
  else if (type.isIntOrFloat())
    bits = type.getIntOrFloatBitWidth();
  return bits == 32 || bits == 64 || bits == 128 ? bits / 32 : 0;
}

/// `{$first, ...}` (or `$first` for one word) for `words` operands.
static std::string ptxWords(unsigned first, unsigned words) {
  std::string list;
  for (unsigned i = 0; i < words; ++i)
    list += (i ? ", $" : "$") + std::to_string(first + i);
  return words == 1 ? list : "{" + list + "}";
}

static std::string ptxVector(unsigned words) {
  return words == 1 ? "" : ".v" + std::to_string(words);
}

/// The word type a hinted access moves: i32 or vector<words x i32>.
static Type wordsType(OpBuilder &b, unsigned words) {
  Type i32 = b.getI32Type();
  return words == 1 ? i32 : Type(VectorType::get({int64_t(words)}, i32));
}

Value TaskEmitter::globalLoad(Type type, Value ptr, unsigned alignment,
                              bool invariant) {
  unsigned words = hintedWords(l2Policy, type);
  if (!words)
    return LLVM::LoadOp::create(b, type, ptr, alignment, /*isVolatile=*/false,
                                /*isNonTemporal=*/false, invariant);
  std::string ptx = std::string("ld.global") + (invariant ? ".nc" : "") +
                    ".L2::cache_hint" + ptxVector(words) + ".b32 " +
                    ptxWords(0, words) + ", [$" + std::to_string(words) +
                    "], $" + std::to_string(words + 1) + ";";
  std::string constraints;
  for (unsigned i = 0; i < words; ++i)
    constraints += "=r,";
  constraints += "l,l";
  Type i32 = b.getI32Type();
  Type result = words == 1 ? i32
                           : Type(LLVM::LLVMStructType::getLiteral(
                                 b.getContext(), SmallVector<Type>(words, i32)));
  Value packed = inlinePtx(result, {ptr, l2Policy}, ptx, constraints,
                           /*hasSideEffects=*/!invariant);
  if (words > 1) {
    Value vector = LLVM::PoisonOp::create(b, wordsType(b, words));
    for (unsigned i = 0; i < words; ++i)
      vector = LLVM::InsertElementOp::create(
          b, vector, LLVM::ExtractValueOp::create(b, packed, ArrayRef<int64_t>{i}),
          arith::ConstantOp::create(b, b.getI32IntegerAttr(i)));
    packed = vector;
  }
  return LLVM::BitcastOp::create(b, type, packed);
}

void TaskEmitter::globalStore(Value value, Value ptr, unsigned alignment) {
  unsigned words = hintedWords(l2Policy, value.getType());
  if (!words) {
    LLVM::StoreOp::create(b, value, ptr, alignment);
    return;
  }
  Value packed = LLVM::BitcastOp::create(b, wordsType(b, words), value);
  SmallVector<Value> operands{ptr};
  for (unsigned i = 0; i < words; ++i)
    operands.push_back(words == 1 ? packed
                                  : Value(LLVM::ExtractElementOp::create(
                                        b, packed,
                                        arith::ConstantOp::create(
                                            b, b.getI32IntegerAttr(i)))));
  operands.push_back(l2Policy);
  std::string ptx = "st.global.L2::cache_hint" + ptxVector(words) + ".b32 [$0], " +
                    ptxWords(1, words) + ", $" + std::to_string(words + 1) + ";";
  std::string constraints = "l";
  for (unsigned i = 0; i < words; ++i)
    constraints += ",r";
  constraints += ",l";
  inlinePtx(Type(), operands, ptx, constraints, /*hasSideEffects=*/true);
}

Value TaskEmitter::inlinePtx(Type result, ValueRange operands, StringRef ptx,
                             StringRef constraints, bool hasSideEffects) {
  auto op = LLVM::InlineAsmOp::create(
      b, result, operands, ptx, constraints, hasSideEffects,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return result ? op.getResult(0) : Value();
}
