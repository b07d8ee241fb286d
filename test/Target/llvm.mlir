// gpuos-jit --emit=llvm: the LLVM IR the NVPTX backend compiles, after
// libdevice is linked (and inlined) and -O applied.
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=llvm -o - | FileCheck %s
// RUN: gpuos-jit %s --emit=mlir -o - | FileCheck %s --check-prefix=MLIR

// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK: define void @gpuos_task_silu(ptr {{.*}}%0, i32 %1)
// CHECK: call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// libdevice's expf is linked and inlined: no call to it is left.
// CHECK-NOT: call float @__nv_expf
// silu's division is div.full.f32 (2 ulp, full range; docs/codegen.md).
// CHECK: call float @llvm.nvvm.div.full(float
// CHECK-NOT: fdiv float
// CHECK: define ptx_kernel void @gpuos_launch_silu(ptr {{.*}}%0)
// CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

// MLIR: module attributes {gpu.container_module}
// MLIR: gpuos.graph @silu
// MLIR: gpu.module @gpuos_tasks
// MLIR: llvm.func @__nv_expf(f32) -> f32
// MLIR: llvm.func @gpuos_task_silu(%{{.+}}: !llvm.ptr, %{{.+}}: i32)
// MLIR: llvm.func @gpuos_launch_silu(%{{.+}}: !llvm.ptr) attributes {nvvm.kernel}
gpuos.graph @silu(%x : !gpuos.tensor<64xf32>) -> (y : !gpuos.tensor<64xf32>) {
  %r = gpuos.task "silu" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.silu %a : !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64xf32>
}
