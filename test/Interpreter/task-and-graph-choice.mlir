// RUN: gpuos-interp %s | FileCheck %s --check-prefix=FIRST
// RUN: gpuos-interp %s --graph=tasks --print-values=3 | FileCheck %s --check-prefix=TASKS

gpuos.graph @first() -> (y : !gpuos.tensor<2xi32>) {
  %a = gpuos.constant dense<[2147483647, -5]> : tensor<2xi32>
  %b = gpuos.constant dense<1> : tensor<2xi32>
  %y = gpuos.add %a, %b : !gpuos.tensor<2xi32>, !gpuos.tensor<2xi32>
  gpuos.yield %y : !gpuos.tensor<2xi32>
}

// Without --graph the first graph runs; i32 overflow wraps.
// FIRST:      graph @first seed 0
// FIRST:        values: -2147483648 -4

// The graph body uses the task's result before the task: graph regions
// allow any order. The task body computes relu(a - c) with c broadcast.
gpuos.graph @tasks() -> (z : !gpuos.tensor<3xf32>, r : !gpuos.tensor<2x3xf32>) {
  %z = gpuos.reduce sum %r axes [0] : !gpuos.tensor<2x3xf32>
  %x = gpuos.constant dense<[[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]]> : tensor<2x3xf32>
  %c = gpuos.constant dense<[0.5, 0.5, 1.0]> : tensor<3xf32>
  %r = gpuos.task "fused_sub_relu" ins(%a = %x : !gpuos.tensor<2x3xf32>, %d = %c : !gpuos.tensor<3xf32>)
      tile [1, 3] -> (!gpuos.tensor<2x3xf32>) {
    %s = gpuos.sub %a, %d : !gpuos.tensor<2x3xf32>, !gpuos.tensor<3xf32>
    %t = gpuos.relu %s : !gpuos.tensor<2x3xf32>
    gpuos.yield %t : !gpuos.tensor<2x3xf32>
  }
  gpuos.yield %z, %r : !gpuos.tensor<3xf32>, !gpuos.tensor<2x3xf32>
}

// TASKS:      graph @tasks seed 0
// TASKS-NEXT: output z : !gpuos.tensor<3xf32>
// TASKS-NEXT:   min 0 max 4 mean 2 sum 6
// TASKS-NEXT:   values: 4 0 2
// TASKS-NEXT: output r : !gpuos.tensor<2x3xf32>
// TASKS-NEXT:   min 0 max 3.5 mean 1 sum 6
// TASKS-NEXT:   values: 0.5 0 2 ...
