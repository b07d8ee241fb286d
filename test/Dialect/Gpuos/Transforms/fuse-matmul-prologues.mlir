// RUN: gpuos-opt %s --split-input-file --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-elementwise, gpuos-fuse-matmul-epilogues, gpuos-fuse-matmul-prologues))' | FileCheck %s
// RUN: gpuos-opt %s --split-input-file --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-elementwise, gpuos-fuse-shared-weights, gpuos-fuse-matmul-epilogues, gpuos-fuse-matmul-prologues))' | FileCheck %s --check-prefix=SHARED
// RUN: gpuos-opt %s --split-input-file --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-elementwise, gpuos-fuse-reductions, gpuos-fuse-matmul-epilogues, gpuos-fuse-matmul-prologues{norms=true}))' | FileCheck %s --check-prefix=ROW
// RUN: gpuos-opt %s --split-input-file --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-elementwise, gpuos-fuse-reductions, gpuos-fuse-matmul-epilogues, gpuos-fuse-matmul-prologues))' | FileCheck %s --check-prefix=DEFAULT

// silu(gate) * up, read only as the down projection's lhs, joins it (and
// its residual epilogue): one task, the gated product is not a result.
// CHECK-LABEL: gpuos.graph @gated_down
// CHECK: %[[G:.+]] = gpuos.matmul %x, %wg
// CHECK: %[[U:.+]] = gpuos.matmul %x, %wu
// CHECK: %[[T:.+]] = gpuos.task "gated_down_t{{[0-9]+}}_silu_mul_matmul_add" ins(%[[A:.+]] = %[[G]] : !gpuos.tensor<1x256xf32>, %[[B:.+]] = %[[U]] : !gpuos.tensor<1x256xf32>, %[[W:.+]] = %wd : !gpuos.tensor<256x64xf32>, %[[R:.+]] = %r : !gpuos.tensor<1x64xf32>) tile [1, 16] -> (!gpuos.tensor<1x64xf32>)
// CHECK-NEXT: %[[S:.+]] = gpuos.silu %[[A]]
// CHECK-NEXT: %[[M:.+]] = gpuos.mul %[[S]], %[[B]]
// CHECK-NEXT: %[[P:.+]] = gpuos.matmul %[[M]], %[[W]]
// CHECK-NEXT: %[[Y:.+]] = gpuos.add %[[P]], %[[R]]
// CHECK-NEXT: gpuos.yield %[[Y]]
// CHECK: gpuos.yield %[[T]]
gpuos.graph @gated_down(%x : !gpuos.tensor<1x64xf32>, %wg : !gpuos.tensor<64x256xf32>,
                        %wu : !gpuos.tensor<64x256xf32>, %wd : !gpuos.tensor<256x64xf32>,
                        %r : !gpuos.tensor<1x64xf32>)
    -> (y : !gpuos.tensor<1x64xf32>) {
  %g = gpuos.matmul %x, %wg : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x256xf32>
  %u = gpuos.matmul %x, %wu : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x256xf32>
  %s = gpuos.silu %g : !gpuos.tensor<1x256xf32>
  %h = gpuos.mul %s, %u : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
  %p = gpuos.matmul %h, %wd : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x64xf32>
  %y = gpuos.add %p, %r : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
  gpuos.yield %y : !gpuos.tensor<1x64xf32>
}

// -----

// None join. The scaled input is also a graph output; the tanh is read by
// two matmuls; the negation is the rhs; the relu feeds a matmul of 32 rows
// (not small-M); the exp over 1x70000 is more work than a tile's budget.
// CHECK-LABEL: gpuos.graph @kept_apart
// CHECK: gpuos.mul %x, %c
// CHECK: gpuos.tanh %x
// CHECK: gpuos.neg %w
// CHECK: gpuos.relu %z
// CHECK: gpuos.exp %e
// CHECK-NOT: gpuos.task
gpuos.graph @kept_apart(%x : !gpuos.tensor<1x64xf32>, %c : !gpuos.tensor<1x64xf32>,
                        %w : !gpuos.tensor<64x64xf32>, %z : !gpuos.tensor<32x64xf32>,
                        %e : !gpuos.tensor<1x70000xf32>, %we : !gpuos.tensor<70000x16xf32>)
    -> (s : !gpuos.tensor<1x64xf32>, ps : !gpuos.tensor<1x64xf32>, a : !gpuos.tensor<1x64xf32>,
        b : !gpuos.tensor<1x64xf32>, n : !gpuos.tensor<1x64xf32>, l : !gpuos.tensor<32x64xf32>,
        q : !gpuos.tensor<1x16xf32>) {
  %s = gpuos.mul %x, %c : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
  %ps = gpuos.matmul %s, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  %t = gpuos.tanh %x : !gpuos.tensor<1x64xf32>
  %a = gpuos.matmul %t, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  %b = gpuos.matmul %t, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  %nw = gpuos.neg %w : !gpuos.tensor<64x64xf32>
  %n = gpuos.matmul %x, %nw : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  %rz = gpuos.relu %z : !gpuos.tensor<32x64xf32>
  %l = gpuos.matmul %rz, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %ee = gpuos.exp %e : !gpuos.tensor<1x70000xf32>
  %q = gpuos.matmul %ee, %we : !gpuos.tensor<1x70000xf32>, !gpuos.tensor<70000x16xf32>
  gpuos.yield %s, %ps, %a, %b, %n, %l, %q : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>,
      !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>, !gpuos.tensor<32x64xf32>,
      !gpuos.tensor<1x16xf32>
}

