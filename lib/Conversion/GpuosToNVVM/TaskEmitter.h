//===- TaskEmitter.h - the body of one task function ------------*- C++ -*-===//
//
// Emits the body of gpuos_task_<kind>: argument-block loads, the tile
// decomposition, the per-thread element loop, and the evaluation of the
// task's values at an index. Values are never materialized: evaluating a
// value at an index walks back through its producers, views turn into
// index arithmetic, and only task inputs (and constant tables) are loaded.
//
// A thread handles `lanes` consecutive elements of the innermost iteration
// dimension at once, so leaf accesses along a unit stride become vector
// loads and stores. See docs/codegen.md.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_LIB_CONVERSION_GPUOSTONVVM_TASKEMITTER_H
#define GPUOS_LIB_CONVERSION_GPUOSTONVVM_TASKEMITTER_H

#include "gpuos/Conversion/GpuosToNVVM.h"
#include "gpuos/Conversion/TaskABI.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include <functional>
#include <map>

namespace gpuos::codegen {

/// The index of one dimension for the lanes a thread handles at once.
/// Affine form: lane l is at `base + coef * l`, and `base` is known to be a
/// multiple of `divisor` (which proves vector alignment). Explicit form:
/// `perLane[l]`, for index maps that are not affine in the lane (reshape).
struct DimIndex {
  mlir::Value base;
  int64_t coef = 0;
  int64_t divisor = 1;
  llvm::SmallVector<mlir::Value, 4> perLane;
  bool isAffine() const { return perLane.empty(); }
};
using Index = llvm::SmallVector<DimIndex, 4>;
/// One compute value per lane (the same Value repeated when uniform).
using Lanes = llvm::SmallVector<mlir::Value, 8>;

/// The largest power of two not above `value` (1 below 1).
inline int64_t floorPow2(int64_t value) {
  return value < 1 ? 1 : int64_t(1) << llvm::Log2_64(value);
}

/// Most thread groups a small tile's results are spread over
/// (TaskEmitter::emitTileResults).
constexpr int64_t kMaxResultParts = 32;

/// The reduced (K) extent of a matmul, placed by its transpose flags.
int64_t matmulK(MatmulOp op);

/// `then` inside `if (cond)`, `zeros` otherwise (`cond` null: unconditional).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
emitGuarded(mlir::ImplicitLocOpBuilder &b, mlir::Value cond,
            llvm::ArrayRef<mlir::Value> zeros,
            llvm::function_ref<mlir::FailureOr<llvm::SmallVector<mlir::Value>>()> then);

/// A tensor in memory: an argument-block buffer or a constant table.
struct MemoryLeaf {
  mlir::Value ptr;          // !llvm.ptr<1>, element [0, ..., 0]
  mlir::Type elementType;   // gpuos element type
  llvm::SmallVector<int64_t> strides;
  int bufferIndex = -1;     // argument-block slot, -1 for constants
};

class TaskEmitter {
public:
  TaskEmitter(TaskOp task, const TaskABI &abi, mlir::LLVM::LLVMFuncOp func,
              const LowerTasksOptions &options);

  /// Fills the function body; on failure a diagnostic names the op.
  mlir::LogicalResult emit();
  const TaskCodegenInfo &getInfo() const { return info; }

private:
  friend class RowEmitter;
  friend class MatvecEmitter;
  friend class TiledMatmulEmitter;
  // --- Function skeleton (TaskEmitter.cpp) -------------------------------
  void loadArguments(mlir::Value args);
  mlir::LogicalResult chooseLanes();
  mlir::LogicalResult emitElementLoop(bool allowVector);
  /// Bulk L2 prefetch of the tile's streamed inputs (thread 0).
  void emitTilePrefetch();
  /// Copies of the element loop body per iteration (unroll-and-jam; 1 when
  /// the task is not a pure elementwise one, see TaskEmitter.cpp).
  unsigned chooseUnroll();
  mlir::LogicalResult emitUnrolledLoop(unsigned unroll);
  /// The one-copy element loop from `lower` (this thread's first element)
  /// to the end of the tile in steps of `step` (default: the block's
  /// threads times the lanes), edge tiles masked, storing the results
  /// `part`, `part + parts`, ... (default: all).
  mlir::LogicalResult emitSimpleLoop(mlir::Value lower, int64_t tileElements,
                                     mlir::Value step = {}, unsigned part = 0,
                                     unsigned parts = 1);
  /// The task-space index of the element at tile-local `global` position.
  Index iterationIndex(llvm::ArrayRef<mlir::Value> global);
  /// Evaluates and stores results `part`, `part + parts`, ... at `global`.
  mlir::LogicalResult emitElement(llvm::ArrayRef<mlir::Value> global,
                                  unsigned part = 0, unsigned parts = 1);
  mlir::Value alignmentCheck();
  /// emit(true) (vector accesses), then, if it made any, moves what it
  /// emitted under `if (alignmentCheck())` and emits emit(false) (scalar
  /// accesses, any element-aligned address) in the else branch. With
  /// `also`, the then-branch needs it too (and exists even without vector
  /// accesses).
  mlir::LogicalResult
  emitVectorOrScalar(llvm::function_ref<mlir::LogicalResult(bool)> emit,
                     mlir::Value also = {});
  /// The dynamic shared memory the runtime passes to every task function
  /// (`extern __shared__`, docs/abi.md), declared on first use.
  mlir::Value sharedMemoryBase();
  /// What the matmul strategies need of a task: a static iteration space
  /// of rank 2 or more that every result covers, and matmuls with that
  /// result shape accumulating in f32 (f16, bf16, f32 operands), at least
  /// one.
  bool isF32MatmulTask();
  /// After a cooperative phase (the matmul strategies): the element loop
  /// over the tile, its results spread over groups of threads when the
  /// tile has fewer lanes of work than the tuned block has threads.
  mlir::LogicalResult emitTileResults(int64_t tileElements);

