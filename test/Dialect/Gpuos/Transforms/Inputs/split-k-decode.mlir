// Graph for test/Dialect/Gpuos/Transforms/split-k.mlir: a decode-like layer
// with N = 512 projections, which gpuos-split-k splits into 4 slices of K.
gpuos.graph @split_k(%x : !gpuos.tensor<1x1024xf32>, %wo : !gpuos.tensor<1024x512xf32>,
                     %r : !gpuos.tensor<1x512xf32>, %gate : !gpuos.tensor<1x1024xf32>,
                     %up : !gpuos.tensor<1x1024xf32>, %wd : !gpuos.tensor<1024x512xf32>,
                     %g : !gpuos.tensor<512xf32>, %x3 : !gpuos.tensor<3x1024xf32>,
                     %w3 : !gpuos.tensor<1024x256xf32>)
    -> (h : !gpuos.tensor<1x512xf32>, n : !gpuos.tensor<1x512xf32>, y3 : !gpuos.tensor<3x256xf32>) {
  %o = gpuos.matmul %x, %wo : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x512xf32>
  %s = gpuos.silu %gate : !gpuos.tensor<1x1024xf32>
  %a = gpuos.mul %s, %up : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x1024xf32>
  %d = gpuos.matmul %a, %wd : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x512xf32>
  %h1 = gpuos.add %r, %o : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
  %h = gpuos.add %h1, %d : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
  %n = gpuos.rms_norm %h weight(%g : !gpuos.tensor<512xf32>) eps 1.000000e-06 : !gpuos.tensor<1x512xf32>
  %y3 = gpuos.matmul %x3, %w3 : !gpuos.tensor<3x1024xf32>, !gpuos.tensor<1024x256xf32>
  gpuos.yield %h, %n, %y3 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>, !gpuos.tensor<3x256xf32>
}
