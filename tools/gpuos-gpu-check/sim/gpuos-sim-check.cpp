//===- gpuos-sim-check.cpp - run the task functions on the CPU ------------===//
//
//   gpuos-sim-check tasks.mlir DIR/check.txt [--block=N] [--misalign]
//
// The GPU check without a GPU: lowers the tasks exactly as gpuos-jit does,
// then retargets the task functions to the host and runs them with the
// MLIR ExecutionEngine, one OS thread per simulated GPU thread:
//
//   tid.x / ntid.x / ctaid.x  -> thread-local values of the simulation
//   bar.sync 0                -> a barrier of the block's threads
//   shfl.sync.bfly            -> an exchange between the warp's 32 threads
//   dynamic shared memory     -> one host buffer (blocks run one at a time)
//   libdevice __nv_*          -> the host's libm
//   address spaces 1 and 3    -> plain host pointers
//   vector loads and stores   -> checked for their claimed alignment
//   cp.async (16 bytes)       -> held per thread until its wait_group lets
//                                the group land; shared loads and landing
//                                copies are checked byte by byte against
//                                the barrier intervals (a read of bytes in
//                                flight, or landed by another thread since
//                                the last barrier; a copy over bytes
//                                another thread read since its issue)
//   shared loads and stores   -> checked byte by byte against the barrier
//                                intervals too: a store to bytes another
//                                thread read or wrote, or a load of bytes
//                                another thread wrote, since the last
//                                barrier is a race, reported
//
// Inputs, expected outputs and tolerances come from gpuos-check-gen's
// check.txt, compared as the GPU launcher compares them. This checks the
// emitter's logic (index maps, views, vector alignment proofs, tiles, edge
// tiles, casts, barriers and shuffles) where no GPU is; the NVPTX backend
// and libdevice's accuracy are what only the GPU run checks. A barrier that
// not every thread reaches is reported as a deadlock after 20 s.
//
//===----------------------------------------------------------------------===//

#include "../CheckFile.h"
#include "gpuos/Conversion/GpuosToNVVM.h"
#include "gpuos/Conversion/TaskABI.h"
#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "gpuos/Tools/BackgroundL2.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace gpuos;
namespace cl = llvm::cl;

/// The tool's own options: --help lists only these (the shared libLLVM
/// registers every backend's options too; --help-hidden lists those).
static cl::OptionCategory toolOptions("gpuos-sim-check options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<tasks.mlir>"),
                                          cl::Required, cl::cat(toolOptions));
static cl::opt<std::string> checkFile(cl::Positional, cl::desc("<check.txt>"),
                                      cl::Required, cl::cat(toolOptions));
static cl::opt<unsigned> blockOverride("block",
                                       cl::desc("Threads per block "
                                                "(default: the manifest's)"),
                                       cl::init(0), cl::cat(toolOptions));
static cl::opt<bool> misalign("misalign",
                              cl::desc("Offset every buffer by one "
                                       "element from 16-byte alignment"),
                              cl::cat(toolOptions));
static cl::opt<unsigned> dropBarrier(
    "drop-barrier",
    cl::desc(
        "Skip the N-th barrier of every thread in every tile (a test of the "
        "hazard checks: the code then races; 0: none)"),
    cl::init(0), cl::cat(toolOptions));
static cl::opt<gpuos::tools::BackgroundL2> backgroundL2(
    "background-l2",
    cl::desc("Lower as gpuos-jit with the same option does (L2-hinted "
             "accesses run as plain ones here)"),
    gpuos::tools::backgroundL2Values(),
    cl::init(gpuos::tools::BackgroundL2::Normal), cl::cat(toolOptions));

//===----------------------------------------------------------------------===//
// The simulated block
//===----------------------------------------------------------------------===//

namespace {
/// The task being run, for the errors that end the run.
std::string currentTask;

class Barrier {
public:
  explicit Barrier(unsigned count) : count(count) {}
  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    unsigned generation = this->generation;
    if (++waiting == count) {
      waiting = 0;
      ++this->generation;
      condition.notify_all();
      return;
    }
    if (!condition.wait_for(lock, std::chrono::seconds(20),
                            [&] { return generation != this->generation; })) {
      std::fprintf(stderr, "gpuos-sim-check: task %s: deadlock: %u of %u "
                           "threads reached a barrier\n",
                   currentTask.c_str(), waiting, count);
      std::_Exit(3);
    }
  }

private:
  std::mutex mutex;
  std::condition_variable condition;
  unsigned count, waiting = 0, generation = 0;
};

