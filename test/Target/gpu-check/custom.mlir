// gpuos.custom: a user's CUDA C++ device function (custom.cu) fused with
// built-in ops. The interpreter checks it through its reference graphs, so
// scripts/gpu-check.sh runs it on the GPU like every other input (it passes
// custom.cu to gpuos-jit --custom-source).
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// The tasks declare the function; NVRTC's PTX defines it at link time.
// CHECK: .extern .func  (.param .b32 func_retval0) scaled_softplus
// CHECK-DAG: .visible .func gpuos_task_custom_f32_t0_tanh_custom_add(
// CHECK-DAG: .visible .func gpuos_task_custom_f16_t0_custom(

gpuos.graph @softplus_ref(%x: !gpuos.tensor<f32>, %s: !gpuos.tensor<f32>) -> (y : !gpuos.tensor<f32>) {
  %0 = gpuos.task "softplus_ref_t0_exp_add_log_mul" ins(%arg0 = %x : !gpuos.tensor<f32>, %arg1 = %s : !gpuos.tensor<f32>) tile [] -> (!gpuos.tensor<f32>) attributes {gpuos.critical_path = 4 : i64} {
    %1 = gpuos.constant dense<1.000000e+00> : tensor<f32>
    %2 = gpuos.exp %arg0 : !gpuos.tensor<f32>
    %3 = gpuos.add %2, %1 : !gpuos.tensor<f32>, !gpuos.tensor<f32>
    %4 = gpuos.log %3 : !gpuos.tensor<f32>
    %5 = gpuos.mul %4, %arg1 : !gpuos.tensor<f32>, !gpuos.tensor<f32>
    gpuos.yield %5 : !gpuos.tensor<f32>
  }
  gpuos.yield %0 : !gpuos.tensor<f32>
}
gpuos.graph @softplus_ref_f16(%x: !gpuos.tensor<f16>, %s: !gpuos.tensor<f16>) -> (y : !gpuos.tensor<f16>) {
  %0 = gpuos.task "softplus_ref_f16_t0_cast_exp_add_log_mul" ins(%arg0 = %x : !gpuos.tensor<f16>, %arg1 = %s : !gpuos.tensor<f16>) tile [] -> (!gpuos.tensor<f16>) attributes {gpuos.critical_path = 7 : i64} {
    %1 = gpuos.constant dense<1.000000e+00> : tensor<f32>
    %2 = gpuos.cast %arg0 : !gpuos.tensor<f16> to f32
    %3 = gpuos.cast %arg1 : !gpuos.tensor<f16> to f32
    %4 = gpuos.exp %2 : !gpuos.tensor<f32>
    %5 = gpuos.add %4, %1 : !gpuos.tensor<f32>, !gpuos.tensor<f32>
    %6 = gpuos.log %5 : !gpuos.tensor<f32>
    %7 = gpuos.mul %6, %3 : !gpuos.tensor<f32>, !gpuos.tensor<f32>
    %8 = gpuos.cast %7 : !gpuos.tensor<f32> to f16
    gpuos.yield %8 : !gpuos.tensor<f16>
  }
  gpuos.yield %0 : !gpuos.tensor<f16>
}
gpuos.graph @custom_f32(%x: !gpuos.tensor<64x1024xf32>, %s: !gpuos.tensor<1024xf32>) -> (y : !gpuos.tensor<64x1024xf32>) {
  %0 = gpuos.task "custom_f32_t0_tanh_custom_add" ins(%arg0 = %x : !gpuos.tensor<64x1024xf32>, %arg1 = %s : !gpuos.tensor<1024xf32>) tile [1, 256] -> (!gpuos.tensor<64x1024xf32>) attributes {gpuos.critical_path = 196608 : i64} {
    %1 = gpuos.tanh %arg0 : !gpuos.tensor<64x1024xf32>
    %2 = gpuos.custom @scaled_softplus(%1, %arg1) reference @softplus_ref : !gpuos.tensor<64x1024xf32>, !gpuos.tensor<1024xf32> -> f32
    %3 = gpuos.add %2, %arg0 : !gpuos.tensor<64x1024xf32>, !gpuos.tensor<64x1024xf32>
    gpuos.yield %3 : !gpuos.tensor<64x1024xf32>
  }
  gpuos.yield %0 : !gpuos.tensor<64x1024xf32>
}
gpuos.graph @custom_f16(%x: !gpuos.tensor<8x256xf16>, %s: !gpuos.tensor<8x1xf16>) -> (y : !gpuos.tensor<8x256xf16>) {
  %0 = gpuos.task "custom_f16_t0_custom" ins(%arg0 = %x : !gpuos.tensor<8x256xf16>, %arg1 = %s : !gpuos.tensor<8x1xf16>) tile [1, 256] -> (!gpuos.tensor<8x256xf16>) attributes {gpuos.critical_path = 2048 : i64} {
    %1 = gpuos.custom @scaled_softplus(%arg0, %arg1) reference @softplus_ref_f16 : !gpuos.tensor<8x256xf16>, !gpuos.tensor<8x1xf16> -> f16
    gpuos.yield %1 : !gpuos.tensor<8x256xf16>
  }
  gpuos.yield %0 : !gpuos.tensor<8x256xf16>
}
