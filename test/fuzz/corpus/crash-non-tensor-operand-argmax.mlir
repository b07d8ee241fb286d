%y = gpuos.argmax %x axis 0 : i1