struct SimBlock {
  unsigned threads;
  Barrier all;
  std::vector<std::unique_ptr<Barrier>> warps;
  std::vector<uint32_t> exchange;
  explicit SimBlock(unsigned threads)
      : threads(threads), all(threads), exchange(threads) {
    for (unsigned w = 0; w < threads / 32; ++w)
      warps.push_back(std::make_unique<Barrier>(32));
  }
};

SimBlock *block = nullptr;
thread_local unsigned threadId = 0, blockId = 0;
constexpr size_t kSharedBytes = 64 * 1024;
alignas(16) char sharedMemory[kSharedBytes];

/// Shared-memory hazards, byte by byte. Each thread counts the barriers it
/// passed (its epoch; every thread passes the same barriers, so between
/// two of them all threads have the same count). Per byte of shared
/// memory: the thread whose copy is in flight into it (+1; 0: none), and
/// who last landed a copy in it, accessed it (read or wrote) and wrote it,
/// as (epoch + 1) << 16 | thread (0: nobody since the tile began).
thread_local uint32_t epoch = 0;
std::atomic<uint32_t> copyInFlight[kSharedBytes];
std::atomic<uint64_t> landedBy[kSharedBytes], readBy[kSharedBytes], writtenBy[kSharedBytes];
uint64_t stamp() { return uint64_t(epoch + 1) << 16 | threadId; }
uint32_t epochOf(uint64_t stamp) { return uint32_t(stamp >> 16) - 1; }
unsigned threadOf(uint64_t stamp) { return unsigned(stamp & 0xffff); }
void resetShadow() {
  for (size_t i = 0; i < kSharedBytes; ++i) {
    copyInFlight[i].store(0, std::memory_order_relaxed);
    landedBy[i].store(0, std::memory_order_relaxed);
    readBy[i].store(0, std::memory_order_relaxed);
    writtenBy[i].store(0, std::memory_order_relaxed);
  }
}
[[noreturn]] void hazard(const char *what, size_t byte, unsigned other) {
  std::fprintf(stderr, "gpuos-sim-check: task %s, tile %u: shared-memory "
                       "hazard: thread %u %s (byte %zu, thread %u)\n",
               currentTask.c_str(), blockId, threadId, what, byte, other);
  std::_Exit(5);
}
size_t sharedByte(const void *address) {
  return size_t(static_cast<const char *>(address) - sharedMemory);
}

