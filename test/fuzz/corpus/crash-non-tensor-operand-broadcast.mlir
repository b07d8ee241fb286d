%y = gpuos.broadcast %x to [4] : f32
