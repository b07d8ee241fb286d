gpuos.yield