extern "C" uint32_t simTid() { return threadId; }
extern "C" uint32_t simNtid() { return block->threads; }
extern "C" uint32_t simCtaid() { return blockId; }
thread_local unsigned barriersSeen = 0;
extern "C" void simBarrier() {
  if (++barriersSeen == dropBarrier)
    return; // as if the code had no barrier here: no wait, one interval
  block->all.wait();
  ++epoch;
}
/// A thread id that stands for "more than one thread" in readBy.
constexpr unsigned kManyThreads = 0xffff;
/// Records `stamp()` in `who`, or "many threads" when another thread is
/// there from this barrier interval already.
void recordAccess(std::atomic<uint64_t> &who) {
  uint64_t old = who.load();
  uint64_t mine = stamp();
  while (!who.compare_exchange_weak(
      old, old && epochOf(old) == epoch && threadOf(old) != threadId
               ? (mine & ~uint64_t(0xffff)) | kManyThreads
               : mine)) {
  }
}
/// A load or store (`store` 1) of `bytes` at `address`, when it is shared
/// memory. The access is recorded before the checks, and a landing copy
/// records itself before it checks the accesses (sequentially consistent
/// both): of two conflicting accesses in one barrier interval (a copy and
/// an access; a store and another thread's load or store), at least one
/// sees the other.
extern "C" void simSharedAccess(void *address, uint32_t bytes, uint32_t store) {
  uintptr_t at = reinterpret_cast<uintptr_t>(address);
  uintptr_t base = reinterpret_cast<uintptr_t>(sharedMemory);
  if (at < base || at >= base + kSharedBytes)
    return; // not shared memory
  size_t first = at - base;
  if (bytes > kSharedBytes - first) {
    std::fprintf(stderr, "gpuos-sim-check: task %s: a shared-memory access "
                         "of %u bytes at byte %zu runs past shared memory\n",
                 currentTask.c_str(), bytes, first);
    std::_Exit(4);
  }
  for (size_t b = first; b < first + bytes; ++b) {
    // Another thread's access in this interval makes the byte's accessors
    // "many", so a copy or a store by either of them still sees the other.
    recordAccess(readBy[b]);
    if (store)
      recordAccess(writtenBy[b]);
    auto sameInterval = [&](uint64_t other) {
      return other && epochOf(other) == epoch && threadOf(other) != threadId;
    };
    if (uint64_t written = writtenBy[b].load(); sameInterval(written))
      hazard(store ? "wrote shared memory another thread wrote with no barrier between"
                   : "read shared memory another thread wrote with no barrier between",
             b, threadOf(written));
    if (uint64_t accessed = readBy[b].load(); store && sameInterval(accessed))
      hazard("wrote shared memory another thread read with no barrier between", b,
             threadOf(accessed));
    if (uint32_t owner = copyInFlight[b].load())
      hazard("accessed shared memory an async copy has in flight (not "
             "waited for)", b, owner - 1);
    uint64_t landed = landedBy[b].load();
    if (landed && epochOf(landed) == epoch && threadOf(landed) != threadId)
      hazard("accessed shared memory another thread's async copy landed in "
             "with no barrier between", b, threadOf(landed));
  }
}
/// Every access that claims more alignment than its element size (the
/// vector path) is checked: a wrong alignment proof would fault on a GPU.
std::atomic<long long> vectorAccesses{0};
extern "C" void simCheckAlign(void *address, uint32_t alignment) {
  ++vectorAccesses;
  if (reinterpret_cast<uintptr_t>(address) % alignment != 0) {
    std::fprintf(stderr, "gpuos-sim-check: task %s: misaligned access: %p is "
                         "not a multiple of %u\n", currentTask.c_str(), address,
                 alignment);
    std::_Exit(4);
  }
}
/// The task's buffers as bytes [begin, end) (runTask sets them): a bulk
/// prefetch must be 16-byte aligned and stay inside one of them, widened
/// to 16-byte boundaries (it would touch an unmapped page otherwise).
std::vector<std::pair<uintptr_t, uintptr_t>> views;
std::atomic<long long> prefetches{0};
extern "C" void simPrefetch(void *address, uint32_t bytes) {
  ++prefetches;
  uintptr_t begin = reinterpret_cast<uintptr_t>(address), end = begin + bytes;
  bool inside = false;
  for (auto [viewBegin, viewEnd] : views)
    inside = inside || (begin >= (viewBegin & ~uintptr_t(15)) &&
                        end <= ((viewEnd + 15) & ~uintptr_t(15)));
  if (begin % 16 != 0 || bytes % 16 != 0 || bytes == 0 || !inside) {
    std::fprintf(stderr, "gpuos-sim-check: task %s: bad bulk prefetch of %u "
                         "bytes at %p (16-byte multiples inside a buffer)\n",
                 currentTask.c_str(), bytes, address);
    std::_Exit(4);
  }
}
/// cp.async: a thread's copies wait in commit groups until
/// cp.async.wait_group lets them land (all but the newest `pending`
/// groups), so code that reads a stage before its wait (and the barrier)
/// reads stale shared memory and fails the comparison. Sources must be
/// 16-byte aligned inside a buffer; every copy must be waited for before
/// the tile ends.
struct PendingCopy {
  void *dst;
  const void *src;
  uint32_t issued; // the issuing thread's epoch
};
thread_local std::vector<std::vector<PendingCopy>> committedCopies;
thread_local std::vector<PendingCopy> openCopies;
std::atomic<long long> asyncCopies{0};
extern "C" void simCpAsync(void *dst, void *src) {
  ++asyncCopies;
  simCheckAlign(dst, 16);
  simCheckAlign(src, 16);
  uintptr_t begin = reinterpret_cast<uintptr_t>(src);
  bool inside = false;
  for (auto [viewBegin, viewEnd] : views)
    inside = inside || (begin >= viewBegin && begin + 16 <= viewEnd);
  if (!inside) {
    std::fprintf(stderr, "gpuos-sim-check: task %s: cp.async of 16 bytes at "
                         "%p outside every buffer\n", currentTask.c_str(), src);
    std::_Exit(4);
  }
  size_t first = sharedByte(dst);
  if (reinterpret_cast<char *>(dst) < sharedMemory || first > kSharedBytes - 16) {
    std::fprintf(stderr, "gpuos-sim-check: task %s: cp.async into %p, "
                         "outside shared memory\n", currentTask.c_str(), dst);
    std::_Exit(4);
  }
  for (size_t b = first; b < first + 16; ++b)
    if (uint32_t owner = copyInFlight[b].exchange(threadId + 1))
      hazard("issued an async copy into bytes another copy has in flight",
             b, owner - 1);
  openCopies.push_back({dst, src, epoch});
}
extern "C" void simCpAsyncCommit() {
  committedCopies.push_back(std::move(openCopies));
  openCopies.clear();
}
extern "C" void simCpAsyncWait(uint32_t pending) {
  while (committedCopies.size() > pending) {
    for (PendingCopy copy : committedCopies.front()) {
      // The copy may land any time from its issue to this wait: a read by
      // another thread in between, with no barrier to order it, races.
      size_t first = sharedByte(copy.dst);
      for (size_t b = first; b < first + 16; ++b) {
        landedBy[b].store(stamp());
        copyInFlight[b].store(0);
        uint64_t read = readBy[b].load();
        if (read && epochOf(read) >= copy.issued && threadOf(read) != threadId)
          hazard("let an async copy land over shared memory another thread "
                 "accessed since the copy's issue, with no barrier between", b,
                 threadOf(read));
      }
      std::memcpy(copy.dst, copy.src, 16);
    }
    committedCopies.erase(committedCopies.begin());
  }
}
static void checkCopiesLanded() {
  bool left = !openCopies.empty();
  for (const std::vector<PendingCopy> &group : committedCopies)
    left = left || !group.empty();
  if (left) {
    std::fprintf(stderr, "gpuos-sim-check: task %s, tile %u: thread %u ended "
                         "the tile with cp.async copies never waited for\n",
                 currentTask.c_str(), blockId, threadId);
    std::_Exit(4);
  }
  committedCopies.clear();
}
extern "C" uint32_t simShflI32(uint32_t value, uint32_t offset) {
  unsigned warp = threadId / 32, lane = threadId % 32;
  block->exchange[threadId] = value;
  block->warps[warp]->wait();
  uint32_t result = block->exchange[warp * 32 + (lane ^ offset)];
  block->warps[warp]->wait();
  return result;
}
extern "C" float simShflF32(float value, uint32_t offset) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits = simShflI32(bits, offset);
  float result;
  std::memcpy(&result, &bits, 4);
  return result;
}

