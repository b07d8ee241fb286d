//===- MatvecEmitter.cpp - split-K small-M matmul tasks -------------------===//

#include "MatvecEmitter.h"
#include "BlockFold.h"
#include "ScalarMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace gpuos;
using namespace gpuos::codegen;

/// Shared memory the strategy may declare (the default dynamic limit is
/// 48 KiB; two blocks share an SM).
static constexpr int64_t kMatvecMaxShared = 32 * 1024;

static StridedTensorType typeOf(Value value) {
  return cast<StridedTensorType>(value.getType());
}

static bool isPowerOfTwo(int64_t value) {
  return value > 0 && (value & (value - 1)) == 0;
}

/// A value the task computes (through views, down to an op that is not
/// one), rather than an input read through views.
static bool computedInTask(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!def->hasTrait<gpuos::OpTrait::View>() || def->getNumOperands() == 0)
      return true;
    value = def->getOperand(0);
  }
  return false;
}

/// Accumulation in f32: f16, bf16 and f32 operands.
static bool isF32Compute(Value value) {
  return computeType(typeOf(value).getElementType()).isF32();
}

Operation *gpuos::codegen::rowPrologue(MatmulOp op) {
  Operation *def = op.getLhs().getDefiningOp();
  if (op.getTransposeLhs() || !def)
    return nullptr;
  Value input = innermostRowInput(def);
  return input && isF32Compute(input) ? def : nullptr;
}

MatvecEmitter::MatvecEmitter(TaskEmitter &task) : t(task), b(task.b) {
  ArrayRef<int64_t> iter = t.abi.iterShape;
  rank = iter.size();
  m = iter[rank - 2];
  n = iter[rank - 1];
  tn = t.abi.tile[rank - 1];
  int64_t offset = 0;
  for (Operation &op : t.task.getBodyBlock().without_terminator()) {
    auto matmul = dyn_cast<MatmulOp>(op);
    if (!matmul)
      continue;
    Plan plan;
    plan.op = matmul;
    StridedTensorType rhs = typeOf(matmul.getRhs());
    plan.k = matmulK(matmul);
    plan.kLanes = matmul.getTransposeRhs();
    unsigned widest = 16 / storageBytes(rhs.getElementType());
    int64_t bytes;
    if (plan.kLanes) {
      // Registers: m accumulators and (m + 1) * V operand values per copy.
      int64_t v = std::min<int64_t>(widest, floorPow2(std::max<int64_t>(1, 32 / m)));
      while (v > 1 && plan.k % v != 0)
        v /= 2;
      plan.vector = v;
      plan.groups = std::min<int64_t>(32, floorPow2(std::max<int64_t>(1, plan.k / v)));
      plan.unroll = std::clamp<int64_t>(floorPow2(64 / ((m + 1) * v)), 1, 4);
      bytes = m * tn * 4;
    } else {
      // Registers: m * V accumulators.
      int64_t v = std::min<int64_t>(widest, floorPow2(std::max<int64_t>(1, 8 / m)));
      while (v > 1 && (n % v != 0 || tn % v != 0))
        v /= 2;
      plan.vector = v;
      plan.groups = tn / v;
      plan.unroll = m == 1 ? 4 : m <= 4 ? 2 : 1;
      bytes = kMatvecSlots * m * tn * 4;
    }
    plan.sharedOffset = offset;
    offset += llvm::alignTo(bytes, 16);
    plans.push_back(plan);
  }
  // A computed lhs (a prologue) is staged when it fits beside the
  // partials: evaluated per K position in the loop, each column group
  // would repeat it, with its math on the loop's dependent chain.
  // Matmuls reading one lhs share its staged copy (the first stages it).
  for (size_t i = 0; i < plans.size(); ++i) {
    Plan &plan = plans[i];
    Value lhs = plan.op.getLhs();
    MatmulOp op = plan.op;
    auto first = llvm::find_if(ArrayRef(plans).take_front(i), [&](const Plan &other) {
      MatmulOp earlier = other.op;
      return other.lhsOffset >= 0 && earlier.getLhs() == lhs &&
             earlier.getTransposeLhs() == op.getTransposeLhs();
    });
    int64_t bytes = llvm::alignTo(m * plan.k * 4, 16);
    Operation *rowOp = rowPrologue(op);
    int64_t statBytes = rowOp ? llvm::alignTo(m * 8, 16) + kRowFoldSlotBytes : 0;
    if (first != plans.begin() + i) {
      plan.lhsOffset = first->lhsOffset;
      plan.stages = false;
    } else if (computedInTask(lhs) && offset + bytes + statBytes <= kMatvecMaxShared) {
      plan.lhsOffset = offset;
      offset += bytes;
      if (rowOp) {
        plan.rowOp = rowOp;
        plan.statsOffset = offset;
        offset += statBytes;
      }
    }
  }
  unstagedBytes = offset;
  formGroups();
  // The weight stages share one area (groups run one after the other),
  // when it fits beside the rest.
  int64_t stageBytes = 0;
  for (const Group &group : groups)
    stageBytes =
        std::max(stageBytes, group.buffers * group.chunkRows * group.perRowBytes);
  if (stageBytes > 0 && offset + stageBytes <= kMatvecMaxStagedShared) {
    stageOffset = offset;
    offset += stageBytes;
  } else {
    for (Group &group : groups)
      group.chunkRows = 0;
  }
  sharedBytes = offset;
}

void MatvecEmitter::formGroups() {
  for (auto [index, plan] : llvm::enumerate(plans)) {
    if (plan.kLanes)
      continue;
    auto joins = [&](const Group &group) {
      const Plan &first = plans[group.members.front()];
      MatmulOp member = first.op, candidate = plan.op;
      return member.getRhs() == candidate.getRhs() && first.k == plan.k &&
             first.vector == plan.vector && first.groups == plan.groups &&
             int64_t(group.members.size() + 1) * m * plan.vector <=
                 kJamAccumulators;
    };
    auto *group = llvm::find_if(groups, joins);
    if (group == groups.end())
      group = &groups.emplace_back();
    group->members.push_back(index);
  }
  for (Group &group : groups)
    planStage(group);
}

