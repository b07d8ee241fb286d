// Longer row chains on the straight-line path (the tuned 256 threads):
// links whose residual slices move along the outer dim (with and without a
// weight, by one and by two rows), along the inner dim (rows of 1000, a
// masked chunk), LayerNorm links with weight and bias, rows shared by a
// warp, and a chain whose links differ (another epsilon, a link's sum that
// is also a result). They check the look-ahead's loads ahead of each
// barrier (docs/codegen.md, "Look-ahead") on these shapes.
// test/Target/sim-check.mlir runs them at 256 threads on the CPU
// simulation; scripts/gpu-check.sh on a GPU. (They were written for a loop
// over same-shaped links, measured slower and not kept: docs/codegen.md,
// "Link loops, measured and not kept".)
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-DAG: .visible .func gpuos_task_lc_rms_chain(
// CHECK-DAG: .visible .func gpuos_task_lc_ln_chain(
// CHECK-DAG: .visible .func gpuos_task_lc_softmax_inner(
// CHECK-DAG: .visible .func gpuos_task_lc_strided(
// CHECK-DAG: .visible .func gpuos_task_lc_warp_chain(
// CHECK-DAG: .visible .func gpuos_task_lc_mixed_links(

// Six residual + RMSNorm links on a row of 2048 (two chunks per thread).
gpuos.graph @rms_chain(%x : !gpuos.tensor<1x2048xf32>, %d : !gpuos.tensor<6x2048xf32>, %w : !gpuos.tensor<6x2048xf32>)
    -> (y : !gpuos.tensor<1x2048xf32>) {
  %r = gpuos.task "lc_rms_chain" ins(%a0 = %x : !gpuos.tensor<1x2048xf32>, %a1 = %d : !gpuos.tensor<6x2048xf32>, %a2 = %w : !gpuos.tensor<6x2048xf32>)
      tile [1, 2048] -> (!gpuos.tensor<1x2048xf32>) {
    %0 = gpuos.slice %a1 starts [0, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %1 = gpuos.slice %a2 starts [0, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %2 = gpuos.reshape %1 to [2048] : !gpuos.tensor<1x2048xf32>
    %3 = gpuos.add %a0, %0 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %4 = gpuos.rms_norm %3 weight(%2 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %5 = gpuos.slice %a1 starts [1, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %6 = gpuos.slice %a2 starts [1, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %7 = gpuos.reshape %6 to [2048] : !gpuos.tensor<1x2048xf32>
    %8 = gpuos.add %4, %5 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %9 = gpuos.rms_norm %8 weight(%7 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %10 = gpuos.slice %a1 starts [2, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %11 = gpuos.slice %a2 starts [2, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %12 = gpuos.reshape %11 to [2048] : !gpuos.tensor<1x2048xf32>
    %13 = gpuos.add %9, %10 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %14 = gpuos.rms_norm %13 weight(%12 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %15 = gpuos.slice %a1 starts [3, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %16 = gpuos.slice %a2 starts [3, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %17 = gpuos.reshape %16 to [2048] : !gpuos.tensor<1x2048xf32>
    %18 = gpuos.add %14, %15 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %19 = gpuos.rms_norm %18 weight(%17 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %20 = gpuos.slice %a1 starts [4, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %21 = gpuos.slice %a2 starts [4, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %22 = gpuos.reshape %21 to [2048] : !gpuos.tensor<1x2048xf32>
    %23 = gpuos.add %19, %20 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %24 = gpuos.rms_norm %23 weight(%22 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %25 = gpuos.slice %a1 starts [5, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %26 = gpuos.slice %a2 starts [5, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<6x2048xf32>
    %27 = gpuos.reshape %26 to [2048] : !gpuos.tensor<1x2048xf32>
    %28 = gpuos.add %24, %25 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %29 = gpuos.rms_norm %28 weight(%27 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    gpuos.yield %29 : !gpuos.tensor<1x2048xf32>
  }
  gpuos.yield %r : !gpuos.tensor<1x2048xf32>
}

// Five LayerNorm links with weight and bias over three rows of 1024 (one
// chunk per thread).
gpuos.graph @ln_chain(%x : !gpuos.tensor<3x1024xf32>, %d : !gpuos.tensor<5x3x1024xf32>, %w : !gpuos.tensor<5x1024xf32>, %b : !gpuos.tensor<5x1024xf32>)
    -> (y : !gpuos.tensor<3x1024xf32>) {
  %r = gpuos.task "lc_ln_chain" ins(%a0 = %x : !gpuos.tensor<3x1024xf32>, %a1 = %d : !gpuos.tensor<5x3x1024xf32>, %a2 = %w : !gpuos.tensor<5x1024xf32>, %a3 = %b : !gpuos.tensor<5x1024xf32>)
      tile [1, 1024] -> (!gpuos.tensor<3x1024xf32>) {
    %0 = gpuos.slice %a1 starts [0, 0, 0] sizes [1, 3, 1024] steps [1, 1, 1] : !gpuos.tensor<5x3x1024xf32>
    %1 = gpuos.reshape %0 to [3, 1024] : !gpuos.tensor<1x3x1024xf32>
    %2 = gpuos.slice %a2 starts [0, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<5x1024xf32>
    %3 = gpuos.reshape %2 to [1024] : !gpuos.tensor<1x1024xf32>
    %4 = gpuos.slice %a3 starts [0, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<5x1024xf32>
    %5 = gpuos.reshape %4 to [1024] : !gpuos.tensor<1x1024xf32>
    %6 = gpuos.add %a0, %1 : !gpuos.tensor<3x1024xf32>, !gpuos.tensor<3x1024xf32>
    %7 = gpuos.layer_norm %6 weight(%3 : !gpuos.tensor<1024xf32>) bias(%5 : !gpuos.tensor<1024xf32>) eps 1.0e-5 : !gpuos.tensor<3x1024xf32>
    %8 = gpuos.slice %a1 starts [1, 0, 0] sizes [1, 3, 1024] steps [1, 1, 1] : !gpuos.tensor<5x3x1024xf32>
    %9 = gpuos.reshape %8 to [3, 1024] : !gpuos.tensor<1x3x1024xf32>
    %10 = gpuos.slice %a2 starts [1, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<5x1024xf32>
    %11 = gpuos.reshape %10 to [1024] : !gpuos.tensor<1x1024xf32>
    %12 = gpuos.slice %a3 starts [1, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<5x1024xf32>
    %13 = gpuos.reshape %12 to [1024] : !gpuos.tensor<1x1024xf32>
    %14 = gpuos.add %7, %9 : !gpuos.tensor<3x1024xf32>, !gpuos.tensor<3x1024xf32>
    %15 = gpuos.layer_norm %14 weight(%11 : !gpuos.tensor<1024xf32>) bias(%13 : !gpuos.tensor<1024xf32>) eps 1.0e-5 : !gpuos.tensor<3x1024xf32>
    %16 = gpuos.slice %a1 starts [2, 0, 0] sizes [1, 3, 1024] steps [1, 1, 1] : !gpuos.tensor<5x3x1024xf32>
    %17 = gpuos.reshape %16 to [3, 1024] : !gpuos.tensor<1x3x1024xf32>
    %18 = gpuos.slice %a2 starts [2, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<5x1024xf32>
    %19 = gpuos.reshape %18 to [1024] : !gpuos.tensor<1x1024xf32>
    %20 = gpuos.slice %a3 starts [2, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<5x1024xf32>
    %21 = gpuos.reshape %20 to [1024] : !gpuos.tensor<1x1024xf32>
    %22 = gpuos.add %15, %17 : !gpuos.tensor<3x1024xf32>, !gpuos.tensor<3x1024xf32>
    %23 = gpuos.layer_norm %22 weight(%19 : !gpuos.tensor<1024xf32>) bias(%21 : !gpuos.tensor<1024xf32>) eps 1.0e-5 : !gpuos.tensor<3x1024xf32>
    %24 = gpuos.slice %a1 starts [3, 0, 0] sizes [1, 3, 1024] steps [1, 1, 1] : !gpuos.tensor<5x3x1024xf32>
    %25 = gpuos.reshape %24 to [3, 1024] : !gpuos.tensor<1x3x1024xf32>
    %26 = gpuos.slice %a2 starts [3, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<5x1024xf32>
    %27 = gpuos.reshape %26 to [1024] : !gpuos.tensor<1x1024xf32>
    %28 = gpuos.slice %a3 starts [3, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<5x1024xf32>
    %29 = gpuos.reshape %28 to [1024] : !gpuos.tensor<1x1024xf32>
    %30 = gpuos.add %23, %25 : !gpuos.tensor<3x1024xf32>, !gpuos.tensor<3x1024xf32>
    %31 = gpuos.layer_norm %30 weight(%27 : !gpuos.tensor<1024xf32>) bias(%29 : !gpuos.tensor<1024xf32>) eps 1.0e-5 : !gpuos.tensor<3x1024xf32>
    %32 = gpuos.slice %a1 starts [4, 0, 0] sizes [1, 3, 1024] steps [1, 1, 1] : !gpuos.tensor<5x3x1024xf32>
    %33 = gpuos.reshape %32 to [3, 1024] : !gpuos.tensor<1x3x1024xf32>
    %34 = gpuos.slice %a2 starts [4, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<5x1024xf32>
    %35 = gpuos.reshape %34 to [1024] : !gpuos.tensor<1x1024xf32>
    %36 = gpuos.slice %a3 starts [4, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<5x1024xf32>
    %37 = gpuos.reshape %36 to [1024] : !gpuos.tensor<1x1024xf32>
    %38 = gpuos.add %31, %33 : !gpuos.tensor<3x1024xf32>, !gpuos.tensor<3x1024xf32>
    %39 = gpuos.layer_norm %38 weight(%35 : !gpuos.tensor<1024xf32>) bias(%37 : !gpuos.tensor<1024xf32>) eps 1.0e-5 : !gpuos.tensor<3x1024xf32>
    gpuos.yield %39 : !gpuos.tensor<3x1024xf32>
  }
  gpuos.yield %r : !gpuos.tensor<3x1024xf32>
}

// softmax(h + d[:, 1000k : 1000k + 1000]): the slices move along the inner
// dim, and rows of 1000 end inside the thread's one chunk (masked).
gpuos.graph @softmax_inner(%x : !gpuos.tensor<2x1000xf32>, %d : !gpuos.tensor<2x4000xf32>)
    -> (y : !gpuos.tensor<2x1000xf32>) {
  %r = gpuos.task "lc_softmax_inner" ins(%a0 = %x : !gpuos.tensor<2x1000xf32>, %a1 = %d : !gpuos.tensor<2x4000xf32>)
      tile [1, 1000] -> (!gpuos.tensor<2x1000xf32>) {
    %0 = gpuos.slice %a1 starts [0, 0] sizes [2, 1000] steps [1, 1] : !gpuos.tensor<2x4000xf32>
    %1 = gpuos.add %a0, %0 : !gpuos.tensor<2x1000xf32>, !gpuos.tensor<2x1000xf32, strides = [4000, 1]>
    %2 = gpuos.softmax %1 axis 1 : !gpuos.tensor<2x1000xf32>
    %3 = gpuos.slice %a1 starts [0, 1000] sizes [2, 1000] steps [1, 1] : !gpuos.tensor<2x4000xf32>
    %4 = gpuos.add %2, %3 : !gpuos.tensor<2x1000xf32>, !gpuos.tensor<2x1000xf32, strides = [4000, 1]>
    %5 = gpuos.softmax %4 axis 1 : !gpuos.tensor<2x1000xf32>
    %6 = gpuos.slice %a1 starts [0, 2000] sizes [2, 1000] steps [1, 1] : !gpuos.tensor<2x4000xf32>
    %7 = gpuos.add %5, %6 : !gpuos.tensor<2x1000xf32>, !gpuos.tensor<2x1000xf32, strides = [4000, 1]>
    %8 = gpuos.softmax %7 axis 1 : !gpuos.tensor<2x1000xf32>
    %9 = gpuos.slice %a1 starts [0, 3000] sizes [2, 1000] steps [1, 1] : !gpuos.tensor<2x4000xf32>
    %10 = gpuos.add %8, %9 : !gpuos.tensor<2x1000xf32>, !gpuos.tensor<2x1000xf32, strides = [4000, 1]>
    %11 = gpuos.softmax %10 axis 1 : !gpuos.tensor<2x1000xf32>
    gpuos.yield %11 : !gpuos.tensor<2x1000xf32>
  }
  gpuos.yield %r : !gpuos.tensor<2x1000xf32>
}

// Links reading every other row of d (a delta of 2), no weight.
gpuos.graph @strided(%x : !gpuos.tensor<1x2048xf32>, %d : !gpuos.tensor<8x2048xf32>)
    -> (y : !gpuos.tensor<1x2048xf32>) {
  %r = gpuos.task "lc_strided" ins(%a0 = %x : !gpuos.tensor<1x2048xf32>, %a1 = %d : !gpuos.tensor<8x2048xf32>)
      tile [1, 2048] -> (!gpuos.tensor<1x2048xf32>) {
    %0 = gpuos.slice %a1 starts [0, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %1 = gpuos.add %a0, %0 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %2 = gpuos.rms_norm %1 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %3 = gpuos.slice %a1 starts [2, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %4 = gpuos.add %2, %3 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %5 = gpuos.rms_norm %4 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %6 = gpuos.slice %a1 starts [4, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %7 = gpuos.add %5, %6 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %8 = gpuos.rms_norm %7 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %9 = gpuos.slice %a1 starts [6, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %10 = gpuos.add %8, %9 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %11 = gpuos.rms_norm %10 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    gpuos.yield %11 : !gpuos.tensor<1x2048xf32>
  }
  gpuos.yield %r : !gpuos.tensor<1x2048xf32>
}

// Rows of 256 shared by a warp (eight rows per tile), four links.
gpuos.graph @warp_chain(%x : !gpuos.tensor<16x256xf32>, %d : !gpuos.tensor<4x16x256xf32>, %w : !gpuos.tensor<4x256xf32>)
    -> (y : !gpuos.tensor<16x256xf32>) {
  %r = gpuos.task "lc_warp_chain" ins(%a0 = %x : !gpuos.tensor<16x256xf32>, %a1 = %d : !gpuos.tensor<4x16x256xf32>, %a2 = %w : !gpuos.tensor<4x256xf32>)
      tile [8, 256] -> (!gpuos.tensor<16x256xf32>) {
    %0 = gpuos.slice %a1 starts [0, 0, 0] sizes [1, 16, 256] steps [1, 1, 1] : !gpuos.tensor<4x16x256xf32>
    %1 = gpuos.reshape %0 to [16, 256] : !gpuos.tensor<1x16x256xf32>
    %2 = gpuos.slice %a2 starts [0, 0] sizes [1, 256] steps [1, 1] : !gpuos.tensor<4x256xf32>
    %3 = gpuos.reshape %2 to [256] : !gpuos.tensor<1x256xf32>
    %4 = gpuos.add %a0, %1 : !gpuos.tensor<16x256xf32>, !gpuos.tensor<16x256xf32>
    %5 = gpuos.rms_norm %4 weight(%3 : !gpuos.tensor<256xf32>) eps 1.0e-6 : !gpuos.tensor<16x256xf32>
    %6 = gpuos.slice %a1 starts [1, 0, 0] sizes [1, 16, 256] steps [1, 1, 1] : !gpuos.tensor<4x16x256xf32>
    %7 = gpuos.reshape %6 to [16, 256] : !gpuos.tensor<1x16x256xf32>
    %8 = gpuos.slice %a2 starts [1, 0] sizes [1, 256] steps [1, 1] : !gpuos.tensor<4x256xf32>
    %9 = gpuos.reshape %8 to [256] : !gpuos.tensor<1x256xf32>
    %10 = gpuos.add %5, %7 : !gpuos.tensor<16x256xf32>, !gpuos.tensor<16x256xf32>
    %11 = gpuos.rms_norm %10 weight(%9 : !gpuos.tensor<256xf32>) eps 1.0e-6 : !gpuos.tensor<16x256xf32>
    %12 = gpuos.slice %a1 starts [2, 0, 0] sizes [1, 16, 256] steps [1, 1, 1] : !gpuos.tensor<4x16x256xf32>
    %13 = gpuos.reshape %12 to [16, 256] : !gpuos.tensor<1x16x256xf32>
    %14 = gpuos.slice %a2 starts [2, 0] sizes [1, 256] steps [1, 1] : !gpuos.tensor<4x256xf32>
    %15 = gpuos.reshape %14 to [256] : !gpuos.tensor<1x256xf32>
    %16 = gpuos.add %11, %13 : !gpuos.tensor<16x256xf32>, !gpuos.tensor<16x256xf32>
    %17 = gpuos.rms_norm %16 weight(%15 : !gpuos.tensor<256xf32>) eps 1.0e-6 : !gpuos.tensor<16x256xf32>
    %18 = gpuos.slice %a1 starts [3, 0, 0] sizes [1, 16, 256] steps [1, 1, 1] : !gpuos.tensor<4x16x256xf32>
    %19 = gpuos.reshape %18 to [16, 256] : !gpuos.tensor<1x16x256xf32>
    %20 = gpuos.slice %a2 starts [3, 0] sizes [1, 256] steps [1, 1] : !gpuos.tensor<4x256xf32>
    %21 = gpuos.reshape %20 to [256] : !gpuos.tensor<1x256xf32>
    %22 = gpuos.add %17, %19 : !gpuos.tensor<16x256xf32>, !gpuos.tensor<16x256xf32>
    %23 = gpuos.rms_norm %22 weight(%21 : !gpuos.tensor<256xf32>) eps 1.0e-6 : !gpuos.tensor<16x256xf32>
    gpuos.yield %23 : !gpuos.tensor<16x256xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x256xf32>
}

// Eight links: link 4 has another epsilon and link 6's sum is also a
// result.
gpuos.graph @mixed_links(%x : !gpuos.tensor<1x2048xf32>, %d : !gpuos.tensor<8x2048xf32>)
    -> (y : !gpuos.tensor<1x2048xf32>, a6 : !gpuos.tensor<1x2048xf32>) {
  %r:2 = gpuos.task "lc_mixed_links" ins(%a0 = %x : !gpuos.tensor<1x2048xf32>, %a1 = %d : !gpuos.tensor<8x2048xf32>)
      tile [1, 2048] -> (!gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>) {
    %0 = gpuos.slice %a1 starts [0, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %1 = gpuos.add %a0, %0 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %2 = gpuos.rms_norm %1 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %3 = gpuos.slice %a1 starts [1, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %4 = gpuos.add %2, %3 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %5 = gpuos.rms_norm %4 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %6 = gpuos.slice %a1 starts [2, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %7 = gpuos.add %5, %6 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %8 = gpuos.rms_norm %7 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %9 = gpuos.slice %a1 starts [3, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %10 = gpuos.add %8, %9 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %11 = gpuos.rms_norm %10 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %12 = gpuos.slice %a1 starts [4, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %13 = gpuos.add %11, %12 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %14 = gpuos.rms_norm %13 eps 1.0e-3 : !gpuos.tensor<1x2048xf32>
    %15 = gpuos.slice %a1 starts [5, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %16 = gpuos.add %14, %15 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %17 = gpuos.rms_norm %16 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %18 = gpuos.slice %a1 starts [6, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %19 = gpuos.add %17, %18 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %20 = gpuos.rms_norm %19 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %21 = gpuos.slice %a1 starts [7, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %22 = gpuos.add %20, %21 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %23 = gpuos.rms_norm %22 eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    gpuos.yield %23, %19 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
}
