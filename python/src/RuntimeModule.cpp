//===- RuntimeModule.cpp - gpuos._C: the runtime's C API for Python -------===//
//
// A thin, typed layer over gpuos_runtime.h: a Runtime class per GPU, errors
// as Python exceptions carrying the runtime's own message. Kept to the C API
// (not the C++ one) so the Python package exercises the same FFI surface
// other languages use.
//
// The per-call path of the front-end is one native call: Launcher(tensors,
// stream) reads the tensors' data pointers, waits for the PyTorch stream
// that produced them, finds (or creates) the runtime graph bound to those
// pointers, submits it and waits for that submission, with the GIL released
// from the stream synchronize on. Bound graphs are cached per runtime (least
// recently used go first) and counted, so Python does no per-call
// bookkeeping. Nothing here links PyTorch: a tensor is anything with a
// data_ptr() method, a stream a raw CUstream (libcuda via dlopen).
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/gpuos_runtime.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
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

/// The few driver entry points the launch needs to wait for a PyTorch
/// stream; libcuda is already loaded by PyTorch (and by the runtime).
struct Cuda {
  using Ctx = void *;
  int (*deviceGet)(int *, int) = nullptr;
  int (*primaryCtxRetain)(Ctx *, int) = nullptr;
  int (*primaryCtxRelease)(int) = nullptr;
  int (*ctxGetCurrent)(Ctx *) = nullptr;
  int (*ctxSetCurrent)(Ctx) = nullptr;
  int (*streamSynchronize)(void *) = nullptr;
  int (*streamIsCapturing)(void *, int *) = nullptr; // optional
  int (*getErrorString)(int, const char **) = nullptr;
  bool ok = false;

  static const Cuda &get() {
    static const Cuda cuda = load();
    return cuda;
  }

private:
  static Cuda load() {
    Cuda c;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib)
      lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      return c;
    auto sym = [&](auto &slot, const char *name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(lib, name));
      return slot != nullptr;
    };
    c.ok = sym(c.deviceGet, "cuDeviceGet") &&
           sym(c.primaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
           (sym(c.primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") ||
            sym(c.primaryCtxRelease, "cuDevicePrimaryCtxRelease")) &&
           sym(c.ctxGetCurrent, "cuCtxGetCurrent") &&
           sym(c.ctxSetCurrent, "cuCtxSetCurrent") &&
           sym(c.streamSynchronize, "cuStreamSynchronize");
    sym(c.getErrorString, "cuGetErrorString");
    sym(c.streamIsCapturing, "cuStreamIsCapturing");
    return c;
  }
};

std::string cudaError(const Cuda &cu, int code, const char *what) {
  const char *text = nullptr;
  if (cu.getErrorString)
    cu.getErrorString(code, &text);
  return std::string(what) + " failed: " + (text ? text : "CUDA error " + std::to_string(code));
}

/// Outcome of a launch made without the GIL: raised (GpuosError) once the
/// GIL is back.
struct Failure {
  bool failed = false;
  std::string message;
  void set(std::string m) {
    failed = true;
    message = std::move(m);
  }
};

/// The runtime of one device and its bound-graph cache, shared by the
/// Runtime object and its launchers.
class Core {
public:
  Core(int ordinal, int64_t idleParkUs) : ordinal_(ordinal) {
    gpuos_options options;
    gpuos_options_init(&options);
    if (idleParkUs >= 0)
      options.idle_park_us = static_cast<uint32_t>(idleParkUs);
    check(gpuos_open(ordinal, &options, &rt_), "gpuos_open");
  }
  ~Core() {
    gpuos_destroy(rt_);
    if (ctx_)
      Cuda::get().primaryCtxRelease(cuDevice_);
  }

  gpuos_runtime *rt() const { return rt_; }

  struct Counters {
    std::atomic<uint64_t> launches{0}, hits{0}, binds{0}, evictions{0};
  } counters;

