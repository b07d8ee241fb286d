%y = gpuos.rms_norm %x eps 1.0 : none
