// Small-M matmuls with prologues (gpuos-fuse-matmul-prologues): the lhs is
// computed in the task. When it fits shared memory beside the partials the
// block stages it there once per tile ([M][K] f32, docs/codegen.md,
// "Small-M matmul"), else the K loop evaluates it per K position. Checked
// against the interpreter by gpuos-gpu-check (GPU) and gpuos-sim-check
// (test/Target/sim-check.mlir). The pass itself runs on the GPU through
// examples/decode_step.mlir (scripts/gpu-check.sh pipelines the examples).
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-DAG: .visible .func gpuos_task_pro_gated(
// CHECK-DAG: .visible .func gpuos_task_pro_kt_f16(
// CHECK-DAG: .visible .func gpuos_task_pro_m3(
// CHECK-DAG: .visible .func gpuos_task_pro_heads(
// CHECK-DAG: .visible .func gpuos_task_pro_big(
// CHECK-DAG: .visible .func gpuos_task_pro_shared8(
// CHECK-DAG: .visible .func gpuos_task_pro_one_lhs(

// The decode MLP's down projection: silu(gate) * up, a residual epilogue;
// N not a multiple of the tile.
gpuos.graph @gated(%g : !gpuos.tensor<1x704xf32>, %u : !gpuos.tensor<1x704xf32>,
                   %w : !gpuos.tensor<704x200xf32>, %r : !gpuos.tensor<1x200xf32>)
    -> (y : !gpuos.tensor<1x200xf32>) {
  %y = gpuos.task "pro_gated" ins(%a = %g : !gpuos.tensor<1x704xf32>, %b = %u : !gpuos.tensor<1x704xf32>,
                                  %c = %w : !gpuos.tensor<704x200xf32>, %d = %r : !gpuos.tensor<1x200xf32>)
      tile [1, 16] -> (!gpuos.tensor<1x200xf32>) {
    %0 = gpuos.silu %a : !gpuos.tensor<1x704xf32>
    %1 = gpuos.mul %0, %b : !gpuos.tensor<1x704xf32>, !gpuos.tensor<1x704xf32>
    %2 = gpuos.matmul %1, %c : !gpuos.tensor<1x704xf32>, !gpuos.tensor<704x200xf32>
    %3 = gpuos.add %2, %d : !gpuos.tensor<1x200xf32>, !gpuos.tensor<1x200xf32>
    gpuos.yield %3 : !gpuos.tensor<1x200xf32>
  }
  gpuos.yield %y : !gpuos.tensor<1x200xf32>
}

// f16 operands, a [N, K] weight (k-lanes: the staged lhs is read as V
// consecutive K per lane), two rows scaled by a broadcast row vector.
gpuos.graph @kt_f16(%x : !gpuos.tensor<2x72xf16>, %s : !gpuos.tensor<72xf16>, %w : !gpuos.tensor<100x72xf16>)
    -> (y : !gpuos.tensor<2x100xf16>) {
  %y = gpuos.task "pro_kt_f16" ins(%a = %x : !gpuos.tensor<2x72xf16>, %b = %s : !gpuos.tensor<72xf16>,
                                   %c = %w : !gpuos.tensor<100x72xf16>)
      tile [2, 64] -> (!gpuos.tensor<2x100xf16>) {
    %0 = gpuos.mul %a, %b : !gpuos.tensor<2x72xf16>, !gpuos.tensor<72xf16>
    %1 = gpuos.matmul %0, %c transpose_rhs : !gpuos.tensor<2x72xf16>, !gpuos.tensor<100x72xf16>
    gpuos.yield %1 : !gpuos.tensor<2x100xf16>
  }
  gpuos.yield %y : !gpuos.tensor<2x100xf16>
}

// Three rows, K = 100 (no vector multiple), tanh.
gpuos.graph @m3(%x : !gpuos.tensor<3x100xf32>, %w : !gpuos.tensor<100x72xf32>)
    -> (y : !gpuos.tensor<3x72xf32>) {
  %y = gpuos.task "pro_m3" ins(%a = %x : !gpuos.tensor<3x100xf32>, %c = %w : !gpuos.tensor<100x72xf32>)
      tile [3, 32] -> (!gpuos.tensor<3x72xf32>) {
    %0 = gpuos.tanh %a : !gpuos.tensor<3x100xf32>
    %1 = gpuos.matmul %0, %c : !gpuos.tensor<3x100xf32>, !gpuos.tensor<100x72xf32>
    gpuos.yield %1 : !gpuos.tensor<3x72xf32>
  }
  gpuos.yield %y : !gpuos.tensor<3x72xf32>
}

// Per head: the query scaled, against each head's keys (batch dims tiled
// by 1: each tile stages its own head's lhs).
gpuos.graph @heads(%q : !gpuos.tensor<4x1x64xf32>, %k : !gpuos.tensor<4x64x40xf32>)
    -> (y : !gpuos.tensor<4x1x40xf32>) {
  %y = gpuos.task "pro_heads" ins(%a = %q : !gpuos.tensor<4x1x64xf32>, %c = %k : !gpuos.tensor<4x64x40xf32>)
      tile [1, 1, 32] -> (!gpuos.tensor<4x1x40xf32>) {
    %s = gpuos.constant dense<1.250000e-01> : tensor<f32>
    %0 = gpuos.mul %a, %s : !gpuos.tensor<4x1x64xf32>, !gpuos.tensor<f32>
    %1 = gpuos.matmul %0, %c : !gpuos.tensor<4x1x64xf32>, !gpuos.tensor<4x64x40xf32>
    gpuos.yield %1 : !gpuos.tensor<4x1x40xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4x1x40xf32>
}

// 1 x 9000 f32 does not fit beside the partials: not staged.
gpuos.graph @big(%x : !gpuos.tensor<1x9000xf32>, %w : !gpuos.tensor<9000x32xf32>)
    -> (y : !gpuos.tensor<1x32xf32>) {
  %y = gpuos.task "pro_big" ins(%a = %x : !gpuos.tensor<1x9000xf32>, %c = %w : !gpuos.tensor<9000x32xf32>)
      tile [1, 16] -> (!gpuos.tensor<1x32xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<1x9000xf32>
    %1 = gpuos.matmul %0, %c : !gpuos.tensor<1x9000xf32>, !gpuos.tensor<9000x32xf32>
    gpuos.yield %1 : !gpuos.tensor<1x32xf32>
  }
  gpuos.yield %y : !gpuos.tensor<1x32xf32>
}

// Micro-batches through one weight, each with its own computed lhs (one
// staged block per matmul) and one read through a view (not staged).
gpuos.graph @shared8(%x : !gpuos.tensor<8x256xf32>, %w : !gpuos.tensor<256x40xf32>)
    -> (a : !gpuos.tensor<4x40xf32>, b : !gpuos.tensor<4x40xf32>, c : !gpuos.tensor<4x40xf32>) {
  %r:3 = gpuos.task "pro_shared8" ins(%i = %x : !gpuos.tensor<8x256xf32>, %m = %w : !gpuos.tensor<256x40xf32>)
      tile [4, 8] -> (!gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>) {
    %0 = gpuos.slice %i starts [0, 0] sizes [4, 256] steps [1, 1] : !gpuos.tensor<8x256xf32>
    %1 = gpuos.slice %i starts [4, 0] sizes [4, 256] steps [1, 1] : !gpuos.tensor<8x256xf32>
    %2 = gpuos.sigmoid %0 : !gpuos.tensor<4x256xf32>
    %3 = gpuos.abs %1 : !gpuos.tensor<4x256xf32>
    %4 = gpuos.matmul %2, %m : !gpuos.tensor<4x256xf32>, !gpuos.tensor<256x40xf32>
    %5 = gpuos.matmul %3, %m : !gpuos.tensor<4x256xf32>, !gpuos.tensor<256x40xf32>
    %6 = gpuos.matmul %0, %m : !gpuos.tensor<4x256xf32>, !gpuos.tensor<256x40xf32>
    gpuos.yield %4, %5, %6 : !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2 : !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>
}

// Two matmuls read one computed lhs (n-lanes and k-lanes): the first
// stages it, both read that copy.
gpuos.graph @one_lhs(%x : !gpuos.tensor<2x128xf32>, %w : !gpuos.tensor<128x48xf32>, %v : !gpuos.tensor<48x128xf32>)
    -> (a : !gpuos.tensor<2x48xf32>, b : !gpuos.tensor<2x48xf32>) {
  %r:2 = gpuos.task "pro_one_lhs" ins(%i = %x : !gpuos.tensor<2x128xf32>, %m = %w : !gpuos.tensor<128x48xf32>,
                                      %n = %v : !gpuos.tensor<48x128xf32>)
      tile [2, 16] -> (!gpuos.tensor<2x48xf32>, !gpuos.tensor<2x48xf32>) {
    %0 = gpuos.sigmoid %i : !gpuos.tensor<2x128xf32>
    %1 = gpuos.matmul %0, %m : !gpuos.tensor<2x128xf32>, !gpuos.tensor<128x48xf32>
    %2 = gpuos.matmul %0, %n transpose_rhs : !gpuos.tensor<2x128xf32>, !gpuos.tensor<48x128xf32>
    gpuos.yield %1, %2 : !gpuos.tensor<2x48xf32>, !gpuos.tensor<2x48xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<2x48xf32>, !gpuos.tensor<2x48xf32>
}