void MatvecEmitter::planStage(Group &group) const {
  // The weight is an input buffer, read as it is: contiguous along N, and
  // every other stride, the tile's column offset and its row a multiple of
  // 16 bytes, so the tile's slice is whole 16-byte pieces, none across N.
  const Plan &first = plans[group.members.front()];
  MatmulOp op = first.op;
  Value rhs = op.getRhs();
  auto arg = dyn_cast<BlockArgument>(rhs);
  if (!arg || arg.getOwner() != &t.task.getBodyBlock())
    return;
  StridedTensorType type = typeOf(rhs);
  SmallVector<int64_t> strides = type.getEffectiveStrides();
  int64_t bytes = storageBytes(type.getElementType());
  int64_t perPiece = 16 / bytes;
  if (strides.back() != 1 || n % perPiece != 0 || (tn * bytes) % 16 != 0)
    return;
  for (int64_t stride : ArrayRef(strides).drop_back())
    if (stride == kDynamic || stride % perPiece != 0)
      return;
  group.rowBytes = tn * bytes;
  // Each member's lhs rows too, [M][R] after the weight rows of a chunk,
  // when an input buffer holds them contiguous along K (through slices):
  // every tile reads the whole lhs, one element per K position per
  // column group, so from L2 it is as much a stream as the weight.
  int64_t perRow = group.rowBytes;
  for (unsigned member : group.members) {
    int64_t lhsBytes = stagedLhsBytes(plans[member]);
    group.lhsOffsets.push_back(lhsBytes ? perRow : -1);
    group.lhsBytes.push_back(lhsBytes);
    perRow += m * lhsBytes;
  }
  group.perRowBytes = perRow;
  // Only when the lhs rows are the larger stream (micro-batches: M rows of
  // every member per K row against one weight row): decode's M = 1
  // matvecs ran no faster with the weight staged, and slower in chunks
  // that also held the lhs (docs/codegen.md, "Staged chunks").
  if (perRow - group.rowBytes < group.rowBytes)
    return;
  if (first.k * perRow <= kWeightStageBytes) {
    group.chunkRows = first.k;
    group.buffers = 1;
  } else {
    group.chunkRows = floorPow2(kWeightStageBytes / 2 / perRow);
    group.buffers = 2;
  }
  // Every lhs row of a chunk is whole 16-byte pieces.
  if (group.chunkRows < 16 ||
      (group.chunkRows < first.k && group.chunkRows % 16 != 0)) {
    group.chunkRows = 0;
    return;
  }
  // Byte offsets within a buffer: rows of the weight, then each staged
  // member's [M][R] lhs.
  for (int64_t &offset : group.lhsOffsets)
    if (offset >= 0)
      offset = group.chunkRows * offset;
  group.chunks = llvm::divideCeil(first.k, group.chunkRows);
}

int64_t MatvecEmitter::stagedLhsBytes(const Plan &plan) const {
  // An lhs phase 0 stages is in shared memory already.
  MatmulOp op = plan.op;
  if (plan.lhsOffset >= 0 || op.getTransposeLhs())
    return 0;
  // Slices of an input down to the task's argument, K contiguous (step 1)
  // and starting on a 16-byte piece, every other stride a multiple of a
  // piece.
  Value value = op.getLhs();
  int64_t kStart = 0;
  while (auto slice = value.getDefiningOp<SliceOp>()) {
    if (slice.getSteps().back() != 1)
      return 0;
    kStart += slice.getStarts().back();
    value = slice.getInput();
  }
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != &t.task.getBodyBlock())
    return 0;
  StridedTensorType type = typeOf(value);
  int64_t bytes = storageBytes(type.getElementType());
  int64_t perPiece = 16 / bytes;
  SmallVector<int64_t> strides = type.getEffectiveStrides();
  if (strides.back() != 1 || kStart % perPiece != 0 || plan.k % perPiece != 0)
    return 0;
  for (int64_t stride : ArrayRef(strides).drop_back())
    if (stride == kDynamic || stride % perPiece != 0)
      return 0;
  return bytes;
}

const MatvecEmitter::Plan *MatvecEmitter::planOf(MatmulOp op) const {
  for (const Plan &plan : plans)
    if (plan.op == op)
      return &plan;
  return nullptr;
}