/// f32 or f64 -> bf16, rounded to nearest even by APFloat (once, from the
/// source type: no double rounding through f32): the compiler-rt builtins
/// LLVM's x86 backend calls for `fptrunc` to bfloat; Debian 12's libgcc has
/// none (with LLVM 22.1.8 the JIT failed to resolve them). The bfloat comes
/// back in the low 16 bits of xmm0, as a float's bits do.
static float truncToBf16(llvm::APFloat converted) {
  bool losesInfo = false;
  converted.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
                    &losesInfo);
  auto half = static_cast<uint32_t>(converted.bitcastToAPInt().getZExtValue());
  float result;
  std::memcpy(&result, &half, 4);
  return result;
}
extern "C" float simTruncSfBf2(float value) { return truncToBf16(llvm::APFloat(value)); }
extern "C" float simTruncDfBf2(double value) { return truncToBf16(llvm::APFloat(value)); }
} // namespace

//===----------------------------------------------------------------------===//
// Retargeting the task module to the host
//===----------------------------------------------------------------------===//

static LLVM::LLVMFuncOp declare(ModuleOp module, StringRef name, Type result,
                                ArrayRef<Type> params) {
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(builder, module.getLoc(), name,
                                  LLVM::LLVMFunctionType::get(result, params));
}

/// The inline PTX the lowering emits (background tasks' L2-hinted accesses,
/// TaskEmitter::globalLoad and globalStore) as what it does to memory: the
/// policy is 0, a load or store of 1, 2 or 4 b32 words is one plain access
/// of i32 or vector<N x i32> at the words' alignment (so the vector ones are
/// alignment-checked like any other). Anything else is refused.
static LogicalResult lowerInlinePtx(ModuleOp module) {
  SmallVector<LLVM::InlineAsmOp> asmOps;
  module.walk([&](LLVM::InlineAsmOp op) { asmOps.push_back(op); });
  for (LLVM::InlineAsmOp op : asmOps) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    StringRef text = op.getAsmString();
    Type i32 = b.getI32Type();
    auto wordsType = [&](unsigned words) {
      return words == 1 ? i32 : Type(VectorType::get({int64_t(words)}, i32));
    };
    auto lane = [&](unsigned i) {
      return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(i));
    };
    if (text.starts_with("createpolicy.")) {
      op.getResult(0).replaceAllUsesWith(
          LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(0)));
    } else if (text.starts_with("ld.global.")) {
      Type result = op.getResult(0).getType();
      auto fields = dyn_cast<LLVM::LLVMStructType>(result);
      unsigned words = fields ? fields.getBody().size() : 1;
      Value loaded = LLVM::LoadOp::create(b, loc, wordsType(words), op.getOperand(0),
                                          /*alignment=*/4 * words);
      if (fields) {
        Value packed = LLVM::PoisonOp::create(b, loc, result);
        for (unsigned i = 0; i < words; ++i)
          packed = LLVM::InsertValueOp::create(
              b, loc, packed, LLVM::ExtractElementOp::create(b, loc, loaded, lane(i)),
              ArrayRef<int64_t>{i});
        loaded = packed;
      }
      op.getResult(0).replaceAllUsesWith(loaded);
    } else if (text.starts_with("st.global.")) {
      // Operands: the address, the words, the policy.
      unsigned words = op.getNumOperands() - 2;
      Value value = op.getOperand(1);
      if (words > 1) {
        value = LLVM::PoisonOp::create(b, loc, wordsType(words));
        for (unsigned i = 0; i < words; ++i)
          value = LLVM::InsertElementOp::create(b, loc, value, op.getOperand(1 + i), lane(i));
      }
      LLVM::StoreOp::create(b, loc, value, op.getOperand(0), /*alignment=*/4 * words);
    } else {
      return op.emitError() << "gpuos-sim-check cannot run inline PTX '" << text << "'";
    }
    op.erase();
  }
  return success();
}

