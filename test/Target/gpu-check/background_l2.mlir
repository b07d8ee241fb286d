// Background tasks built with gpuos-jit --background-l2=evict-first: their
// global accesses of 4, 8 and 16 bytes carry the L2 evict-first policy
// (`.L2::cache_hint`, docs/codegen.md "Background streams in L2"), so the
// values must come out as without it: vector and scalar, strided, f16 and
// i64, partial tiles, the tile prefetch, rows. An urgent graph beside them
// keeps plain accesses. scripts/gpu-check.sh and sim-check.mlir build this
// file with the flag below.
// gpu-check jit flags: --background-l2=evict-first
// REQUIRES: libdevice
// RUN: gpuos-jit %s --background-l2=evict-first --emit=ptx -o - | FileCheck %s
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s --check-prefix=PLAIN
// CHECK-LABEL: .visible .func gpuos_task_bg_stream(
// CHECK:         createpolicy.fractional.L2::evict_first.b64 [[POLICY:%rd[0-9]+]], 1.0;
// CHECK:         cp.async.bulk.prefetch.L2.global.L2::cache_hint [{{%rd[0-9]+}}], {{%r[0-9]+}}, [[POLICY]];
// CHECK:         ld.global.nc.L2::cache_hint.v4.b32 {{.*}}, [[POLICY]];
// CHECK:         st.global.L2::cache_hint.v4.b32 {{.*}}, [[POLICY]];
// CHECK-LABEL: .visible .func gpuos_task_bg_strided(
// CHECK:         ld.global.nc.L2::cache_hint.b32
// CHECK:         st.global.L2::cache_hint.b32
// CHECK-LABEL: .visible .func gpuos_task_bg_half(
// CHECK:         ld.global.nc.L2::cache_hint.v4.b32
// CHECK-LABEL: .visible .func gpuos_task_bg_rows(
// CHECK:         ld.global.nc.L2::cache_hint
// CHECK-LABEL: .visible .func gpuos_task_bg_by_task(
// CHECK:         createpolicy.fractional.L2::evict_first
// CHECK-LABEL: .visible .func gpuos_task_urgent_step(
// CHECK-NOT:     cache_hint
// CHECK-NOT:     createpolicy
// CHECK:         ret;
// PLAIN-NOT:   createpolicy
// PLAIN-NOT:   cache_hint

// 20 KB tiles of a dense stream (prefetched) plus a broadcast row; 22 rows
// in tiles of 5: a partial last tile.
gpuos.graph @stream(%x : !gpuos.tensor<22x1000xf32>, %b : !gpuos.tensor<1000xf32>)
    -> (y : !gpuos.tensor<22x1000xf32>) priority #gpuos.priority<background> {
  %r = gpuos.task "bg_stream" ins(%a = %x : !gpuos.tensor<22x1000xf32>, %c = %b : !gpuos.tensor<1000xf32>)
      tile [5, 1000] -> (!gpuos.tensor<22x1000xf32>) {
    %0 = gpuos.mul %a, %c : !gpuos.tensor<22x1000xf32>, !gpuos.tensor<1000xf32>
    %1 = gpuos.tanh %0 : !gpuos.tensor<22x1000xf32>
    gpuos.yield %1 : !gpuos.tensor<22x1000xf32>
  }
  gpuos.yield %r : !gpuos.tensor<22x1000xf32>
}

// A column-major input and a transposed output: 4-byte scalar accesses.
gpuos.graph @strided(%x : !gpuos.tensor<16x24xf32, strides = [1, 16]>)
    -> (o : !gpuos.tensor<24x16xf32, strides = [1, 24]>) priority #gpuos.priority<background> {
  %r = gpuos.task "bg_strided" ins(%a = %x : !gpuos.tensor<16x24xf32, strides = [1, 16]>)
      tile [8, 16] -> (!gpuos.tensor<24x16xf32, strides = [1, 24]>) {
    %e = gpuos.neg %a : !gpuos.tensor<16x24xf32, strides = [1, 16]>
    %t = gpuos.transpose %e [1, 0] : !gpuos.tensor<16x24xf32>
    gpuos.yield %t : !gpuos.tensor<24x16xf32, strides = [1, 24]>
  }
  gpuos.yield %r : !gpuos.tensor<24x16xf32, strides = [1, 24]>
}

