// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-horizontal))' | FileCheck %s
// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-horizontal{max-width=2}))' | FileCheck %s --check-prefix=WIDTH2
// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-reductions, gpuos-fuse-horizontal))' | FileCheck %s --check-prefix=CHAINS

// Independent elementwise ops of one shape, reading the same or different
// inputs, become one task with one result each.
// CHECK-LABEL: gpuos.graph @siblings
// CHECK: %[[T:.+]]:3 = gpuos.task "siblings_t0_tanh_exp_sqrt" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>, %[[Y:.+]] = %y : !gpuos.tensor<4x8xf32>) tile [4, 8]
// CHECK-NEXT: %[[A:.+]] = gpuos.tanh %[[X]]
// CHECK-NEXT: %[[B:.+]] = gpuos.exp %[[Y]]
// CHECK-NEXT: %[[C:.+]] = gpuos.sqrt %[[X]]
// CHECK-NEXT: gpuos.yield %[[A]], %[[B]], %[[C]]
// CHECK: gpuos.yield %[[T]]#0, %[[T]]#1, %[[T]]#2
gpuos.graph @siblings(%x : !gpuos.tensor<4x8xf32>, %y : !gpuos.tensor<4x8xf32>)
    -> (a : !gpuos.tensor<4x8xf32>, b : !gpuos.tensor<4x8xf32>, c : !gpuos.tensor<4x8xf32>) {
  %a = gpuos.tanh %x : !gpuos.tensor<4x8xf32>
  %b = gpuos.exp %y : !gpuos.tensor<4x8xf32>
  %c = gpuos.sqrt %x : !gpuos.tensor<4x8xf32>
  gpuos.yield %a, %b, %c : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
}

// max-width caps the units per task.
// WIDTH2-LABEL: gpuos.graph @siblings
// WIDTH2: gpuos.task "siblings_t0_tanh_exp"
// WIDTH2-NOT: gpuos.task
// WIDTH2: gpuos.sqrt %x
// WIDTH2: gpuos.yield

// Must not fuse: %b reads %a (a vertical edge, this pass's levels differ).
// CHECK-LABEL: gpuos.graph @dependent
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @dependent(%x : !gpuos.tensor<4x8xf32>) -> (a : !gpuos.tensor<4x8xf32>, b : !gpuos.tensor<4x8xf32>) {
  %a = gpuos.tanh %x : !gpuos.tensor<4x8xf32>
  %b = gpuos.exp %a : !gpuos.tensor<4x8xf32>
  gpuos.yield %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
}

// Norms over the last axis merge; the softmax over axis 0 needs whole
// columns, not whole rows, and stays apart.
// CHECK-LABEL: gpuos.graph @norms
// CHECK: %[[T:.+]]:2 = gpuos.task "norms_t0_rms_norm_layer_norm" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>, %[[W:.+]] = %w : !gpuos.tensor<8xf32>) tile [4, 8]
// CHECK-NEXT: gpuos.rms_norm %[[X]] weight(%[[W]]
// CHECK-NEXT: gpuos.layer_norm %[[X]]
// CHECK-NEXT: gpuos.yield
// CHECK: %[[S:.+]] = gpuos.softmax %x axis 0
// CHECK-NEXT: gpuos.yield %[[T]]#0, %[[T]]#1, %[[S]]
gpuos.graph @norms(%x : !gpuos.tensor<4x8xf32>, %w : !gpuos.tensor<8xf32>)
    -> (a : !gpuos.tensor<4x8xf32>, b : !gpuos.tensor<4x8xf32>, c : !gpuos.tensor<4x8xf32>) {
  %a = gpuos.rms_norm %x weight(%w : !gpuos.tensor<8xf32>) eps 1.0e-06 : !gpuos.tensor<4x8xf32>
  %b = gpuos.layer_norm %x eps 1.0e-05 : !gpuos.tensor<4x8xf32>
  %c = gpuos.softmax %x axis 0 : !gpuos.tensor<4x8xf32>
  gpuos.yield %a, %b, %c : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
}

// Must not fuse: different iteration spaces (4x8 and 8x4), and an
// elementwise op with a softmax (different unit classes).
// CHECK-LABEL: gpuos.graph @mixed_and_shapes
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @mixed_and_shapes(%x : !gpuos.tensor<4x8xf32>, %y : !gpuos.tensor<8x4xf32>)
    -> (a : !gpuos.tensor<4x8xf32>, b : !gpuos.tensor<8x4xf32>, c : !gpuos.tensor<4x8xf32>) {
  %a = gpuos.tanh %x : !gpuos.tensor<4x8xf32>
  %b = gpuos.exp %y : !gpuos.tensor<8x4xf32>
  %c = gpuos.softmax %x axis 1 : !gpuos.tensor<4x8xf32>
  gpuos.yield %a, %b, %c : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8x4xf32>, !gpuos.tensor<4x8xf32>
}

