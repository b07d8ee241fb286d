// gpuos-split-k on a decode-like layer (the source graph below, after
// gpuos-opt --gpuos-pipeline; regenerate with the command in the comment
// and keep this header): N = 512 projections give 32 column tiles, so K
// (1024) is split into 4 slices of 256. Covers the batched matmul over the
// slices with the silu(gate) * up prologue staged through a reshape, the
// M = 3 lhs viewed through reshape + transpose, and the sum of the
// partial products with a residual as the prologue of an rms_norm that
// writes the residual out too. Checked against the interpreter by
// gpuos-sim-check (test/Target/sim-check.mlir) and gpuos-gpu-check (GPU).
//
// Source (gpuos-opt <this source> --gpuos-pipeline):
//   %o = gpuos.matmul %x, %wo                 (1x1024 @ 1024x512)
//   %a = gpuos.mul (gpuos.silu %gate), %up    (1x1024)
//   %d = gpuos.matmul %a, %wd                 (1x1024 @ 1024x512)
//   %h = gpuos.add (gpuos.add %r, %o), %d     (yielded)
//   %n = gpuos.rms_norm %h weight(%g)         (yielded)
//   %y3 = gpuos.matmul %x3, %w3               (3x1024 @ 1024x256, yielded)
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-COUNT-5: .visible .func gpuos_task_
module {
  gpuos.graph @split_k(%x: !gpuos.tensor<1x1024xf32>, %wo: !gpuos.tensor<1024x512xf32>, %r: !gpuos.tensor<1x512xf32>, %gate: !gpuos.tensor<1x1024xf32>, %up: !gpuos.tensor<1x1024xf32>, %wd: !gpuos.tensor<1024x512xf32>, %g: !gpuos.tensor<512xf32>, %x3: !gpuos.tensor<3x1024xf32>, %w3: !gpuos.tensor<1024x256xf32>) -> (h : !gpuos.tensor<1x512xf32>, n : !gpuos.tensor<1x512xf32>, y3 : !gpuos.tensor<3x256xf32>) {
    %0 = gpuos.task "split_k_t6_matmul" ins(%arg0 = %x3 : !gpuos.tensor<3x1024xf32>, %arg1 = %w3 : !gpuos.tensor<1024x256xf32>) tile [1, 3, 16] -> (!gpuos.tensor<4x3x256xf32>) attributes {gpuos.critical_path = 788736 : i64} {
      %5 = gpuos.reshape %arg0 to [3, 4, 256] : !gpuos.tensor<3x1024xf32>
      %6 = gpuos.transpose %5 [1, 0, 2] : !gpuos.tensor<3x4x256xf32>
      %7 = gpuos.reshape %arg1 to [4, 256, 256] : !gpuos.tensor<1024x256xf32>
      %8 = gpuos.matmul %6, %7 : !gpuos.tensor<4x3x256xf32, strides = [256, 1024, 1]>, !gpuos.tensor<4x256x256xf32>
      gpuos.yield %8 : !gpuos.tensor<4x3x256xf32>
    }
    %1 = gpuos.task "split_k_t4_silu_mul_matmul" ins(%arg0 = %gate : !gpuos.tensor<1x1024xf32>, %arg1 = %up : !gpuos.tensor<1x1024xf32>, %arg2 = %wd : !gpuos.tensor<1024x512xf32>) tile [1, 1, 16] -> (!gpuos.tensor<4x1x512xf32>) attributes {gpuos.critical_path = 530944 : i64} {
      %5 = gpuos.silu %arg0 : !gpuos.tensor<1x1024xf32>
      %6 = gpuos.mul %5, %arg1 : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x1024xf32>
      %7 = gpuos.reshape %6 to [4, 1, 256] : !gpuos.tensor<1x1024xf32>
      %8 = gpuos.reshape %arg2 to [4, 256, 512] : !gpuos.tensor<1024x512xf32>
      %9 = gpuos.matmul %7, %8 : !gpuos.tensor<4x1x256xf32>, !gpuos.tensor<4x256x512xf32>
      gpuos.yield %9 : !gpuos.tensor<4x1x512xf32>
    }
    %2 = gpuos.task "split_k_t5_matmul" ins(%arg0 = %x : !gpuos.tensor<1x1024xf32>, %arg1 = %wo : !gpuos.tensor<1024x512xf32>) tile [1, 1, 16] -> (!gpuos.tensor<4x1x512xf32>) attributes {gpuos.critical_path = 528896 : i64} {
      %5 = gpuos.reshape %arg0 to [4, 1, 256] : !gpuos.tensor<1x1024xf32>
      %6 = gpuos.reshape %arg1 to [4, 256, 512] : !gpuos.tensor<1024x512xf32>
      %7 = gpuos.matmul %5, %6 : !gpuos.tensor<4x1x256xf32>, !gpuos.tensor<4x256x512xf32>
      gpuos.yield %7 : !gpuos.tensor<4x1x512xf32>
    }
    %3:2 = gpuos.task "split_k_t3_add_rms_norm" ins(%arg0 = %2 : !gpuos.tensor<4x1x512xf32>, %arg1 = %1 : !gpuos.tensor<4x1x512xf32>, %arg2 = %r : !gpuos.tensor<1x512xf32>, %arg3 = %g : !gpuos.tensor<512xf32>) tile [1, 512] -> (!gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>) attributes {gpuos.critical_path = 4608 : i64} {
      %5 = gpuos.slice %arg0 starts [0, 0, 0] sizes [1, 1, 512] steps [1, 1, 1] : !gpuos.tensor<4x1x512xf32>
      %6 = gpuos.reshape %5 to [1, 512] : !gpuos.tensor<1x1x512xf32>
      %7 = gpuos.slice %arg0 starts [1, 0, 0] sizes [1, 1, 512] steps [1, 1, 1] : !gpuos.tensor<4x1x512xf32>
      %8 = gpuos.reshape %7 to [1, 512] : !gpuos.tensor<1x1x512xf32>
      %9 = gpuos.add %6, %8 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
      %10 = gpuos.slice %arg0 starts [2, 0, 0] sizes [1, 1, 512] steps [1, 1, 1] : !gpuos.tensor<4x1x512xf32>
      %11 = gpuos.reshape %10 to [1, 512] : !gpuos.tensor<1x1x512xf32>
      %12 = gpuos.slice %arg0 starts [3, 0, 0] sizes [1, 1, 512] steps [1, 1, 1] : !gpuos.tensor<4x1x512xf32>
      %13 = gpuos.reshape %12 to [1, 512] : !gpuos.tensor<1x1x512xf32>
      %14 = gpuos.add %11, %13 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
      %15 = gpuos.add %9, %14 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
      %16 = gpuos.slice %arg1 starts [0, 0, 0] sizes [1, 1, 512] steps [1, 1, 1] : !gpuos.tensor<4x1x512xf32>
      %17 = gpuos.reshape %16 to [1, 512] : !gpuos.tensor<1x1x512xf32>
      %18 = gpuos.slice %arg1 starts [1, 0, 0] sizes [1, 1, 512] steps [1, 1, 1] : !gpuos.tensor<4x1x512xf32>
      %19 = gpuos.reshape %18 to [1, 512] : !gpuos.tensor<1x1x512xf32>
      %20 = gpuos.add %17, %19 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
      %21 = gpuos.slice %arg1 starts [2, 0, 0] sizes [1, 1, 512] steps [1, 1, 1] : !gpuos.tensor<4x1x512xf32>
      %22 = gpuos.reshape %21 to [1, 512] : !gpuos.tensor<1x1x512xf32>
      %23 = gpuos.slice %arg1 starts [3, 0, 0] sizes [1, 1, 512] steps [1, 1, 1] : !gpuos.tensor<4x1x512xf32>
      %24 = gpuos.reshape %23 to [1, 512] : !gpuos.tensor<1x1x512xf32>
      %25 = gpuos.add %22, %24 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
      %26 = gpuos.add %20, %25 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
      %27 = gpuos.add %arg2, %15 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
      %28 = gpuos.add %27, %26 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
      %29 = gpuos.rms_norm %28 weight(%arg3 : !gpuos.tensor<512xf32>) eps 9.9999999999999995E-7 : !gpuos.tensor<1x512xf32>
      gpuos.yield %28, %29 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
    }
    %4 = gpuos.task "split_k_t2_add" ins(%arg0 = %0 : !gpuos.tensor<4x3x256xf32>) tile [1, 256] -> (!gpuos.tensor<3x256xf32>) attributes {gpuos.critical_path = 2304 : i64} {
      %5 = gpuos.slice %arg0 starts [0, 0, 0] sizes [1, 3, 256] steps [1, 1, 1] : !gpuos.tensor<4x3x256xf32>
      %6 = gpuos.reshape %5 to [3, 256] : !gpuos.tensor<1x3x256xf32>
      %7 = gpuos.slice %arg0 starts [1, 0, 0] sizes [1, 3, 256] steps [1, 1, 1] : !gpuos.tensor<4x3x256xf32>
      %8 = gpuos.reshape %7 to [3, 256] : !gpuos.tensor<1x3x256xf32>
      %9 = gpuos.add %6, %8 : !gpuos.tensor<3x256xf32>, !gpuos.tensor<3x256xf32>
      %10 = gpuos.slice %arg0 starts [2, 0, 0] sizes [1, 3, 256] steps [1, 1, 1] : !gpuos.tensor<4x3x256xf32>
      %11 = gpuos.reshape %10 to [3, 256] : !gpuos.tensor<1x3x256xf32>
      %12 = gpuos.slice %arg0 starts [3, 0, 0] sizes [1, 3, 256] steps [1, 1, 1] : !gpuos.tensor<4x3x256xf32>
      %13 = gpuos.reshape %12 to [3, 256] : !gpuos.tensor<1x3x256xf32>
      %14 = gpuos.add %11, %13 : !gpuos.tensor<3x256xf32>, !gpuos.tensor<3x256xf32>
      %15 = gpuos.add %9, %14 : !gpuos.tensor<3x256xf32>, !gpuos.tensor<3x256xf32>
      gpuos.yield %15 : !gpuos.tensor<3x256xf32>
    }
    gpuos.yield %3#0, %3#1, %4 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>, !gpuos.tensor<3x256xf32>
  }
}

