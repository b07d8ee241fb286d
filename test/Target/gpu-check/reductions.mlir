// Reductions. Rows a tile holds whole go to the block-cooperative strategy
// (shuffles + shared memory); other axes and tiles reduce serially.
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK: .extern .shared .align 16 .b8 __gpuos_shared[];
// CHECK-DAG: .visible .func gpuos_task_red_softmax(
// CHECK-DAG: .visible .func gpuos_task_red_norms(
// CHECK-DAG: .visible .func gpuos_task_red_reduce_rows(
// CHECK-DAG: .visible .func gpuos_task_red_argmax(
// CHECK-DAG: .visible .func gpuos_task_red_axis0(
// CHECK-DAG: .visible .func gpuos_task_red_softmax_axis0(
// CHECK-DAG: .visible .func gpuos_task_red_softmax_partial_row(
// CHECK-DAG: .visible .func gpuos_task_red_half_softmax(
// CHECK-DAG: .visible .func gpuos_task_red_int_rows(
// CHECK-DAG: .visible .func gpuos_task_red_nan_rows(
// CHECK-DAG: .visible .func gpuos_task_red_mixed_rows(
// CHECK-DAG: .visible .func gpuos_task_red_transposed_rows(
// CHECK-DAG: .visible .func gpuos_task_red_long_rows(
// CHECK-DAG: .visible .func gpuos_task_red_masked_long_rows(
// CHECK-DAG: .visible .func gpuos_task_red_narrow_rows(