// f16 in 16-byte chunks of eight halves, and the f32 result of a cast.
gpuos.graph @half(%h : !gpuos.tensor<8x512xf16>)
    -> (q : !gpuos.tensor<8x512xf16>, w : !gpuos.tensor<8x512xf32>) priority #gpuos.priority<background> {
  %r:2 = gpuos.task "bg_half" ins(%a = %h : !gpuos.tensor<8x512xf16>)
      tile [2, 512] -> (!gpuos.tensor<8x512xf16>, !gpuos.tensor<8x512xf32>) {
    %0 = gpuos.mul %a, %a : !gpuos.tensor<8x512xf16>, !gpuos.tensor<8x512xf16>
    %1 = gpuos.cast %0 : !gpuos.tensor<8x512xf16> to f32
    gpuos.yield %0, %1 : !gpuos.tensor<8x512xf16>, !gpuos.tensor<8x512xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<8x512xf16>, !gpuos.tensor<8x512xf32>
}

// Rows: sums, argmax (i64 results) and softmax of 1000-wide rows.
gpuos.graph @rows(%x : !gpuos.tensor<6x1000xf32>)
    -> (p : !gpuos.tensor<6x1000xf32>, s : !gpuos.tensor<6xf32>, i : !gpuos.tensor<6xi64>)
    priority #gpuos.priority<background> {
  %r:3 = gpuos.task "bg_rows" ins(%a = %x : !gpuos.tensor<6x1000xf32>)
      tile [1, 1000] -> (!gpuos.tensor<6x1000xf32>, !gpuos.tensor<6xf32>, !gpuos.tensor<6xi64>) {
    %0 = gpuos.softmax %a axis 1 : !gpuos.tensor<6x1000xf32>
    %1 = gpuos.reduce sum %a axes [1] : !gpuos.tensor<6x1000xf32>
    %2 = gpuos.argmax %a axis 1 : !gpuos.tensor<6x1000xf32>
    gpuos.yield %0, %1, %2 : !gpuos.tensor<6x1000xf32>, !gpuos.tensor<6xf32>, !gpuos.tensor<6xi64>
  }
  gpuos.yield %r#0, %r#1, %r#2 : !gpuos.tensor<6x1000xf32>, !gpuos.tensor<6xf32>, !gpuos.tensor<6xi64>
}

// A task's own priority wins over its graph's: background in a normal graph.
gpuos.graph @by_task(%x : !gpuos.tensor<64x256xf32>) -> (y : !gpuos.tensor<64x256xf32>) {
  %r = gpuos.task "bg_by_task" ins(%a = %x : !gpuos.tensor<64x256xf32>)
      tile [8, 256] priority #gpuos.priority<background> -> (!gpuos.tensor<64x256xf32>) {
    %0 = gpuos.relu %a : !gpuos.tensor<64x256xf32>
    gpuos.yield %0 : !gpuos.tensor<64x256xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64x256xf32>
}

// Urgent work keeps plain accesses.
gpuos.graph @urgent(%x : !gpuos.tensor<64x256xf32>) -> (y : !gpuos.tensor<64x256xf32>)
    priority #gpuos.priority<urgent> {
  %r = gpuos.task "urgent_step" ins(%a = %x : !gpuos.tensor<64x256xf32>)
      tile [8, 256] -> (!gpuos.tensor<64x256xf32>) {
    %0 = gpuos.sigmoid %a : !gpuos.tensor<64x256xf32>
    gpuos.yield %0 : !gpuos.tensor<64x256xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64x256xf32>
}
