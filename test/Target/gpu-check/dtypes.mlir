// Element types: f16 and bf16 (computed in f32, 8 lanes), f64 (2 lanes),
// integer arithmetic with the interpreter's division rules, i1 masks,
// casts (rounding, saturation, wrap), splat and table constants.
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-DAG: .visible .func gpuos_task_dt_half(
// CHECK-DAG: .visible .func gpuos_task_dt_cast_half_widen(
// CHECK-DAG: .visible .func gpuos_task_dt_cast_half_to_int(
// CHECK-DAG: .visible .func gpuos_task_dt_cmp_half(
// CHECK-DAG: .visible .func gpuos_task_dt_argmax_bf16_rows(
// CHECK-DAG: .visible .func gpuos_task_dt_argmax_bf16_cols(
// CHECK-DAG: .visible .func gpuos_task_dt_f64_of_f32_norm(
// CHECK-DAG: .visible .func gpuos_task_dt_bf16(
// CHECK-DAG: .visible .func gpuos_task_dt_f64(
// CHECK-DAG: .visible .func gpuos_task_dt_f64_narrow(
// CHECK-DAG: .visible .func gpuos_task_dt_int(
// CHECK-DAG: .visible .func gpuos_task_dt_i8(
// CHECK-DAG: .visible .func gpuos_task_dt_mask(
// CHECK-DAG: .visible .func gpuos_task_dt_casts(
// CHECK-DAG: .visible .func gpuos_task_dt_table(

gpuos.graph @half(%x : !gpuos.tensor<16x512xf16>, %b : !gpuos.tensor<512xf16>)
    -> (o : !gpuos.tensor<16x512xf16>) {
  %r = gpuos.task "dt_half" ins(%a = %x : !gpuos.tensor<16x512xf16>, %c = %b : !gpuos.tensor<512xf16>)
      tile [1, 512] -> (!gpuos.tensor<16x512xf16>) {
    %0 = gpuos.mul %a, %c : !gpuos.tensor<16x512xf16>, !gpuos.tensor<512xf16>
    %1 = gpuos.tanh %0 : !gpuos.tensor<16x512xf16>
    %2 = gpuos.add %1, %a : !gpuos.tensor<16x512xf16>, !gpuos.tensor<16x512xf16>
    gpuos.yield %2 : !gpuos.tensor<16x512xf16>
  }
  gpuos.yield %r : !gpuos.tensor<16x512xf16>
}

gpuos.graph @bf16(%x : !gpuos.tensor<8x256xbf16>, %y : !gpuos.tensor<8x256xbf16>)
    -> (o : !gpuos.tensor<8x256xbf16>) {
  %r = gpuos.task "dt_bf16" ins(%a = %x : !gpuos.tensor<8x256xbf16>, %b = %y : !gpuos.tensor<8x256xbf16>)
      tile [2, 256] -> (!gpuos.tensor<8x256xbf16>) {
    %0 = gpuos.sigmoid %a : !gpuos.tensor<8x256xbf16>
    %1 = gpuos.mul %0, %b : !gpuos.tensor<8x256xbf16>, !gpuos.tensor<8x256xbf16>
    gpuos.yield %1 : !gpuos.tensor<8x256xbf16>
  }
  gpuos.yield %r : !gpuos.tensor<8x256xbf16>
}

gpuos.graph @f64(%x : !gpuos.tensor<16x128xf64>, %y : !gpuos.tensor<128xf64>)
    -> (o : !gpuos.tensor<16x128xf64>) {
  %r = gpuos.task "dt_f64" ins(%a = %x : !gpuos.tensor<16x128xf64>, %b = %y : !gpuos.tensor<128xf64>)
      tile [4, 128] -> (!gpuos.tensor<16x128xf64>) {
    %0 = gpuos.exp %a : !gpuos.tensor<16x128xf64>
    %1 = gpuos.div %0, %b : !gpuos.tensor<16x128xf64>, !gpuos.tensor<128xf64>
    %2 = gpuos.erf %1 : !gpuos.tensor<16x128xf64>
    gpuos.yield %2 : !gpuos.tensor<16x128xf64>
  }
  gpuos.yield %r : !gpuos.tensor<16x128xf64>
}

// f64 narrowed straight to the 16-bit floats (one rounding each; on the
// host the bf16 one is a compiler-rt call the simulation provides).
gpuos.graph @f64_narrow(%x : !gpuos.tensor<8x128xf64>)
    -> (h : !gpuos.tensor<8x128xf16>, bf : !gpuos.tensor<8x128xbf16>) {
  %r:2 = gpuos.task "dt_f64_narrow" ins(%a = %x : !gpuos.tensor<8x128xf64>)
      tile [2, 128] -> (!gpuos.tensor<8x128xf16>, !gpuos.tensor<8x128xbf16>) {
    %0 = gpuos.cast %a : !gpuos.tensor<8x128xf64> to f16
    %1 = gpuos.cast %a : !gpuos.tensor<8x128xf64> to bf16
    gpuos.yield %0, %1 : !gpuos.tensor<8x128xf16>, !gpuos.tensor<8x128xbf16>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<8x128xf16>, !gpuos.tensor<8x128xbf16>
}

// Inputs are drawn from [0, 8): division by zero gives 0.
gpuos.graph @int(%x : !gpuos.tensor<32x64xi32>, %y : !gpuos.tensor<32x64xi32>, %z : !gpuos.tensor<64xi64>)
    -> (q : !gpuos.tensor<32x64xi32>, w : !gpuos.tensor<32x64xi64>) {
  %r:2 = gpuos.task "dt_int" ins(%a = %x : !gpuos.tensor<32x64xi32>, %b = %y : !gpuos.tensor<32x64xi32>,
                                 %c = %z : !gpuos.tensor<64xi64>)
      tile [8, 64] -> (!gpuos.tensor<32x64xi32>, !gpuos.tensor<32x64xi64>) {
    %k = gpuos.constant dense<3> : tensor<i32>
    %0 = gpuos.sub %a, %k : !gpuos.tensor<32x64xi32>, !gpuos.tensor<i32>
    %1 = gpuos.div %0, %b : !gpuos.tensor<32x64xi32>, !gpuos.tensor<32x64xi32>
    %2 = gpuos.mul %1, %0 : !gpuos.tensor<32x64xi32>, !gpuos.tensor<32x64xi32>
    %3 = gpuos.abs %0 : !gpuos.tensor<32x64xi32>
    %4 = gpuos.max %2, %3 : !gpuos.tensor<32x64xi32>, !gpuos.tensor<32x64xi32>
    %5 = gpuos.neg %4 : !gpuos.tensor<32x64xi32>
    %6 = gpuos.relu %0 : !gpuos.tensor<32x64xi32>
    %7 = gpuos.min %5, %6 : !gpuos.tensor<32x64xi32>, !gpuos.tensor<32x64xi32>
    %8 = gpuos.cast %7 : !gpuos.tensor<32x64xi32> to i64
    %9 = gpuos.mul %8, %c : !gpuos.tensor<32x64xi64>, !gpuos.tensor<64xi64>
    gpuos.yield %7, %9 : !gpuos.tensor<32x64xi32>, !gpuos.tensor<32x64xi64>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<32x64xi32>, !gpuos.tensor<32x64xi64>
}

// i8 multiplication wraps.
gpuos.graph @i8(%x : !gpuos.tensor<8x64xi8>, %y : !gpuos.tensor<8x64xi8>)
    -> (o : !gpuos.tensor<8x64xi8>) {
  %r = gpuos.task "dt_i8" ins(%a = %x : !gpuos.tensor<8x64xi8>, %b = %y : !gpuos.tensor<8x64xi8>)
      tile [8, 64] -> (!gpuos.tensor<8x64xi8>) {
    %k = gpuos.constant dense<37> : tensor<i8>
    %0 = gpuos.mul %a, %k : !gpuos.tensor<8x64xi8>, !gpuos.tensor<i8>
    %1 = gpuos.mul %0, %b : !gpuos.tensor<8x64xi8>, !gpuos.tensor<8x64xi8>
    %2 = gpuos.sub %1, %a : !gpuos.tensor<8x64xi8>, !gpuos.tensor<8x64xi8>
    gpuos.yield %2 : !gpuos.tensor<8x64xi8>
  }
  gpuos.yield %r : !gpuos.tensor<8x64xi8>
}

// Comparisons give i1 (stored one byte each); select broadcasts all three.
gpuos.graph @mask(%x : !gpuos.tensor<16x64xf32>, %y : !gpuos.tensor<64xf32>, %m : !gpuos.tensor<16x1xi1>)
    -> (sel : !gpuos.tensor<16x64xf32>, lt : !gpuos.tensor<16x64xi1>) {
  %r:2 = gpuos.task "dt_mask" ins(%a = %x : !gpuos.tensor<16x64xf32>, %b = %y : !gpuos.tensor<64xf32>,
                                  %c = %m : !gpuos.tensor<16x1xi1>)
      tile [4, 64] -> (!gpuos.tensor<16x64xf32>, !gpuos.tensor<16x64xi1>) {
    %lt = gpuos.cmp lt, %a, %b : !gpuos.tensor<16x64xf32>, !gpuos.tensor<64xf32>
    %half = gpuos.constant dense<0.5> : tensor<f32>
    %ne = gpuos.cmp ne, %a, %half : !gpuos.tensor<16x64xf32>, !gpuos.tensor<f32>
    %neg = gpuos.constant dense<-1.0e+30> : tensor<f32>
    %s0 = gpuos.select %c, %a, %neg : !gpuos.tensor<16x1xi1>, !gpuos.tensor<16x64xf32>, !gpuos.tensor<f32>
    %s1 = gpuos.select %ne, %s0, %b : !gpuos.tensor<16x64xi1>, !gpuos.tensor<16x64xf32>, !gpuos.tensor<64xf32>
    gpuos.yield %s1, %lt : !gpuos.tensor<16x64xf32>, !gpuos.tensor<16x64xi1>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<16x64xf32>, !gpuos.tensor<16x64xi1>
}

// Casts: f32 -> f16/bf16 rounding, f32 -> i32 truncation and saturation,
// i32 -> f32, i8 -> i32 sign extension, i32 -> i8 wrap, f32 -> i1, i1 -> f32.
gpuos.graph @casts(%x : !gpuos.tensor<4x256xf32>, %n : !gpuos.tensor<4x256xi32>)
    -> (h : !gpuos.tensor<4x256xf16>, bf : !gpuos.tensor<4x256xbf16>, i : !gpuos.tensor<4x256xi32>,
        sat : !gpuos.tensor<4x256xi32>, f : !gpuos.tensor<4x256xf32>, w : !gpuos.tensor<4x256xi8>,
        b : !gpuos.tensor<4x256xf32>) {
  %r:7 = gpuos.task "dt_casts" ins(%a = %x : !gpuos.tensor<4x256xf32>, %m = %n : !gpuos.tensor<4x256xi32>)
      tile [1, 256] -> (!gpuos.tensor<4x256xf16>, !gpuos.tensor<4x256xbf16>, !gpuos.tensor<4x256xi32>,
                        !gpuos.tensor<4x256xi32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xi8>,
                        !gpuos.tensor<4x256xf32>) {
    %big = gpuos.constant dense<1000.0> : tensor<f32>
    %huge = gpuos.constant dense<1.0e+10> : tensor<f32>
    %k = gpuos.constant dense<40> : tensor<i32>
    %h = gpuos.cast %a : !gpuos.tensor<4x256xf32> to f16
    %bf = gpuos.cast %a : !gpuos.tensor<4x256xf32> to bf16
    %s = gpuos.mul %a, %big : !gpuos.tensor<4x256xf32>, !gpuos.tensor<f32>
    %i = gpuos.cast %s : !gpuos.tensor<4x256xf32> to i32
    %t = gpuos.mul %a, %huge : !gpuos.tensor<4x256xf32>, !gpuos.tensor<f32>
    %sat = gpuos.cast %t : !gpuos.tensor<4x256xf32> to i32
    %f = gpuos.cast %m : !gpuos.tensor<4x256xi32> to f32
    %p = gpuos.mul %m, %k : !gpuos.tensor<4x256xi32>, !gpuos.tensor<i32>
    %w8 = gpuos.cast %p : !gpuos.tensor<4x256xi32> to i8
    %w32 = gpuos.cast %w8 : !gpuos.tensor<4x256xi8> to i32
    %w = gpuos.cast %w32 : !gpuos.tensor<4x256xi32> to i8
    %bit = gpuos.cast %i : !gpuos.tensor<4x256xi32> to i1
    %b = gpuos.cast %bit : !gpuos.tensor<4x256xi1> to f32
    gpuos.yield %h, %bf, %i, %sat, %f, %w, %b
        : !gpuos.tensor<4x256xf16>, !gpuos.tensor<4x256xbf16>, !gpuos.tensor<4x256xi32>,
          !gpuos.tensor<4x256xi32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xi8>,
          !gpuos.tensor<4x256xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6
      : !gpuos.tensor<4x256xf16>, !gpuos.tensor<4x256xbf16>, !gpuos.tensor<4x256xi32>,
        !gpuos.tensor<4x256xi32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xi8>,
        !gpuos.tensor<4x256xf32>
}

// A constant that is not a splat lives in a table in global memory.
gpuos.graph @table(%x : !gpuos.tensor<6x8xf32>) -> (o : !gpuos.tensor<6x8xf32>) {
  %r = gpuos.task "dt_table" ins(%a = %x : !gpuos.tensor<6x8xf32>) tile [2, 8] -> (!gpuos.tensor<6x8xf32>) {
    %t = gpuos.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
    %s = gpuos.constant dense<[[0.5], [1.5], [2.5], [3.5], [4.5], [5.5]]> : tensor<6x1xf32>
    %0 = gpuos.mul %a, %t : !gpuos.tensor<6x8xf32>, !gpuos.tensor<8xf32>
    %1 = gpuos.add %0, %s : !gpuos.tensor<6x8xf32>, !gpuos.tensor<6x1xf32>
    gpuos.yield %1 : !gpuos.tensor<6x8xf32>
  }
  gpuos.yield %r : !gpuos.tensor<6x8xf32>
}

// A computed f16/bf16 value is held unrounded in f32 until stored or cast;
// a cast reads it rounded to its own precision first. Widened as it was,
// exp's f32/f64 results were no bf16/f16 values; and s = 2047 / 682.5 is
// 2.99927 in f32 but 3 in f16 (i32: 3, was 2), p = 1e-4^2 is 0 in f16
// (i1: false, was true). x*0 keeps the values from the constant folder.
gpuos.graph @cast_half_widen(%x : !gpuos.tensor<64xbf16>, %h : !gpuos.tensor<64xf16>)
    -> (y : !gpuos.tensor<64xf32>, z : !gpuos.tensor<64xf64>, w : !gpuos.tensor<64xf32>) {
  %r:3 = gpuos.task "dt_cast_half_widen" ins(%a = %x : !gpuos.tensor<64xbf16>, %c = %h : !gpuos.tensor<64xf16>)
      tile [64] -> (!gpuos.tensor<64xf32>, !gpuos.tensor<64xf64>, !gpuos.tensor<64xf32>) {
    %e = gpuos.exp %a : !gpuos.tensor<64xbf16>
    %f = gpuos.exp %c : !gpuos.tensor<64xf16>
    %0 = gpuos.cast %e : !gpuos.tensor<64xbf16> to f32
    %1 = gpuos.cast %e : !gpuos.tensor<64xbf16> to f64
    %2 = gpuos.cast %f : !gpuos.tensor<64xf16> to f32
    gpuos.yield %0, %1, %2 : !gpuos.tensor<64xf32>, !gpuos.tensor<64xf64>, !gpuos.tensor<64xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2 : !gpuos.tensor<64xf32>, !gpuos.tensor<64xf64>, !gpuos.tensor<64xf32>
}

gpuos.graph @cast_half_to_int(%x : !gpuos.tensor<4xf16>)
    -> (i : !gpuos.tensor<4xi32>, b : !gpuos.tensor<4xi1>) {
  %r:2 = gpuos.task "dt_cast_half_to_int" ins(%a = %x : !gpuos.tensor<4xf16>)
      tile [4] -> (!gpuos.tensor<4xi32>, !gpuos.tensor<4xi1>) {
    %zero = gpuos.constant dense<0.0> : tensor<f16>
    %c = gpuos.constant dense<2047.0> : tensor<f16>
    %d = gpuos.constant dense<682.5> : tensor<f16>
    %t = gpuos.constant dense<1.0e-4> : tensor<f16>
    %z = gpuos.mul %a, %zero : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %v = gpuos.add %z, %c : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %w = gpuos.add %z, %d : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %s = gpuos.div %v, %w : !gpuos.tensor<4xf16>, !gpuos.tensor<4xf16>
    %0 = gpuos.cast %s : !gpuos.tensor<4xf16> to i32
    %u = gpuos.add %z, %t : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %p = gpuos.mul %u, %u : !gpuos.tensor<4xf16>, !gpuos.tensor<4xf16>
    %1 = gpuos.cast %p : !gpuos.tensor<4xf16> to i1
    gpuos.yield %0, %1 : !gpuos.tensor<4xi32>, !gpuos.tensor<4xi1>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<4xi32>, !gpuos.tensor<4xi1>
}

// cmp compares the graph's f16/bf16 values too: s = 2047 / 682.5 is 3 in
// f16 (2.99927 in f32), so s == 3 and not s < 3; p = 1e-4^2 is 0 in f16, so
// p <= 0; 1 + 1/512 is 1 in bf16, so q == 1 (unrounded: false, true,
// false, false).
gpuos.graph @cmp_half(%x : !gpuos.tensor<4xf16>, %y : !gpuos.tensor<4xbf16>)
    -> (e : !gpuos.tensor<4xi1>, l : !gpuos.tensor<4xi1>, z : !gpuos.tensor<4xi1>,
        o : !gpuos.tensor<4xi1>) {
  %r:4 = gpuos.task "dt_cmp_half" ins(%a = %x : !gpuos.tensor<4xf16>, %b = %y : !gpuos.tensor<4xbf16>)
      tile [4] -> (!gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>) {
    %zero = gpuos.constant dense<0.0> : tensor<f16>
    %three = gpuos.constant dense<3.0> : tensor<f16>
    %c = gpuos.constant dense<2047.0> : tensor<f16>
    %d = gpuos.constant dense<682.5> : tensor<f16>
    %t = gpuos.constant dense<1.0e-4> : tensor<f16>
    %bzero = gpuos.constant dense<0.0> : tensor<bf16>
    %one = gpuos.constant dense<1.0> : tensor<bf16>
    %tiny = gpuos.constant dense<0.001953125> : tensor<bf16>
    %z = gpuos.mul %a, %zero : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %v = gpuos.add %z, %c : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %w = gpuos.add %z, %d : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %s = gpuos.div %v, %w : !gpuos.tensor<4xf16>, !gpuos.tensor<4xf16>
    %0 = gpuos.cmp eq, %s, %three : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %1 = gpuos.cmp lt, %s, %three : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %u = gpuos.add %z, %t : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %p = gpuos.mul %u, %u : !gpuos.tensor<4xf16>, !gpuos.tensor<4xf16>
    %2 = gpuos.cmp le, %p, %zero : !gpuos.tensor<4xf16>, !gpuos.tensor<f16>
    %bz = gpuos.mul %b, %bzero : !gpuos.tensor<4xbf16>, !gpuos.tensor<bf16>
    %q0 = gpuos.add %bz, %one : !gpuos.tensor<4xbf16>, !gpuos.tensor<bf16>
    %q = gpuos.add %q0, %tiny : !gpuos.tensor<4xbf16>, !gpuos.tensor<bf16>
    %3 = gpuos.cmp eq, %q, %one : !gpuos.tensor<4xbf16>, !gpuos.tensor<bf16>
    gpuos.yield %0, %1, %2, %3 : !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>
  }
  gpuos.yield %r#0, %r#1, %r#2, %r#3 : !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>
}

// argmax compares the graph's bf16 values: 1 + x/1000 rounds to 1.0 or
// 1.0078125, so many elements tie and the first wins (it compared the
// unrounded f32 values: index 94 for 0). Along rows (the row strategy) and
// down columns (a serial reduction per result).
gpuos.graph @argmax_bf16_rows(%x : !gpuos.tensor<4x256xbf16>) -> (i : !gpuos.tensor<4xi64>) {
  %r = gpuos.task "dt_argmax_bf16_rows" ins(%a = %x : !gpuos.tensor<4x256xbf16>) tile [4] -> (!gpuos.tensor<4xi64>) {
    %one = gpuos.constant dense<1.0> : tensor<bf16>
    %k = gpuos.constant dense<1.0e-3> : tensor<bf16>
    %m = gpuos.mul %a, %k : !gpuos.tensor<4x256xbf16>, !gpuos.tensor<bf16>
    %y = gpuos.add %m, %one : !gpuos.tensor<4x256xbf16>, !gpuos.tensor<bf16>
    %0 = gpuos.argmax %y axis 1 : !gpuos.tensor<4x256xbf16>
    gpuos.yield %0 : !gpuos.tensor<4xi64>
  }
  gpuos.yield %r : !gpuos.tensor<4xi64>
}

gpuos.graph @argmax_bf16_cols(%x : !gpuos.tensor<256x4xbf16>) -> (i : !gpuos.tensor<4xi64>) {
  %r = gpuos.task "dt_argmax_bf16_cols" ins(%a = %x : !gpuos.tensor<256x4xbf16>) tile [4] -> (!gpuos.tensor<4xi64>) {
    %one = gpuos.constant dense<1.0> : tensor<bf16>
    %k = gpuos.constant dense<1.0e-3> : tensor<bf16>
    %m = gpuos.mul %a, %k : !gpuos.tensor<256x4xbf16>, !gpuos.tensor<bf16>
    %y = gpuos.add %m, %one : !gpuos.tensor<256x4xbf16>, !gpuos.tensor<bf16>
    %0 = gpuos.argmax %y axis 0 : !gpuos.tensor<256x4xbf16>
    gpuos.yield %0 : !gpuos.tensor<4xi64>
  }
  gpuos.yield %r : !gpuos.tensor<4xi64>
}

// An f64 result of f32 math carries f32 error: the check gives it the f32
// math's tolerance (gpuos-check-gen; 1e-10 flagged rsqrt.approx's one ulp).
gpuos.graph @f64_of_f32_norm(%x : !gpuos.tensor<16x64xf32>) -> (y : !gpuos.tensor<16x64xf64>) {
  %r = gpuos.task "dt_f64_of_f32_norm" ins(%a = %x : !gpuos.tensor<16x64xf32>) tile [1, 64] -> (!gpuos.tensor<16x64xf64>) {
    %0 = gpuos.layer_norm %a eps 1.0e-5 : !gpuos.tensor<16x64xf32>
    %1 = gpuos.cast %0 : !gpuos.tensor<16x64xf32> to f64
    gpuos.yield %1 : !gpuos.tensor<16x64xf64>
  }
  gpuos.yield %r : !gpuos.tensor<16x64xf64>
}
