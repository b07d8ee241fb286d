// RUN: gpuos-interp %s --graph=softmax | FileCheck %s --check-prefix=SOFTMAX
// RUN: gpuos-interp %s --graph=norms | FileCheck %s --check-prefix=NORMS

// softmax of [0, ln 3] is [1/4, 3/4]; a constant row is uniform.
gpuos.graph @softmax() -> (p : !gpuos.tensor<2x2xf32>) {
  %x = gpuos.constant dense<[[0.0, 1.09861228867], [5.0, 5.0]]> : tensor<2x2xf32>
  %p = gpuos.softmax %x axis 1 : !gpuos.tensor<2x2xf32>
  gpuos.yield %p : !gpuos.tensor<2x2xf32>
}

// SOFTMAX:      output p : !gpuos.tensor<2x2xf32>
// SOFTMAX-NEXT:   min 0.25 max 0.75 mean 0.5 sum 2
// SOFTMAX-NEXT:   values: 0.25 0.75 0.5 0.5

// [1, 2, 3, 4]: mean 2.5, biased variance 1.25, so the normalized row is
// (x - 2.5) / sqrt(1.25 + 1e-5). rms of [3, 4] is sqrt(12.5).
gpuos.graph @norms() -> (ln : !gpuos.tensor<1x4xf32>, rms : !gpuos.tensor<1x2xf32>) {
  %x = gpuos.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %w = gpuos.constant dense<[1.0, 0.5, 2.0, -1.0]> : tensor<4xf32>
  %b = gpuos.constant dense<[0.0, 1.0, 0.0, 0.25]> : tensor<4xf32>
  %ln = gpuos.layer_norm %x weight(%w : !gpuos.tensor<4xf32>) bias(%b : !gpuos.tensor<4xf32>)
      eps 1.0e-05 : !gpuos.tensor<1x4xf32>
  %y = gpuos.constant dense<[[3.0, 4.0]]> : tensor<1x2xf32>
  %rms = gpuos.rms_norm %y eps 1.0e-06 : !gpuos.tensor<1x2xf32>
  gpuos.yield %ln, %rms : !gpuos.tensor<1x4xf32>, !gpuos.tensor<1x2xf32>
}

// NORMS:      output ln : !gpuos.tensor<1x4xf32>
// NORMS-NEXT:   min -1.34164 max 0.894424 mean -0.190613 sum -0.762453
// NORMS-NEXT:   values: -1.34164 0.776394 0.894424 -1.09164
// NORMS-NEXT: output rms : !gpuos.tensor<1x2xf32>
// NORMS-NEXT:   min 0.848528 max 1.13137 mean 0.989949 sum 1.9799
// NORMS-NEXT:   values: 0.848528 1.13137