bool MatvecEmitter::applies(TaskEmitter &t) {
  if (!t.isF32MatmulTask())
    return false;
  ArrayRef<int64_t> iter = t.abi.iterShape, tile = t.abi.tile;
  int64_t rank = iter.size();
  // M whole in the tile, batch dims one at a time, power-of-two columns.
  int64_t m = iter[rank - 2];
  if (m < 1 || m > kMatvecMaxM || tile[rank - 2] != m)
    return false;
  for (int64_t axis = 0; axis + 2 < rank; ++axis)
    if (tile[axis] != 1)
      return false;
  if (!isPowerOfTwo(tile[rank - 1]) || tile[rank - 1] > 256)
    return false;
  MatvecEmitter emitter(t);
  if (emitter.unstagedBytes > kMatvecMaxShared)
    return false;
  for (const Plan &plan : emitter.plans)
    if (!plan.kLanes && plan.groups > 32)
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value MatvecEmitter::i32(int64_t value) {
  return intConstant(b, b.getI32Type(), value);
}

void MatvecEmitter::barrier() { NVVM::Barrier0Op::create(b); }

Value MatvecEmitter::toI32(Value index) {
  return index.getType().isInteger(32)
             ? index
             : Value(arith::TruncIOp::create(b, b.getI32Type(), index));
}

Value MatvecEmitter::shuffleXor(Value value, int offset) {
  return codegen::shuffleXor(b, value, offset);
}

Value MatvecEmitter::sharedPtr(Value byteOffset) {
  return LLVM::GEPOp::create(b, sharedBase.getType(), b.getI8Type(), sharedBase,
                             ValueRange{byteOffset});
}

FailureOr<MatvecEmitter::KStep>
MatvecEmitter::operandsAt(MatmulOp op, const DimIndex &column, const DimIndex &k,
                          unsigned lhsLanes, unsigned rhsLanes) {
  KStep step;
  t.lanes = lhsLanes;
  const Plan *plan = planOf(op);
  bool staged = plan && plan->lhsOffset >= 0;
  for (int64_t row = 0; staged && row < m; ++row) {
    // Staged: [row][k] f32 in shared memory (phase 0).
    Lanes lanes;
    for (unsigned lane = 0; lane < lhsLanes; ++lane) {
      Value element = arith::AddIOp::create(b, i32(row * plan->k),
                                            toI32(t.laneValue(k, lane)));
      lanes.push_back(LLVM::LoadOp::create(
          b, b.getF32Type(),
          sharedPtr(arith::AddIOp::create(b, i32(plan->lhsOffset),
                                          arith::MulIOp::create(b, element, i32(4)))),
          /*alignment=*/4));
    }
    step.lhsRows.push_back(std::move(lanes));
  }
  int64_t chunkLhs = stage.group ? stage.group->lhsOffsets[stage.member] : -1;
  Type lhsType = typeOf(op.getLhs()).getElementType();
  int64_t lhsBytes = storageBytes(lhsType);
  for (int64_t row = 0; !staged && chunkLhs >= 0 && row < m; ++row) {
    // [member's block][row][k - firstRow] of the chunk.
    Lanes lanes;
    for (unsigned lane = 0; lane < lhsLanes; ++lane) {
      Value position = toI32(arith::SubIOp::create(b, t.laneValue(k, lane),
                                                   stage.firstRow));
      Value byte = arith::AddIOp::create(
          b, arith::AddIOp::create(b, i32(stageOffset), stage.buffer),
          arith::AddIOp::create(
              b, i32(chunkLhs + row * stage.group->chunkRows * lhsBytes),
              arith::MulIOp::create(b, position, i32(lhsBytes))));
      lanes.push_back(storageToCompute(
          b,
          LLVM::LoadOp::create(b, storageType(lhsType), sharedPtr(byte),
                               lhsBytes),
          lhsType));
    }
    step.lhsRows.push_back(std::move(lanes));
  }
  for (int64_t row = 0; !staged && chunkLhs < 0 && row < m; ++row) {
    FailureOr<Lanes> value =
        t.eval(op.getLhs(), t.tileOperandIndex(op, true, t.constDim(row), k));
    if (failed(value))
      return failure();
    step.lhsRows.push_back(std::move(*value));
  }
  t.lanes = rhsLanes;
  if (stage.group) {
    step.rhs = stagedWeight(op, k, rhsLanes);
    return step;
  }
  FailureOr<Lanes> w = t.eval(op.getRhs(), t.tileOperandIndex(op, false, column, k));
  if (failed(w))
    return failure();
  step.rhs = std::move(*w);
  return step;
}

Lanes MatvecEmitter::stagedWeight(MatmulOp op, const DimIndex &k, unsigned lanes) {
  // [row - firstRow][column * V .. + V) of the chunk, one vector load per
  // K position for all members.
  if (auto it = stage.weights.find(k.base); it != stage.weights.end())
    return it->second;
  Type elementType = typeOf(op.getRhs()).getElementType();
  Type storage = storageType(elementType);
  Value row = toI32(arith::SubIOp::create(b, k.base, stage.firstRow));
  Value byte = arith::AddIOp::create(
      b, arith::AddIOp::create(b, i32(stageOffset), stage.buffer),
      arith::AddIOp::create(b, arith::MulIOp::create(b, row, i32(stage.group->rowBytes)),
                            stage.columnByte));
  auto vectorType = VectorType::get({int64_t(lanes)}, storage);
  Value vector = LLVM::LoadOp::create(b, vectorType, sharedPtr(byte),
                                      lanes * storageBytes(elementType));
  Lanes result;
  for (unsigned lane = 0; lane < lanes; ++lane)
    result.push_back(storageToCompute(
        b,
        LLVM::ExtractElementOp::create(
            b, vector, arith::ConstantOp::create(b, b.getI32IntegerAttr(lane))),
        elementType));
  stage.weights[k.base] = result;
  return result;
}

/// The operands of every K position the unrolled loop body handles
/// (k = position + kCoef * lane / kDivisor), for each of `ops` (one entry
/// per op, one KStep per position), evaluated in one scope of their own:
/// loads of the body are not shared with code outside it, and ops that
/// read one weight share its loads.
FailureOr<SmallVector<SmallVector<MatvecEmitter::KStep>>>
MatvecEmitter::kStepsAt(ArrayRef<MatmulOp> ops, const DimIndex &column,
                        ArrayRef<Value> ks, int64_t kCoef, int64_t kDivisor,
                        unsigned lhsLanes, unsigned rhsLanes) {
  t.pushScope();
  stage.weights.clear(); // loads of this body only, like the memo scope
  SmallVector<SmallVector<KStep>> steps(ops.size());
  for (auto [index, op, opSteps] : llvm::enumerate(ops, steps)) {
    stage.member = index;
    for (Value kValue : ks) {
      DimIndex kDim;
      kDim.base = kValue;
      kDim.coef = kCoef;
      kDim.divisor = kDivisor;
      FailureOr<KStep> step = operandsAt(op, column, kDim, lhsLanes, rhsLanes);
      if (failed(step)) {
        t.popScope();
        return failure();
      }
      opSteps.push_back(std::move(*step));
    }
  }
  t.popScope();
  return steps;
}

FailureOr<SmallVector<Value>>
MatvecEmitter::kLoop(Value upperBound, Value lower, Value step, unsigned unroll,
                     ArrayRef<Value> accs, Body body) {
  SmallVector<Value> current(accs);
  if (unroll > 1) {
    // Copies k, k + step, ..., all inside K: loads of every copy are issued
    // before the first FMA. Signed bounds: the upper one may be negative.
    Value last = b.createOrFold<arith::MulIOp>(step, t.idxConst(unroll - 1));
    Value upper = arith::SubIOp::create(b, upperBound, last);
    Value bigStep = b.createOrFold<arith::MulIOp>(step, t.idxConst(unroll));
    SmallVector<Value> init{lower};
    init.append(current);
    auto loop = scf::ForOp::create(b, lower, upper, bigStep, init);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value first = loop.getInductionVar();
    SmallVector<Value> ks{first};
    for (unsigned j = 1; j < unroll; ++j)
      ks.push_back(t.idxAdd(first, b.createOrFold<arith::MulIOp>(
                                       step, t.idxConst(j))));
    FailureOr<SmallVector<Value>> next =
        body(ks, SmallVector<Value>(loop.getRegionIterArgs().drop_front()));
    if (failed(next))
      return failure();
    SmallVector<Value> yielded{t.idxAdd(first, bigStep)};
    yielded.append(*next);
    scf::YieldOp::create(b, yielded);
    b.setInsertionPointAfter(loop);
    lower = loop.getResult(0);
    current.assign(loop.getResults().begin() + 1, loop.getResults().end());
  }
  auto loop = scf::ForOp::create(b, lower, upperBound, step, current);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  FailureOr<SmallVector<Value>> next =
      body(SmallVector<Value>{loop.getInductionVar()},
           SmallVector<Value>(loop.getRegionIterArgs()));
  if (failed(next))
    return failure();
  scf::YieldOp::create(b, *next);
  b.setInsertionPointAfter(loop);
  return SmallVector<Value>(loop.getResults());
}

//===----------------------------------------------------------------------===//
// Phase 1
//===----------------------------------------------------------------------===//

/// The misaligned fallback loads lane by lane: unrolled, its addresses and
/// values would not fit the register limit, and it is rare.
unsigned MatvecEmitter::unrollFor(const Plan &plan) const {
  return t.allowVector ? plan.unroll : 1;
}

unsigned MatvecEmitter::jamUnroll(const Group &group) const {
  const Plan &first = plans[group.members.front()];
  unsigned unroll = unrollFor(first);
  int64_t jam = group.members.size(), v = first.vector;
  while (unroll > 1 && jam * m * v + unroll * (jam * m + v) > kJamRegisters)
    unroll /= 2;
  return unroll;
}

LogicalResult MatvecEmitter::emitNLanes(const Group &group) {
  const Plan &first = plans[group.members.front()];
  unsigned v = first.vector, groups = first.groups;
  size_t jam = group.members.size();
  Type f32 = b.getF32Type();
  Value zero = floatConstant(b, f32, 0.0);
  // Thread t: columns c * V .. c * V + V - 1 of the tile, K slice t / G.
  Value column = b.createOrFold<arith::RemUIOp>(t.threadId, t.idxConst(groups));
  Value slice = b.createOrFold<arith::DivUIOp>(t.threadId, t.idxConst(groups));
  Value slices = b.createOrFold<arith::DivUIOp>(t.blockDim, t.idxConst(groups));
  DimIndex nDim;
  nDim.base = t.idxAdd(t.tileOrigin[rank - 1], t.idxMul(column, v));
  nDim.coef = 1;
  nDim.divisor = v;
  Value valid;
  if (n % tn != 0)
    valid = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, nDim.base,
                                  t.idxConst(n));
  SmallVector<MatmulOp> ops;
  for (unsigned member : group.members)
    ops.push_back(plans[member].op);
  // Accumulators [member][row][lane]; every one sums its K positions in
  // the same order as a loop of its own would (results do not depend on
  // the jam).
  int64_t perMember = m * v;
  SmallVector<Value> zeros(jam * perMember, zero);
  auto body = [&](ArrayRef<Value> ks,
                  ArrayRef<Value> accs) -> FailureOr<SmallVector<Value>> {
    FailureOr<SmallVector<SmallVector<KStep>>> steps =
        kStepsAt(ops, nDim, ks, /*kCoef=*/0, /*kDivisor=*/1, /*lhsLanes=*/1, v);
    if (failed(steps))
      return failure();
    SmallVector<Value> out(accs);
    for (auto [member, memberSteps] : llvm::enumerate(*steps))
      for (const KStep &step : memberSteps)
        for (int64_t row = 0; row < m; ++row)
          for (unsigned lane = 0; lane < v; ++lane) {
            Value &acc = out[member * perMember + row * v + lane];
            acc = LLVM::FMAOp::create(b, step.lhsRows[row].front(),
                                      step.rhs[lane], acc);
          }
    return out;
  };
  FailureOr<SmallVector<Value>> accs =
      group.chunkRows && t.allowVector
          ? stagedKLoop(group, column, valid, slice, slices, zeros, body)
          : emitGuarded(b, valid, zeros, [&] {
              return kLoop(t.idxConst(first.k), slice, slices,
                           jamUnroll(group), zeros, body);
            });
  if (failed(accs))
    return failure();
  if (jam > 1 && 32 / groups > 1 && (jam * perMember) % (32 / groups) == 0) {
    storeJamPartials(group, column, *accs);
    return success();
  }
  for (auto [index, member] : llvm::enumerate(group.members))
    storeNPartials(plans[member], column,
                   ArrayRef(*accs).slice(index * perMember, perMember));
  return success();
}