/// Moves the functions of gpu.module @gpuos_tasks into a host module and
/// replaces what only a GPU has (null after a diagnostic when it cannot).
static OwningOpRef<ModuleOp> hostModule(gpu::GPUModuleOp gpuModule) {
  MLIRContext *context = gpuModule.getContext();
  OwningOpRef<ModuleOp> host = ModuleOp::create(gpuModule.getLoc());
  mlir::Block *body = host->getBody();
  for (Operation &op : llvm::make_early_inc_range(gpuModule.getBody()->getOperations()))
    op.moveBefore(body, body->end());
  if (failed(lowerInlinePtx(*host)))
    return nullptr;

  Type i32 = IntegerType::get(context, 32);
  auto voidType = LLVM::LLVMVoidType::get(context);
  auto hostPtr = LLVM::LLVMPointerType::get(context);
  SmallVector<Operation *> toErase;
  host->walk([&](Operation *op) {
    OpBuilder builder(op);
    auto call = [&](StringRef name, Type result, ValueRange args) {
      SmallVector<Type> params(args.getTypes());
      auto callee = declare(*host, name, result, params);
      auto newCall = LLVM::CallOp::create(builder, op->getLoc(), callee, args);
      if (op->getNumResults())
        op->getResult(0).replaceAllUsesWith(newCall.getResult());
      toErase.push_back(op);
    };
    if (isa<NVVM::ThreadIdXOp>(op))
      call("simTid", i32, {});
    else if (isa<NVVM::BlockDimXOp>(op))
      call("simNtid", i32, {});
    else if (isa<NVVM::BlockIdXOp>(op))
      call("simCtaid", i32, {});
    else if (isa<NVVM::Barrier0Op>(op))
      call("simBarrier", voidType, {});
    else if (auto prefetch = dyn_cast<NVVM::CpAsyncBulkPrefetchOp>(op)) {
      // Declared on host pointers, as simCheckAlign below.
      auto callee = declare(*host, "simPrefetch", voidType, {hostPtr, i32});
      LLVM::CallOp::create(builder, op->getLoc(), callee,
                           ValueRange{prefetch.getSrcMem(), prefetch.getSize()});
      toErase.push_back(op);
    } else if (auto copy = dyn_cast<NVVM::CpAsyncOp>(op)) {
      auto callee = declare(*host, "simCpAsync", voidType, {hostPtr, hostPtr});
      LLVM::CallOp::create(builder, op->getLoc(), callee,
                           ValueRange{copy.getDst(), copy.getSrc()});
      toErase.push_back(op);
    } else if (isa<NVVM::CpAsyncCommitGroupOp>(op))
      call("simCpAsyncCommit", voidType, {});
    else if (auto wait = dyn_cast<NVVM::CpAsyncWaitGroupOp>(op)) {
      Value pending = LLVM::ConstantOp::create(builder, op->getLoc(), i32,
                                               builder.getI32IntegerAttr(wait.getN()));
      call("simCpAsyncWait", voidType, {pending});
    } else if (auto intrinsic = dyn_cast<LLVM::CallIntrinsicOp>(op);
               intrinsic && (intrinsic.getIntrin() == "llvm.nvvm.div.full" ||
                             intrinsic.getIntrin() == "llvm.nvvm.rsqrt.approx.f")) {
      // The device's 2-ulp division and its rsqrt approximation (relative
      // error <= 2^-22.9) as the correctly rounded x / y and 1 / sqrt(x)
      // here; the tolerance covers both.
      Location loc = op->getLoc();
      Value x = op->getOperand(0);
      Value result;
      if (intrinsic.getIntrin() == "llvm.nvvm.div.full") {
        result = LLVM::FDivOp::create(builder, loc, x, op->getOperand(1));
      } else {
        Value one = LLVM::ConstantOp::create(builder, loc, x.getType(),
                                             builder.getFloatAttr(x.getType(), 1.0));
        result = LLVM::FDivOp::create(builder, loc, one, LLVM::SqrtOp::create(builder, loc, x));
      }
      op->getResult(0).replaceAllUsesWith(result);
      toErase.push_back(op);
    } else if (auto shfl = dyn_cast<NVVM::ShflOp>(op))
      call(shfl.getVal().getType().isF32() ? "simShflF32" : "simShflI32",
           shfl.getVal().getType(), {shfl.getVal(), shfl.getOffset()});
    else if (isa<LLVM::LoadOp, LLVM::StoreOp>(op)) {
      auto load = dyn_cast<LLVM::LoadOp>(op);
      auto store = dyn_cast<LLVM::StoreOp>(op);
      uint64_t alignment = load ? load.getAlignment().value_or(0)
                                : store.getAlignment().value_or(0);
      Type type = load ? load.getType() : store.getValue().getType();
      auto space = cast<LLVM::LLVMPointerType>(
          (load ? load.getAddr() : store.getAddr()).getType());
      if (space.getAddressSpace() == 3) {
        auto callee = declare(*host, "simSharedAccess", voidType, {hostPtr, i32, i32});
        Value bytes = LLVM::ConstantOp::create(
            builder, op->getLoc(), i32,
            builder.getI32IntegerAttr(
                DataLayout::closest(op).getTypeSize(type).getFixedValue()));
        Value isStore = LLVM::ConstantOp::create(builder, op->getLoc(), i32,
                                                 builder.getI32IntegerAttr(load ? 0 : 1));
        LLVM::CallOp::create(builder, op->getLoc(), callee,
                             ValueRange{load ? load.getAddr() : store.getAddr(), bytes, isStore});
      }
      if (isa<VectorType>(type) && alignment > 1) {
        Value ptr = load ? load.getAddr() : store.getAddr();
        // Declared on host pointers: the retyping below makes the operand one.
        auto callee = declare(*host, "simCheckAlign", voidType, {hostPtr, i32});
        Value bytes = LLVM::ConstantOp::create(builder, op->getLoc(), i32,
                                               builder.getI32IntegerAttr(alignment));
        LLVM::CallOp::create(builder, op->getLoc(), callee, ValueRange{ptr, bytes});
      }
    } else if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op))
      func->removeAttr(NVVM::NVVMDialect::getKernelFuncAttrName());
    else if (auto global = dyn_cast<LLVM::GlobalOp>(op))
      global.setAddrSpace(0);
  });
  for (Operation *op : toErase)
    op->erase();
  // Every pointer is a host pointer: retype, and drop the casts between
  // address spaces that are now no-ops.
  auto retype = [&](Value value) {
    if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(value.getType()))
      if (ptr.getAddressSpace() != 0)
        value.setType(hostPtr);
  };
  toErase.clear();
  host->walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (mlir::Block &b : region)
        for (BlockArgument arg : b.getArguments())
          retype(arg);
    for (Value result : op->getResults())
      retype(result);
    if (auto cast = dyn_cast<LLVM::AddrSpaceCastOp>(op)) {
      cast.getResult().replaceAllUsesWith(cast.getArg());
      toErase.push_back(op);
    }
  });
  for (Operation *op : toErase)
    op->erase();
  return host;
}

