//===- RuntimeModule.cpp - gpuos._C: the runtime's C API for Python -------===//
//
// A thin, typed layer over gpuos_runtime.h: a Runtime class per GPU, errors
// as Python exceptions carrying the runtime's own message. Kept to the C API
// (not the C++ one) so the Python package exercises the same FFI surface
// other languages use.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/gpuos_runtime.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

struct GpuosError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(gpuos_status status, const char *what) {
  if (status == GPUOS_OK)
    return;
  // The runtime's message starts with the status ("no GPU: ...").
  throw GpuosError(std::string(what) + ": " + gpuos_last_error());
}

class Runtime {
public:
  Runtime(int ordinal, int64_t idleParkUs) {
    gpuos_options options;
    gpuos_options_init(&options);
    if (idleParkUs >= 0)
      options.idle_park_us = static_cast<uint32_t>(idleParkUs);
    check(gpuos_open(ordinal, &options, &rt_), "gpuos_open");
  }
  ~Runtime() { gpuos_destroy(rt_); }
  Runtime(const Runtime &) = delete;

  void loadImageFiles(const std::string &cubin, const std::string &manifest) {
    py::gil_scoped_release release;
    check(gpuos_load_image_files(rt_, cubin.c_str(), manifest.c_str()),
          "gpuos_load_image_files");
  }

  /// bindings: buffer name -> (device pointer, bytes).
  uint32_t graphFromManifest(
      const std::string &graph,
      const std::map<std::string, std::pair<uint64_t, uint64_t>> &bindings) {
    std::vector<const char *> names;
    std::vector<gpuos_buffer> buffers;
    for (const auto &[name, buffer] : bindings) {
      names.push_back(name.c_str());
      buffers.push_back(gpuos_buffer{buffer.first, buffer.second, nullptr, 0,
                                     nullptr});
    }
    gpuos_graph out = 0;
    check(gpuos_graph_from_manifest(rt_, graph.c_str(), names.data(),
                                    buffers.data(),
                                    static_cast<uint32_t>(names.size()), &out),
          ("gpuos_graph_from_manifest(" + graph + ")").c_str());
    return out;
  }

  void graphDestroy(uint32_t graph) {
    check(gpuos_graph_destroy(rt_, graph), "gpuos_graph_destroy");
  }

  uint64_t submit(uint32_t graph, int priority) {
    gpuos_submission sub = 0;
    check(gpuos_submit(rt_, graph, priority, &sub), "gpuos_submit");
    return sub;
  }

  void wait(uint64_t submission, int64_t timeoutUs) {
    py::gil_scoped_release release;
    check(gpuos_wait(rt_, submission, timeoutUs), "gpuos_wait");
  }

  /// submit + wait without giving up the GIL in between (the common path).
  void run(uint32_t graph, int priority) {
    gpuos_submission sub = 0;
    check(gpuos_submit(rt_, graph, priority, &sub), "gpuos_submit");
    py::gil_scoped_release release;
    check(gpuos_wait(rt_, sub, -1), "gpuos_wait");
  }

  void park() {
    py::gil_scoped_release release;
    check(gpuos_park(rt_), "gpuos_park");
  }

  py::dict stats() {
    gpuos_stats s{};
    check(gpuos_get_stats(rt_, &s), "gpuos_get_stats");
    py::dict d;
    d["submissions"] = s.submissions;
    d["completed"] = s.completed;
    d["failed"] = s.failed;
    d["tasks_run"] = s.tasks_run;
    d["tiles_run"] = s.tiles_run;
    d["launches"] = s.launches;
    d["parks"] = s.parks;
    d["workers"] = s.workers;
    d["runs_in_flight"] = s.runs_in_flight;
    return d;
  }

  void close() { check(gpuos_close(rt_), "gpuos_close"); }

private:
  gpuos_runtime *rt_ = nullptr;
};

} // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "gpuos runtime (C API) bindings";
  py::register_exception<GpuosError>(m, "RuntimeError_", PyExc_RuntimeError);
  py::class_<Runtime>(m, "Runtime")
      .def(py::init<int, int64_t>(), py::arg("ordinal") = 0,
           py::arg("idle_park_us") = -1)
      .def("load_image_files", &Runtime::loadImageFiles)
      .def("graph_from_manifest", &Runtime::graphFromManifest)
      .def("graph_destroy", &Runtime::graphDestroy)
      .def("submit", &Runtime::submit)
      .def("wait", &Runtime::wait, py::arg("submission"),
           py::arg("timeout_us") = -1)
      .def("run", &Runtime::run)
      .def("park", &Runtime::park)
      .def("stats", &Runtime::stats)
      .def("close", &Runtime::close);
  m.def("has_gpu", [] {
    gpuos_runtime *rt = nullptr;
    gpuos_status status = gpuos_open(0, nullptr, &rt);
    gpuos_destroy(rt);
    return status == GPUOS_OK;
  });
}