void MatvecEmitter::storeJamPartials(const Group &group, Value column,
                                     ArrayRef<Value> accs) {
  const Plan &first = plans[group.members.front()];
  unsigned v = first.vector, groups = first.groups;
  int64_t perMember = m * v;
  // The 32 / G lanes of a warp with the same columns hold other K slices
  // of all the jam's accumulators. A reduce-scatter sums them: each round a
  // lane keeps half of its values, adds its partner's copy of that half and
  // sends the other half, so after log2(32 / G) rounds each of those lanes
  // holds accs.size() / (32 / G) finished sums (for the bench's jams, 28
  // shuffles for 32 accumulators over 8 lanes instead of 96).
  SmallVector<Value> values(accs);
  Value firstIndex = i32(0); // the accumulator values[0] sums
  for (unsigned offset = groups; offset < 32; offset *= 2) {
    size_t half = values.size() / 2;
    Value upper = arith::CmpIOp::create(
        b, arith::CmpIPredicate::ne, arith::AndIOp::create(b, laneId, i32(offset)),
        i32(0));
    SmallVector<Value> kept;
    for (size_t i = 0; i < half; ++i) {
      Value keep = arith::SelectOp::create(b, upper, values[half + i], values[i]);
      Value send = arith::SelectOp::create(b, upper, values[i], values[half + i]);
      kept.push_back(arith::AddFOp::create(b, keep, shuffleXor(send, offset)));
    }
    firstIndex = arith::AddIOp::create(
        b, firstIndex, arith::SelectOp::create(b, upper, i32(half), i32(0)));
    values = std::move(kept);
  }
  // Value i is accumulator firstIndex + i: [member][row][lane], stored to
  // the member's partials like storeNPartials (slot rounds and all).
  Value slot = arith::AndIOp::create(b, warpId, i32(kMatvecSlots - 1));
  Value col = toI32(t.idxMul(column, v));
  auto entry = [&](size_t i) {
    Value index = arith::AddIOp::create(b, firstIndex, i32(i));
    Value member = arith::DivUIOp::create(b, index, i32(perMember));
    Value within = arith::RemUIOp::create(b, index, i32(perMember));
    Value row = arith::DivUIOp::create(b, within, i32(v));
    Value lane = arith::RemUIOp::create(b, within, i32(v));
    Value base = i32(plans[group.members.front()].sharedOffset);
    for (size_t j = 1; j < group.members.size(); ++j)
      base = arith::SelectOp::create(
          b,
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, member, i32(j)),
          i32(plans[group.members[j]].sharedOffset), base);
    // byte offset of [slot][row][col + lane] in the member's partials
    Value element = arith::AddIOp::create(
        b, arith::MulIOp::create(b, slot, i32(m * tn)),
        arith::AddIOp::create(
            b, arith::MulIOp::create(b, row, i32(tn)),
            arith::AddIOp::create(b, col, lane)));
    return sharedPtr(arith::AddIOp::create(
        b, base, arith::MulIOp::create(b, element, i32(4))));
  };
  writePartialSlots(values, /*mask=*/Value(), entry);
}

