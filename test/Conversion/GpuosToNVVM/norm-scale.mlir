// The norms' scale rsqrt(mean + eps) is rsqrt.approx.f32 in f32 (one MUFU
// op, as PyTorch's norms use rsqrtf; it sits on every link of a row chain),
// 1 / sqrt correctly rounded in f64; the user's own rsqrt stays correctly
// rounded in every type (docs/codegen.md, "Numerics").
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm=convert-to-llvm=false | FileCheck %s

// CHECK-LABEL: llvm.func @gpuos_task_rms_f32
// CHECK-NOT:     llvm.intr.sqrt
// CHECK:         llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"({{.+}}) : (f32) -> f32
// CHECK-NOT:     llvm.intr.sqrt
// CHECK-LABEL: llvm.func @gpuos_launch_rms_f32
// CHECK-LABEL: llvm.func @gpuos_task_layer_f64
// CHECK-NOT:     rsqrt.approx
// CHECK:         llvm.intr.sqrt({{.+}}) : (f64) -> f64
// CHECK-LABEL: llvm.func @gpuos_launch_layer_f64
// CHECK-LABEL: llvm.func @gpuos_task_user_rsqrt
// CHECK-NOT:     rsqrt.approx
// CHECK:         llvm.intr.sqrt({{.+}}) : (f32) -> f32
// CHECK-NEXT:    arith.divf
// CHECK-LABEL: llvm.func @gpuos_launch_user_rsqrt
// CHECK-LABEL: llvm.func @gpuos_task_layer_f32
// CHECK-NOT:     llvm.intr.sqrt
// CHECK:         llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"({{.+}}) : (f32) -> f32
// CHECK-LABEL: llvm.func @gpuos_launch_layer_f32
// CHECK-LABEL: llvm.func @gpuos_task_rms_bf16
// CHECK-NOT:     llvm.intr.sqrt
// CHECK:         llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"({{.+}}) : (f32) -> f32
// CHECK-LABEL: llvm.func @gpuos_launch_rms_bf16
gpuos.graph @scales(%x : !gpuos.tensor<2x64xf32>, %d : !gpuos.tensor<2x64xf64>, %h : !gpuos.tensor<2x64xbf16>)
    -> (a : !gpuos.tensor<2x64xf32>, b : !gpuos.tensor<2x64xf64>, c : !gpuos.tensor<2x64xf32>,
        l : !gpuos.tensor<2x64xf32>, r : !gpuos.tensor<2x64xbf16>) {
  %a = gpuos.task "rms_f32" ins(%i = %x : !gpuos.tensor<2x64xf32>) tile [1, 64] -> (!gpuos.tensor<2x64xf32>) {
    %0 = gpuos.rms_norm %i eps 1.0e-6 : !gpuos.tensor<2x64xf32>
    gpuos.yield %0 : !gpuos.tensor<2x64xf32>
  }
  %b = gpuos.task "layer_f64" ins(%i = %d : !gpuos.tensor<2x64xf64>) tile [1, 64] -> (!gpuos.tensor<2x64xf64>) {
    %0 = gpuos.layer_norm %i eps 1.0e-5 : !gpuos.tensor<2x64xf64>
    gpuos.yield %0 : !gpuos.tensor<2x64xf64>
  }
  %c = gpuos.task "user_rsqrt" ins(%i = %x : !gpuos.tensor<2x64xf32>) tile [1, 64] -> (!gpuos.tensor<2x64xf32>) {
    %0 = gpuos.rsqrt %i : !gpuos.tensor<2x64xf32>
    gpuos.yield %0 : !gpuos.tensor<2x64xf32>
  }
  %l = gpuos.task "layer_f32" ins(%i = %x : !gpuos.tensor<2x64xf32>) tile [1, 64] -> (!gpuos.tensor<2x64xf32>) {
    %0 = gpuos.layer_norm %i eps 1.0e-5 : !gpuos.tensor<2x64xf32>
    gpuos.yield %0 : !gpuos.tensor<2x64xf32>
  }
  %r = gpuos.task "rms_bf16" ins(%i = %h : !gpuos.tensor<2x64xbf16>) tile [1, 64] -> (!gpuos.tensor<2x64xbf16>) {
    %0 = gpuos.rms_norm %i eps 1.0e-6 : !gpuos.tensor<2x64xbf16>
    gpuos.yield %0 : !gpuos.tensor<2x64xbf16>
  }
  gpuos.yield %a, %b, %c, %l, %r : !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf64>, !gpuos.tensor<2x64xf32>,
      !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xbf16>
}
