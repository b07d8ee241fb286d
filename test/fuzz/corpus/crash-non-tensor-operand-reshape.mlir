%y = gpuos.reshape %x to [4] : index