void MatvecEmitter::writePartialSlots(ArrayRef<Value> values, Value mask,
                                      function_ref<Value(size_t)> entry) {
  // Warps 0..7 store, later rounds add warps 8..15, ... (deterministic:
  // slot s sums warps s, s + 8, ...).
  Type f32 = b.getF32Type();
  Value round = arith::ShRUIOp::create(b, warpId, i32(llvm::Log2_64(kMatvecSlots)));
  auto write = [&](Value roundValue, bool add) {
    Value mine = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, round, roundValue);
    if (mask)
      mine = arith::AndIOp::create(b, mask, mine);
    auto ifOp = scf::IfOp::create(b, mine, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (size_t i = 0; i < values.size(); ++i) {
      Value ptr = entry(i);
      Value value = values[i];
      if (add)
        value = arith::AddFOp::create(
            b, LLVM::LoadOp::create(b, f32, ptr, /*alignment=*/4), value);
      LLVM::StoreOp::create(b, value, ptr, /*alignment=*/4);
    }
  };
  write(i32(0), /*add=*/false);
  // Rounds beyond the first (blocks of more than 256 threads).
  Value rounds = arith::ShRUIOp::create(
      b, arith::AddIOp::create(b, numWarps, i32(kMatvecSlots - 1)),
      i32(llvm::Log2_64(kMatvecSlots)));
  auto loop = scf::ForOp::create(b, i32(1), rounds, i32(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  barrier();
  write(loop.getInductionVar(), /*add=*/true);
}

void MatvecEmitter::issueChunk(const Group &group, Value chunk, Value buffer) {
  const Plan &first = plans[group.members.front()];
  MatmulOp op = first.op;
  const MemoryLeaf &leaf =
      t.buffers[cast<BlockArgument>(op.getRhs()).getArgNumber()];
  // The entry's alignment check covers the weight's base; its strides are
  // multiples of 16 bytes (planStage).
  t.vectorized[leaf.bufferIndex] = true;
  int64_t perRow = group.rowBytes / 16;
  int64_t perPiece = 16 / storageBytes(leaf.elementType);
  // Rows [chunk * R, min(chunk * R + R, K)), 16-byte pieces spread over
  // the block's threads.
  Value firstRow = t.idxMul(chunk, group.chunkRows);
  Value rows = arith::MinSIOp::create(
      b, t.idxConst(group.chunkRows),
      arith::SubIOp::create(b, t.idxConst(first.k), firstRow));
  Value pieces = t.idxMul(rows, perRow);
  auto loop = scf::ForOp::create(b, t.threadId, pieces, t.blockDim);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value p = loop.getInductionVar();
  Value row = b.createOrFold<arith::DivUIOp>(p, t.idxConst(perRow));
  Value piece = b.createOrFold<arith::RemUIOp>(p, t.idxConst(perRow));
  DimIndex column, k;
  column.base = t.idxAdd(t.tileOrigin[rank - 1], t.idxMul(piece, perPiece));
  k.base = t.idxAdd(firstRow, row);
  TaskEmitter::Offsets offs =
      t.offsets(t.tileOperandIndex(op, false, column, k), leaf.strides);
  Value dst = sharedPtr(arith::AddIOp::create(
      b, arith::AddIOp::create(b, i32(stageOffset), buffer),
      toI32(t.idxAdd(t.idxMul(row, group.rowBytes), t.idxMul(piece, 16)))));
  auto copy = [&] {
    NVVM::CpAsyncOp::create(b, dst, t.elementPtr(leaf, offs.base), 16u,
                            NVVM::LoadCacheModifierKind::CG, Value());
  };
  if (n % tn == 0) {
    copy();
    return;
  }
  // Pieces past N (an edge tile) are not read: their columns' threads skip
  // the K loop.
  auto inside = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, column.base,
                               t.idxConst(n)),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(inside.thenBlock());
  copy();
}

void MatvecEmitter::issueLhsChunk(const Group &group, unsigned member,
                                  Value chunk, Value buffer) {
  MatmulOp op = plans[group.members[member]].op;
  int64_t bytes = group.lhsBytes[member];
  int64_t perRow = group.chunkRows * bytes / 16; // pieces of one lhs row
  Value firstK = t.idxMul(chunk, group.chunkRows);
  Value rows = arith::MinSIOp::create(
      b, t.idxConst(group.chunkRows),
      arith::SubIOp::create(b, t.idxConst(plans[group.members[member]].k), firstK));
  // Pieces of the chunk's K range in each of the M rows.
  Value piecesPerRow = b.createOrFold<arith::DivUIOp>(
      t.idxMul(rows, bytes), t.idxConst(16));
  auto loop = scf::ForOp::create(b, t.threadId, t.idxConst(m * perRow), t.blockDim);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value p = loop.getInductionVar();
  Value row = b.createOrFold<arith::DivUIOp>(p, t.idxConst(perRow));
  Value piece = b.createOrFold<arith::RemUIOp>(p, t.idxConst(perRow));
  auto inside = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, piece, piecesPerRow),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(inside.thenBlock());
  DimIndex rowDim, k;
  rowDim.base = row;
  k.base = t.idxAdd(firstK, t.idxMul(piece, 16 / bytes));
  // Down the slices to the input (stagedLhsBytes checked they are all).
  Value value = op.getLhs();
  Index index = t.tileOperandIndex(op, true, rowDim, k);
  while (auto slice = value.getDefiningOp<SliceOp>()) {
    index = t.sliceOperandIndex(slice, index);
    value = slice.getInput();
  }
  const MemoryLeaf &leaf = t.buffers[cast<BlockArgument>(value).getArgNumber()];
  t.vectorized[leaf.bufferIndex] = true;
  TaskEmitter::Offsets offs = t.offsets(index, leaf.strides);
  Value dst = sharedPtr(arith::AddIOp::create(
      b, arith::AddIOp::create(b, i32(stageOffset), buffer),
      toI32(t.idxAdd(t.idxConst(group.lhsOffsets[member]),
                     t.idxAdd(t.idxMul(row, group.chunkRows * bytes),
                              t.idxMul(piece, 16))))));
  NVVM::CpAsyncOp::create(b, dst, t.elementPtr(leaf, offs.base), 16u,
                          NVVM::LoadCacheModifierKind::CG, Value());
}

