gpuos.graph @attention(%q : !gpuos.tensor<8x64xf32>, %k : !gpuos.tensor<8x64xf32>, %v : !gpuos.tensor<8x64xf32>, %mask : !gpuos.tensor<8x8xi1>) -> (out : !gpuos.tensor<8x64xf32>) priority #gpuos.priority<normal, deadline_us = 1000> {
  %kt = gpuos.transpose %k [1, 0] : !gpuos.tensor<8x64xf32>
  %s = gpuos.matmul %q, %kt : !gpuos.tensor<8x64xf32>, !gpuos.tensor<64x8xf32, strides = [1, 64]>
  %scale = gpuos.constant dense<0.125> : tensor<f32>
  %ss = gpuos.mul %s, %scale : !gpuos.tensor<8x8xf32>, !gpuos.tensor<f32>
  %ninf = gpuos.constant dense<0xFF800000> : tensor<f32>
  %m = gpuos.select %mask, %ss, %ninf : !gpuos.tensor<8x8xi1>, !gpuos.tensor<8x8xf32>, !gpuos.tensor<f32>
  %p = gpuos.softmax %m axis 1 : !gpuos.tensor<8x8xf32>
  %out = gpuos.matmul %p, %v : !gpuos.tensor<8x8xf32>, !gpuos.tensor<8x64xf32>
  gpuos.yield %out : !gpuos.tensor<8x64xf32>
}