// Rows too long for the straight-line path (5000 f32: five chunks a thread
// at 256 threads): the loop takes up to eight chunks an iteration, and the
// chunks past the row are masked (their loads read the row's last chunk).
// Sum, max, mean and argmax of each row, and its softmax; the sum, max and
// mean fold in one pass (sibling reduces, three accumulators).
gpuos.graph @long_rows(%x : !gpuos.tensor<3x5000xf32>)
    -> (p : !gpuos.tensor<3x5000xf32>, s : !gpuos.tensor<3xf32>, m : !gpuos.tensor<3xf32>,
        i : !gpuos.tensor<3xi64>, mu : !gpuos.tensor<3xf32>) {
  %r:5 = gpuos.task "red_long_rows" ins(%a = %x : !gpuos.tensor<3x5000xf32>)
      tile [1, 5000] -> (!gpuos.tensor<3x5000xf32>, !gpuos.tensor<3xf32>, !gpuos.tensor<3xf32>,
                         !gpuos.tensor<3xi64>, !gpuos.tensor<3xf32>) {
    %0 = gpuos.softmax %a axis 1 : !gpuos.tensor<3x5000xf32>
    %1 = gpuos.reduce sum %a axes [1] : !gpuos.tensor<3x5000xf32>
    %2 = gpuos.reduce max %a axes [1] : !gpuos.tensor<3x5000xf32>
    %3 = gpuos.argmax %a axis 1 : !gpuos.tensor<3x5000xf32>
    %4 = gpuos.reduce mean %a axes [1] : !gpuos.tensor<3x5000xf32>
    gpuos.yield %0, %1, %2, %3, %4 : !gpuos.tensor<3x5000xf32>, !gpuos.tensor<3xf32>,
                                     !gpuos.tensor<3xf32>, !gpuos.tensor<3xi64>, !gpuos.tensor<3xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2, %r#3, %r#4 : !gpuos.tensor<3x5000xf32>, !gpuos.tensor<3xf32>,
                                             !gpuos.tensor<3xf32>, !gpuos.tensor<3xi64>,
                                             !gpuos.tensor<3xf32>
}

// Narrow rows shared by part of a warp: 40 f32 take 16 lanes, two rows a
// warp at once. Tiles of 7 rows leave a slot without a row, and 1000 rows
// a short last tile: those lanes load a clamped row and store nothing.
// Sum, argmax (the pair fold over 16 lanes) and softmax of each row.
gpuos.graph @narrow_rows(%x : !gpuos.tensor<1000x40xf32>)
    -> (s : !gpuos.tensor<1000xf32>, i : !gpuos.tensor<1000xi64>, p : !gpuos.tensor<1000x40xf32>) {
  %r:3 = gpuos.task "red_narrow_rows" ins(%a = %x : !gpuos.tensor<1000x40xf32>)
      tile [7] -> (!gpuos.tensor<1000xf32>, !gpuos.tensor<1000xi64>, !gpuos.tensor<1000x40xf32>) {
    %0 = gpuos.reduce sum %a axes [1] : !gpuos.tensor<1000x40xf32>
    %1 = gpuos.argmax %a axis 1 : !gpuos.tensor<1000x40xf32>
    %2 = gpuos.softmax %a axis 1 : !gpuos.tensor<1000x40xf32>
    gpuos.yield %0, %1, %2 : !gpuos.tensor<1000xf32>, !gpuos.tensor<1000xi64>, !gpuos.tensor<1000x40xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2 : !gpuos.tensor<1000xf32>, !gpuos.tensor<1000xi64>, !gpuos.tensor<1000x40xf32>
}

// The loop path's one-pass softmax (max and sum of exp together) on rows
// three quarters -inf (inputs in [-1, 1)): a thread whose chunks so far
// are all -inf must add 0 to its sum, not NaN, and a row's pairs merge
// across warps whose maxima differ. Rows of 6000 f32: six chunks a thread.
gpuos.graph @masked_long_rows(%x : !gpuos.tensor<4x6000xf32>)
    -> (p : !gpuos.tensor<4x6000xf32>) {
  %r = gpuos.task "red_masked_long_rows" ins(%a = %x : !gpuos.tensor<4x6000xf32>)
      tile [1, 6000] -> (!gpuos.tensor<4x6000xf32>) {
    %ninf = gpuos.constant dense<0xFF800000> : tensor<f32>
    %cut = gpuos.constant dense<0.5> : tensor<f32>
    %keep = gpuos.cmp gt, %a, %cut : !gpuos.tensor<4x6000xf32>, !gpuos.tensor<f32>
    %b = gpuos.select %keep, %a, %ninf : !gpuos.tensor<4x6000xi1>, !gpuos.tensor<4x6000xf32>, !gpuos.tensor<f32>
    %0 = gpuos.softmax %b axis 1 : !gpuos.tensor<4x6000xf32>
    gpuos.yield %0 : !gpuos.tensor<4x6000xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x6000xf32>
}

// softmax_norm's first block: scale, causal mask, softmax over the keys.
gpuos.graph @softmax(%s : !gpuos.tensor<16x32x32xf32>, %m : !gpuos.tensor<32x32xi1>)
    -> (p : !gpuos.tensor<16x32x32xf32>) {
  %r = gpuos.task "red_softmax" ins(%a = %s : !gpuos.tensor<16x32x32xf32>, %b = %m : !gpuos.tensor<32x32xi1>)
      tile [2, 32, 32] -> (!gpuos.tensor<16x32x32xf32>) {
    %scale = gpuos.constant dense<0.125> : tensor<f32>
    %neg = gpuos.constant dense<-1.0e+30> : tensor<f32>
    %0 = gpuos.mul %a, %scale : !gpuos.tensor<16x32x32xf32>, !gpuos.tensor<f32>
    %1 = gpuos.select %b, %0, %neg : !gpuos.tensor<32x32xi1>, !gpuos.tensor<16x32x32xf32>, !gpuos.tensor<f32>
    %2 = gpuos.softmax %1 axis 2 : !gpuos.tensor<16x32x32xf32>
    gpuos.yield %2 : !gpuos.tensor<16x32x32xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x32x32xf32>
}

// Residual add, then layer_norm and rms_norm of the same rows.
gpuos.graph @norms(%x : !gpuos.tensor<32x1024xf32>, %h : !gpuos.tensor<32x1024xf32>,
                   %w : !gpuos.tensor<1024xf32>, %b : !gpuos.tensor<1024xf32>, %g : !gpuos.tensor<1024xf32>)
    -> (ln : !gpuos.tensor<32x1024xf32>, rms : !gpuos.tensor<32x1024xf32>) {
  %r:2 = gpuos.task "red_norms" ins(%a = %x : !gpuos.tensor<32x1024xf32>, %c = %h : !gpuos.tensor<32x1024xf32>,
                                    %ww = %w : !gpuos.tensor<1024xf32>, %bb = %b : !gpuos.tensor<1024xf32>,
                                    %gg = %g : !gpuos.tensor<1024xf32>)
      tile [4, 1024] -> (!gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>) {
    %0 = gpuos.add %a, %c : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
    %1 = gpuos.layer_norm %0 weight(%ww : !gpuos.tensor<1024xf32>) bias(%bb : !gpuos.tensor<1024xf32>)
        eps 1.0e-05 : !gpuos.tensor<32x1024xf32>
    %2 = gpuos.rms_norm %0 weight(%gg : !gpuos.tensor<1024xf32>) eps 1.0e-06 : !gpuos.tensor<32x1024xf32>
    gpuos.yield %1, %2 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
}

// Reduced results stored by thread 0 of each row; the first result is the
// reduced one, so the tiles count rows. 48 rows in tiles of 5: a partial tile.
gpuos.graph @reduce_rows(%x : !gpuos.tensor<48x300xf32>)
    -> (sum : !gpuos.tensor<48xf32>, mean : !gpuos.tensor<48x1xf32>, max : !gpuos.tensor<48xf32>,
        min : !gpuos.tensor<48xf32>) {
  %r:4 = gpuos.task "red_reduce_rows" ins(%a = %x : !gpuos.tensor<48x300xf32>)
      tile [5] -> (!gpuos.tensor<48xf32>, !gpuos.tensor<48x1xf32>, !gpuos.tensor<48xf32>, !gpuos.tensor<48xf32>) {
    %e = gpuos.exp %a : !gpuos.tensor<48x300xf32>
    %0 = gpuos.reduce sum %e axes [1] : !gpuos.tensor<48x300xf32>
    %1 = gpuos.reduce mean %a axes [1] keepdim : !gpuos.tensor<48x300xf32>
    %2 = gpuos.reduce max %a axes [1] : !gpuos.tensor<48x300xf32>
    %3 = gpuos.reduce min %a axes [1] : !gpuos.tensor<48x300xf32>
    gpuos.yield %0, %1, %2, %3 : !gpuos.tensor<48xf32>, !gpuos.tensor<48x1xf32>, !gpuos.tensor<48xf32>, !gpuos.tensor<48xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2, %r#3 : !gpuos.tensor<48xf32>, !gpuos.tensor<48x1xf32>, !gpuos.tensor<48xf32>, !gpuos.tensor<48xf32>
}

// decode_step's last task: the next token.
gpuos.graph @argmax(%x : !gpuos.tensor<3x1024xf32>) -> (t : !gpuos.tensor<3xi64>) {
  %r = gpuos.task "red_argmax" ins(%a = %x : !gpuos.tensor<3x1024xf32>) tile [1] -> (!gpuos.tensor<3xi64>) {
    %0 = gpuos.argmax %a axis 1 : !gpuos.tensor<3x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<3xi64>
  }
  gpuos.yield %r : !gpuos.tensor<3xi64>
}

// Reductions over the leading axis and a softmax along it: serial loops.
gpuos.graph @axis0(%x : !gpuos.tensor<24x64xf32>)
    -> (s : !gpuos.tensor<1x64xf32>, i : !gpuos.tensor<1x64xi64>, p : !gpuos.tensor<24x64xf32>) {
  %r:2 = gpuos.task "red_axis0" ins(%a = %x : !gpuos.tensor<24x64xf32>)
      tile [1, 32] -> (!gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xi64>) {
    %0 = gpuos.reduce sum %a axes [0] keepdim : !gpuos.tensor<24x64xf32>
    %1 = gpuos.argmax %a axis 0 keepdim : !gpuos.tensor<24x64xf32>
    gpuos.yield %0, %1 : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xi64>
  }
  %p = gpuos.task "red_softmax_axis0" ins(%a = %x : !gpuos.tensor<24x64xf32>)
      tile [8, 64] -> (!gpuos.tensor<24x64xf32>) {
    %0 = gpuos.softmax %a axis 0 : !gpuos.tensor<24x64xf32>
    gpuos.yield %0 : !gpuos.tensor<24x64xf32>
  }
  gpuos.yield %r#0, %r#1, %p : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xi64>, !gpuos.tensor<24x64xf32>
}

// A tile holding half a row: the row statistics are computed serially.
gpuos.graph @softmax_partial_row(%x : !gpuos.tensor<4x64xf32>) -> (p : !gpuos.tensor<4x64xf32>) {
  %r = gpuos.task "red_softmax_partial_row" ins(%a = %x : !gpuos.tensor<4x64xf32>)
      tile [1, 32] -> (!gpuos.tensor<4x64xf32>) {
    %0 = gpuos.softmax %a axis 1 : !gpuos.tensor<4x64xf32>
    gpuos.yield %0 : !gpuos.tensor<4x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x64xf32>
}

gpuos.graph @half_softmax(%x : !gpuos.tensor<8x200xf16>) -> (p : !gpuos.tensor<8x200xf16>) {
  %r = gpuos.task "red_half_softmax" ins(%a = %x : !gpuos.tensor<8x200xf16>)
      tile [2, 200] -> (!gpuos.tensor<8x200xf16>) {
    %0 = gpuos.softmax %a axis 1 : !gpuos.tensor<8x200xf16>
    gpuos.yield %0 : !gpuos.tensor<8x200xf16>
  }
  gpuos.yield %r : !gpuos.tensor<8x200xf16>
}

// Integer sums wrap; i64 partials cross the shuffles as two halves.
gpuos.graph @int_rows(%x : !gpuos.tensor<6x500xi64>, %y : !gpuos.tensor<6x500xi32>)
    -> (s : !gpuos.tensor<6xi64>, m : !gpuos.tensor<6xi32>, a : !gpuos.tensor<6xi64>) {
  %r:3 = gpuos.task "red_int_rows" ins(%a = %x : !gpuos.tensor<6x500xi64>, %b = %y : !gpuos.tensor<6x500xi32>)
      tile [2] -> (!gpuos.tensor<6xi64>, !gpuos.tensor<6xi32>, !gpuos.tensor<6xi64>) {
    %0 = gpuos.reduce sum %a axes [1] : !gpuos.tensor<6x500xi64>
    %1 = gpuos.reduce max %b axes [1] : !gpuos.tensor<6x500xi32>
    %2 = gpuos.argmax %b axis 1 : !gpuos.tensor<6x500xi32>
    gpuos.yield %0, %1, %2 : !gpuos.tensor<6xi64>, !gpuos.tensor<6xi32>, !gpuos.tensor<6xi64>
  }
  gpuos.yield %r#0, %r#1, %r#2 : !gpuos.tensor<6xi64>, !gpuos.tensor<6xi32>, !gpuos.tensor<6xi64>
}

// NaN semantics: max propagates NaN, argmax takes the first NaN (about a
// tenth of the elements are NaN here), both block-cooperatively.
gpuos.graph @nan_rows(%x : !gpuos.tensor<16x96xf32>)
    -> (m : !gpuos.tensor<16xf32>, i : !gpuos.tensor<16xi64>) {
  %r:2 = gpuos.task "red_nan_rows" ins(%a = %x : !gpuos.tensor<16x96xf32>)
      tile [4] -> (!gpuos.tensor<16xf32>, !gpuos.tensor<16xi64>) {
    %nan = gpuos.constant dense<0x7FC00000> : tensor<f32>
    %cut = gpuos.constant dense<0.8> : tensor<f32>
    %keep = gpuos.cmp lt, %a, %cut : !gpuos.tensor<16x96xf32>, !gpuos.tensor<f32>
    %b = gpuos.select %keep, %a, %nan : !gpuos.tensor<16x96xi1>, !gpuos.tensor<16x96xf32>, !gpuos.tensor<f32>
    %0 = gpuos.reduce max %b axes [1] : !gpuos.tensor<16x96xf32>
    %1 = gpuos.argmax %b axis 1 : !gpuos.tensor<16x96xf32>
    gpuos.yield %0, %1 : !gpuos.tensor<16xf32>, !gpuos.tensor<16xi64>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<16xf32>, !gpuos.tensor<16xi64>
}

// The reduced row first and the full rows second; rows over two leading
// dims with partial tiles; norms without weight and bias.
gpuos.graph @mixed_rows(%x : !gpuos.tensor<5x6x40xf32>)
    -> (s : !gpuos.tensor<5x6x1xf32>, p : !gpuos.tensor<5x6x40xf32>, n : !gpuos.tensor<5x6x40xf32>) {
  %r:3 = gpuos.task "red_mixed_rows" ins(%a = %x : !gpuos.tensor<5x6x40xf32>)
      tile [2, 4, 1] -> (!gpuos.tensor<5x6x1xf32>, !gpuos.tensor<5x6x40xf32>, !gpuos.tensor<5x6x40xf32>) {
    %0 = gpuos.reduce sum %a axes [2] keepdim : !gpuos.tensor<5x6x40xf32>
    %1 = gpuos.softmax %a axis 2 : !gpuos.tensor<5x6x40xf32>
    %2 = gpuos.layer_norm %1 eps 1.0e-05 : !gpuos.tensor<5x6x40xf32>
    %3 = gpuos.rms_norm %2 eps 1.0e-06 : !gpuos.tensor<5x6x40xf32>
    %4 = gpuos.sub %3, %0 : !gpuos.tensor<5x6x40xf32>, !gpuos.tensor<5x6x1xf32>
    gpuos.yield %0, %1, %4 : !gpuos.tensor<5x6x1xf32>, !gpuos.tensor<5x6x40xf32>, !gpuos.tensor<5x6x40xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2 : !gpuos.tensor<5x6x1xf32>, !gpuos.tensor<5x6x40xf32>, !gpuos.tensor<5x6x40xf32>
}

// A row result read through a transpose (other rows than the current one):
// the statistics of those rows are recomputed serially.
gpuos.graph @transposed_rows(%x : !gpuos.tensor<32x32xf32>) -> (o : !gpuos.tensor<32x32xf32>) {
  %r = gpuos.task "red_transposed_rows" ins(%a = %x : !gpuos.tensor<32x32xf32>)
      tile [4, 32] -> (!gpuos.tensor<32x32xf32>) {
    %0 = gpuos.softmax %a axis 1 : !gpuos.tensor<32x32xf32>
    %1 = gpuos.transpose %0 [1, 0] : !gpuos.tensor<32x32xf32>
    %2 = gpuos.add %0, %1 : !gpuos.tensor<32x32xf32>, !gpuos.tensor<32x32xf32, strides = [1, 32]>
    gpuos.yield %2 : !gpuos.tensor<32x32xf32>
  }
  gpuos.yield %r : !gpuos.tensor<32x32xf32>
}