void MatvecEmitter::issueStage(const Group &group, Value chunk, Value buffer) {
  issueChunk(group, chunk, buffer);
  for (unsigned member = 0; member < group.members.size(); ++member)
    if (group.lhsOffsets[member] >= 0)
      issueLhsChunk(group, member, chunk, buffer);
}

FailureOr<SmallVector<Value>>
MatvecEmitter::stagedKLoop(const Group &group, Value column, Value valid,
                           Value slice, Value slices, ArrayRef<Value> zeros,
                           Body body) {
  const Plan &first = plans[group.members.front()];
  int64_t chunkBytes = group.chunkRows * group.perRowBytes;
  MatmulOp op = first.op;
  Type elementType = typeOf(op.getRhs()).getElementType();
  stage.group = &group;
  stage.columnByte =
      toI32(t.idxMul(column, first.vector * storageBytes(elementType)));
  // Chunk c is in buffer c % 2; chunk c + 1 is copied while the block
  // computes on chunk c. The last iteration commits an empty group, so
  // "all but the newest group" is always chunk c.
  auto bufferOf = [&](Value chunk) -> Value {
    if (group.buffers == 1)
      return i32(0);
    return arith::MulIOp::create(
        b, arith::AndIOp::create(b, toI32(chunk), i32(1)), i32(chunkBytes));
  };
  issueStage(group, t.idxConst(0), i32(0));
  NVVM::CpAsyncCommitGroupOp::create(b);
  auto loop = scf::ForOp::create(b, t.idxConst(0), t.idxConst(group.chunks),
                                 t.idxConst(1), zeros);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value chunk = loop.getInductionVar();
  if (group.chunks > 1) {
    Value next = t.idxAdd(chunk, t.idxConst(1));
    auto more = scf::IfOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, next,
                              t.idxConst(group.chunks)),
        /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(more.thenBlock());
      issueStage(group, next, bufferOf(next));
    }
    NVVM::CpAsyncCommitGroupOp::create(b);
  }
  NVVM::CpAsyncWaitGroupOp::create(b, group.chunks > 1 ? 1 : 0);
  barrier();
  stage.firstRow = t.idxMul(chunk, group.chunkRows);
  stage.buffer = bufferOf(chunk);
  Value upper = arith::MinSIOp::create(
      b, t.idxAdd(stage.firstRow, t.idxConst(group.chunkRows)),
      t.idxConst(first.k));
  SmallVector<Value> carried(loop.getRegionIterArgs());
  FailureOr<SmallVector<Value>> accs = emitGuarded(b, valid, carried, [&] {
    return kLoop(upper, t.idxAdd(stage.firstRow, slice), slices,
                 jamUnroll(group), carried, body);
  });
  stage = StageState();
  if (failed(accs))
    return failure();
  // Every thread is done with the buffer before chunk c + 2 overwrites it.
  barrier();
  scf::YieldOp::create(b, *accs);
  return SmallVector<Value>(loop.getResults());
}

void MatvecEmitter::storeNPartials(const Plan &plan, Value column,
                                   ArrayRef<Value> accs) {
  unsigned v = plan.vector, groups = plan.groups;
  // Lanes of a warp with the same columns (lane % G) hold other K slices.
  SmallVector<Value> sums(accs);
  for (unsigned offset = groups; offset < 32; offset *= 2)
    for (Value &sum : sums)
      sum = arith::AddFOp::create(b, sum, shuffleXor(sum, offset));

  // Warp partials into kMatvecSlots slots (writePartialSlots), from the
  // lanes holding the sums.
  Value holder = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, laneId,
                                       i32(groups));
  Value slot = arith::AndIOp::create(b, warpId, i32(kMatvecSlots - 1));
  Value col = toI32(t.idxMul(column, v));
  writePartialSlots(sums, holder, [&](size_t i) {
    // byte offset of [slot][row][col + lane], i = row * V + lane
    int64_t row = i / v, lane = i % v;
    Value index = arith::AddIOp::create(
        b, arith::MulIOp::create(b, slot, i32(m * tn)),
        arith::AddIOp::create(b, col, i32(row * tn + lane)));
    return sharedPtr(arith::AddIOp::create(
        b, i32(plan.sharedOffset), arith::MulIOp::create(b, index, i32(4))));
  });
}

LogicalResult MatvecEmitter::emitKLanes(const Plan &plan) {
  MatmulOp op = plan.op;
  unsigned v = plan.vector, lk = plan.groups, perWarp = 32 / lk;
  Type f32 = b.getF32Type();
  Value zero = floatConstant(b, f32, 0.0);
  Value lane = arith::AndIOp::create(b, t.threadId, t.idxConst(31));
  Value warp = b.createOrFold<arith::DivUIOp>(t.threadId, t.idxConst(32));
  Value kLane = b.createOrFold<arith::RemUIOp>(lane, t.idxConst(lk));
  Value sub = b.createOrFold<arith::DivUIOp>(lane, t.idxConst(lk));
  Value warps = b.createOrFold<arith::DivUIOp>(t.blockDim, t.idxConst(32));
  Value perPass = t.idxMul(warps, perWarp);
  // The same number of passes in every thread: shuffles stay converged.
  Value passes = b.createOrFold<arith::DivUIOp>(
      t.idxAdd(perPass, t.idxConst(tn - 1)), perPass);
  Value mine = t.idxAdd(t.idxMul(warp, perWarp), sub);
  auto loop = scf::ForOp::create(b, t.idxConst(0), passes, t.idxConst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  t.pushScope();
  Value local = t.idxAdd(
      b.createOrFold<arith::MulIOp>(loop.getInductionVar(), perPass), mine);
  DimIndex nDim;
  nDim.base = t.idxAdd(t.tileOrigin[rank - 1], local);
  Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, local,
                                      t.idxConst(tn));
  if (n % tn != 0)
    valid = arith::AndIOp::create(
        b, valid,
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, nDim.base,
                              t.idxConst(n)));
  SmallVector<Value> zeros(m, zero);
  auto body = [&](ArrayRef<Value> ks,
                  ArrayRef<Value> accs) -> FailureOr<SmallVector<Value>> {
    // k = kLane * V + j * Lk * V, then V consecutive positions per lane.
    FailureOr<SmallVector<SmallVector<KStep>>> steps =
        kStepsAt(op, nDim, ks, /*kCoef=*/1, /*kDivisor=*/v, v, v);
    if (failed(steps))
      return failure();
    SmallVector<Value> out(accs);
    for (const KStep &step : steps->front())
      for (int64_t row = 0; row < m; ++row)
        for (unsigned l = 0; l < v; ++l)
          out[row] = LLVM::FMAOp::create(b, step.lhsRows[row][l], step.rhs[l],
                                         out[row]);
    return out;
  };
  Value lower = t.idxMul(kLane, v);
  Value step = t.idxConst(lk * v);
  FailureOr<SmallVector<Value>> accs = emitGuarded(b, valid, zeros, [&] {
    return kLoop(t.idxConst(plan.k), lower, step, unrollFor(plan), zeros, body);
  });
  if (failed(accs)) {
    t.popScope();
    return failure();
  }
  SmallVector<Value> sums(*accs);
  for (unsigned offset = lk / 2; offset >= 1; offset /= 2)
    for (Value &sum : sums)
      sum = arith::AddFOp::create(b, sum, shuffleXor(sum, offset));
  Value writer = arith::AndIOp::create(
      b, valid,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, kLane, t.idxConst(0)));
  auto ifOp = scf::IfOp::create(b, writer, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value col = toI32(local);
  for (int64_t row = 0; row < m; ++row) {
    Value index = arith::AddIOp::create(b, col, i32(row * tn));
    Value ptr = sharedPtr(arith::AddIOp::create(
        b, i32(plan.sharedOffset), arith::MulIOp::create(b, index, i32(4))));
    LLVM::StoreOp::create(b, sums[row], ptr, /*alignment=*/4);
  }
  t.popScope();
  return success();
}

