// The image ABI (docs/abi.md): one `.visible .func` per task kind taking
// (args, tile), buffer addresses loaded from the argument block (inputs,
// then outputs), and a test kernel calling it with blockIdx.x.
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm | FileCheck %s

// The graph stays for the manifest writer; the functions go to gpu.module.
// CHECK:       module attributes {gpu.container_module}
// CHECK:       gpuos.graph @axpy_graph
// CHECK-LABEL: gpu.module @gpuos_tasks
// The test kernel calls the task function itself, not an inlined copy.
// CHECK:       llvm.func @gpuos_task_axpy(%[[ARGS:.+]]: !llvm.ptr, %[[TILE:.+]]: i32) attributes {no_inline} {
// The argument block is global memory: uint64 addresses, read-only.
// CHECK:         %[[BLOCK:.+]] = llvm.addrspacecast %[[ARGS]] : !llvm.ptr to !llvm.ptr<1>
// CHECK:         %[[A0:.+]] = llvm.load %[[BLOCK]] invariant {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// CHECK:         %[[X:.+]] = llvm.inttoptr %[[A0]] : i64 to !llvm.ptr<1>
// CHECK:         %[[S1:.+]] = llvm.getelementptr %[[BLOCK]][1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
// CHECK:         %[[A1:.+]] = llvm.load %[[S1]] invariant {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// CHECK:         %[[B:.+]] = llvm.inttoptr %[[A1]] : i64 to !llvm.ptr<1>
// CHECK:         %[[S2:.+]] = llvm.getelementptr %[[BLOCK]][2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
// CHECK:         %[[A2:.+]] = llvm.load %[[S2]] invariant {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// CHECK:         %[[Y:.+]] = llvm.inttoptr %[[A2]] : i64 to !llvm.ptr<1>
// Threads cover the tile: tid.x and ntid.x, no early exit.
// CHECK:         nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         nvvm.read.ptx.sreg.ntid.x : i32
// CHECK:         llvm.return
// CHECK-NOT:   nvvm.kernel
// CHECK:       llvm.func @gpuos_launch_axpy(%[[KARGS:.+]]: !llvm.ptr) attributes {nvvm.kernel} {
// CHECK:         %[[CTA:.+]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK:         llvm.call @gpuos_task_axpy(%[[KARGS]], %[[CTA]]) : (!llvm.ptr, i32) -> ()
gpuos.graph @axpy_graph(%x : !gpuos.tensor<4x64xf32>, %b : !gpuos.tensor<64xf32>)
    -> (y : !gpuos.tensor<4x64xf32>) {
  %r = gpuos.task "axpy" ins(%a = %x : !gpuos.tensor<4x64xf32>, %c = %b : !gpuos.tensor<64xf32>)
      tile [1, 64] -> (!gpuos.tensor<4x64xf32>) {
    %0 = gpuos.add %a, %c : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<4x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x64xf32>
}
