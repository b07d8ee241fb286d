// RUN: gpuos-interp %s | FileCheck %s

gpuos.graph @casts() -> (h : !gpuos.tensor<6xf16>, bf : !gpuos.tensor<4xbf16>,
                         i : !gpuos.tensor<5xi8>, w : !gpuos.tensor<3xi8>) {
  %x = gpuos.constant dense<[1.0009765625, 1.00048828125, 1.00146484375, 65519.0, 65520.0, 300.5]> : tensor<6xf32>
  // f16: exact; a tie to even (down); a tie to even (up); just below the
  // overflow boundary; on it (inf); exact.
  %h = gpuos.cast %x : !gpuos.tensor<6xf32> to f16
  // bf16 keeps 8 bits: 1 + 2^-8 ties down to 1, 257 ties down to 256 and
  // 259 ties up to 260.
  %y = gpuos.constant dense<[1.00390625, 257.0, 259.0, 0.5]> : tensor<4xf32>
  %bf = gpuos.cast %y : !gpuos.tensor<4xf32> to bf16
  // Float to int truncates toward zero and saturates; NaN gives 0.
  %z = gpuos.constant dense<[2.7, -2.7, 300.0, -300.0, 0x7FC00000]> : tensor<5xf32>
  %i = gpuos.cast %z : !gpuos.tensor<5xf32> to i8
  // Int to narrower int wraps.
  %n = gpuos.constant dense<[300, -129, 255]> : tensor<3xi32>
  %w = gpuos.cast %n : !gpuos.tensor<3xi32> to i8
  gpuos.yield %h, %bf, %i, %w : !gpuos.tensor<6xf16>, !gpuos.tensor<4xbf16>,
                                !gpuos.tensor<5xi8>, !gpuos.tensor<3xi8>
}

// CHECK:      output h : !gpuos.tensor<6xf16>
// CHECK:        values: 1.00098 1 1.00195 65504 inf 300.5
// CHECK-NEXT: output bf : !gpuos.tensor<4xbf16>
// CHECK:        values: 1 256 260 0.5
// CHECK-NEXT: output i : !gpuos.tensor<5xi8>
// CHECK-NEXT:   min -128 max 127 mean -0.2 sum -1
// CHECK-NEXT:   values: 2 -2 127 -128 0
// CHECK-NEXT: output w : !gpuos.tensor<3xi8>
// CHECK-NEXT:   min -1 max 127 mean 56.6667 sum 170
// CHECK-NEXT:   values: 44 127 -1