// Views count zero in the level: %c, behind two views of an input, starts
// with %a, not with %b, which waits for %a.
// CHECK-LABEL: gpuos.graph @levels
// CHECK: %[[T:.+]]:2 = gpuos.task "levels_t0_tanh_neg" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>, %[[Y:.+]] = %y : !gpuos.tensor<8x4xf32>)
// CHECK-NEXT: %[[A:.+]] = gpuos.tanh %[[X]]
// CHECK-NEXT: %[[V:.+]] = gpuos.transpose %[[Y]] [1, 0]
// CHECK-NEXT: %[[S:.+]] = gpuos.slice %[[V]]
// CHECK-NEXT: %[[C:.+]] = gpuos.neg %[[S]]
// CHECK-NEXT: gpuos.yield %[[A]], %[[C]]
// CHECK: %[[B:.+]] = gpuos.exp %[[T]]#0
// CHECK-NEXT: gpuos.yield %[[B]], %[[T]]#1
gpuos.graph @levels(%x : !gpuos.tensor<4x8xf32>, %y : !gpuos.tensor<8x4xf32>) -> (b : !gpuos.tensor<4x8xf32>, c : !gpuos.tensor<4x8xf32>) {
  %a = gpuos.tanh %x : !gpuos.tensor<4x8xf32>
  %t = gpuos.transpose %y [1, 0] : !gpuos.tensor<8x4xf32>
  %s = gpuos.slice %t starts [0, 0] sizes [4, 8] steps [1, 1] : !gpuos.tensor<4x8xf32, strides = [1, 4]>
  %b = gpuos.exp %a : !gpuos.tensor<4x8xf32>
  %c = gpuos.neg %s : !gpuos.tensor<4x8xf32, strides = [1, 4]>
  gpuos.yield %b, %c : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
}

// Must not fuse: tasks with different priorities. The two urgent ones merge
// and keep their priority.
// CHECK-LABEL: gpuos.graph @priorities
// CHECK: gpuos.task "priorities_t0_exp_neg" ins({{.+}}) tile [4] priority #gpuos.priority<urgent>
// CHECK-NOT: gpuos.task "priorities_t
// CHECK: gpuos.task "background_abs" {{.+}} priority #gpuos.priority<background>
gpuos.graph @priorities(%x : !gpuos.tensor<4xf32>)
    -> (a : !gpuos.tensor<4xf32>, b : !gpuos.tensor<4xf32>, c : !gpuos.tensor<4xf32>) {
  %a = gpuos.task "urgent_exp" ins(%p = %x : !gpuos.tensor<4xf32>) tile [4] priority #gpuos.priority<urgent> -> (!gpuos.tensor<4xf32>) {
    %e = gpuos.exp %p : !gpuos.tensor<4xf32>
    gpuos.yield %e : !gpuos.tensor<4xf32>
  }
  %b = gpuos.task "urgent_neg" ins(%p = %x : !gpuos.tensor<4xf32>) tile [4] priority #gpuos.priority<urgent> -> (!gpuos.tensor<4xf32>) {
    %e = gpuos.neg %p : !gpuos.tensor<4xf32>
    gpuos.yield %e : !gpuos.tensor<4xf32>
  }
  %c = gpuos.task "background_abs" ins(%p = %x : !gpuos.tensor<4xf32>) tile [4] priority #gpuos.priority<background> -> (!gpuos.tensor<4xf32>) {
    %e = gpuos.abs %p : !gpuos.tensor<4xf32>
    gpuos.yield %e : !gpuos.tensor<4xf32>
  }
  gpuos.yield %a, %b, %c : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
}