  /// Readies `stream` (a CUstream of this device; 0 is the legacy default
  /// stream, which is why the device's context is made current first) for
  /// a call: refuses it while it captures a CUDA graph (a call runs on the
  /// resident kernel when it is made and cannot be recorded, and the wait
  /// or a new binding's upload would fail and invalidate the capture
  /// without saying why), then, with `wait`, waits for its earlier work.
  bool prepareStream(uint64_t stream, bool wait, Failure &f) {
    if (!makeCurrent(f))
      return false;
    const Cuda &cu = Cuda::get();
    void *s = reinterpret_cast<void *>(stream);
    int capturing = 0;
    if (cu.streamIsCapturing && cu.streamIsCapturing(s, &capturing) == 0 && capturing != 0) {
      f.set("the PyTorch stream is capturing a CUDA graph (torch.cuda.graph, or "
            "torch.compile's cudagraphs): a gpuos call runs on the resident kernel "
            "when it is made and cannot be recorded into a graph; call it outside "
            "the capture");
      return false;
    }
    if (!wait)
      return true;
    int rc = cu.streamSynchronize(s);
    if (rc != 0) {
      f.set(cudaError(cu, rc, "cuStreamSynchronize (the PyTorch stream)"));
      return false;
    }
    return true;
  }

  /// The device's primary context (PyTorch's) current on this thread.
  bool makeCurrent(Failure &f) {
    const Cuda &cu = Cuda::get();
    if (!cu.ok) {
      f.set("cannot wait for the PyTorch stream: libcuda.so.1 (cuStreamSynchronize) not found");
      return false;
    }
    if (!ctx_) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!ctx_) {
        int dev = 0;
        void *ctx = nullptr;
        int rc = cu.deviceGet(&dev, ordinal_);
        if (rc == 0)
          rc = cu.primaryCtxRetain(&ctx, dev);
        if (rc != 0) {
          f.set(cudaError(cu, rc, "cuDevicePrimaryCtxRetain"));
          return false;
        }
        cuDevice_ = dev;
        ctx_ = ctx;
      }
    }
    void *current = nullptr;
    cu.ctxGetCurrent(&current);
    if (current != ctx_)
      cu.ctxSetCurrent(ctx_);
    return true;
  }

  /// A stream-ordered launch's submission: its bound graph stays pinned
  /// until the run is over (reapPending).
  void addPending(const std::vector<uint64_t> &key, gpuos_submission sub) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back({key, sub});
  }

  /// Unpins the bound graphs of stream-ordered runs that are over; the
  /// first failure among them is returned (and raised by the caller: the
  /// launch that failed has returned long ago, as a CUDA kernel's error
  /// shows at a later call). wait: until every pending run is over.
  std::string reapPending(bool wait) {
    std::string failure;
    std::vector<Pending> todo;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      todo.swap(pending_);
    }
    // Without the lock: gpuos_wait may take long, and other threads'
    // launches need acquire/release meanwhile.
    std::vector<Pending> over, left;
    for (Pending &p : todo) {
      gpuos_status st = wait ? gpuos_wait(rt_, p.sub, -1) : gpuos_poll(rt_, p.sub);
      if (st == GPUOS_ERROR_NOT_READY) {
        left.push_back(std::move(p));
        continue;
      }
      if (st != GPUOS_OK && failure.empty())
        failure = std::string("an earlier stream-ordered call failed: ") + gpuos_last_error();
      over.push_back(std::move(p));
    }
    for (Pending &p : over)
      release(p.key);
    std::lock_guard<std::mutex> lock(mutex_);
    for (Pending &p : left)
      pending_.push_back(std::move(p));
    return failure;
  }

  size_t pendingCount() {
    std::lock_guard<std::mutex> lock(mutex_);
    return pending_.size();
  }

  /// The runtime graph of `names` bound to `key` (launcher id, pointers),
  /// pinned (in flight) until release(). Called without the GIL.
  bool acquire(const std::vector<uint64_t> &key, const std::string &graph,
               const std::vector<std::string> &names, const std::vector<uint64_t> &bytes,
               gpuos_graph &out, Failure &f) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = bound_.find(key);
    if (it != bound_.end()) {
      ++it->second.inflight;
      it->second.used = ++tick_;
      out = it->second.handle;
      counters.hits.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    std::vector<const char *> cnames;
    std::vector<gpuos_buffer> buffers;
    for (size_t i = 0; i < names.size(); ++i) {
      cnames.push_back(names[i].c_str());
      buffers.push_back(gpuos_buffer{key[i + 1], bytes[i], nullptr, 0, nullptr});
    }
    gpuos_graph handle = 0;
    if (gpuos_graph_from_manifest(rt_, graph.c_str(), cnames.data(), buffers.data(),
                                  static_cast<uint32_t>(cnames.size()), &handle) != GPUOS_OK) {
      f.set("gpuos_graph_from_manifest(" + graph + "): " + gpuos_last_error());
      return false;
    }
    counters.binds.fetch_add(1, std::memory_order_relaxed);
    evictLocked();
    bound_.emplace(key, Bound{handle, 1, ++tick_});
    out = handle;
    return true;
  }

  void release(const std::vector<uint64_t> &key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = bound_.find(key);
    if (it != bound_.end() && it->second.inflight)
      --it->second.inflight;
  }

  /// Destroys every cached graph of launcher `id` that is not in flight.
  void forget(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = bound_.begin(); it != bound_.end();) {
      if (it->first[0] == id && !it->second.inflight) {
        gpuos_graph_destroy(rt_, it->second.handle);
        it = bound_.erase(it);
      } else {
        ++it;
      }
    }
  }

  uint64_t nextLauncherId() { return ++launchers_; }
  size_t maxBound = 64;
  size_t boundCount() {
    std::lock_guard<std::mutex> lock(mutex_);
    return bound_.size();
  }