// -----

// Different priorities: the background scale stays out of the urgent
// matvec.
// CHECK-LABEL: gpuos.graph @priorities
// CHECK: gpuos.task "scale" {{.+}} priority #gpuos.priority<background>
// CHECK-NEXT: gpuos.neg
// CHECK-NOT: _neg_matmul
// CHECK: gpuos.matmul
gpuos.graph @priorities(%x : !gpuos.tensor<1x64xf32>, %w : !gpuos.tensor<64x64xf32>)
    -> (y : !gpuos.tensor<1x64xf32>) priority #gpuos.priority<urgent> {
  %s = gpuos.task "scale" ins(%a = %x : !gpuos.tensor<1x64xf32>) tile [1, 64]
      priority #gpuos.priority<background> -> (!gpuos.tensor<1x64xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<1x64xf32>
    gpuos.yield %0 : !gpuos.tensor<1x64xf32>
  }
  %y = gpuos.matmul %s, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x64xf32>
  gpuos.yield %y : !gpuos.tensor<1x64xf32>
}

// -----

// Matmuls the lowering would not stage an lhs for keep their producer
// apart: an lhs of 1 x 11008 f32 (43 KiB; a Llama down projection), an
// odd N (column groups wider than a warp), f64 operands.
// CHECK-LABEL: gpuos.graph @unstaged
// CHECK-NOT: gpuos.task
// CHECK: gpuos.mul %g, %u
// CHECK: gpuos.silu %o
// CHECK: gpuos.silu %d
gpuos.graph @unstaged(%g : !gpuos.tensor<1x11008xf32>, %u : !gpuos.tensor<1x11008xf32>,
                      %w : !gpuos.tensor<11008x64xf32>, %o : !gpuos.tensor<1x64xf32>,
                      %wo : !gpuos.tensor<64x4001xf32>, %d : !gpuos.tensor<1x64xf64>,
                      %wd : !gpuos.tensor<64x64xf64>)
    -> (y : !gpuos.tensor<1x64xf32>, z : !gpuos.tensor<1x4001xf32>, q : !gpuos.tensor<1x64xf64>) {
  %h = gpuos.mul %g, %u : !gpuos.tensor<1x11008xf32>, !gpuos.tensor<1x11008xf32>
  %y = gpuos.matmul %h, %w : !gpuos.tensor<1x11008xf32>, !gpuos.tensor<11008x64xf32>
  %s = gpuos.silu %o : !gpuos.tensor<1x64xf32>
  %z = gpuos.matmul %s, %wo : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x4001xf32>
  %t = gpuos.silu %d : !gpuos.tensor<1x64xf64>
  %q = gpuos.matmul %t, %wd : !gpuos.tensor<1x64xf64>, !gpuos.tensor<64x64xf64>
  gpuos.yield %y, %z, %q : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x4001xf32>, !gpuos.tensor<1x64xf64>
}

// -----

// Two micro-batches through one weight (one task of two matmuls): their
// partials (up to 8 KiB each) and the first staged lhs (4 x 1024 f32, 16
// KiB) fill the lowering's 32 KiB, so only the first silu joins.
// SHARED-LABEL: gpuos.graph @budget
// SHARED: %[[SB:.+]] = gpuos.silu %b
// SHARED: gpuos.task "budget_t{{[0-9]+}}_silu_matmul" ins(%{{.+}} = %a : {{.+}}, %{{.+}} = %w : {{.+}}, %{{.+}} = %[[SB]] : {{.+}})
// SHARED-NEXT: gpuos.silu
// SHARED-NEXT: gpuos.matmul
// SHARED-NEXT: gpuos.matmul
gpuos.graph @budget(%a : !gpuos.tensor<4x1024xf32>, %b : !gpuos.tensor<4x1024xf32>, %w : !gpuos.tensor<1024x64xf32>)
    -> (ya : !gpuos.tensor<4x64xf32>, yb : !gpuos.tensor<4x64xf32>) {
  %sa = gpuos.silu %a : !gpuos.tensor<4x1024xf32>
  %sb = gpuos.silu %b : !gpuos.tensor<4x1024xf32>
  %ya = gpuos.matmul %sa, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x64xf32>
  %yb = gpuos.matmul %sb, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x64xf32>
  gpuos.yield %ya, %yb : !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>
}