// Row chains side by side count together against the row-chain cap
// (docs/passes.md, "gpuos-fuse-reductions"): two chains of 16 norms over
// rows of 64 become one task of 32; two of 20 stay two tasks, not one of 40.
// CHAINS-LABEL: gpuos.graph @row_chains_within_cap
// CHAINS: gpuos.task
// CHAINS-COUNT-32: gpuos.rms_norm
// CHAINS-NEXT: gpuos.yield
// CHAINS-NOT: gpuos.task
// CHAINS-LABEL: gpuos.graph @row_chains_over_cap
// CHAINS: gpuos.task
// CHAINS-COUNT-20: gpuos.rms_norm
// CHAINS-NEXT: gpuos.yield
// CHAINS: gpuos.task
// CHAINS-COUNT-20: gpuos.rms_norm
// CHAINS-NEXT: gpuos.yield
gpuos.graph @row_chains_within_cap(%x : !gpuos.tensor<4x64xf32>, %y : !gpuos.tensor<4x64xf32>) -> (a : !gpuos.tensor<4x64xf32>, b : !gpuos.tensor<4x64xf32>) {
  %x0 = gpuos.rms_norm %x eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x1 = gpuos.rms_norm %x0 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x2 = gpuos.rms_norm %x1 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x3 = gpuos.rms_norm %x2 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x4 = gpuos.rms_norm %x3 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x5 = gpuos.rms_norm %x4 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x6 = gpuos.rms_norm %x5 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x7 = gpuos.rms_norm %x6 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x8 = gpuos.rms_norm %x7 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x9 = gpuos.rms_norm %x8 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x10 = gpuos.rms_norm %x9 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x11 = gpuos.rms_norm %x10 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x12 = gpuos.rms_norm %x11 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x13 = gpuos.rms_norm %x12 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x14 = gpuos.rms_norm %x13 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x15 = gpuos.rms_norm %x14 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y0 = gpuos.rms_norm %y eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y1 = gpuos.rms_norm %y0 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y2 = gpuos.rms_norm %y1 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y3 = gpuos.rms_norm %y2 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y4 = gpuos.rms_norm %y3 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y5 = gpuos.rms_norm %y4 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y6 = gpuos.rms_norm %y5 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y7 = gpuos.rms_norm %y6 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y8 = gpuos.rms_norm %y7 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y9 = gpuos.rms_norm %y8 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y10 = gpuos.rms_norm %y9 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y11 = gpuos.rms_norm %y10 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y12 = gpuos.rms_norm %y11 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y13 = gpuos.rms_norm %y12 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y14 = gpuos.rms_norm %y13 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y15 = gpuos.rms_norm %y14 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  gpuos.yield %x15, %y15 : !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>
}

gpuos.graph @row_chains_over_cap(%x : !gpuos.tensor<4x64xf32>, %y : !gpuos.tensor<4x64xf32>) -> (a : !gpuos.tensor<4x64xf32>, b : !gpuos.tensor<4x64xf32>) {
  %x0 = gpuos.rms_norm %x eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x1 = gpuos.rms_norm %x0 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x2 = gpuos.rms_norm %x1 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x3 = gpuos.rms_norm %x2 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x4 = gpuos.rms_norm %x3 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x5 = gpuos.rms_norm %x4 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x6 = gpuos.rms_norm %x5 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x7 = gpuos.rms_norm %x6 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x8 = gpuos.rms_norm %x7 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x9 = gpuos.rms_norm %x8 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x10 = gpuos.rms_norm %x9 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x11 = gpuos.rms_norm %x10 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x12 = gpuos.rms_norm %x11 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x13 = gpuos.rms_norm %x12 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x14 = gpuos.rms_norm %x13 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x15 = gpuos.rms_norm %x14 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x16 = gpuos.rms_norm %x15 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x17 = gpuos.rms_norm %x16 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x18 = gpuos.rms_norm %x17 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %x19 = gpuos.rms_norm %x18 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y0 = gpuos.rms_norm %y eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y1 = gpuos.rms_norm %y0 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y2 = gpuos.rms_norm %y1 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y3 = gpuos.rms_norm %y2 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y4 = gpuos.rms_norm %y3 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y5 = gpuos.rms_norm %y4 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y6 = gpuos.rms_norm %y5 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y7 = gpuos.rms_norm %y6 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y8 = gpuos.rms_norm %y7 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y9 = gpuos.rms_norm %y8 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y10 = gpuos.rms_norm %y9 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y11 = gpuos.rms_norm %y10 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y12 = gpuos.rms_norm %y11 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y13 = gpuos.rms_norm %y12 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y14 = gpuos.rms_norm %y13 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y15 = gpuos.rms_norm %y14 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y16 = gpuos.rms_norm %y15 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y17 = gpuos.rms_norm %y16 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y18 = gpuos.rms_norm %y17 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %y19 = gpuos.rms_norm %y18 eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  gpuos.yield %x19, %y19 : !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>
}
