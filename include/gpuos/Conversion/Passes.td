//===- Passes.td - gpuos conversion passes -----------------*- tablegen -*-===//
//
// Conversions out of the gpuos dialect. Kept apart from
// dialects/gpuos/Passes.td (the graph-level passes) so the lowering and the
// graph transformations evolve independently.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_CONVERSION_PASSES_TD
#define GPUOS_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def GpuosLowerTasksToNVVM : Pass<"gpuos-lower-tasks-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lowers every gpuos.task to an NVVM device function of the image ABI";
  let description = [{
    For each `gpuos.task "kind"` of every graph, adds to `gpu.module
    @gpuos_tasks` (created on demand)

    - `llvm.func @gpuos_task_<kind>(%args: !llvm.ptr, %tile: i32)`: external
      linkage, no kernel attribute (PTX `.visible .func`), following
      docs/abi.md: `args` holds the uint64 addresses of the inputs then the
      outputs, then the int64 dynamic sizes and strides; the threads of one
      block cover tile `tile` of the first result's iteration space;
    - `llvm.func @gpuos_launch_<kind>(%args: !llvm.ptr)` with `nvvm.kernel`,
      which calls the task function with `tile = blockIdx.x` (for testing).

    Views (broadcast, transpose, slice, reshape) compose into the index
    arithmetic of the loads: no copies. Contiguous innermost dimensions are
    read and written with vector accesses when the buffers are 16-byte
    aligned (checked at run time, with a scalar fallback). Graphs stay in
    place: the manifest writer reads them. See docs/codegen.md.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::cf::ControlFlowDialect",
  ];
  let options = [
    Option<"convertToLLVM", "convert-to-llvm", "bool", /*default=*/"true",
           "Finish with arith/scf/cf converted to the llvm dialect; false "
           "leaves the structured form (easier to read in tests)">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Block size the functions are tuned for (recorded in the manifest; "
           "the code works for any multiple of 32 up to 1024)">,
    Option<"backgroundEvictFirst", "background-evict-first", "bool",
           /*default=*/"false",
           "Background tasks access global memory with an L2 evict-first "
           "policy (createpolicy + .L2::cache_hint)">,
  ];
}

#endif // GPUOS_CONVERSION_PASSES_TD