//===----------------------------------------------------------------------===//
// Running a task
//===----------------------------------------------------------------------===//

using TaskFn = void (*)(void *, uint32_t);

/// Why check.txt's `task` does not describe the task of that kind in the
/// IR, or "": the task function indexes its argument block and buffers by
/// the IR's types, so a check file of another module must not reach it.
static std::string taskMismatch(const check::Task &task, const TaskABI *abi) {
  if (!abi)
    return "no task of this kind in " + inputFilename;
  if (task.tiles != uint64_t(abi->numTiles))
    return std::to_string(task.tiles) + " tiles, the IR's task has " +
           std::to_string(abi->numTiles);
  if (task.buffers.size() != abi->buffers.size())
    return std::to_string(task.buffers.size()) + " buffers, the IR's task has " +
           std::to_string(abi->buffers.size());
  for (auto [index, buffer] : llvm::enumerate(task.buffers)) {
    StridedTensorType type = abi->buffers[index];
    std::string dtype;
    llvm::raw_string_ostream os(dtype);
    type.getElementType().print(os);
    ArrayRef<int64_t> strides = type.getEffectiveStrides();
    if (buffer.input != (index < abi->numInputs) || buffer.dtype != dtype ||
        !llvm::equal(buffer.shape, type.getShape()) || !llvm::equal(buffer.strides, strides))
      return "buffer " + std::to_string(index) + " is not the IR's " +
             (index < abi->numInputs ? "input " : "output ") + dtype + " view";
  }
  return "";
}

