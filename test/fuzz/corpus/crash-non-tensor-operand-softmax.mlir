%y = gpuos.softmax %x axis 0 : f16