// -----

// Row ops along K (softmax over the last axis; norms with `norms`), with
// the prologue gpuos-fuse-reductions gave them, join a small-M matmul that
// reads them directly as its lhs: the lowering stages their rows and folds each
// row's statistics in every tile (docs/codegen.md, "Small-M matmul").
// Decode's attention: the scaled scores' softmax is P for P x V.
// DEFAULT-LABEL: gpuos.graph @attention_pv
// DEFAULT: gpuos.task "attention_pv_t{{[0-9]+}}_mul_softmax_matmul"
// DEFAULT: gpuos.task "attention_pv_t{{[0-9]+}}_softmax_matmul"
// ROW-LABEL: gpuos.graph @attention_pv
// ROW: %[[T:.+]] = gpuos.task "attention_pv_t{{[0-9]+}}_mul_softmax_matmul" ins({{.*}}%s : !gpuos.tensor<8x1x129xf32>{{.*}}%v : !gpuos.tensor<8x129x128xf32>) tile [1, 1, 16] -> (!gpuos.tensor<8x1x128xf32>)
// ROW: gpuos.mul
// ROW-NEXT: gpuos.softmax
// ROW-NEXT: gpuos.matmul
// ROW-NEXT: gpuos.yield
// A plain softmax (no prologue) joins the same way.
// ROW: %[[U:.+]] = gpuos.task "attention_pv_t{{[0-9]+}}_softmax_matmul"
// ROW-NEXT: gpuos.softmax
// ROW-NEXT: gpuos.matmul
// ROW: gpuos.yield %[[T]], %[[U]]
gpuos.graph @attention_pv(%s : !gpuos.tensor<8x1x129xf32>, %v : !gpuos.tensor<8x129x128xf32>,
                          %s2 : !gpuos.tensor<2x64xf32>, %w : !gpuos.tensor<64x32xf32>)
    -> (y : !gpuos.tensor<8x1x128xf32>, z : !gpuos.tensor<2x32xf32>) {
  %c = gpuos.constant dense<8.838835e-02> : tensor<f32>
  %scaled = gpuos.mul %s, %c : !gpuos.tensor<8x1x129xf32>, !gpuos.tensor<f32>
  %p = gpuos.softmax %scaled axis 2 : !gpuos.tensor<8x1x129xf32>
  %y = gpuos.matmul %p, %v : !gpuos.tensor<8x1x129xf32>, !gpuos.tensor<8x129x128xf32>
  %p2 = gpuos.softmax %s2 axis 1 : !gpuos.tensor<2x64xf32>
  %z = gpuos.matmul %p2, %w : !gpuos.tensor<2x64xf32>, !gpuos.tensor<64x32xf32>
  gpuos.yield %y, %z : !gpuos.tensor<8x1x128xf32>, !gpuos.tensor<2x32xf32>
}

// -----

