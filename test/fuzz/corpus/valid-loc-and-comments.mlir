// a comment
#loc = loc("model.py":12:3)
gpuos.graph @g(%x : !gpuos.tensor<4xf32> loc("x")) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.relu %x : !gpuos.tensor<4xf32> loc(fused["a", #loc])
  gpuos.yield %y : !gpuos.tensor<4xf32> loc(unknown)
} loc(#loc)
