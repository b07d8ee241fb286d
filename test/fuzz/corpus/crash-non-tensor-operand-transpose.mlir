%y = gpuos.transpose %x [0] : vector<4xf32>
