// Staged links: on the loop path (other block sizes than the tuned one,
// misaligned buffers, rows longer than the straight-line limit) a row
// chain keeps each link's row in shared memory instead of evaluating the
// chain from the task's inputs again (docs/codegen.md, "Staged links").
// Rows of 6000 take the loop at every block size, four chunks an
// iteration at 256 threads, with masked chunks past the row's end (which
// must not store over another thread's part of the buffer: without that
// guard this case fails); two rows a tile share the buffer in turn (also
// bf16); a link that is also a
// result, a link read again after later links replaced it in the buffer
// (evaluated from the inputs), bf16 rows (staged in f32), f64 rows, a
// link read rolled by 4 (slices and a concat: other threads' positions,
// evaluated from the inputs, not loaded from the buffer), and an f64 link
// before f32 ones (links of two compute types are not staged: one slot
// width; staged, this case failed).
// test/Target/sim-check.mlir runs them on the CPU simulation;
// scripts/gpu-check.sh on a GPU.
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-DAG: .visible .func gpuos_task_sl_long_rows(
// CHECK-DAG: .visible .func gpuos_task_sl_results(
// CHECK-DAG: .visible .func gpuos_task_sl_skip(
// CHECK-DAG: .visible .func gpuos_task_sl_bf16(
// CHECK-DAG: .visible .func gpuos_task_sl_f64(
// CHECK-DAG: .visible .func gpuos_task_sl_rolled(
// CHECK-DAG: .visible .func gpuos_task_sl_mixed(

// Four links on 2 rows of 6000 a tile (the loop at every block size).
gpuos.graph @long_rows(%x : !gpuos.tensor<4x6000xf32>, %w : !gpuos.tensor<4x6000xf32>, %d : !gpuos.tensor<4x6000xf32>)
    -> (y : !gpuos.tensor<4x6000xf32>) {
  %r = gpuos.task "sl_long_rows" ins(%a0 = %x : !gpuos.tensor<4x6000xf32>, %a1 = %w : !gpuos.tensor<4x6000xf32>, %a2 = %d : !gpuos.tensor<4x6000xf32>)
      tile [2, 6000] -> (!gpuos.tensor<4x6000xf32>) {
    %s0 = gpuos.slice %a1 starts [0, 0] sizes [1, 6000] steps [1, 1] : !gpuos.tensor<4x6000xf32>
    %w0 = gpuos.reshape %s0 to [6000] : !gpuos.tensor<1x6000xf32>
    %k0 = gpuos.add %a0, %a2 : !gpuos.tensor<4x6000xf32>, !gpuos.tensor<4x6000xf32>
    %n0 = gpuos.rms_norm %k0 weight(%w0 : !gpuos.tensor<6000xf32>) eps 1.0e-6 : !gpuos.tensor<4x6000xf32>
    %s1 = gpuos.slice %a1 starts [1, 0] sizes [1, 6000] steps [1, 1] : !gpuos.tensor<4x6000xf32>
    %w1 = gpuos.reshape %s1 to [6000] : !gpuos.tensor<1x6000xf32>
    %k1 = gpuos.add %n0, %a2 : !gpuos.tensor<4x6000xf32>, !gpuos.tensor<4x6000xf32>
    %n1 = gpuos.rms_norm %k1 weight(%w1 : !gpuos.tensor<6000xf32>) eps 1.0e-6 : !gpuos.tensor<4x6000xf32>
    %s2 = gpuos.slice %a1 starts [2, 0] sizes [1, 6000] steps [1, 1] : !gpuos.tensor<4x6000xf32>
    %w2 = gpuos.reshape %s2 to [6000] : !gpuos.tensor<1x6000xf32>
    %k2 = gpuos.add %n1, %a2 : !gpuos.tensor<4x6000xf32>, !gpuos.tensor<4x6000xf32>
    %n2 = gpuos.rms_norm %k2 weight(%w2 : !gpuos.tensor<6000xf32>) eps 1.0e-6 : !gpuos.tensor<4x6000xf32>
    %s3 = gpuos.slice %a1 starts [3, 0] sizes [1, 6000] steps [1, 1] : !gpuos.tensor<4x6000xf32>
    %w3 = gpuos.reshape %s3 to [6000] : !gpuos.tensor<1x6000xf32>
    %k3 = gpuos.add %n2, %a2 : !gpuos.tensor<4x6000xf32>, !gpuos.tensor<4x6000xf32>
    %n3 = gpuos.rms_norm %k3 weight(%w3 : !gpuos.tensor<6000xf32>) eps 1.0e-6 : !gpuos.tensor<4x6000xf32>
    gpuos.yield %n3 : !gpuos.tensor<4x6000xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x6000xf32>
}

// Links 0 and 2 are results too.
gpuos.graph @results(%x : !gpuos.tensor<2x1024xf32>, %w : !gpuos.tensor<4x1024xf32>, %d : !gpuos.tensor<2x1024xf32>)
    -> (y : !gpuos.tensor<2x1024xf32>, r0 : !gpuos.tensor<2x1024xf32>, r2 : !gpuos.tensor<2x1024xf32>) {
  %r:3 = gpuos.task "sl_results" ins(%a0 = %x : !gpuos.tensor<2x1024xf32>, %a1 = %w : !gpuos.tensor<4x1024xf32>, %a2 = %d : !gpuos.tensor<2x1024xf32>)
      tile [1, 1024] -> (!gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>) {
    %s0 = gpuos.slice %a1 starts [0, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<4x1024xf32>
    %w0 = gpuos.reshape %s0 to [1024] : !gpuos.tensor<1x1024xf32>
    %k0 = gpuos.add %a0, %a2 : !gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>
    %n0 = gpuos.rms_norm %k0 weight(%w0 : !gpuos.tensor<1024xf32>) eps 1.0e-6 : !gpuos.tensor<2x1024xf32>
    %s1 = gpuos.slice %a1 starts [1, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<4x1024xf32>
    %w1 = gpuos.reshape %s1 to [1024] : !gpuos.tensor<1x1024xf32>
    %k1 = gpuos.add %n0, %a2 : !gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>
    %n1 = gpuos.rms_norm %k1 weight(%w1 : !gpuos.tensor<1024xf32>) eps 1.0e-6 : !gpuos.tensor<2x1024xf32>
    %s2 = gpuos.slice %a1 starts [2, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<4x1024xf32>
    %w2 = gpuos.reshape %s2 to [1024] : !gpuos.tensor<1x1024xf32>
    %k2 = gpuos.add %n1, %a2 : !gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>
    %n2 = gpuos.rms_norm %k2 weight(%w2 : !gpuos.tensor<1024xf32>) eps 1.0e-6 : !gpuos.tensor<2x1024xf32>
    %s3 = gpuos.slice %a1 starts [3, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<4x1024xf32>
    %w3 = gpuos.reshape %s3 to [1024] : !gpuos.tensor<1x1024xf32>
    %k3 = gpuos.add %n2, %a2 : !gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>
    %n3 = gpuos.rms_norm %k3 weight(%w3 : !gpuos.tensor<1024xf32>) eps 1.0e-6 : !gpuos.tensor<2x1024xf32>
    gpuos.yield %n3, %n0, %n2 : !gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2 : !gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>
}

// Link 3 reads link 1 (a skip): link 2 replaced it in the buffer.
gpuos.graph @skip(%x : !gpuos.tensor<1x2048xf32>, %w : !gpuos.tensor<5x2048xf32>, %d : !gpuos.tensor<1x2048xf32>)
    -> (y : !gpuos.tensor<1x2048xf32>) {
  %r = gpuos.task "sl_skip" ins(%a0 = %x : !gpuos.tensor<1x2048xf32>, %a1 = %w : !gpuos.tensor<5x2048xf32>, %a2 = %d : !gpuos.tensor<1x2048xf32>)
      tile [1, 2048] -> (!gpuos.tensor<1x2048xf32>) {
    %s0 = gpuos.slice %a1 starts [0, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<5x2048xf32>
    %w0 = gpuos.reshape %s0 to [2048] : !gpuos.tensor<1x2048xf32>
    %k0 = gpuos.add %a0, %a2 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %n0 = gpuos.rms_norm %k0 weight(%w0 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %s1 = gpuos.slice %a1 starts [1, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<5x2048xf32>
    %w1 = gpuos.reshape %s1 to [2048] : !gpuos.tensor<1x2048xf32>
    %k1 = gpuos.add %n0, %a2 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %n1 = gpuos.rms_norm %k1 weight(%w1 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %s2 = gpuos.slice %a1 starts [2, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<5x2048xf32>
    %w2 = gpuos.reshape %s2 to [2048] : !gpuos.tensor<1x2048xf32>
    %k2 = gpuos.add %n1, %a2 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %n2 = gpuos.rms_norm %k2 weight(%w2 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %s3 = gpuos.slice %a1 starts [3, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<5x2048xf32>
    %w3 = gpuos.reshape %s3 to [2048] : !gpuos.tensor<1x2048xf32>
    %k3 = gpuos.add %n2, %n1 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %n3 = gpuos.rms_norm %k3 weight(%w3 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %s4 = gpuos.slice %a1 starts [4, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<5x2048xf32>
    %w4 = gpuos.reshape %s4 to [2048] : !gpuos.tensor<1x2048xf32>
    %k4 = gpuos.add %n3, %a2 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %n4 = gpuos.rms_norm %k4 weight(%w4 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    gpuos.yield %n4 : !gpuos.tensor<1x2048xf32>
  }
  gpuos.yield %r : !gpuos.tensor<1x2048xf32>
}

// bf16 rows, staged in f32.
gpuos.graph @bf16(%x : !gpuos.tensor<2x3000xbf16>, %w : !gpuos.tensor<3x3000xbf16>, %d : !gpuos.tensor<2x3000xbf16>)
    -> (y : !gpuos.tensor<2x3000xbf16>) {
  %r = gpuos.task "sl_bf16" ins(%a0 = %x : !gpuos.tensor<2x3000xbf16>, %a1 = %w : !gpuos.tensor<3x3000xbf16>, %a2 = %d : !gpuos.tensor<2x3000xbf16>)
      tile [2, 3000] -> (!gpuos.tensor<2x3000xbf16>) {
    %s0 = gpuos.slice %a1 starts [0, 0] sizes [1, 3000] steps [1, 1] : !gpuos.tensor<3x3000xbf16>
    %w0 = gpuos.reshape %s0 to [3000] : !gpuos.tensor<1x3000xbf16>
    %k0 = gpuos.add %a0, %a2 : !gpuos.tensor<2x3000xbf16>, !gpuos.tensor<2x3000xbf16>
    %n0 = gpuos.rms_norm %k0 weight(%w0 : !gpuos.tensor<3000xbf16>) eps 1.0e-6 : !gpuos.tensor<2x3000xbf16>
    %s1 = gpuos.slice %a1 starts [1, 0] sizes [1, 3000] steps [1, 1] : !gpuos.tensor<3x3000xbf16>
    %w1 = gpuos.reshape %s1 to [3000] : !gpuos.tensor<1x3000xbf16>
    %k1 = gpuos.add %n0, %a2 : !gpuos.tensor<2x3000xbf16>, !gpuos.tensor<2x3000xbf16>
    %n1 = gpuos.rms_norm %k1 weight(%w1 : !gpuos.tensor<3000xbf16>) eps 1.0e-6 : !gpuos.tensor<2x3000xbf16>
    %s2 = gpuos.slice %a1 starts [2, 0] sizes [1, 3000] steps [1, 1] : !gpuos.tensor<3x3000xbf16>
    %w2 = gpuos.reshape %s2 to [3000] : !gpuos.tensor<1x3000xbf16>
    %k2 = gpuos.add %n1, %a2 : !gpuos.tensor<2x3000xbf16>, !gpuos.tensor<2x3000xbf16>
    %n2 = gpuos.rms_norm %k2 weight(%w2 : !gpuos.tensor<3000xbf16>) eps 1.0e-6 : !gpuos.tensor<2x3000xbf16>
    gpuos.yield %n2 : !gpuos.tensor<2x3000xbf16>
  }
  gpuos.yield %r : !gpuos.tensor<2x3000xbf16>
}

// f64 rows, staged in f64.
gpuos.graph @f64(%x : !gpuos.tensor<1x1024xf64>, %w : !gpuos.tensor<3x1024xf64>, %d : !gpuos.tensor<1x1024xf64>)
    -> (y : !gpuos.tensor<1x1024xf64>) {
  %r = gpuos.task "sl_f64" ins(%a0 = %x : !gpuos.tensor<1x1024xf64>, %a1 = %w : !gpuos.tensor<3x1024xf64>, %a2 = %d : !gpuos.tensor<1x1024xf64>)
      tile [1, 1024] -> (!gpuos.tensor<1x1024xf64>) {
    %s0 = gpuos.slice %a1 starts [0, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<3x1024xf64>
    %w0 = gpuos.reshape %s0 to [1024] : !gpuos.tensor<1x1024xf64>
    %k0 = gpuos.add %a0, %a2 : !gpuos.tensor<1x1024xf64>, !gpuos.tensor<1x1024xf64>
    %n0 = gpuos.rms_norm %k0 weight(%w0 : !gpuos.tensor<1024xf64>) eps 1.0e-6 : !gpuos.tensor<1x1024xf64>
    %s1 = gpuos.slice %a1 starts [1, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<3x1024xf64>
    %w1 = gpuos.reshape %s1 to [1024] : !gpuos.tensor<1x1024xf64>
    %k1 = gpuos.add %n0, %a2 : !gpuos.tensor<1x1024xf64>, !gpuos.tensor<1x1024xf64>
    %n1 = gpuos.rms_norm %k1 weight(%w1 : !gpuos.tensor<1024xf64>) eps 1.0e-6 : !gpuos.tensor<1x1024xf64>
    %s2 = gpuos.slice %a1 starts [2, 0] sizes [1, 1024] steps [1, 1] : !gpuos.tensor<3x1024xf64>
    %w2 = gpuos.reshape %s2 to [1024] : !gpuos.tensor<1x1024xf64>
    %k2 = gpuos.add %n1, %a2 : !gpuos.tensor<1x1024xf64>, !gpuos.tensor<1x1024xf64>
    %n2 = gpuos.rms_norm %k2 weight(%w2 : !gpuos.tensor<1024xf64>) eps 1.0e-6 : !gpuos.tensor<1x1024xf64>
    gpuos.yield %n2 : !gpuos.tensor<1x1024xf64>
  }
  gpuos.yield %r : !gpuos.tensor<1x1024xf64>
}

// Link 0 rolled by 4 along the row feeds link 1.
gpuos.graph @rolled(%x : !gpuos.tensor<2x2048xf32>, %d : !gpuos.tensor<2x2048xf32>) -> (y : !gpuos.tensor<2x2048xf32>) {
  %r = gpuos.task "sl_rolled" ins(%a0 = %x : !gpuos.tensor<2x2048xf32>, %a1 = %d : !gpuos.tensor<2x2048xf32>) tile [1, 2048] -> (!gpuos.tensor<2x2048xf32>) {
    %n0 = gpuos.rms_norm %a0 eps 1.0e-6 : !gpuos.tensor<2x2048xf32>
    %hi = gpuos.slice %n0 starts [0, 4] sizes [2, 2044] steps [1, 1] : !gpuos.tensor<2x2048xf32>
    %lo = gpuos.slice %n0 starts [0, 0] sizes [2, 4] steps [1, 1] : !gpuos.tensor<2x2048xf32>
    %rl = gpuos.concat %hi, %lo axis 1 : !gpuos.tensor<2x2044xf32, strides = [2048, 1]>, !gpuos.tensor<2x4xf32, strides = [2048, 1]>
    %k1 = gpuos.add %rl, %a1 : !gpuos.tensor<2x2048xf32>, !gpuos.tensor<2x2048xf32>
    %n1 = gpuos.rms_norm %k1 eps 1.0e-6 : !gpuos.tensor<2x2048xf32>
    %n2 = gpuos.rms_norm %n1 eps 1.0e-6 : !gpuos.tensor<2x2048xf32>
    gpuos.yield %n2 : !gpuos.tensor<2x2048xf32>
  }
  gpuos.yield %r : !gpuos.tensor<2x2048xf32>
}

// An f64 link, then f32 links.
gpuos.graph @mixed(%x : !gpuos.tensor<1x3000xf64>, %d : !gpuos.tensor<1x3000xf32>) -> (y : !gpuos.tensor<1x3000xf32>) {
  %r = gpuos.task "sl_mixed" ins(%a0 = %x : !gpuos.tensor<1x3000xf64>, %a1 = %d : !gpuos.tensor<1x3000xf32>) tile [1, 3000] -> (!gpuos.tensor<1x3000xf32>) {
    %n0 = gpuos.rms_norm %a0 eps 1.0e-6 : !gpuos.tensor<1x3000xf64>
    %c0 = gpuos.cast %n0 : !gpuos.tensor<1x3000xf64> to f32
    %k1 = gpuos.add %c0, %a1 : !gpuos.tensor<1x3000xf32>, !gpuos.tensor<1x3000xf32>
    %n1 = gpuos.rms_norm %k1 eps 1.0e-6 : !gpuos.tensor<1x3000xf32>
    %n2 = gpuos.rms_norm %n1 eps 1.0e-6 : !gpuos.tensor<1x3000xf32>
    gpuos.yield %n2 : !gpuos.tensor<1x3000xf32>
  }
  gpuos.yield %r : !gpuos.tensor<1x3000xf32>
}