private:
  struct Bound {
    gpuos_graph handle;
    uint32_t inflight;
    uint64_t used;
  };
  struct KeyHash {
    size_t operator()(const std::vector<uint64_t> &k) const {
      uint64_t h = 1469598103934665603ull;
      for (uint64_t v : k)
        h = (h ^ v) * 1099511628211ull ^ (h >> 29);
      return static_cast<size_t>(h);
    }
  };

  /// Keeps at most maxBound - 1 graphs before one is added: the least
  /// recently used ones that are not in flight go (runtime graphs own
  /// their intermediates, so the cache is bounded).
  void evictLocked() {
    while (bound_.size() >= maxBound) {
      auto victim = bound_.end();
      for (auto it = bound_.begin(); it != bound_.end(); ++it)
        if (!it->second.inflight && (victim == bound_.end() || it->second.used < victim->second.used))
          victim = it;
      if (victim == bound_.end())
        return; // all in flight: go over the cap for now
      gpuos_graph_destroy(rt_, victim->second.handle);
      bound_.erase(victim);
      counters.evictions.fetch_add(1, std::memory_order_relaxed);
    }
  }

  gpuos_runtime *rt_ = nullptr;
  int ordinal_ = 0;
  int cuDevice_ = 0;
  void *ctx_ = nullptr;
  std::mutex mutex_;
  std::unordered_map<std::vector<uint64_t>, Bound, KeyHash> bound_;
  struct Pending {
    std::vector<uint64_t> key;
    gpuos_submission sub;
  };
  std::vector<Pending> pending_; // stream-ordered runs not known to be over
  uint64_t tick_ = 0;
  std::atomic<uint64_t> launchers_{0};
};

/// One graph's launch: its buffer names (in the order the tensors come)
/// and the bytes each binding covers (the extent its layout reaches).
class Launcher {
public:
  Launcher(std::shared_ptr<Core> core, std::string graph, std::vector<std::string> names,
           std::vector<uint64_t> bytes, int priority, bool streamOrdered)
      : core_(std::move(core)), graph_(std::move(graph)), names_(std::move(names)),
        bytes_(std::move(bytes)), priority_(priority), streamOrdered_(streamOrdered) {
    if (names_.size() != bytes_.size())
      throw py::value_error("launcher: one byte count per buffer name");
    id_ = core_->nextLauncherId();
  }
  ~Launcher() {
    if (core_)
      core_->forget(id_);
  }

