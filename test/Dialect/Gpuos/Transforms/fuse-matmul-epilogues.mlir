// RUN: gpuos-opt %s --split-input-file --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-matmul-epilogues))' | FileCheck %s
// RUN: gpuos-opt %s --split-input-file --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-shared-weights, gpuos-fuse-matmul-epilogues))' | FileCheck %s --check-prefix=SHARED

// Bias and activation after a matvec: one task; the product is not a
// result (only the epilogue reads it), the bias is an input broadcast in.
// CHECK-LABEL: gpuos.graph @bias_gelu
// CHECK: %[[T:.+]] = gpuos.task "bias_gelu_t0_matmul_add_gelu" ins(%[[X:.+]] = %x : !gpuos.tensor<1x64xf32>, %[[W:.+]] = %w : !gpuos.tensor<64x128xf32>, %[[B:.+]] = %b : !gpuos.tensor<128xf32>) tile [1, 16] -> (!gpuos.tensor<1x128xf32>)
// CHECK-NEXT: %[[P:.+]] = gpuos.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[A:.+]] = gpuos.add %[[P]], %[[B]]
// CHECK-NEXT: %[[G:.+]] = gpuos.gelu %[[A]]
// CHECK-NEXT: gpuos.yield %[[G]]
// CHECK: gpuos.yield %[[T]]
gpuos.graph @bias_gelu(%x : !gpuos.tensor<1x64xf32>, %w : !gpuos.tensor<64x128xf32>, %b : !gpuos.tensor<128xf32>)
    -> (y : !gpuos.tensor<1x128xf32>) {
  %p = gpuos.matmul %x, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x128xf32>
  %a = gpuos.add %p, %b : !gpuos.tensor<1x128xf32>, !gpuos.tensor<128xf32>
  %g = gpuos.gelu %a : !gpuos.tensor<1x128xf32>
  gpuos.yield %g : !gpuos.tensor<1x128xf32>
}

// -----

// A residual that the matmul already depends on (here through its lhs)
// joins: the task waits for nothing new. The product, also a graph output,
// stays a result.
// CHECK-LABEL: gpuos.graph @residual
// CHECK: %[[H:.+]] = gpuos.tanh %x
// CHECK: %[[T:.+]]:2 = gpuos.task "residual_t0_matmul_add" ins(%[[A:.+]] = %[[H]] : !gpuos.tensor<1x64xf32>, %[[W:.+]] = %w : !gpuos.tensor<64x64xf32>)
// CHECK-NEXT: %[[P:.+]] = gpuos.matmul %[[A]], %[[W]]
// CHECK-NEXT: %[[S:.+]] = gpuos.add %[[A]], %[[P]]
// CHECK-NEXT: gpuos.yield %[[P]], %[[S]]
// CHECK: gpuos.yield %[[T]]#1, %[[T]]#0
gpuos.graph @residual(%x : !gpuos.tensor<1x64xf32>, %w : !gpuos.tensor<64x64xf32>)
    -> (y : !gpuos.tensor<1x64xf32>, p : !gpuos.tensor<1x64xf32>) {
  %h = gpuos.tanh %x : !gpuos.tensor<1x64xf32>
  %p = gpuos.matmul %h, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  %s = gpuos.add %h, %p : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
  gpuos.yield %s, %p : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
}

// -----

// silu(gate) * up: silu reads only gate and joins it; the mul would make
// either product wait for the other, independent one, and stays out.
// CHECK-LABEL: gpuos.graph @gated
// CHECK: %[[U:.+]] = gpuos.matmul %x, %wu
// CHECK: %[[G:.+]] = gpuos.task "gated_t0_matmul_silu" ins({{.+}} = %x : {{.+}}, {{.+}} = %wg : {{.+}})
// CHECK-NEXT: gpuos.matmul
// CHECK-NEXT: gpuos.silu
// CHECK-NEXT: gpuos.yield
// CHECK: gpuos.mul %[[G]], %[[U]]
gpuos.graph @gated(%x : !gpuos.tensor<1x64xf32>, %wg : !gpuos.tensor<64x256xf32>, %wu : !gpuos.tensor<64x256xf32>)
    -> (y : !gpuos.tensor<1x256xf32>) {
  %g = gpuos.matmul %x, %wg : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x256xf32>
  %u = gpuos.matmul %x, %wu : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x256xf32>
  %s = gpuos.silu %g : !gpuos.tensor<1x256xf32>
  %y = gpuos.mul %s, %u : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
  gpuos.yield %y : !gpuos.tensor<1x256xf32>
}