//===----------------------------------------------------------------------===//
// Phase 2
//===----------------------------------------------------------------------===//

Lanes MatvecEmitter::precomputed(MatmulOp op, const Index &index) {
  const Plan *plan = planOf(op);
  if (!plan || !t.atCurrentIteration(index))
    return {};
  Type f32 = b.getF32Type();
  // M is whole in the tile (origin 0); columns relative to the tile.
  Value row = toI32(index[rank - 2].base);
  Value col = toI32(arith::SubIOp::create(b, index[rank - 1].base,
                                          t.tileOrigin[rank - 1]));
  Value first = arith::AddIOp::create(b, arith::MulIOp::create(b, row, i32(tn)), col);
  auto at = [&](Value slot, unsigned lane) {
    Value entry = arith::AddIOp::create(b, first, i32(index[rank - 1].coef * lane));
    if (slot)
      entry = arith::AddIOp::create(
          b, entry, arith::MulIOp::create(b, slot, i32(m * tn)));
    return sharedPtr(arith::AddIOp::create(
        b, i32(plan->sharedOffset), arith::MulIOp::create(b, entry, i32(4))));
  };
  Lanes result;
  if (plan->kLanes) {
    for (unsigned lane = 0; lane < t.lanes; ++lane)
      result.push_back(LLVM::LoadOp::create(b, f32, at(Value(), lane), 4));
    return result;
  }
  // Slots in order: min(warps, kMatvecSlots) of them hold partials.
  Value slots = arith::MinUIOp::create(b, numWarps, i32(kMatvecSlots));
  SmallVector<Value> init(t.lanes, floatConstant(b, f32, 0.0));
  auto loop = scf::ForOp::create(b, i32(0), slots, i32(1), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> next;
  for (unsigned lane = 0; lane < t.lanes; ++lane)
    next.push_back(arith::AddFOp::create(
        b, loop.getRegionIterArgs()[lane],
        LLVM::LoadOp::create(b, f32, at(loop.getInductionVar(), lane), 4)));
  scf::YieldOp::create(b, next);
  b.setInsertionPointAfter(loop);
  return Lanes(loop.getResults().begin(), loop.getResults().end());
}

LogicalResult MatvecEmitter::emitStagedLhs() {
  bool any = false;
  for (const Plan &plan : plans) {
    if (plan.lhsOffset < 0 || !plan.stages)
      continue;
    any = true;
    if (plan.rowOp) {
      if (failed(emitStagedRows(plan)))
        return failure();
      continue;
    }
    // Its value (in f32, the compute type) to shared memory.
    LogicalResult staged = forEachLhsElement(plan, [&](Value element, const Index &index, Value) {
      FailureOr<Lanes> value = t.eval(MatmulOp(plan.op).getLhs(), index);
      if (failed(value))
        return failure();
      LLVM::StoreOp::create(b, value->front(), lhsElementPtr(plan, element), /*alignment=*/4);
      return success();
    });
    if (failed(staged))
      return failure();
  }
  if (any)
    barrier();
  return success();
}

LogicalResult MatvecEmitter::forEachLhsElement(
    const Plan &plan,
    llvm::function_ref<LogicalResult(Value element, const Index &index, Value row)> body) {
  auto loop = scf::ForOp::create(b, t.threadId, t.idxConst(m * plan.k), t.blockDim);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  t.pushScope();
  t.lanes = 1;
  Value element = loop.getInductionVar();
  DimIndex row, k;
  row.base = b.createOrFold<arith::DivUIOp>(element, t.idxConst(plan.k));
  k.base = b.createOrFold<arith::RemUIOp>(element, t.idxConst(plan.k));
  LogicalResult result = body(element, t.tileOperandIndex(plan.op, true, row, k), row.base);
  t.popScope();
  return result;
}

Value MatvecEmitter::lhsElementPtr(const Plan &plan, Value element) {
  return sharedPtr(arith::AddIOp::create(b, i32(plan.lhsOffset),
                                         arith::MulIOp::create(b, toI32(element), i32(4))));
}

LogicalResult MatvecEmitter::emitStagedRows(const Plan &plan) {
  MatmulOp op = plan.op;
  Operation *rowOp = plan.rowOp;
  Value input = innermostRowInput(rowOp);
  int64_t k = plan.k;
  unsigned stages = TaskEmitter::rowStatisticsCount(rowOp);
  Type f32 = b.getF32Type();
  auto toIdx = [&](Value i32Value) -> Value {
    return t.idxTy.isInteger(32) ? i32Value
                                 : Value(arith::ExtUIOp::create(b, t.idxTy, i32Value));
  };
  auto elementPtr = [&](Value element) { return lhsElementPtr(plan, element); };
  auto statPtr = [&](Value row, unsigned stage) {
    return sharedPtr(arith::AddIOp::create(
        b, i32(plan.statsOffset + 4 * stage), arith::MulIOp::create(b, toI32(row), i32(8))));
  };
  // The lhs index at (row, position).
  auto indexOf = [&](Value row, Value position) {
    DimIndex rowDim, kDim;
    rowDim.base = row;
    kDim.base = position;
    return t.tileOperandIndex(op, true, rowDim, kDim);
  };
  // While `stagedAt` is set, the row op's input at that element comes from
  // its staged copy.
  Value stagedAt;
  t.stagedValue = [&](Value value, const Index &) -> Lanes {
    if (value != input || !stagedAt)
      return {};
    return {LLVM::LoadOp::create(b, f32, elementPtr(stagedAt), /*alignment=*/4)};
  };
  llvm::scope_exit restore([&] {
    t.stagedValue = nullptr;
    for (unsigned stage = 0; stage < stages; ++stage)
      t.stats.erase({rowOp, stage});
  });
  t.lanes = 1;
  Value kValue = t.idxConst(k);

  // Pass 1: the input, thread t taking elements t, t + blockDim, ...
  LogicalResult staged = forEachLhsElement(plan, [&](Value element, const Index &index, Value) {
    FailureOr<Lanes> value = t.eval(input, index);
    if (failed(value))
      return failure();
    LLVM::StoreOp::create(b, value->front(), elementPtr(element), /*alignment=*/4);
    return success();
  });
  if (failed(staged))
    return failure();
  barrier();

  // Pass 2, the statistics. Rows of at most kWarpRowLength: warp w takes
  // rows w, w + warps, ... (every lane of a warp the same rows, so its
  // shuffles stay converged), its lanes fold positions lane, lane + 32,
  // ..., a butterfly combines them, lane 0 stores them. Longer rows: the
  // block takes the rows one by one, each thread folding positions t, t +
  // blockDim, ..., warps combining by shuffles, then through a slot of
  // warp partials in shared memory (two slots in turn, so one barrier per
  // statistic suffices), which every thread folds in the same order.
  bool blockRows = k > kWarpRowLength;
  {
    Value first = blockRows ? t.idxConst(0) : toIdx(warpId);
    Value step = blockRows ? t.idxConst(1) : toIdx(numWarps);
    auto rows = scf::ForOp::create(b, first, t.idxConst(m), step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rows.getBody());
    Value row = rows.getInductionVar();
    unsigned folds = 0; // statistics of this row so far
    auto rowFold = [&](Value identity, TaskEmitter::Term term,
                       TaskEmitter::Fold fold) -> FailureOr<Value> {
      auto positions =
          blockRows ? scf::ForOp::create(b, t.threadId, kValue, t.blockDim, ValueRange{identity})
                    : scf::ForOp::create(b, toIdx(laneId), kValue, t.idxConst(32),
                                         ValueRange{identity});
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(positions.getBody());
        Value position = positions.getInductionVar();
        stagedAt = arith::AddIOp::create(b, t.idxMul(row, k), position);
        t.pushScope();
        FailureOr<Lanes> value = term(indexOf(row, position));
        t.popScope();
        stagedAt = Value();
        if (failed(value))
          return failure();
        scf::YieldOp::create(b, fold(positions.getRegionIterArgs()[0], value->front()));
      }
      Value acc = foldWarp(b, positions.getResult(0), fold);
      if (!blockRows)
        return acc;
      // The slot of fold number row * stages + folds, in turn.
      Value parity = arith::AndIOp::create(
          b, arith::AddIOp::create(b, arith::MulIOp::create(b, toI32(row), i32(stages)),
                                   i32(folds++)),
          i32(1));
      Value slot = arith::AddIOp::create(
          b, i32(plan.statsOffset + llvm::alignTo(m * 8, 16)),
          arith::MulIOp::create(b, parity, i32(32 * 4)));
      auto warpSlot = [&](Value warp) {
        return sharedPtr(arith::AddIOp::create(b, slot, arith::MulIOp::create(b, warp, i32(4))));
      };
      auto lead = scf::IfOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, laneId, i32(0)),
          /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(lead.thenBlock());
        LLVM::StoreOp::create(b, acc, warpSlot(warpId), /*alignment=*/4);
      }
      barrier();
      return foldStoredTotals(b, acc.getType(), fold, identity, numWarps, warpSlot,
                              /*alignment=*/4);
    };
    t.pushScope();
    LogicalResult computed = t.rowStatistics(rowOp, k, rowFold);
    t.popScope();
    if (failed(computed))
      return failure();
    auto lead = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, blockRows ? tid : laneId, i32(0)),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(lead.thenBlock());
    for (unsigned stage = 0; stage < stages; ++stage)
      LLVM::StoreOp::create(b, t.stats.lookup({rowOp, stage}), statPtr(row, stage),
                            /*alignment=*/4);
  }
  barrier();

  // Pass 3: the row op's values in place, each element with its row's
  // statistics (rowStat takes them for any row: statRow is empty here).
  return forEachLhsElement(plan, [&](Value element, const Index &index, Value row) {
    for (unsigned stage = 0; stage < stages; ++stage)
      t.stats[{rowOp, stage}] =
          LLVM::LoadOp::create(b, f32, statPtr(row, stage), /*alignment=*/4);
    stagedAt = element;
    FailureOr<Lanes> value = t.eval(op.getLhs(), index);
    stagedAt = Value();
    if (failed(value))
      return failure();
    LLVM::StoreOp::create(b, value->front(), elementPtr(element), /*alignment=*/4);
    return success();
  });
}