  // --- Evaluation of values at an index (Evaluate.cpp) -------------------
  mlir::FailureOr<Lanes> eval(mlir::Value value, const Index &index);
  mlir::FailureOr<Lanes> evalOp(mlir::Operation *op, const Index &index);
  mlir::FailureOr<Lanes> evalElementwise(mlir::Operation *op,
                                         const Index &index);
  mlir::FailureOr<Lanes> evalView(mlir::Operation *op, const Index &index);
  /// The index into a slice's input of the element at `index` of the slice.
  Index sliceOperandIndex(SliceOp slice, const Index &index);
  mlir::FailureOr<Lanes> evalConstant(ConstantOp op, const Index &index);
  mlir::FailureOr<Lanes> evalConcat(ConcatOp op, const Index &index);
  /// The operand index an elementwise op reads for result index `index`
  /// (numpy broadcasting: leading dims drop, size-1 dims read index 0).
  Index broadcastIndex(const Index &index, llvm::ArrayRef<int64_t> resultShape,
                       llvm::ArrayRef<int64_t> operandShape);

  // --- Reductions, norms, matmul (Reductions.cpp) ------------------------
  mlir::FailureOr<Lanes> evalReduce(ReduceOp op, const Index &index);
  mlir::FailureOr<Lanes> evalArgmax(ArgmaxOp op, const Index &index);
  mlir::FailureOr<Lanes> evalSoftmax(SoftmaxOp op, const Index &index);
  mlir::FailureOr<Lanes> evalLayerNorm(LayerNormOp op, const Index &index);
  mlir::FailureOr<Lanes> evalRmsNorm(RmsNormOp op, const Index &index);
  mlir::FailureOr<Lanes> evalMatmul(MatmulOp op, const Index &index);
  /// The index of matmul `op`'s lhs (`isLhs`) or rhs with the row (lhs) or
  /// column (rhs) dim `outer` and the K dim `k`, placed by the transpose
  /// flags, the result's batch index `batch` broadcast to the operand's.
  Index matmulOperandIndex(MatmulOp op, bool isLhs, const Index &batch,
                           const DimIndex &outer, const DimIndex &k);
  /// The same at the tile's batch position (the matmul strategies tile
  /// batch dims by 1).
  Index tileOperandIndex(MatmulOp op, bool isLhs, const DimIndex &outer,
                         const DimIndex &k);
  /// Loops over `axes` of `index` (an operand index whose `axes` entries
  /// are placeholders) in this thread, carrying accumulators: `init` holds
  /// one scalar per accumulator, replicated per lane; `step` gets the full
  /// index and the current accumulators, laid out [acc * lanes + lane], and
  /// returns the next ones. With `uniform` (the result does not vary across
  /// lanes) one lane is computed and replicated.
  using Step = llvm::function_ref<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(
      const Index &, llvm::ArrayRef<mlir::Value>)>;
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  serialReduce(const Index &index, llvm::ArrayRef<int64_t> axes,
               llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<mlir::Value> init,
               Step step, bool uniform);
  /// A serialReduce over one axis of `input`'s values: each lane's
  /// accumulator starts at `init` and becomes step(acc, x, lane).
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  foldRow(const Index &operand, int64_t axis, int64_t size, mlir::Value input,
          mlir::Value init,
          llvm::function_ref<mlir::Value(mlir::Value, mlir::Value, unsigned)> step);
  /// Row statistics of a row op computed cooperatively by the block (set by
  /// RowEmitter for the current row), or null to reduce serially.
  mlir::Value rowStat(mlir::Operation *op, unsigned stage, const Index &index);
  /// A value of the row at an index, and how two of them combine.
  using Term = llvm::function_ref<mlir::FailureOr<Lanes>(const Index &)>;
  using Fold = llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)>;
  /// Folds `term` over the current row, across every thread that shares
  /// it: (identity, term, fold) -> the row's total, in each of them.
  using RowFold = llvm::function_ref<mlir::FailureOr<mlir::Value>(mlir::Value, Term, Fold)>;
  /// The statistics of row op `op` (softmax: max, then sum of exp; layer_norm:
  /// mean, then inverse deviation; rms_norm: inverse rms; reduce: its
  /// result) over rows of `rowLength`, folded by `rowFold`, into `stats`
  /// (rowStat reads them). Not for argmax, which keeps an index.
  mlir::LogicalResult rowStatistics(mlir::Operation *op, int64_t rowLength,
                                    RowFold rowFold);
  /// How many statistics rowStatistics (or argmax) keeps for `op`.
  static unsigned rowStatisticsCount(mlir::Operation *op) {
    return mlir::isa<SoftmaxOp, LayerNormOp>(op) ? 2 : 1;
  }

