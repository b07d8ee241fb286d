// Row tasks on the straight-line path (at most 16 elements of a row per
// thread at the tuned 256 threads; the launcher also runs 32 and 1024
// threads, the loop copy, and misaligned buffers, the scalar copy): chains
// of norms and softmax over the same rows (gpuos-fuse-reductions' row
// chains), rows that end inside a thread's last chunk (masked chunks), odd
// row lengths (one lane), 16-bit rows, and a reduce and an argmax; rows of
// at most 512 elements shared by a warp (more rows per tile than warps, a
// last tile of fewer rows).
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-DAG: .visible .func gpuos_task_rc_norm_chain(
// CHECK-DAG: .visible .func gpuos_task_rc_masked_chain(
// CHECK-DAG: .visible .func gpuos_task_rc_odd_rows(
// CHECK-DAG: .visible .func gpuos_task_rc_bf16_chain(
// CHECK-DAG: .visible .func gpuos_task_rc_reduce_argmax(
// CHECK-DAG: .visible .func gpuos_task_rc_warp_rows(
// CHECK-DAG: .visible .func gpuos_task_rc_warp_chain(
// CHECK-DAG: .visible .func gpuos_task_rc_warp_loop(

// residual add + rms_norm, twice, then layer_norm and softmax: 4096 f32
// per row, four full chunks per thread. The first link is also a result.
gpuos.graph @norm_chain(%x : !gpuos.tensor<3x4096xf32>, %d : !gpuos.tensor<3x4096xf32>,
                        %w : !gpuos.tensor<4096xf32>)
    -> (h : !gpuos.tensor<3x4096xf32>, y : !gpuos.tensor<3x4096xf32>) {
  %r:2 = gpuos.task "rc_norm_chain" ins(%a = %x : !gpuos.tensor<3x4096xf32>, %b = %d : !gpuos.tensor<3x4096xf32>,
                                        %c = %w : !gpuos.tensor<4096xf32>)
      tile [1, 4096] -> (!gpuos.tensor<3x4096xf32>, !gpuos.tensor<3x4096xf32>) {
    %0 = gpuos.add %a, %b : !gpuos.tensor<3x4096xf32>, !gpuos.tensor<3x4096xf32>
    %1 = gpuos.rms_norm %0 weight(%c : !gpuos.tensor<4096xf32>) eps 1.0e-6 : !gpuos.tensor<3x4096xf32>
    %2 = gpuos.add %1, %b : !gpuos.tensor<3x4096xf32>, !gpuos.tensor<3x4096xf32>
    %3 = gpuos.rms_norm %2 weight(%c : !gpuos.tensor<4096xf32>) eps 1.0e-6 : !gpuos.tensor<3x4096xf32>
    %4 = gpuos.layer_norm %3 eps 1.0e-5 : !gpuos.tensor<3x4096xf32>
    %5 = gpuos.softmax %4 axis 1 : !gpuos.tensor<3x4096xf32>
    gpuos.yield %2, %5 : !gpuos.tensor<3x4096xf32>, !gpuos.tensor<3x4096xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<3x4096xf32>, !gpuos.tensor<3x4096xf32>
}

// Rows of 1000 f32: chunk 0 covers 1024 elements, so threads past 250 are
// masked; two rows per tile.
gpuos.graph @masked_chain(%x : !gpuos.tensor<6x1000xf32>, %g : !gpuos.tensor<1000xf32>)
    -> (y : !gpuos.tensor<6x1000xf32>) {
  %r = gpuos.task "rc_masked_chain" ins(%a = %x : !gpuos.tensor<6x1000xf32>, %b = %g : !gpuos.tensor<1000xf32>)
      tile [2, 1000] -> (!gpuos.tensor<6x1000xf32>) {
    %0 = gpuos.softmax %a axis 1 : !gpuos.tensor<6x1000xf32>
    %1 = gpuos.layer_norm %0 weight(%b : !gpuos.tensor<1000xf32>) eps 1.0e-5 : !gpuos.tensor<6x1000xf32>
    %2 = gpuos.rms_norm %1 eps 1.0e-6 : !gpuos.tensor<6x1000xf32>
    gpuos.yield %2 : !gpuos.tensor<6x1000xf32>
  }
  gpuos.yield %r : !gpuos.tensor<6x1000xf32>
}

// Rows of 37: one lane, one masked chunk.
gpuos.graph @odd_rows(%x : !gpuos.tensor<5x37xf32>) -> (y : !gpuos.tensor<5x37xf32>) {
  %r = gpuos.task "rc_odd_rows" ins(%a = %x : !gpuos.tensor<5x37xf32>)
      tile [1, 37] -> (!gpuos.tensor<5x37xf32>) {
    %0 = gpuos.rms_norm %a eps 1.0e-6 : !gpuos.tensor<5x37xf32>
    %1 = gpuos.softmax %0 axis 1 : !gpuos.tensor<5x37xf32>
    gpuos.yield %1 : !gpuos.tensor<5x37xf32>
  }
  gpuos.yield %r : !gpuos.tensor<5x37xf32>
}

// bf16 rows of 2048: eight lanes, one chunk per thread.
gpuos.graph @bf16_chain(%x : !gpuos.tensor<4x2048xbf16>, %d : !gpuos.tensor<4x2048xbf16>)
    -> (y : !gpuos.tensor<4x2048xbf16>) {
  %r = gpuos.task "rc_bf16_chain" ins(%a = %x : !gpuos.tensor<4x2048xbf16>, %b = %d : !gpuos.tensor<4x2048xbf16>)
      tile [1, 2048] -> (!gpuos.tensor<4x2048xbf16>) {
    %0 = gpuos.layer_norm %a eps 1.0e-5 : !gpuos.tensor<4x2048xbf16>
    %1 = gpuos.add %0, %b : !gpuos.tensor<4x2048xbf16>, !gpuos.tensor<4x2048xbf16>
    %2 = gpuos.layer_norm %1 eps 1.0e-5 : !gpuos.tensor<4x2048xbf16>
    gpuos.yield %2 : !gpuos.tensor<4x2048xbf16>
  }
  gpuos.yield %r : !gpuos.tensor<4x2048xbf16>
}

// A sum and an argmax over rows of 3000: three chunks, the last one
// masked past element 3000.
gpuos.graph @reduce_argmax(%x : !gpuos.tensor<4x3000xf32>)
    -> (s : !gpuos.tensor<4xf32>, i : !gpuos.tensor<4xi64>) {
  %r:2 = gpuos.task "rc_reduce_argmax" ins(%a = %x : !gpuos.tensor<4x3000xf32>)
      tile [1] -> (!gpuos.tensor<4xf32>, !gpuos.tensor<4xi64>) {
    %0 = gpuos.reduce sum %a axes [1] : !gpuos.tensor<4x3000xf32>
    %1 = gpuos.argmax %a axis 1 : !gpuos.tensor<4x3000xf32>
    gpuos.yield %0, %1 : !gpuos.tensor<4xf32>, !gpuos.tensor<4xi64>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<4xf32>, !gpuos.tensor<4xi64>
}

// Warp rows: 21 rows of 129 (one lane, five chunks per lane, the last
// masked), ten per tile: warps take rows w and w + 8, and the last tile
// holds one row.
gpuos.graph @warp_rows(%x : !gpuos.tensor<21x129xf32>)
    -> (y : !gpuos.tensor<21x129xf32>, m : !gpuos.tensor<21xi64>) {
  %r:2 = gpuos.task "rc_warp_rows" ins(%a = %x : !gpuos.tensor<21x129xf32>)
      tile [10, 129] -> (!gpuos.tensor<21x129xf32>, !gpuos.tensor<21xi64>) {
    %0 = gpuos.softmax %a axis 1 : !gpuos.tensor<21x129xf32>
    %1 = gpuos.argmax %a axis 1 : !gpuos.tensor<21x129xf32>
    gpuos.yield %0, %1 : !gpuos.tensor<21x129xf32>, !gpuos.tensor<21xi64>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<21x129xf32>, !gpuos.tensor<21xi64>
}

// A warp-row chain on f16 rows of 256: eight lanes, two chunks per lane.
gpuos.graph @warp_chain(%x : !gpuos.tensor<16x256xf16>, %d : !gpuos.tensor<16x256xf16>)
    -> (y : !gpuos.tensor<16x256xf16>) {
  %r = gpuos.task "rc_warp_chain" ins(%a = %x : !gpuos.tensor<16x256xf16>, %b = %d : !gpuos.tensor<16x256xf16>)
      tile [16, 256] -> (!gpuos.tensor<16x256xf16>) {
    %0 = gpuos.rms_norm %a eps 1.0e-6 : !gpuos.tensor<16x256xf16>
    %1 = gpuos.add %0, %b : !gpuos.tensor<16x256xf16>, !gpuos.tensor<16x256xf16>
    %2 = gpuos.layer_norm %1 eps 1.0e-5 : !gpuos.tensor<16x256xf16>
    gpuos.yield %2 : !gpuos.tensor<16x256xf16>
  }
  gpuos.yield %r : !gpuos.tensor<16x256xf16>
}

// Warp rows too long for straight-line chunks (a lane loops over 1000 f32,
// the last chunk of each pass partial), twelve rows per tile: a softmax and
// a row max, 30 rows (the last tile holds six).
gpuos.graph @warp_loop(%x : !gpuos.tensor<30x1000xf32>)
    -> (y : !gpuos.tensor<30x1000xf32>, m : !gpuos.tensor<30xf32>) {
  %r:2 = gpuos.task "rc_warp_loop" ins(%a = %x : !gpuos.tensor<30x1000xf32>)
      tile [12, 1000] -> (!gpuos.tensor<30x1000xf32>, !gpuos.tensor<30xf32>) {
    %0 = gpuos.softmax %a axis 1 : !gpuos.tensor<30x1000xf32>
    %1 = gpuos.reduce max %a axes [1] : !gpuos.tensor<30x1000xf32>
    gpuos.yield %0, %1 : !gpuos.tensor<30x1000xf32>, !gpuos.tensor<30xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<30x1000xf32>, !gpuos.tensor<30xf32>
}