LogicalResult MatvecEmitter::emitAll(bool vectors) {
  t.allowVector = vectors;
  if (failed(emitStagedLhs()))
    return failure();
  for (const Group &group : groups)
    if (failed(emitNLanes(group)))
      return failure();
  for (const Plan &plan : plans)
    if (plan.kLanes && failed(emitKLanes(plan)))
      return failure();
  barrier();
  t.lanes = vectors ? t.maxLanes : 1;
  int64_t tileElements = 1;
  for (int64_t size : t.abi.tile)
    tileElements *= size;
  t.precomputedMatmul = [this](MatmulOp op, const Index &index) {
    return precomputed(op, index);
  };
  LogicalResult result = t.emitTileResults(tileElements);
  t.precomputedMatmul = nullptr;
  return result;
}

LogicalResult MatvecEmitter::emit() {
  t.info.sharedBytes = sharedBytes;
  t.info.strategy = "matvec";
  sharedBase = t.sharedMemoryBase();
  Type i32Type = b.getI32Type();
  tid = NVVM::ThreadIdXOp::create(b, i32Type);
  laneId = arith::AndIOp::create(b, tid, i32(31));
  warpId = arith::ShRUIOp::create(b, tid, i32(5));
  numWarps = arith::ShRUIOp::create(b, NVVM::BlockDimXOp::create(b, i32Type), i32(5));

  LogicalResult result =
      t.emitVectorOrScalar([&](bool vectors) { return emitAll(vectors); });
  // The next tile of this block reuses shared memory.
  barrier();
  return result;
}