  /// tensors: one per name (objects with data_ptr()). stream: the raw
  /// CUstream the tensors were produced on, or -1 to skip waiting for it.
  void operator()(py::handle tensors, int64_t stream) {
    PyObject *seq = tensors.ptr();
    if (!PyTuple_Check(seq) && !PyList_Check(seq))
      throw py::type_error("launcher: tensors must be a tuple or list");
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (static_cast<size_t>(n) != names_.size())
      throw py::value_error("graph @" + graph_ + " binds " + std::to_string(names_.size()) +
                            " buffers, got " + std::to_string(n) + " tensors");
    std::vector<uint64_t> key(static_cast<size_t>(n) + 1);
    key[0] = id_;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    static PyObject *dataPtr = PyUnicode_InternFromString("data_ptr");
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject *p = PyObject_CallMethodNoArgs(items[i], dataPtr);
      if (!p)
        throw py::error_already_set();
      key[i + 1] = PyLong_AsUnsignedLongLong(p);
      Py_DECREF(p);
      if (PyErr_Occurred())
        throw py::error_already_set();
    }
    Failure f;
    {
      py::gil_scoped_release nogil;
      run(key, stream, f);
    }
    if (f.failed)
      throw GpuosError(f.message);
  }

  const std::string &graph() const { return graph_; }

private:
  /// Binds and submits. Either (streamOrdered_, Runtime::submitOnStream)
  /// the run is ordered on the device after the stream's earlier work and
  /// before its later work, and the call returns at once: the run stays
  /// pending, its bound graph pinned, until a later launch or synchronize()
  /// sees it over. Or the host waits for the stream's earlier work, submits
  /// and waits for the run.
  void run(const std::vector<uint64_t> &key, int64_t stream, Failure &f) {
    bool ordered = streamOrdered_ && stream >= 0;
    if (stream >= 0 && !core_->prepareStream(static_cast<uint64_t>(stream), !ordered, f))
      return;
    if (ordered) {
      std::string earlier = core_->reapPending(false);
      if (!earlier.empty()) {
        f.set(earlier);
        return;
      }
    }
    gpuos_graph handle = 0;
    if (!core_->acquire(key, graph_, names_, bytes_, handle, f))
      return;
    gpuos_submission sub = 0;
    if (ordered) {
      if (gpuos_submit_on_stream(core_->rt(), handle, priority_,
                                 reinterpret_cast<void *>(stream), &sub) == GPUOS_OK) {
        core_->addPending(key, sub);
        core_->counters.launches.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      f.set(std::string("gpuos_submit_on_stream(") + graph_ + "): " + gpuos_last_error());
    } else if (gpuos_submit(core_->rt(), handle, priority_, &sub) != GPUOS_OK) {
      f.set(std::string("gpuos_submit(") + graph_ + "): " + gpuos_last_error());
    } else if (gpuos_wait(core_->rt(), sub, -1) != GPUOS_OK) {
      f.set(std::string("gpuos_wait(") + graph_ + "): " + gpuos_last_error());
    }
    core_->release(key);
    if (!f.failed)
      core_->counters.launches.fetch_add(1, std::memory_order_relaxed);
  }

  std::shared_ptr<Core> core_;
  std::string graph_;
  std::vector<std::string> names_;
  std::vector<uint64_t> bytes_;
  int priority_;
  bool streamOrdered_ = false;
  uint64_t id_ = 0;
};

class Runtime {
public:
  Runtime(int ordinal, int64_t idleParkUs)
      : core_(std::make_shared<Core>(ordinal, idleParkUs)) {}
  Runtime(const Runtime &) = delete;

  gpuos_runtime *rt() const { return core_->rt(); }

  void loadImageFiles(const std::string &cubin, const std::string &manifest) {
    // Bound graphs survive: the runtime rebinds them to the new image's
    // kinds (a union image has every kind of the old one).
    py::gil_scoped_release release;
    check(gpuos_load_image_files(rt(), cubin.c_str(), manifest.c_str()),
          "gpuos_load_image_files");
  }

  std::unique_ptr<Launcher> launcher(const std::string &graph, std::vector<std::string> names,
                                     std::vector<uint64_t> bytes, int priority,
                                     bool streamOrdered) {
    return std::make_unique<Launcher>(core_, graph, std::move(names), std::move(bytes),
                                      priority, streamOrdered);
  }

