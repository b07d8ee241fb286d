// Elementwise tasks over f32: vectorized rows, broadcast operands, every
// unary and binary op, partial edge tiles in 2 and 3 dimensions.
// scripts/gpu-check.sh runs these on a GPU against the CPU interpreter.
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-DAG: .visible .func gpuos_task_ew_unary(
// CHECK-DAG: .visible .func gpuos_task_ew_binary_edge(
// CHECK-DAG: .visible .func gpuos_task_ew_rank3_edge(
// CHECK-DAG: .visible .func gpuos_task_ew_positive(
// CHECK-DAG: .visible .func gpuos_task_ew_oversized_tile(
// CHECK-DAG: .visible .entry gpuos_launch_ew_unary(
// CHECK-DAG: .visible .func gpuos_task_ew_unrolled(
// CHECK-DAG: .visible .func gpuos_task_ew_unrolled_rest(
// CHECK-DAG: .visible .func gpuos_task_ew_unrolled_f16(

gpuos.graph @unary(%x : !gpuos.tensor<32x1024xf32>, %b : !gpuos.tensor<1024xf32>)
    -> (y : !gpuos.tensor<32x1024xf32>, z : !gpuos.tensor<32x1024xf32>) {
  %r:2 = gpuos.task "ew_unary" ins(%a = %x : !gpuos.tensor<32x1024xf32>, %c = %b : !gpuos.tensor<1024xf32>)
      tile [1, 1024] -> (!gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>) {
    %0 = gpuos.add %a, %c : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
    %1 = gpuos.exp %0 : !gpuos.tensor<32x1024xf32>
    %2 = gpuos.tanh %1 : !gpuos.tensor<32x1024xf32>
    %3 = gpuos.sigmoid %a : !gpuos.tensor<32x1024xf32>
    %4 = gpuos.gelu %0 : !gpuos.tensor<32x1024xf32>
    %5 = gpuos.silu %a : !gpuos.tensor<32x1024xf32>
    %6 = gpuos.erf %a : !gpuos.tensor<32x1024xf32>
    %7 = gpuos.neg %6 : !gpuos.tensor<32x1024xf32>
    %8 = gpuos.abs %7 : !gpuos.tensor<32x1024xf32>
    %9 = gpuos.relu %a : !gpuos.tensor<32x1024xf32>
    %10 = gpuos.add %2, %3 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
    %11 = gpuos.add %4, %5 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
    %12 = gpuos.add %10, %11 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
    %13 = gpuos.sub %8, %9 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
    gpuos.yield %12, %13 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
}

// Tiles larger than their dimensions cover the dimension (the ABI clamps
// them): a tile of 2^32 + 1 was truncated to 32 bits and wrote one element.
gpuos.graph @oversized_tile(%x : !gpuos.tensor<3x64xf32>) -> (y : !gpuos.tensor<3x64xf32>) {
  %r = gpuos.task "ew_oversized_tile" ins(%a = %x : !gpuos.tensor<3x64xf32>) tile [2, 4294967297] -> (!gpuos.tensor<3x64xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<3x64xf32>
    gpuos.yield %0 : !gpuos.tensor<3x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<3x64xf32>
}

// 33 x 100 with tiles of 4 x 64: the last tile row and column are partial.
gpuos.graph @binary_edge(%x : !gpuos.tensor<33x100xf32>, %y : !gpuos.tensor<33x100xf32>,
                         %col : !gpuos.tensor<33x1xf32>)
    -> (o : !gpuos.tensor<33x100xf32>) {
  %r = gpuos.task "ew_binary_edge" ins(%a = %x : !gpuos.tensor<33x100xf32>, %b = %y : !gpuos.tensor<33x100xf32>,
                                       %c = %col : !gpuos.tensor<33x1xf32>)
      tile [4, 64] -> (!gpuos.tensor<33x100xf32>) {
    %0 = gpuos.mul %a, %b : !gpuos.tensor<33x100xf32>, !gpuos.tensor<33x100xf32>
    %1 = gpuos.div %0, %c : !gpuos.tensor<33x100xf32>, !gpuos.tensor<33x1xf32>
    %2 = gpuos.max %1, %a : !gpuos.tensor<33x100xf32>, !gpuos.tensor<33x100xf32>
    %3 = gpuos.min %2, %b : !gpuos.tensor<33x100xf32>, !gpuos.tensor<33x100xf32>
    %4 = gpuos.sub %3, %c : !gpuos.tensor<33x100xf32>, !gpuos.tensor<33x1xf32>
    gpuos.yield %4 : !gpuos.tensor<33x100xf32>
  }
  gpuos.yield %r : !gpuos.tensor<33x100xf32>
}

// Rank 3, odd sizes, scalar (rank-0) operand: lanes fall back to 1.
gpuos.graph @rank3_edge(%x : !gpuos.tensor<5x7x9xf32>, %s : !gpuos.tensor<f32>)
    -> (o : !gpuos.tensor<5x7x9xf32>) {
  %r = gpuos.task "ew_rank3_edge" ins(%a = %x : !gpuos.tensor<5x7x9xf32>, %b = %s : !gpuos.tensor<f32>)
      tile [2, 3, 8] -> (!gpuos.tensor<5x7x9xf32>) {
    %0 = gpuos.mul %a, %b : !gpuos.tensor<5x7x9xf32>, !gpuos.tensor<f32>
    %1 = gpuos.exp %0 : !gpuos.tensor<5x7x9xf32>
    gpuos.yield %1 : !gpuos.tensor<5x7x9xf32>
  }
  gpuos.yield %r : !gpuos.tensor<5x7x9xf32>
}

// log, sqrt, rsqrt and pow want positive inputs (the check draws [0.1, 2)).
gpuos.graph @positive(%x : !gpuos.tensor<16x256xf32>, %y : !gpuos.tensor<16x256xf32>)
    -> (o : !gpuos.tensor<16x256xf32>) {
  %r = gpuos.task "ew_positive" ins(%a = %x : !gpuos.tensor<16x256xf32>, %b = %y : !gpuos.tensor<16x256xf32>)
      tile [2, 256] -> (!gpuos.tensor<16x256xf32>) {
    %0 = gpuos.log %a : !gpuos.tensor<16x256xf32>
    %1 = gpuos.sqrt %b : !gpuos.tensor<16x256xf32>
    %2 = gpuos.rsqrt %a : !gpuos.tensor<16x256xf32>
    %3 = gpuos.pow %a, %b : !gpuos.tensor<16x256xf32>, !gpuos.tensor<16x256xf32>
    %4 = gpuos.add %0, %1 : !gpuos.tensor<16x256xf32>, !gpuos.tensor<16x256xf32>
    %5 = gpuos.add %2, %3 : !gpuos.tensor<16x256xf32>, !gpuos.tensor<16x256xf32>
    %6 = gpuos.add %4, %5 : !gpuos.tensor<16x256xf32>, !gpuos.tensor<16x256xf32>
    gpuos.yield %6 : !gpuos.tensor<16x256xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x256xf32>
}

// Unroll-and-jam (docs/codegen.md): 8192-element tiles of a chain with two
// inputs run 2 copies per iteration; 3000-element tiles, 2 copies, with a
// one-copy loop for the rest of the tile; an f16 chain with one input, 4
// copies of 8 lanes. The GPU check's block sizes 32, 256 and 1024 (and the
// simulation's 64) cover main loops of many, one and no rounds.
gpuos.graph @unrolled(%x : !gpuos.tensor<64x1024xf32>, %b : !gpuos.tensor<1024xf32>,
                      %y : !gpuos.tensor<6x1000xf32>, %h : !gpuos.tensor<32x2048xf16>)
    -> (o : !gpuos.tensor<64x1024xf32>, p : !gpuos.tensor<6x1000xf32>, q : !gpuos.tensor<32x2048xf16>) {
  %r = gpuos.task "ew_unrolled" ins(%a = %x : !gpuos.tensor<64x1024xf32>, %c = %b : !gpuos.tensor<1024xf32>)
      tile [8, 1024] -> (!gpuos.tensor<64x1024xf32>) {
    %0 = gpuos.mul %a, %c : !gpuos.tensor<64x1024xf32>, !gpuos.tensor<1024xf32>
    %1 = gpuos.silu %0 : !gpuos.tensor<64x1024xf32>
    %2 = gpuos.add %1, %a : !gpuos.tensor<64x1024xf32>, !gpuos.tensor<64x1024xf32>
    gpuos.yield %2 : !gpuos.tensor<64x1024xf32>
  }
  %s = gpuos.task "ew_unrolled_rest" ins(%a = %y : !gpuos.tensor<6x1000xf32>)
      tile [3, 1000] -> (!gpuos.tensor<6x1000xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<6x1000xf32>
    %1 = gpuos.mul %0, %a : !gpuos.tensor<6x1000xf32>, !gpuos.tensor<6x1000xf32>
    gpuos.yield %1 : !gpuos.tensor<6x1000xf32>
  }
  %t = gpuos.task "ew_unrolled_f16" ins(%a = %h : !gpuos.tensor<32x2048xf16>)
      tile [4, 2048] -> (!gpuos.tensor<32x2048xf16>) {
    %0 = gpuos.mul %a, %a : !gpuos.tensor<32x2048xf16>, !gpuos.tensor<32x2048xf16>
    %1 = gpuos.sub %0, %a : !gpuos.tensor<32x2048xf16>, !gpuos.tensor<32x2048xf16>
    gpuos.yield %1 : !gpuos.tensor<32x2048xf16>
  }
  gpuos.yield %r, %s, %t : !gpuos.tensor<64x1024xf32>, !gpuos.tensor<6x1000xf32>, !gpuos.tensor<32x2048xf16>
}

// Tile prefetch rules (codegen.md, "Tile prefetch"): 16 KB tiles of a
// rank-3 shape whose cut axis (10 rows in tiles of 4) leaves a partial tile
// inside, where tile t does not start at t * 4096 (no prefetch), and a
// square input read through a transpose next to one read directly (only
// the direct one is prefetched). gpuos-sim-check fails on a prefetch
// outside its buffer.
gpuos.graph @prefetch_rules(%x : !gpuos.tensor<3x10x1024xf32>, %m : !gpuos.tensor<64x64xf32>,
                            %n : !gpuos.tensor<64x64xf32>)
    -> (o : !gpuos.tensor<3x10x1024xf32>, p : !gpuos.tensor<64x64xf32>) {
  %r = gpuos.task "ew_prefetch_partial" ins(%a = %x : !gpuos.tensor<3x10x1024xf32>)
      tile [1, 4, 1024] -> (!gpuos.tensor<3x10x1024xf32>) {
    %0 = gpuos.mul %a, %a : !gpuos.tensor<3x10x1024xf32>, !gpuos.tensor<3x10x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<3x10x1024xf32>
  }
  %s = gpuos.task "ew_prefetch_transposed" ins(%a = %m : !gpuos.tensor<64x64xf32>, %b = %n : !gpuos.tensor<64x64xf32>)
      tile [64, 64] -> (!gpuos.tensor<64x64xf32>) {
    %0 = gpuos.transpose %a [1, 0] : !gpuos.tensor<64x64xf32>
    %1 = gpuos.sub %0, %b : !gpuos.tensor<64x64xf32, strides = [1, 64]>, !gpuos.tensor<64x64xf32>
    gpuos.yield %1 : !gpuos.tensor<64x64xf32>
  }
  gpuos.yield %r, %s : !gpuos.tensor<3x10x1024xf32>, !gpuos.tensor<64x64xf32>
}
