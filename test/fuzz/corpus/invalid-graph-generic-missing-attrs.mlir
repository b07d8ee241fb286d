"gpuos.graph"() ({
^bb0:
  "gpuos.yield"() : () -> ()
}) : () -> ()