// With `norms`: a norm read by two projections stays apart (it would have
// to be copied into both); one read by one projection (the logits) joins
// it, residual add included. By default norms stay apart.
// DEFAULT-LABEL: gpuos.graph @norms
// DEFAULT: %[[F:.+]] = gpuos.task "norms_t{{[0-9]+}}_add_rms_norm"
// DEFAULT: gpuos.matmul %[[F]], %wl
// ROW-LABEL: gpuos.graph @norms
// ROW: %[[N:.+]] = gpuos.rms_norm %x
// ROW: gpuos.matmul %[[N]], %wq
// ROW: gpuos.matmul %[[N]], %wk
// ROW: gpuos.task "norms_t{{[0-9]+}}_add_rms_norm_matmul"
// ROW-NEXT: gpuos.add
// ROW-NEXT: gpuos.rms_norm
// ROW-NEXT: gpuos.matmul
gpuos.graph @norms(%x : !gpuos.tensor<1x256xf32>, %r : !gpuos.tensor<1x256xf32>, %g : !gpuos.tensor<256xf32>,
                   %wq : !gpuos.tensor<256x64xf32>, %wk : !gpuos.tensor<256x64xf32>,
                   %wl : !gpuos.tensor<256x512xf32>)
    -> (q : !gpuos.tensor<1x64xf32>, k : !gpuos.tensor<1x64xf32>, l : !gpuos.tensor<1x512xf32>) {
  %n = gpuos.rms_norm %x weight(%g : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<1x256xf32>
  %q = gpuos.matmul %n, %wq : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x64xf32>
  %k = gpuos.matmul %n, %wk : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x64xf32>
  %h = gpuos.add %x, %r : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
  %f = gpuos.rms_norm %h weight(%g : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<1x256xf32>
  %l = gpuos.matmul %f, %wl : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x512xf32>
  gpuos.yield %q, %k, %l : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x512xf32>
}

// -----

// Kept apart: a softmax along M (not the rows the matmul reduces), a
// transposed lhs (K runs along the softmax's columns), a norm whose
// residual sum is also a graph output (its task has two results), and
// rows past the lowering's shared memory (16 x 512 f32 = 32 KiB).
// ROW-LABEL: gpuos.graph @kept_apart_rows
// ROW: %[[A:.+]] = gpuos.softmax %x axis 0
// ROW: gpuos.matmul %[[A]], %w
// ROW: %[[B:.+]] = gpuos.softmax %y axis 1
// ROW: gpuos.matmul %[[B]], %wt transpose_lhs
// ROW: %[[C:.+]]:2 = gpuos.task "kept_apart_rows_t{{[0-9]+}}_add_rms_norm"
// ROW: gpuos.matmul %[[C]]#1, %wn
// ROW: %[[D:.+]] = gpuos.rms_norm %big
// ROW: gpuos.matmul %[[D]], %wbig
gpuos.graph @kept_apart_rows(%x : !gpuos.tensor<4x64xf32>, %w : !gpuos.tensor<64x32xf32>,
                             %y : !gpuos.tensor<64x4xf32>, %wt : !gpuos.tensor<64x32xf32>,
                             %a : !gpuos.tensor<1x256xf32>, %b : !gpuos.tensor<1x256xf32>,
                             %g : !gpuos.tensor<256xf32>, %wn : !gpuos.tensor<256x64xf32>,
                             %big : !gpuos.tensor<16x512xf32>, %gb : !gpuos.tensor<512xf32>,
                             %wbig : !gpuos.tensor<512x64xf32>)
    -> (o1 : !gpuos.tensor<4x32xf32>, o2 : !gpuos.tensor<4x32xf32>, h : !gpuos.tensor<1x256xf32>,
        o3 : !gpuos.tensor<1x64xf32>, o4 : !gpuos.tensor<16x64xf32>) {
  %s0 = gpuos.softmax %x axis 0 : !gpuos.tensor<4x64xf32>
  %o1 = gpuos.matmul %s0, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x32xf32>
  %s1 = gpuos.softmax %y axis 1 : !gpuos.tensor<64x4xf32>
  %o2 = gpuos.matmul %s1, %wt transpose_lhs : !gpuos.tensor<64x4xf32>, !gpuos.tensor<64x32xf32>
  %h = gpuos.add %a, %b : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
  %n = gpuos.rms_norm %h weight(%g : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<1x256xf32>
  %o3 = gpuos.matmul %n, %wn : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x64xf32>
  %nb = gpuos.rms_norm %big weight(%gb : !gpuos.tensor<512xf32>) eps 1.0e-06 : !gpuos.tensor<16x512xf32>
  %o4 = gpuos.matmul %nb, %wbig : !gpuos.tensor<16x512xf32>, !gpuos.tensor<512x64xf32>
  gpuos.yield %o1, %o2, %h, %o3, %o4 : !gpuos.tensor<4x32xf32>, !gpuos.tensor<4x32xf32>, !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x64xf32>, !gpuos.tensor<16x64xf32>
}

// -----

// The shared-memory budget at its edge (32 KiB: 8 KiB of partials counted
// at their bound, the staged row as f32, 16 bytes of statistics and 256 of
// warp-partial slots): a 6076-wide row joins, a 6100-wide one does not
// (it would fit without the statistics and slots). A plain matmul's lhs
// is counted once, when it joins.
// ROW-LABEL: gpuos.graph @budget_edge
// ROW: gpuos.task "budget_edge_t{{[0-9]+}}_softmax_matmul"
// ROW: %[[S:.+]] = gpuos.softmax %b axis 1
// ROW: gpuos.matmul %[[S]], %wb
gpuos.graph @budget_edge(%a : !gpuos.tensor<1x6076xf32>, %wa : !gpuos.tensor<6076x64xf32>,
                         %b : !gpuos.tensor<1x6100xf32>, %wb : !gpuos.tensor<6100x64xf32>)
    -> (ya : !gpuos.tensor<1x64xf32>, yb : !gpuos.tensor<1x64xf32>) {
  %sa = gpuos.softmax %a axis 1 : !gpuos.tensor<1x6076xf32>
  %ya = gpuos.matmul %sa, %wa : !gpuos.tensor<1x6076xf32>, !gpuos.tensor<6076x64xf32>
  %sb = gpuos.softmax %b axis 1 : !gpuos.tensor<1x6100xf32>
  %yb = gpuos.matmul %sb, %wb : !gpuos.tensor<1x6100xf32>, !gpuos.tensor<6100x64xf32>
  gpuos.yield %ya, %yb : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
}