  /// Waits for every stream-ordered run launched so far; raises the first
  /// failure among them.
  void synchronize() {
    std::string failure;
    {
      py::gil_scoped_release release;
      failure = core_->reapPending(true);
    }
    if (!failure.empty())
      throw GpuosError(failure);
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
    check(gpuos_graph_from_manifest(rt(), graph.c_str(), names.data(),
                                    buffers.data(),
                                    static_cast<uint32_t>(names.size()), &out),
          ("gpuos_graph_from_manifest(" + graph + ")").c_str());
    return out;
  }

  void graphDestroy(uint32_t graph) {
    check(gpuos_graph_destroy(rt(), graph), "gpuos_graph_destroy");
  }

  uint64_t submit(uint32_t graph, int priority) {
    gpuos_submission sub = 0;
    check(gpuos_submit(rt(), graph, priority, &sub), "gpuos_submit");
    return sub;
  }

  void wait(uint64_t submission, int64_t timeoutUs) {
    py::gil_scoped_release release;
    check(gpuos_wait(rt(), submission, timeoutUs), "gpuos_wait");
  }

  /// submit + wait without giving up the GIL in between.
  void run(uint32_t graph, int priority) {
    gpuos_submission sub = 0;
    check(gpuos_submit(rt(), graph, priority, &sub), "gpuos_submit");
    py::gil_scoped_release release;
    check(gpuos_wait(rt(), sub, -1), "gpuos_wait");
  }

  void park() {
    py::gil_scoped_release release;
    check(gpuos_park(rt()), "gpuos_park");
  }

  /// Launches and bound-graph cache hits/creations since the start.
  py::dict counters() {
    py::dict d;
    d["graphs_run"] = core_->counters.launches.load();
    d["bound_graph_hits"] = core_->counters.hits.load();
    d["bound_graphs_created"] = core_->counters.binds.load();
    d["bound_graphs_evicted"] = core_->counters.evictions.load();
    d["bound_graphs"] = core_->boundCount();
    d["pending_runs"] = core_->pendingCount(); // stream-ordered, not yet seen over
    return d;
  }

  py::dict stats() {
    gpuos_stats s{};
    check(gpuos_get_stats(rt(), &s), "gpuos_get_stats");
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

  void close() { check(gpuos_close(rt()), "gpuos_close"); }

private:
  std::shared_ptr<Core> core_;
};

} // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "gpuos runtime (C API) bindings";
  py::register_exception<GpuosError>(m, "RuntimeError_", PyExc_RuntimeError);
  py::class_<Launcher>(m, "Launcher")
      .def("__call__", &Launcher::operator(), py::arg("tensors"), py::arg("stream"))
      .def_property_readonly("graph", &Launcher::graph);
  py::class_<Runtime>(m, "Runtime")
      .def(py::init<int, int64_t>(), py::arg("ordinal") = 0,
           py::arg("idle_park_us") = -1)
      .def("load_image_files", &Runtime::loadImageFiles)
      .def("launcher", &Runtime::launcher, py::arg("graph"), py::arg("names"),
           py::arg("nbytes"), py::arg("priority"), py::arg("stream_ordered") = false)
      .def("synchronize", &Runtime::synchronize)
      .def("graph_from_manifest", &Runtime::graphFromManifest)
      .def("graph_destroy", &Runtime::graphDestroy)
      .def("submit", &Runtime::submit)
      .def("wait", &Runtime::wait, py::arg("submission"),
           py::arg("timeout_us") = -1)
      .def("run", &Runtime::run)
      .def("park", &Runtime::park)
      .def("counters", &Runtime::counters)
      .def("stats", &Runtime::stats)
      .def("close", &Runtime::close);
  // The most tiles one graph may have on the runtimes this module opens
  // (Core: the default queue capacity); the front-end runs larger graphs
  // in PyTorch. Needs no GPU.
  m.def("max_graph_tiles", [] {
    gpuos_options options;
    gpuos_options_init(&options);
    return gpuos_max_graph_tiles(&options);
  });
  m.def("has_gpu", [] {
    gpuos_runtime *rt = nullptr;
    gpuos_status status = gpuos_open(0, nullptr, &rt);
    gpuos_destroy(rt);
    return status == GPUOS_OK;
  });
}