// -----

// Not an epilogue: a consumer over a larger shape (the product broadcast),
// and one that reads the product through a view (it would need the
// product at other indices than the tile's).
// CHECK-LABEL: gpuos.graph @not_epilogues
// CHECK-NOT: gpuos.task
// CHECK: gpuos.exp
gpuos.graph @not_epilogues(%x : !gpuos.tensor<1x64xf32>, %w : !gpuos.tensor<64x64xf32>, %big : !gpuos.tensor<4x64xf32>)
    -> (y : !gpuos.tensor<4x64xf32>, z : !gpuos.tensor<64x1xf32>) {
  %p = gpuos.matmul %x, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  %y = gpuos.add %p, %big : !gpuos.tensor<1x64xf32>, !gpuos.tensor<4x64xf32>
  %t = gpuos.transpose %p [1, 0] : !gpuos.tensor<1x64xf32>
  %z = gpuos.exp %t : !gpuos.tensor<64x1xf32, strides = [1, 64]>
  gpuos.yield %y, %z : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x1xf32>
}

// -----

// Micro-batches through one weight, each with its bias: the shared-weight
// task takes every epilogue; its results are the epilogues'.
// SHARED-LABEL: gpuos.graph @micro_bias
// SHARED: %[[T:.+]]:2 = gpuos.task "micro_bias_t1_matmul_add" {{.+}} -> (!gpuos.tensor<4x128xf32>, !gpuos.tensor<4x128xf32>)
// SHARED-COUNT-2: gpuos.matmul
// SHARED-COUNT-2: gpuos.add
// SHARED-NEXT: gpuos.yield
// SHARED-NOT: gpuos.task
// SHARED: gpuos.yield %[[T]]#0, %[[T]]#1
gpuos.graph @micro_bias(%x0 : !gpuos.tensor<4x64xf32>, %x1 : !gpuos.tensor<4x64xf32>,
                        %w : !gpuos.tensor<64x128xf32>, %b : !gpuos.tensor<128xf32>)
    -> (y0 : !gpuos.tensor<4x128xf32>, y1 : !gpuos.tensor<4x128xf32>) {
  %p0 = gpuos.matmul %x0, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x128xf32>
  %p1 = gpuos.matmul %x1, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x128xf32>
  %y0 = gpuos.add %p0, %b : !gpuos.tensor<4x128xf32>, !gpuos.tensor<128xf32>
  %y1 = gpuos.add %p1, %b : !gpuos.tensor<4x128xf32>, !gpuos.tensor<128xf32>
  gpuos.yield %y0, %y1 : !gpuos.tensor<4x128xf32>, !gpuos.tensor<4x128xf32>
}

// -----

// Other operands: a value computed independently of the matmul stays out
// (the task would wait for it); a constant, and a view of a graph input,
// are ready at once and join with the epilogue.
// CHECK-LABEL: gpuos.graph @other_operands
// CHECK: %[[I:.+]] = gpuos.tanh %y
// CHECK: %[[P:.+]] = gpuos.matmul %x, %w
// CHECK: gpuos.add %[[P]], %[[I]]
// CHECK: gpuos.task "other_operands_t0_matmul_mul" ins({{.+}} = %x : {{.+}}, {{.+}} = %w : {{.+}}, {{.+}} = %v : !gpuos.tensor<64x1xf32>)
// CHECK-NEXT: gpuos.matmul
// CHECK-NEXT: gpuos.constant
// CHECK-NEXT: gpuos.mul
// CHECK-NEXT: gpuos.transpose
// CHECK-NEXT: gpuos.mul
// CHECK-NEXT: gpuos.yield
gpuos.graph @other_operands(%x : !gpuos.tensor<1x64xf32>, %w : !gpuos.tensor<64x64xf32>,
                            %y : !gpuos.tensor<1x64xf32>, %v : !gpuos.tensor<64x1xf32>)
    -> (a : !gpuos.tensor<1x64xf32>, b : !gpuos.tensor<1x64xf32>) {
  %i = gpuos.tanh %y : !gpuos.tensor<1x64xf32>
  %p = gpuos.matmul %x, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  %a = gpuos.add %p, %i : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
  %q = gpuos.matmul %x, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  %c = gpuos.constant dense<0.5> : tensor<f32>
  %vt = gpuos.transpose %v [1, 0] : !gpuos.tensor<64x1xf32>
  %s = gpuos.mul %q, %c : !gpuos.tensor<1x64xf32>, !gpuos.tensor<f32>
  %b = gpuos.mul %s, %vt : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32, strides = [1, 1]>
  gpuos.yield %a, %b : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
}