  // --- Memory (Memory.cpp) -----------------------------------------------
  Lanes load(const MemoryLeaf &leaf, const Index &index);
  void store(const MemoryLeaf &leaf, const Index &index, const Lanes &values);
  /// One global load or store of `type` (a scalar or a vector chunk), with
  /// the function's L2 policy when it has one (l2Policy).
  mlir::Value globalLoad(mlir::Type type, mlir::Value ptr, unsigned alignment,
                         bool invariant);
  void globalStore(mlir::Value value, mlir::Value ptr, unsigned alignment);
  /// Inline PTX with `result` (null: none) from `operands`.
  mlir::Value inlinePtx(mlir::Type result, mlir::ValueRange operands,
                        llvm::StringRef ptx, llvm::StringRef constraints,
                        bool hasSideEffects);
  /// Whether LowerTasksOptions::backgroundEvictFirst applies to this task
  /// (its priority, else its graph's, is background).
  bool evictsFirst() const;
  /// Per-lane offsets (in elements) of `index` under `strides`; when the
  /// index is affine also the lane stride and the known divisibility.
  struct Offsets {
    mlir::Value base;
    int64_t laneStride = 0;
    int64_t divisor = 1;
    bool affine = true;
    llvm::SmallVector<mlir::Value, 8> perLane;
  };
  Offsets offsets(const Index &index, llvm::ArrayRef<int64_t> strides);
  mlir::Value elementPtr(const MemoryLeaf &leaf, mlir::Value offset);
  /// Elements per vector access of `leaf`, or 1 when scalar.
  unsigned vectorChunk(const MemoryLeaf &leaf, const Offsets &offs);

  // --- Index arithmetic helpers (Evaluate.cpp) ----------------------------
  mlir::Value idxConst(int64_t value);
  mlir::Value idxAdd(mlir::Value a, mlir::Value b);
  mlir::Value idxMul(mlir::Value a, int64_t c);
  mlir::Value laneValue(const DimIndex &dim, unsigned lane);
  DimIndex constDim(int64_t value);
  bool isLaneUniform(const Index &index) const;

  // --- Memoization, scoped by region ---------------------------------------
  using MemoKey = std::vector<uintptr_t>;
  MemoKey memoKey(mlir::Value value, const Index &index) const;
  void pushScope() { memo.emplace_back(); }
  void popScope() { memo.pop_back(); }

  TaskOp task;
  const TaskABI &abi;
  mlir::LLVM::LLVMFuncOp func;
  LowerTasksOptions options;
  mlir::ImplicitLocOpBuilder b;
  mlir::Type idxTy;
  TaskCodegenInfo info;

  llvm::SmallVector<MemoryLeaf> buffers;
  /// The L2 evict-first cache policy (i64, `createpolicy` at function
  /// entry) when evictsFirst(), else null.
  mlir::Value l2Policy;
  mlir::Value threadId, blockDim, tileArg; // idxTy
  llvm::SmallVector<mlir::Value> tileOrigin;

  /// Lanes of the current evaluation and whether vector accesses are on.
  unsigned lanes = 1;
  unsigned maxLanes = 1;
  bool allowVector = false;
  /// Buffers that received a vector access (they need 16-byte alignment).
  llvm::SmallVector<bool> vectorized;
  std::vector<std::map<MemoKey, Lanes>> memo;
  unsigned constantCounter = 0;
  /// Nested eval calls now, and the most allowed: chains of 1,020 views or
  /// ops lower within 2.5 MiB of stack, a third of a thread's 8 MiB.
  unsigned evalDepth = 0;
  static constexpr unsigned kMaxEvalDepth = 1024;

  /// Row statistics of the row being processed (RowEmitter): key (op,
  /// stage), and the row's leading index values they belong to.
  llvm::DenseMap<std::pair<mlir::Operation *, unsigned>, mlir::Value> stats;
  llvm::SmallVector<mlir::Value> statRow;

  /// The iteration index of the element being emitted (emitElement), and
  /// matmul values computed cooperatively for it (MatvecEmitter): returns
  /// the lanes, or nothing to evaluate the matmul serially.
  Index currentIteration;
  /// Whether `index` is the element being emitted (affine, the same values
  /// and lane strides as currentIteration).
  bool atCurrentIteration(const Index &index) const;
  std::function<Lanes(MatmulOp, const Index &)> precomputedMatmul;
  /// A row value the row strategy's loop copy keeps in shared memory
  /// (RowEmitter, "staged links"): its lanes at `index` loaded from there,
  /// or nothing to evaluate it as usual.
  std::function<Lanes(mlir::Value, const Index &)> stagedValue;
};

} // namespace gpuos::codegen

#endif // GPUOS_LIB_CONVERSION_GPUOSTONVVM_TASKEMITTER_H