static bool runTask(TaskFn fn, const check::Task &task, unsigned threads,
                    check::Outcome &outcome) {
  struct Allocation {
    std::vector<char> bytes;
    long long offset;
  };
  std::vector<Allocation> allocations;
  std::vector<uint64_t> args;
  for (const check::Buffer &buffer : task.buffers) {
    Allocation allocation;
    // 16 spare bytes in front so the aligned base can move.
    allocation.bytes.assign(size_t(buffer.span) * buffer.elemBytes + 32, char(0xFF));
    char *aligned = reinterpret_cast<char *>(
        (reinterpret_cast<uintptr_t>(allocation.bytes.data()) + 15) & ~uintptr_t(15));
    allocation.offset = (aligned - allocation.bytes.data()) +
                        (misalign ? buffer.elemBytes : 0);
    if (buffer.input)
      std::memcpy(allocation.bytes.data() + allocation.offset, buffer.data.data(),
                  buffer.data.size());
    allocations.push_back(std::move(allocation));
    args.push_back(reinterpret_cast<uint64_t>(allocations.back().bytes.data() +
                                              allocations.back().offset));
  }
  views.clear();
  for (size_t i = 0; i < task.buffers.size(); ++i)
    views.emplace_back(args[i], args[i] + uint64_t(task.buffers[i].span) *
                                              task.buffers[i].elemBytes);
  for (unsigned tile = 0; tile < task.tiles; ++tile) {
    SimBlock sim(threads);
    block = &sim;
    std::memset(sharedMemory, 0xAB, sizeof sharedMemory); // stale data
    resetShadow();
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        threadId = t;
        blockId = tile;
        fn(args.data(), tile);
        checkCopiesLanded();
      });
    for (std::thread &worker : workers)
      worker.join();
  }
  for (size_t i = 0; i < task.buffers.size(); ++i)
    if (!task.buffers[i].input)
      check::compare(task.buffers[i], allocations[i].bytes, allocations[i].offset,
                     outcome);
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(toolOptions);
  if (!cl::ParseCommandLineOptions(argc, argv, "GPU check on the CPU\n", &llvm::errs()))
    return 2;
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  DialectRegistry registry;
  registry.insert<GpuosDialect, arith::ArithDialect, cf::ControlFlowDialect,
                  gpu::GPUDialect, LLVM::LLVMDialect, NVVM::NVVMDialect,
                  scf::SCFDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  // The tasks' ABIs before lowering replaces them: what check.txt must match.
  llvm::StringMap<TaskABI> abis;
  WalkResult walk = module->walk([&](TaskOp task) {
    FailureOr<TaskABI> abi = TaskABI::get(task);
    if (failed(abi))
      return WalkResult::interrupt();
    abis[abi->kind] = std::move(*abi);
    return WalkResult::advance();
  });
  LowerTasksOptions lowerOptions;
  lowerOptions.backgroundEvictFirst =
      backgroundL2 == gpuos::tools::BackgroundL2::EvictFirst;
  if (walk.wasInterrupted() || failed(lowerTasksToNVVM(*module, lowerOptions)))
    return 1;
  auto gpuModule = module->lookupSymbol<gpu::GPUModuleOp>(kTaskModuleName);
  OwningOpRef<ModuleOp> host = hostModule(gpuModule);
  if (!host)
    return 1;

  auto engine = ExecutionEngine::create(*host);
  if (!engine) {
    llvm::errs() << "gpuos-sim-check: " << llvm::toString(engine.takeError()) << "\n";
    return 1;
  }
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](StringRef name, void *address) {
      symbols[interner(name)] = llvm::orc::ExecutorSymbolDef(
          llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported);
    };
    add("simTid", reinterpret_cast<void *>(&simTid));
    add("simNtid", reinterpret_cast<void *>(&simNtid));
    add("simCtaid", reinterpret_cast<void *>(&simCtaid));
    add("simBarrier", reinterpret_cast<void *>(&simBarrier));
    add("simShflI32", reinterpret_cast<void *>(&simShflI32));
    add("simCheckAlign", reinterpret_cast<void *>(&simCheckAlign));
    add("simShflF32", reinterpret_cast<void *>(&simShflF32));
    add("simPrefetch", reinterpret_cast<void *>(&simPrefetch));
    add("simCpAsync", reinterpret_cast<void *>(&simCpAsync));
    add("simCpAsyncCommit", reinterpret_cast<void *>(&simCpAsyncCommit));
    add("simCpAsyncWait", reinterpret_cast<void *>(&simCpAsyncWait));
    add("simSharedAccess", reinterpret_cast<void *>(&simSharedAccess));
    add("__gpuos_shared", sharedMemory);
    add("__truncsfbf2", reinterpret_cast<void *>(&simTruncSfBf2));
    add("__truncdfbf2", reinterpret_cast<void *>(&simTruncDfBf2));
    // libdevice names on the host's libm.
    add("__nv_expf", reinterpret_cast<void *>(static_cast<float (*)(float)>(&expf)));
    add("__nv_logf", reinterpret_cast<void *>(static_cast<float (*)(float)>(&logf)));
    add("__nv_tanhf", reinterpret_cast<void *>(static_cast<float (*)(float)>(&tanhf)));
    add("__nv_erff", reinterpret_cast<void *>(static_cast<float (*)(float)>(&erff)));
    add("__nv_powf", reinterpret_cast<void *>(static_cast<float (*)(float, float)>(&powf)));
    add("__nv_exp", reinterpret_cast<void *>(static_cast<double (*)(double)>(&exp)));
    add("__nv_log", reinterpret_cast<void *>(static_cast<double (*)(double)>(&log)));
    add("__nv_tanh", reinterpret_cast<void *>(static_cast<double (*)(double)>(&tanh)));
    add("__nv_erf", reinterpret_cast<void *>(static_cast<double (*)(double)>(&erf)));
    add("__nv_pow", reinterpret_cast<void *>(static_cast<double (*)(double, double)>(&pow)));
    return symbols;
  });

  std::string image;
  std::vector<check::Task> tasks;
  if (!check::parseCheck(checkFile, image, tasks))
    return 1;
  int passed = 0, failed = 0;
  for (const check::Task &task : tasks) {
    auto abi = abis.find(task.kind);
    std::string mismatch = taskMismatch(task, abi == abis.end() ? nullptr : &abi->second);
    if (!mismatch.empty()) {
      llvm::errs() << "gpuos-sim-check: " << checkFile << ": task '" << task.kind
                   << "': " << mismatch << "\n";
      return 1;
    }
    auto address = (*engine)->lookup("gpuos_task_" + task.kind);
    if (!address) {
      llvm::errs() << "gpuos-sim-check: " << llvm::toString(address.takeError()) << "\n";
      return 1;
    }
    unsigned threads = blockOverride ? blockOverride.getValue() : task.blockSize;
    if (threads == 0 || threads % 32 != 0 || threads > 1024) {
      llvm::errs() << "gpuos-sim-check: "
                   << (blockOverride ? "--block=" + std::to_string(threads)
                                     : "task " + task.kind + "'s block size " +
                                           std::to_string(threads))
                   << ": blocks of 32 to 1024 threads, a multiple of 32\n";
      return 2;
    }
    currentTask = task.kind;
    check::Outcome outcome;
    runTask(reinterpret_cast<TaskFn>(*address), task, threads, outcome);
    std::printf("%s %-40s block=%-4u %-9s max_abs=%.3g max_rel=%.3g elems=%lld",
                outcome.ok ? "PASS" : "FAIL", task.kind.c_str(), threads,
                misalign ? "unaligned" : "aligned", outcome.maxAbs, outcome.maxRel,
                outcome.elements);
    if (outcome.mismatches)
      std::printf(" mismatches=%lld first: %s", outcome.mismatches, outcome.first.c_str());
    if (outcome.poisonTouched)
      std::printf(" wrote %lld elements outside the view", outcome.poisonTouched);
    std::printf("\n");
    (outcome.ok ? passed : failed)++;
  }
  std::printf("sim-check: %d passed, %d failed (%lld vector accesses, all aligned; "
              "%lld bulk prefetches, all inside their buffers; %lld async "
              "copies, all waited for)\n",
              passed, failed, vectorAccesses.load(), prefetches.load(),
              asyncCopies.load());
  return failed ? 1 : 0;
}