// -----

// A product of a product: the epilogue reading both joins the second
// matmul (the first is its ancestor), not the first.
// CHECK-LABEL: gpuos.graph @two_levels
// CHECK: %[[P1:.+]] = gpuos.matmul %x, %w
// CHECK: gpuos.task "two_levels_t0_matmul_add" ins(%[[A:.+]] = %[[P1]] : {{.+}}, %{{.+}} = %w : {{.+}})
// CHECK-NEXT: %[[P2:.+]] = gpuos.matmul %[[A]]
// CHECK-NEXT: gpuos.add %[[A]], %[[P2]]
gpuos.graph @two_levels(%x : !gpuos.tensor<1x64xf32>, %w : !gpuos.tensor<64x64xf32>)
    -> (y : !gpuos.tensor<1x64xf32>) {
  %p1 = gpuos.matmul %x, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  %p2 = gpuos.matmul %p1, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  %y = gpuos.add %p1, %p2 : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
  gpuos.yield %y : !gpuos.tensor<1x64xf32>
}

// -----

// Tasks as units: an elementwise task (as gpuos-fuse-elementwise leaves
// one) joins a matmul; a task of another priority does not.
// CHECK-LABEL: gpuos.graph @task_units
// CHECK: %[[T:.+]]:2 = gpuos.task "task_units_t0_matmul_add_tanh" {{.+}} priority #gpuos.priority<urgent>
// CHECK: gpuos.task "bg" ins({{.+}} = %[[T]]#0 : {{.+}}) {{.+}} priority #gpuos.priority<background>
gpuos.graph @task_units(%x : !gpuos.tensor<1x64xf32>, %w : !gpuos.tensor<64x64xf32>, %b : !gpuos.tensor<64xf32>)
    -> (y : !gpuos.tensor<1x64xf32>, z : !gpuos.tensor<1x64xf32>) {
  %p = gpuos.task "mm" ins(%a = %x : !gpuos.tensor<1x64xf32>, %c = %w : !gpuos.tensor<64x64xf32>) tile [1, 16]
      priority #gpuos.priority<urgent> -> (!gpuos.tensor<1x64xf32>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
    gpuos.yield %0 : !gpuos.tensor<1x64xf32>
  }
  %y = gpuos.task "ep" ins(%a = %p : !gpuos.tensor<1x64xf32>, %c = %b : !gpuos.tensor<64xf32>) tile [1, 64]
      priority #gpuos.priority<urgent> -> (!gpuos.tensor<1x64xf32>) {
    %0 = gpuos.add %a, %c : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64xf32>
    %1 = gpuos.tanh %0 : !gpuos.tensor<1x64xf32>
    gpuos.yield %1 : !gpuos.tensor<1x64xf32>
  }
  %z = gpuos.task "bg" ins(%a = %p : !gpuos.tensor<1x64xf32>) tile [1, 64]
      priority #gpuos.priority<background> -> (!gpuos.tensor<1x64xf32>) {
    %0 = gpuos.exp %a : !gpuos.tensor<1x64xf32>
    gpuos.yield %0 : !gpuos.tensor<1x64xf32>
  }
  gpuos.yield %y, %z : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
}
