%y = gpuos.reduce sum %x axes [0] : memref<4xf32>
