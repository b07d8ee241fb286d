// RUN: gpuos-opt %s --gpuos-pipeline | FileCheck %s
// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos-pipeline)' | FileCheck %s
// After the pipeline a graph body holds only tasks and the yield: no line
// at the body's indentation defines anything but a task.
// RUN: gpuos-opt %s --gpuos-pipeline | grep -E '^    %' | not grep -v ' = gpuos.task '
// Running the pipeline again changes nothing.
// RUN: gpuos-opt %s --gpuos-pipeline > %t.once
// RUN: gpuos-opt %t.once --gpuos-pipeline > %t.twice
// RUN: diff %t.once %t.twice
// The interpreter gives the same outputs, to the printed digit, before and
// after.
// RUN: gpuos-interp %s --seed=11 --print-values=64 > %t.before
// RUN: gpuos-opt %s --gpuos-pipeline | gpuos-interp --seed=11 --print-values=64 > %t.after
// RUN: diff %t.before %t.after

// A norm, two micro-batches through one weight, a concat, a bias + silu +
// residual chain and a softmax. Canonicalize drops the identity transpose;
// the slices go into the matmul task; the concat (an index map of two
// inputs) goes into the task that reads it, where the bias add, silu and
// residual add fuse; every task takes the graph's priority and the body
// runs longest path first.
// CHECK-LABEL: gpuos.graph @block
// CHECK-NEXT: %[[N:.+]] = gpuos.task "block_t2_rms_norm" ins({{.+}}) tile [4, 64] priority #gpuos.priority<urgent> -> (!gpuos.tensor<8x64xf32>) attributes {gpuos.critical_path = 34816 : i64}
// CHECK: %[[M:.+]]:2 = gpuos.task "block_t1_matmul" ins(%[[NA:.+]] = %[[N]] : !gpuos.tensor<8x64xf32>, %[[W:.+]] = %w : !gpuos.tensor<64x64xf32>) tile [4, 8] priority #gpuos.priority<urgent>
// CHECK-NEXT: %[[S0:.+]] = gpuos.slice %[[NA]] starts [0, 0]
// CHECK-NEXT: gpuos.matmul %[[S0]], %[[W]]
// CHECK-NEXT: %[[S1:.+]] = gpuos.slice %[[NA]] starts [4, 0]
// CHECK-NEXT: gpuos.matmul %[[S1]], %[[W]]
// CHECK: %[[Y:.+]] = gpuos.task "block_t0_add_silu" ins(%[[A0:.+]] = %[[M]]#0 : !gpuos.tensor<4x64xf32>, %[[A1:.+]] = %[[M]]#1 : !gpuos.tensor<4x64xf32>, %{{.+}} = %b : !gpuos.tensor<64xf32>, %{{.+}} = %x : !gpuos.tensor<8x64xf32>)
// CHECK-NEXT: gpuos.concat %[[A0]], %[[A1]] axis 0
// CHECK-NEXT: gpuos.add
// CHECK-NEXT: gpuos.silu
// CHECK-NEXT: gpuos.add
// CHECK: %[[P:.+]] = gpuos.task "block_t3_softmax" ins(%{{.+}} = %[[M]]#1 : !gpuos.tensor<4x64xf32>)
// CHECK: gpuos.yield %[[Y]], %[[P]]
// CHECK-NOT: gpuos.transpose
gpuos.graph @block(%x : !gpuos.tensor<8x64xf32>, %g : !gpuos.tensor<64xf32>, %w : !gpuos.tensor<64x64xf32>, %b : !gpuos.tensor<64xf32>)
    -> (y : !gpuos.tensor<8x64xf32>, p : !gpuos.tensor<4x64xf32>) priority #gpuos.priority<urgent> {
  %n = gpuos.rms_norm %x weight(%g : !gpuos.tensor<64xf32>) eps 1.0e-06 : !gpuos.tensor<8x64xf32>
  %n0 = gpuos.slice %n starts [0, 0] sizes [4, 64] steps [1, 1] : !gpuos.tensor<8x64xf32>
  %n1 = gpuos.slice %n starts [4, 0] sizes [4, 64] steps [1, 1] : !gpuos.tensor<8x64xf32>
  %m0 = gpuos.matmul %n0, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x64xf32>
  %m1 = gpuos.matmul %n1, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x64xf32>
  %c = gpuos.concat %m0, %m1 axis 0 : !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>
  %t = gpuos.transpose %c [0, 1] : !gpuos.tensor<8x64xf32>
  %a = gpuos.add %t, %b : !gpuos.tensor<8x64xf32>, !gpuos.tensor<64xf32>
  %s = gpuos.silu %a : !gpuos.tensor<8x64xf32>
  %y = gpuos.add %s, %x : !gpuos.tensor<8x64xf32>, !gpuos.tensor<8x64xf32>
  %p = gpuos.softmax %m1 axis 1 : !gpuos.tensor<4x64xf32>
  gpuos.yield %y, %p : !gpuos.tensor<8x64xf32>, !gpuos.tensor<4x64xf32>
}
