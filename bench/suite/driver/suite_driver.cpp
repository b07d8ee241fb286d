//===- suite_driver.cpp - the benchmark suite's gpuos side ----------------===//
//
// Runs compiled gpuos images through the runtime's C++ API for the
// benchmark suite (bench/suite/bench.py drives it; docs/benchmarks.md):
//
//   suite-driver bench --image I.cubin --manifest I.manifest.json
//       --spec S.txt --data DIR --sets K --check-sets C --out DIR
//       [--budget-s B] [--json FILE]
//     Binds K rotated input sets (DIR/set<k>/<name>.bin, raw bytes in the
//     graph input's dtype, row-major) to K graphs of the image, runs sets
//     0..C-1 once with poisoned (0xFF) outputs and writes the outputs to
//     OUT/set<k>/<name>.bin for the float64 check, then times
//       pipelined: N calls submitted back to back (cycling over the K
//                  graphs), timed around the batch until the last one
//                  completed; per call = batch / N; median over batches;
//       sync:      submit one call and wait for it on the host; p50/p99.
//
//   suite-driver share-gpuos   (same arguments as share-streams)
//   suite-driver share-streams --image --manifest --urgent-spec S
//       --urgent-data DIR --urgent-sets K --bg-spec S --bg-data DIR
//       --out DIR [--period-us P] [--duration-s D] [--json FILE]
//     GPU sharing: an urgent stream of small graphs arriving every P us
//     (open loop: latency counts from the scheduled arrival) and a
//     background graph kept two-deep in flight; urgent latency alone and
//     shared, background throughput alone and shared. share-gpuos runs
//     both through one resident runtime (urgent / background priority);
//     share-streams runs the same task functions (the image's
//     gpuos_launch_<kind> kernels, one launch per task in manifest order)
//     on two CUDA streams with the highest and lowest stream priority.
//     --after-bg N adds N urgent calls each made right after a background
//     graph finished ("urgent_after_bg_us": what the background leaves in
//     the caches, without its traffic); --after-bg-gap-us G makes each of
//     them G us after the background's completion was seen (whether what
//     it pays passes with time: a state the device leaves behind, or
//     what stays in the caches).
//     share-gpuos --trace-runs N (N > 0) also records the poller's steps of
//     the last N runs (RuntimeOptions::traceRecords) and prints where
//     urgent latency goes alone and shared, and the slowest shared calls.
//
//   suite-driver profile --image I.cubin --manifest I.manifest.json
//       --graph NAME [--reps R] [--json FILE]
//     Where a graph's synchronous latency goes: each task of the graph on
//     its own, as a one-task graph over zero-filled buffers (one per
//     manifest buffer name, shared between tasks), submitted and waited
//     for R times; p50/p99 per task in manifest order, and their sum.
//     --workers-per-sm W sets RuntimeOptions::workersPerSM, --priority P
//     overrides the tasks' priority (bench too; --urgent-exclusive 1 sets
//     RuntimeOptions::urgentExclusive, share-gpuos too; --gang 0/1/2/3 sets
//     RuntimeOptions::gangs: off, when idle, one at a time, when no other
//     urgent run (the default)); --urgent-sms K sets
//     RuntimeOptions::urgentSMs (workers on K SMs serve only urgent work).
//     --trace-tiles N (N > 0)
//     traces every tile (RuntimeOptions::traceAllTiles; N sizes the
//     poller's ring, each worker keeps its last 64 tiles) and prints, per
//     task, where the workers' time between its tiles goes (p50 cycles per
//     step).
//
//   suite-driver profile-launch --image --manifest --graph [--reps R]
//     The same tasks as plain kernel launches (gpuos_launch_<kind>, one
//     block per tile, no resident kernel): R launches back to back timed
//     with events, per launch (the task's own time, without the runtime).
//
//   suite-driver timeline --image --manifest --graph [--reps R] [--json F]
//     The whole graph over zero-filled buffers, R synchronous runs, then one
//     more with every tile traced: per task its tiles, when its last
//     dependency ended ("ready"), its first tile start and last tile end
//     (us from the run's first tile), and the wait in between; then the
//     critical path's waiting (the runtime's hops) and running (tiles).
//
//   suite-driver validate --manifest I.manifest.json --spec S.txt
//     No GPU: binds the spec's buffers to the manifest's graph as the runtime
//     does and runs its host-side validation and layout (prepare's check).
//
// suite-driver-sim (built with SUITE_SIM) takes --sim 1 to run bench and
// share-gpuos on the runtime's CPU simulator with its test image.
//
// The spec file names the graph and its buffers:
//     graph NAME
//     input NAME BYTES
//     output NAME BYTES
// Results go to --json (or stdout) as one JSON object; errors to stderr with
// a non-zero exit.
//
//===----------------------------------------------------------------------===//

#include "CudaApi.h"

#include "gpuos/runtime/GraphLayout.h"
#include "gpuos/runtime/Manifest.h"
#include "gpuos/runtime/Runtime.h"
#include "gpuos/runtime/TraceWindow.h"
#ifdef SUITE_SIM
#include "TestImage.h"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

using namespace gpuos::runtime;
using Clock = std::chrono::steady_clock;

namespace {

using CUdeviceptr = suite::CUdeviceptr;
using CUfunction = suite::CUfunction;

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "suite-driver: %s\n", msg.c_str());
  std::exit(1);
}

void need(const Status &st, const std::string &what) {
  if (!st.ok())
    die(what + ": " + st.toString());
}

double usBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

//===----------------------------------------------------------------------===//
// Arguments, specs, files
//===----------------------------------------------------------------------===//

struct Args {
  std::map<std::string, std::string> kv;
  std::string get(const std::string &key, const std::string &def = "\x01") const {
    auto it = kv.find(key);
    if (it != kv.end())
      return it->second;
    if (def == "\x01")
      die("missing --" + key);
    return def;
  }
  double num(const std::string &key, double def) const {
    auto it = kv.find(key);
    if (it == kv.end())
      return def;
    char *end = nullptr;
    double v = std::strtod(it->second.c_str(), &end);
    if (it->second.empty() || *end != '\0' || v < 0)
      die("--" + key + ": '" + it->second + "' is not a non-negative number");
    return v;
  }
  /// A whole number of at most `max` (every such option is a count).
  int64_t integer(const std::string &key, int64_t def,
                  int64_t max = INT32_MAX) const {
    double v = num(key, (double)def);
    if (v > (double)max || v != std::floor(v))
      die("--" + key + ": '" + kv.at(key) + "' is not a whole number up to " +
          std::to_string(max));
    return (int64_t)v;
  }
};

Args parseArgs(int argc, char **argv, int from) {
  Args a;
  for (int i = from; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) != 0)
      die("unexpected argument '" + s + "'");
    s = s.substr(2);
    size_t eq = s.find('=');
    if (eq != std::string::npos)
      a.kv[s.substr(0, eq)] = s.substr(eq + 1);
    else if (i + 1 < argc)
      a.kv[s] = argv[++i];
    else
      die("--" + s + " needs a value");
  }
  return a;
}

struct SpecBuffer {
  std::string name;
  uint64_t bytes = 0;
  bool output = false;
};

struct Spec {
  std::string graph;
  std::vector<SpecBuffer> buffers;
};

Spec readSpec(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    die("cannot read spec " + path);
  Spec spec;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string word;
    if (!(ls >> word) || word[0] == '#')
      continue;
    if (word == "graph") {
      ls >> spec.graph;
    } else if (word == "input" || word == "output") {
      SpecBuffer b;
      b.output = word == "output";
      if (!(ls >> b.name >> b.bytes))
        die(path + ": bad line '" + line + "'");
      spec.buffers.push_back(b);
    } else {
      die(path + ": bad line '" + line + "'");
    }
  }
  if (spec.graph.empty())
    die(path + ": no 'graph' line");
  return spec;
}

std::vector<char> readBytes(const std::string &path, uint64_t expect) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    die("cannot read " + path);
  std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() != expect)
    die(path + " has " + std::to_string(data.size()) + " bytes, the spec says " +
        std::to_string(expect));
  return data;
}

void writeBytes(const std::string &path, const std::vector<char> &data) {
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), (std::streamsize)data.size());
  if (!out)
    die("cannot write " + path);
}

void makeDir(const std::string &path) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty())
        ::mkdir(cur.c_str(), 0755);
    }
    if (i < path.size())
      cur += path[i];
  }
}

std::string setDir(const std::string &base, int k) {
  return base + "/set" + std::to_string(k);
}

//===----------------------------------------------------------------------===//
// Statistics and JSON
//===----------------------------------------------------------------------===//

struct Dist {
  size_t n = 0;
  double p50 = 0, p90 = 0, p99 = 0, min = 0, max = 0, mean = 0;
};

Dist distOf(std::vector<double> v) {
  Dist d;
  if (v.empty())
    return d;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    size_t i = (size_t)std::ceil(p * (double)v.size()) ;
    return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
  };
  d.n = v.size();
  d.p50 = q(0.5);
  d.p90 = q(0.9);
  d.p99 = q(0.99);
  d.min = v.front();
  d.max = v.back();
  double s = 0;
  for (double x : v)
    s += x;
  d.mean = s / (double)v.size();
  return d;
}

std::string jsonDist(const Dist &d) {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "{\"n\": %zu, \"p50\": %.4f, \"p90\": %.4f, \"p99\": %.4f, "
                "\"min\": %.4f, \"max\": %.4f, \"mean\": %.4f}",
                d.n, d.p50, d.p90, d.p99, d.min, d.max, d.mean);
  return buf;
}

std::string jstr(const std::string &s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      o += '\\', o += c;
    else if ((unsigned char)c < 0x20)
      o += ' ';
    else
      o += c;
  }
  return o + "\"";
}

void emitJson(const Args &args, const std::string &text) {
  std::string path = args.get("json", "");
  if (path.empty()) {
    std::printf("%s\n", text.c_str());
    return;
  }
  std::ofstream out(path);
  out << text << "\n";
  if (!out)
    die("cannot write " + path);
}

std::string statsJson(Runtime &rt) {
  Stats s;
  if (!rt.stats(s).ok())
    return "null";
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "{\"submissions\": %llu, \"completed\": %llu, \"failed\": %llu, "
                "\"tasks_run\": %llu, \"tiles_run\": %llu, \"launches\": %llu, "
                "\"parks\": %llu, \"workers\": %u, \"block_threads\": %u}",
                (unsigned long long)s.submissions, (unsigned long long)s.completed,
                (unsigned long long)s.failed, (unsigned long long)s.tasksRun,
                (unsigned long long)s.tilesRun, (unsigned long long)s.launches,
                (unsigned long long)s.parks, s.workers, s.blockThreads);
  return buf;
}

std::string deviceJson(Runtime &rt) {
  const BackendInfo &info = rt.deviceInfo();
  return "{\"name\": " + jstr(info.name) + ", \"sms\": " +
         std::to_string(info.multiprocessors) + ", \"cc\": \"" +
         std::to_string(info.computeMajor) + "." + std::to_string(info.computeMinor) +
         "\", \"simulated\": " + (info.simulated ? "true" : "false") + "}";
}

//===----------------------------------------------------------------------===//
// The gpuos side: graphs bound to rotated input sets
//===----------------------------------------------------------------------===//

struct BoundSet {
  std::map<std::string, Buffer> buffers; // by spec name
  GraphId graph = 0;
};

/// --priority urgent|normal|background overrides the graph's own.
Priority priorityOption(const Args &args, Priority own) {
  std::string name = args.get("priority", "");
  Priority p = own;
  if (!name.empty() && !parsePriority(name, p))
    die("--priority: '" + name + "' is not urgent, normal or background");
  return p;
}

std::unique_ptr<Runtime> openRuntime(const Args &args) {
  RuntimeOptions opts;
  opts.workersPerSM = (uint32_t)args.integer("workers-per-sm", 0);
  opts.urgentExclusive = args.integer("urgent-exclusive", 0) != 0;
  int64_t gangs = args.integer("gang", (int64_t)RuntimeOptions().gangs);
  if (gangs > (int64_t)GangPolicy::UrgentAlone)
    die("--gang: '" + args.kv.at("gang") +
        "' is not 0 (off), 1 (when idle), 2 (one at a time) or 3 (when no other "
        "urgent run, the default)");
  opts.gangs = static_cast<GangPolicy>(gangs);
  // 0: no SM reserved for urgent work (Args refuses negative values).
  opts.urgentSMs = (uint32_t)args.integer("urgent-sms", 0, 4096);
  if (uint32_t n = (uint32_t)args.integer("trace-tiles", 0)) {
    opts.traceRecords = n;
    opts.traceAllTiles = true;
  } else if (uint32_t runs = (uint32_t)args.integer("trace-runs", 0)) {
    opts.traceRecords = runs; // the poller's record of each run
    // A relaunch restarts the ring: no idle park between the phases (on a
    // loaded host the simulator's calls got slow enough to park, and the
    // alone phase's records were gone; the test failed).
    opts.idleParkUs = 60'000'000;
  }
  if (args.kv.count("trace-tiles") && args.kv.count("trace-runs"))
    die("--trace-tiles and --trace-runs: one at a time (--trace-tiles sizes the same ring)");
  std::unique_ptr<Runtime> rt;
#ifdef SUITE_SIM
  // suite-driver-sim --sim 1: the runtime's CPU simulator with its test
  // image (graphs "chain" and "tiny"), to test this driver without a GPU;
  // --sim-workers W of them (default 3).
  if (args.kv.count("sim")) {
    int64_t workers = args.integer("sim-workers", 3, 64);
    if (workers < 1)
      die("--sim-workers: '" + args.kv.at("sim-workers") + "' is not at least 1");
    Status st = testimage::openSimWithImage((uint32_t)workers, opts, rt);
    if (!st.ok())
      die("simulator: " + st.message());
    return rt;
  }
#endif
  need(Runtime::open(0, opts, rt), "Runtime::open");
  need(rt->loadImageFiles(args.get("image"), args.get("manifest")),
       "loadImageFiles(" + args.get("image") + ")");
  return rt;
}

/// Allocates and uploads one input set plus fresh outputs, and builds the
/// manifest's graph over them. `inputsFrom` < 0 reuses `shareInputs`.
BoundSet bindSet(Runtime &rt, const Spec &spec, const std::string &dataDir, int set,
                 const BoundSet *shareInputs = nullptr) {
  BoundSet b;
  std::map<std::string, BufferArg> bindings;
  for (const SpecBuffer &sb : spec.buffers) {
    Buffer buf;
    if (!sb.output && shareInputs) {
      buf = shareInputs->buffers.at(sb.name);
    } else {
      need(rt.alloc(std::max<uint64_t>(sb.bytes, 16), buf), "alloc " + sb.name);
      if (!sb.output) {
        std::vector<char> data = readBytes(setDir(dataDir, set) + "/" + sb.name + ".bin", sb.bytes);
        need(rt.copyToDevice(buf.ptr, data.data(), sb.bytes), "upload " + sb.name);
      }
    }
    b.buffers[sb.name] = buf;
    bindings[sb.name] = BufferArg{buf.ptr, buf.bytes, {}, {}};
  }
  need(rt.createGraphFromManifest(spec.graph, bindings, b.graph),
       "createGraphFromManifest(" + spec.graph + ")");
  return b;
}

void poisonOutputs(Runtime &rt, const Spec &spec, const BoundSet &b) {
  for (const SpecBuffer &sb : spec.buffers)
    if (sb.output) {
      std::vector<char> ff(sb.bytes, (char)0xFF);
      need(rt.copyToDevice(b.buffers.at(sb.name).ptr, ff.data(), sb.bytes), "poison " + sb.name);
    }
}

void saveOutputs(Runtime &rt, const Spec &spec, const BoundSet &b, const std::string &dir) {
  makeDir(dir);
  for (const SpecBuffer &sb : spec.buffers)
    if (sb.output) {
      std::vector<char> data(sb.bytes);
      need(rt.copyFromDevice(data.data(), b.buffers.at(sb.name).ptr, sb.bytes), "download " + sb.name);
      writeBytes(dir + "/" + sb.name + ".bin", data);
    }
}

void runOnce(Runtime &rt, GraphId g, Priority p) {
  Submission s;
  need(rt.submit(g, p, s), "submit");
  need(rt.wait(s, 30000000), "wait");
}

int cmdBench(const Args &args) {
  Spec spec = readSpec(args.get("spec"));
  std::string data = args.get("data"), out = args.get("out");
  int sets = std::max(1, (int)args.integer("sets", 1));
  int checkSets = std::min(sets, (int)args.integer("check-sets", 1));
  double budgetUs = args.num("budget-s", 2.0) * 1e6;

  auto tOpen = Clock::now();
  std::unique_ptr<Runtime> rt = openRuntime(args);
  double loadUs = usBetween(tOpen, Clock::now());
  std::vector<BoundSet> bound;
  for (int k = 0; k < sets; ++k)
    bound.push_back(bindSet(*rt, spec, data, k));
  Priority prio = Priority::Normal;
  {
    // The graph's own priority: the most urgent of its tasks (as the runtime does).
    const ImageManifest *m = rt->manifest();
    Priority best = Priority::Background;
    for (const ManifestTask &t : m->tasks)
      if (t.graph == spec.graph && (uint32_t)t.priority < (uint32_t)best)
        best = t.priority;
    prio = best;
  }
  prio = priorityOption(args, prio);

  // Correctness: poisoned outputs, one call per checked set.
  for (int k = 0; k < checkSets; ++k) {
    poisonOutputs(*rt, spec, bound[k]);
    runOnce(*rt, bound[k].graph, prio);
    saveOutputs(*rt, spec, bound[k], setDir(out, k));
  }

  // Warm-up and calibration (sync calls).
  std::vector<double> cal;
  for (int i = 0; i < 2 * sets + 5; ++i) {
    auto t0 = Clock::now();
    runOnce(*rt, bound[i % sets].graph, prio);
    cal.push_back(usBetween(t0, Clock::now()));
  }
  double callUs = std::max(1.0, distOf(cal).p50);

  // Pipelined: batches of N calls submitted back to back.
  int n = (int)std::clamp(std::ceil(3000.0 / callUs), 16.0, 512.0);
  if (args.kv.count("calls-per-batch"))
    n = std::max(1, (int)args.integer("calls-per-batch", n));
  std::vector<Submission> subs(n);
  auto batch = [&](int offset) {
    auto t0 = Clock::now();
    for (int i = 0; i < n; ++i)
      need(rt->submit(bound[(offset + i) % sets].graph, prio, subs[i]), "submit");
    for (int i = 0; i < n; ++i)
      need(rt->wait(subs[i], 60000000), "wait");
    return usBetween(t0, Clock::now()) / n;
  };
  batch(0); // creates the run slots a batch needs
  std::vector<double> perCall;
  auto tStart = Clock::now();
  for (int r = 0; r < 200; ++r) {
    perCall.push_back(batch(r * n));
    double spent = usBetween(tStart, Clock::now());
    if (r >= 4 && spent > budgetUs / 2)
      break;
  }

  // Synchronous latency.
  std::vector<double> lat;
  tStart = Clock::now();
  for (int i = 0; i < 5000; ++i) {
    auto t0 = Clock::now();
    runOnce(*rt, bound[i % sets].graph, prio);
    auto t1 = Clock::now();
    lat.push_back(usBetween(t0, t1));
    if (i >= 30 && usBetween(tStart, t1) > budgetUs / 2)
      break;
  }

  std::string stats = statsJson(*rt);
  std::ostringstream js;
  js << "{\"graph\": " << jstr(spec.graph) << ", \"device\": " << deviceJson(*rt)
     << ", \"sets\": " << sets << ", \"check_sets\": " << checkSets
     << ", \"load_us\": " << loadUs << ", \"calls_per_batch\": " << n
     << ", \"pipelined_us\": " << jsonDist(distOf(perCall))
     << ", \"sync_us\": " << jsonDist(distOf(lat)) << ", \"stats\": " << stats << "}";
  need(rt->close(), "close");
  emitJson(args, js.str());
  return 0;
}

//===----------------------------------------------------------------------===//
// GPU sharing: urgent stream + background, two engines
//===----------------------------------------------------------------------===//

struct Engine {
  virtual ~Engine() = default;
  /// One urgent call on input set `set`, submitted and waited for.
  virtual void urgentCall(int set) = 0;
  /// Background slot 0/1: start a graph; wait for the last one started.
  virtual void bgStart(int slot) = 0;
  virtual void bgWait(int slot) = 0;
  /// True once the graph last started in `slot` is done (no waiting).
  virtual bool bgPoll(int slot) = 0;
  /// Called once by each thread that will use the engine.
  virtual void bindThread() {}
  /// The sharing phase that starts now (0 urgent alone, 1 background
  /// alone, 2 shared): for engines that log their calls.
  virtual void phase(int) {}
};

struct ShareResult {
  Dist urgentSolo, urgentShared;
  /// --after-bg N: N urgent calls each right after a background graph
  /// finished (nothing else in flight): urgent latency with the caches and
  /// TLBs as the background leaves them, without its concurrent traffic.
  Dist urgentAfterBg;
  size_t afterBgCalls = 0;
  double afterBgGapUs = 0; // --after-bg-gap-us
  double bgSoloPerS = 0, bgSharedPerS = 0;
  double periodUs = 0;
  size_t lateSolo = 0, lateShared = 0;
};

/// Urgent arrivals every `periodUs` for `durationUs`; returns latencies
/// from the scheduled arrival to the completion seen by the host.
std::vector<double> urgentStream(Engine &e, int sets, double periodUs, double durationUs,
                                 size_t &late) {
  std::vector<double> lat;
  late = 0;
  auto t0 = Clock::now() + std::chrono::microseconds(200);
  size_t count = (size_t)(durationUs / periodUs);
  for (size_t i = 0; i < count; ++i) {
    auto arrival = t0 + std::chrono::nanoseconds((long long)(i * periodUs * 1000.0));
    if (Clock::now() > arrival)
      ++late;
    while (Clock::now() < arrival)
      cpuRelax();
    e.urgentCall((int)(i % sets));
    lat.push_back(usBetween(arrival, Clock::now()));
  }
  return lat;
}

/// A background thread keeping two graphs in flight; records completions.
struct Background {
  Engine &e;
  std::atomic<bool> stop{false};
  std::vector<Clock::time_point> done;
  std::thread th;
  explicit Background(Engine &engine) : e(engine) {}
  void start() {
    th = std::thread([this] {
      e.bindThread();
      e.bgStart(0);
      e.bgStart(1);
      // Poll every ~20 us rather than spin: the background is a bulk
      // client, and a spinning waiter would compete with the urgent
      // thread for the driver (streams) or the runtime's lock (gpuos).
      // Two graphs are in flight, so the GPU never idles while we nap.
      for (int i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        while (!e.bgPoll(i & 1))
          std::this_thread::sleep_for(std::chrono::microseconds(20));
        done.push_back(Clock::now());
        e.bgStart(i & 1);
      }
      e.bgWait(0);
      e.bgWait(1);
    });
  }
  void finish() {
    stop = true;
    th.join();
  }
  double ratePerS(Clock::time_point a, Clock::time_point b) const {
    size_t c = 0;
    for (auto t : done)
      if (t >= a && t <= b)
        ++c;
    return (double)c / (usBetween(a, b) * 1e-6);
  }
};

/// The sharing phase's options, read (and refused) before any work starts.
struct SharingOptions {
  double periodUs, durationUs;
  size_t afterBgCalls;
  double afterBgGapUs; // at most a second: spun through once per after-bg call
};

SharingOptions sharingOptions(const Args &args) {
  SharingOptions o;
  o.periodUs = args.num("period-us", 250);
  o.durationUs = args.num("duration-s", 1.5) * 1e6;
  o.afterBgCalls = (size_t)args.integer("after-bg", 0);
  o.afterBgGapUs = args.num("after-bg-gap-us", 0);
  if (o.afterBgGapUs > 1e6)
    die("--after-bg-gap-us: " + args.get("after-bg-gap-us") + " is more than 1000000 (one second)");
  return o;
}

/// Urgent latency right after a background graph, one call at a time.
std::vector<double> urgentAfterBackground(Engine &e, int sets, size_t calls, double gapUs) {
  std::vector<double> lat;
  for (size_t i = 0; i < calls; ++i) {
    e.bgStart(0);
    e.bgWait(0);
    // Spin, not sleep: a sleep's wake-up would add its own tens of us.
    auto seen = Clock::now();
    while (usBetween(seen, Clock::now()) < gapUs) {
    }
    auto t0 = Clock::now();
    e.urgentCall((int)(i % sets));
    lat.push_back(usBetween(t0, Clock::now()));
  }
  return lat;
}

ShareResult runSharing(Engine &e, int sets, const SharingOptions &opts) {
  double periodUs = opts.periodUs, durationUs = opts.durationUs;
  ShareResult r;
  e.bindThread();
  // Warm-up: the urgent graph a few times, the background twice.
  for (int i = 0; i < 20; ++i)
    e.urgentCall(i % sets);
  e.bgStart(0);
  e.bgWait(0);
  // Solo urgent latency.
  std::vector<double> lat;
  {
    // Keep the period above a few solo latencies (open loop, no self-queueing).
    std::vector<double> probe;
    for (int i = 0; i < 50; ++i) {
      auto t0 = Clock::now();
      e.urgentCall(i % sets);
      probe.push_back(usBetween(t0, Clock::now()));
    }
    double p50 = distOf(probe).p50;
    if (periodUs < 4 * p50)
      periodUs = std::ceil(4 * p50 / 50.0) * 50.0;
  }
  r.periodUs = periodUs;
  e.phase(0);
  r.urgentSolo = distOf(urgentStream(e, sets, periodUs, durationUs, r.lateSolo));
  if (opts.afterBgCalls) {
    e.phase(1); // the trace's phase 1 (the background alone makes no urgent calls)
    r.afterBgCalls = opts.afterBgCalls;
    r.afterBgGapUs = opts.afterBgGapUs;
    r.urgentAfterBg = distOf(urgentAfterBackground(e, sets, opts.afterBgCalls, opts.afterBgGapUs));
  }
  e.phase(1);
  // Solo background throughput.
  {
    Background bg(e);
    bg.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto a = Clock::now();
    std::this_thread::sleep_for(std::chrono::microseconds((long long)durationUs));
    auto b = Clock::now();
    bg.finish();
    r.bgSoloPerS = bg.ratePerS(a, b);
  }
  // Shared.
  {
    Background bg(e);
    bg.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    e.phase(2);
    auto a = Clock::now();
    std::vector<double> l = urgentStream(e, sets, periodUs, durationUs, r.lateShared);
    auto b = Clock::now();
    bg.finish();
    r.urgentShared = distOf(l);
    r.bgSharedPerS = bg.ratePerS(a, b);
  }
  return r;
}

std::string shareJson(const std::string &mode, const ShareResult &r, const std::string &extra) {
  std::ostringstream js;
  js << "{\"mode\": " << jstr(mode) << ", \"period_us\": " << r.periodUs
     << ", \"urgent_solo_us\": " << jsonDist(r.urgentSolo)
     << ", \"urgent_shared_us\": " << jsonDist(r.urgentShared)
     << ", \"urgent_late_solo\": " << r.lateSolo << ", \"urgent_late_shared\": " << r.lateShared
     << ", \"background_solo_per_s\": " << r.bgSoloPerS
     << ", \"background_shared_per_s\": " << r.bgSharedPerS;
  if (r.afterBgCalls)
    js << ", \"urgent_after_bg_us\": " << jsonDist(r.urgentAfterBg)
       << ", \"after_bg_gap_us\": " << r.afterBgGapUs;
  js << extra << "}";
  return js.str();
}

// ---- gpuos engine

/// One urgent call of a traced sharing run (--trace-runs): its phase, run
/// slot, and host clock (CLOCK_REALTIME ns, the clock the device's
/// globaltimer follows) before submit, after submit, after wait.
struct UrgentCallLog {
  int phase;
  uint32_t run;
  int64_t submitNs, submittedNs, doneNs;
};

int64_t realtimeNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct GpuosEngine : Engine {
  Runtime &rt;
  std::vector<BoundSet> urgent;
  BoundSet bg[2];
  Submission bgSub[2];
  bool logging = false;
  int phaseNow = -1; // warm-up: not logged
  std::vector<UrgentCallLog> log;
  GpuosEngine(Runtime &r) : rt(r) {}
  void urgentCall(int set) override {
    if (!logging || phaseNow < 0)
      return runOnce(rt, urgent[set].graph, Priority::Urgent);
    UrgentCallLog c{phaseNow, 0, realtimeNs(), 0, 0};
    Submission s;
    need(rt.submit(urgent[set].graph, Priority::Urgent, s), "submit");
    c.submittedNs = realtimeNs();
    need(rt.wait(s, 30000000), "wait");
    c.doneNs = realtimeNs();
    c.run = Runtime::runSlotOf(s);
    log.push_back(c);
  }
  void phase(int p) override { phaseNow = p; }
  void bgStart(int slot) override {
    need(rt.submit(bg[slot].graph, Priority::Background, bgSub[slot]), "submit background");
  }
  void bgWait(int slot) override { need(rt.wait(bgSub[slot], 60000000), "wait background"); }
  bool bgPoll(int slot) override {
    Status st = rt.poll(bgSub[slot]);
    if (st.code() == ErrorCode::NotReady)
      return false;
    need(st, "poll background");
    return true;
  }
};

/// --trace-runs: where urgent latency goes, alone and shared. Each logged
/// call is matched to the poller's record of its run (TraceRecord: one per
/// run; a run slot's last k records are its last k calls, in order; older
/// ones may have left the ring, and the unlogged warm-up calls come
/// first). The host's clock and the device's globaltimer differ by an
/// unknown, slowly drifting offset (~70 us on the H200,
/// bench/micro/clock_sync.cu), so "pickup" (submit called -> ring entry
/// seen by the poller) is counted from its minimum in the same phase (a
/// lower bound: that minimum is taken as zero); "poller" is seen ->
/// entries published (or the inline tile completed), on block 0's clock;
/// "rest" is the remainder up to `wait` returning (tiles, hops, the
/// completion reaching the host).
void printUrgentBreakdown(Runtime &rt, const std::vector<UrgentCallLog> &log) {
  std::vector<TraceRecord> recs;
  need(rt.readTrace(recs), "readTrace");
  // readTrace's order is the poller's (oldest first); records of one ring
  // read share seenNs, so a stable sort keeps them in the order handled.
  std::stable_sort(recs.begin(), recs.end(),
                   [](const TraceRecord &a, const TraceRecord &b) { return a.seenNs < b.seenNs; });
  double cyc = 0, ns = 0; // block 0's clock rate, from neighbouring records
  for (size_t k = 1; k < recs.size(); ++k)
    if (recs[k].seenNs - recs[k - 1].seenNs < 100000 && recs[k].seen > recs[k - 1].seen) {
      cyc += (double)(recs[k].seen - recs[k - 1].seen);
      ns += (double)(recs[k].seenNs - recs[k - 1].seenNs);
    }
  double ghz = ns > 0 ? cyc / ns : 0;
  std::map<uint32_t, std::vector<size_t>> byRun;
  std::set<uint32_t> urgentRuns;
  for (size_t k = 0; k < recs.size(); ++k)
    byRun[recs[k].run].push_back(k);
  for (const UrgentCallLog &c : log)
    urgentRuns.insert(c.run);
  struct Row {
    int phase;
    double total, submit, raw, poller;
    long prev; // the poller's record just before (any run), or -1
  };
  std::map<uint32_t, size_t> callsOfRun, matched;
  std::map<uint32_t, uint32_t> lastEpoch;
  size_t misordered = 0;
  for (const UrgentCallLog &c : log)
    ++callsOfRun[c.run];
  std::vector<Row> rows;
  for (const UrgentCallLog &c : log) {
    const std::vector<size_t> &mine = byRun[c.run];
    size_t i = matched[c.run]++;
    if (ghz <= 0 || mine.size() + i < callsOfRun[c.run])
      continue; // its record left the ring
    long best = (long)mine[mine.size() - callsOfRun[c.run] + i];
    const TraceRecord &t = recs[best];
    // A slot's submissions take consecutive epochs: a gap means records
    // were lost (the ring restarts at slot 0 when the kernel relaunches).
    auto last = lastEpoch.find(c.run);
    if (last != lastEpoch.end() && ((last->second + 1) & 0xFFFFu) != (t.epoch & 0xFFFFu))
      ++misordered;
    lastEpoch[c.run] = t.epoch;
    uint64_t end = t.queued ? t.published : t.completed;
    rows.push_back({c.phase, (c.doneNs - c.submitNs) * 1e-3, (c.submittedNs - c.submitNs) * 1e-3,
                    ((double)t.seenNs - (double)c.submitNs) * 1e-3,
                    end > t.seen ? (double)(end - t.seen) / ghz * 1e-3 : 0.0, best - 1});
  }
  // The offset per phase (it drifts by microseconds over the seconds
  // between them): its calls' minimum.
  double offsets[3] = {1e300, 1e300, 1e300};
  for (Row &r : rows)
    offsets[r.phase] = std::min(offsets[r.phase], r.raw);
  for (Row &r : rows)
    r.raw -= offsets[r.phase];
  if (offsets[0] == 1e300 && !rows.empty())
    std::printf("trace: the urgent-alone calls' records left the ring (--trace-runs %zu is too "
                "small)\n", recs.size());
  if (misordered)
    std::printf("trace: %zu calls' records do not follow their slot's previous epoch (records "
                "lost, e.g. to a park and relaunch): the breakdown may pair calls wrongly\n",
                misordered);
  if (rows.empty()) {
    std::printf("trace: no urgent call matched a trace record (%zu records, %zu calls)\n",
                recs.size(), log.size());
    return;
  }
  std::printf("urgent calls by phase (us; pickup from its minimum in the phase, block 0 at %.3f GHz):\n"
              "%-8s %6s %22s %22s %22s %22s %22s\n", ghz, "phase", "n", "total p50/p99",
              "submit call p50/p99", "pickup p50/p99", "poller p50/p99", "rest p50/p99");
  for (int ph : {0, 1, 2}) {
    std::vector<double> tot, sub, pick, pol, rest;
    for (const Row &r : rows)
      if (r.phase == ph) {
        tot.push_back(r.total), sub.push_back(r.submit), pick.push_back(r.raw);
        pol.push_back(r.poller), rest.push_back(r.total - r.raw - r.poller);
      }
    auto pp = [](const std::vector<double> &v) {
      Dist d = distOf(v);
      char b[64];
      std::snprintf(b, sizeof b, "%.2f / %.2f", d.p50, d.p99);
      return std::string(b);
    };
    if (ph == 1 && tot.empty())
      continue; // no --after-bg calls
    std::printf("%-8s %6zu %22s %22s %22s %22s %22s\n",
                ph == 0 ? "alone" : ph == 1 ? "after-bg" : "shared", tot.size(),
                pp(tot).c_str(), pp(sub).c_str(), pp(pick).c_str(), pp(pol).c_str(), pp(rest).c_str());
  }
  // The slowest shared calls one by one, with what the poller did just
  // before it saw them.
  std::vector<const Row *> shared;
  for (const Row &r : rows)
    if (r.phase == 2)
      shared.push_back(&r);
  std::sort(shared.begin(), shared.end(), [](const Row *a, const Row *b) { return a->total > b->total; });
  std::printf("slowest shared calls: total, submit call, pickup, poller, rest; the poller's previous "
              "record (urgent/bg, its publish time, gap from its end to this entry seen)\n");
  for (size_t i = 0; i < shared.size() && i < std::max<size_t>(12, shared.size() / 100); ++i) {
    const Row &r = *shared[i];
    std::printf("  %7.2f %6.2f %7.2f %6.2f %7.2f", r.total, r.submit, r.raw, r.poller,
                r.total - r.raw - r.poller);
    if (r.prev >= 0) {
      const TraceRecord &p = recs[(size_t)r.prev], &t = recs[(size_t)r.prev + 1];
      uint64_t pend = p.queued ? p.published : p.completed;
      std::printf("   prev %s %6.2f us, gap %7.2f us", urgentRuns.count(p.run) ? "urgent" : "bg    ",
                  pend > p.seen ? (double)(pend - p.seen) / ghz * 1e-3 : 0.0,
                  t.seen > pend ? (double)(t.seen - pend) / ghz * 1e-3 : -1.0);
    }
    std::printf("\n");
  }
}

int cmdShareGpuos(const Args &args) {
  SharingOptions sharing = sharingOptions(args);
  Spec us = readSpec(args.get("urgent-spec")), bs = readSpec(args.get("bg-spec"));
  int sets = std::max(1, (int)args.integer("urgent-sets", 4));
  std::string out = args.get("out");
  std::unique_ptr<Runtime> rt = openRuntime(args);
  GpuosEngine e(*rt);
  for (int k = 0; k < sets; ++k)
    e.urgent.push_back(bindSet(*rt, us, args.get("urgent-data"), k));
  e.bg[0] = bindSet(*rt, bs, args.get("bg-data"), 0);
  e.bg[1] = bindSet(*rt, bs, args.get("bg-data"), 0, &e.bg[0]);
  // Correctness of both graphs (set 0), poisoned outputs.
  poisonOutputs(*rt, us, e.urgent[0]);
  runOnce(*rt, e.urgent[0].graph, Priority::Urgent);
  saveOutputs(*rt, us, e.urgent[0], out + "/urgent");
  poisonOutputs(*rt, bs, e.bg[1]);
  runOnce(*rt, e.bg[1].graph, Priority::Background);
  saveOutputs(*rt, bs, e.bg[1], out + "/background");
  e.logging = args.integer("trace-runs", 0) > 0;
  ShareResult r = runSharing(e, sets, sharing);
  if (e.logging)
    printUrgentBreakdown(*rt, e.log);
  std::string extra = ", \"urgent_exclusive\": " +
                      std::to_string(args.integer("urgent-exclusive", 0) != 0) +
                      ", \"urgent_sms\": " + std::to_string(args.integer("urgent-sms", 0)) +
                      ", \"device\": " + deviceJson(*rt) + ", \"stats\": " + statsJson(*rt);
  need(rt->close(), "close");
  emitJson(args, shareJson("gpuos", r, extra));
  return 0;
}

// ---- CUDA streams engine: the image's launch kernels on two priority streams

struct StreamTask {
  CUfunction fn = nullptr;
  unsigned blocks = 0, threads = 0, shared = 0;
  CUdeviceptr args = 0; // the ABI argument block in device memory
};

struct StreamsEngine : Engine {
  suite::CudaApi &cu;
  suite::CUcontext ctx = nullptr;
  suite::CUstream hi = nullptr, lo = nullptr;
  int hiPriority = 0, loPriority = 0;
  std::vector<std::vector<StreamTask>> urgent; // per set
  std::vector<StreamTask> bg[2];
  suite::CUevent urgentDone = nullptr, bgDone[2] = {nullptr, nullptr};

  explicit StreamsEngine(suite::CudaApi &api) : cu(api) {}
  void check(suite::CUresult r, const char *what) {
    if (r != suite::kCudaSuccess)
      die(std::string(what) + ": " + cu.describe(r));
  }
  void bindThread() override { check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent"); }
  void launch(const std::vector<StreamTask> &tasks, suite::CUstream s) {
    for (const StreamTask &t : tasks) {
      // cuLaunchKernel reads the parameters; its signature is not const.
      void *params[] = {const_cast<CUdeviceptr *>(&t.args)};
      check(cu.cuLaunchKernel(t.fn, t.blocks, 1, 1, t.threads, 1, 1, t.shared, s, params, nullptr),
            "cuLaunchKernel");
    }
  }
  void spin(suite::CUevent ev) {
    for (;;) {
      suite::CUresult r = cu.cuEventQuery(ev);
      if (r == suite::kCudaSuccess)
        return;
      if (r != suite::kCudaNotReady)
        check(r, "cuEventQuery");
      cpuRelax();
    }
  }
  void urgentCall(int set) override {
    launch(urgent[set], hi);
    check(cu.cuEventRecord(urgentDone, hi), "cuEventRecord");
    spin(urgentDone);
  }
  void bgStart(int slot) override {
    launch(bg[slot], lo);
    check(cu.cuEventRecord(bgDone[slot], lo), "cuEventRecord");
  }
  void bgWait(int slot) override { spin(bgDone[slot]); }
  bool bgPoll(int slot) override {
    suite::CUresult r = cu.cuEventQuery(bgDone[slot]);
    if (r == suite::kCudaNotReady)
      return false;
    check(r, "cuEventQuery");
    return true;
  }
};

/// Device buffers for one graph's buffers by name (inputs from files,
/// outputs and intermediates allocated), then one StreamTask per manifest
/// task of the graph, in manifest order (a topological order).
struct StreamGraph {
  std::map<std::string, CUdeviceptr> buffers;
};

CUdeviceptr cuAlloc(StreamsEngine &e, uint64_t bytes) {
  CUdeviceptr p = 0;
  e.check(e.cu.cuMemAlloc(&p, std::max<uint64_t>(bytes, 16)), "cuMemAlloc");
  return p;
}

/// Bytes a manifest buffer's view spans (static shapes only).
uint64_t viewExtent(const ManifestBuffer &b) {
  for (int64_t size : b.shape)
    if (size < 0)
      die("buffer '" + b.name + "' has a dynamic size: this command needs static shapes");
  uint64_t extent = (uint64_t)b.elemBytes;
  for (size_t d = 0; d < b.shape.size(); ++d)
    extent += (uint64_t)(b.shape[d] - 1) * (uint64_t)b.strides[d] * (uint64_t)b.elemBytes;
  return extent;
}

/// The launch of task `t`'s gpuos_launch_<kind> kernel (one block per
/// tile) over `buffers` by manifest name; an intermediate not there yet
/// gets a fresh device buffer.
StreamTask makeStreamTask(StreamsEngine &e, suite::CUmodule mod, const ManifestTask &t,
                          std::map<std::string, CUdeviceptr> &buffers) {
  std::vector<uint64_t> block;
  for (const ManifestBuffer &b : t.buffers) {
    auto it = buffers.find(b.name);
    if (it == buffers.end()) // an intermediate
      it = buffers.emplace(b.name, cuAlloc(e, viewExtent(b))).first;
    block.push_back(it->second);
  }
  if (!t.dynamic.empty())
    die("task " + t.kind + " has dynamic sizes (not supported by the streams baseline)");
  StreamTask st;
  std::string launcher = "gpuos_launch_" + t.kind;
  e.check(e.cu.cuModuleGetFunction(&st.fn, mod, launcher.c_str()),
          ("cuModuleGetFunction(" + launcher + ")").c_str());
  st.blocks = (unsigned)t.numTiles;
  st.threads = (unsigned)t.blockSize;
  st.shared = (unsigned)t.sharedBytes;
  if (st.shared > 48 * 1024)
    e.check(e.cu.cuFuncSetAttribute(st.fn, suite::kFuncAttrMaxDynamicShared, (int)st.shared),
            "cuFuncSetAttribute");
  if (st.blocks == 0)
    die("task " + t.kind + ": num_tiles is 0");
  st.args = cuAlloc(e, block.size() * 8);
  e.check(e.cu.cuMemcpyHtoD(st.args, block.data(), block.size() * 8), "cuMemcpyHtoD");
  return st;
}

std::vector<StreamTask> buildStreamGraph(StreamsEngine &e, suite::CUmodule mod,
                                         const ImageManifest &man, const Spec &spec,
                                         const std::string &dataDir, int set,
                                         std::map<std::string, CUdeviceptr> &buffers,
                                         const std::map<std::string, CUdeviceptr> *shareInputs) {
  for (const SpecBuffer &sb : spec.buffers) {
    if (!sb.output && shareInputs) {
      buffers[sb.name] = shareInputs->at(sb.name);
      continue;
    }
    CUdeviceptr p = cuAlloc(e, sb.bytes);
    if (!sb.output) {
      std::vector<char> data = readBytes(setDir(dataDir, set) + "/" + sb.name + ".bin", sb.bytes);
      e.check(e.cu.cuMemcpyHtoD(p, data.data(), sb.bytes), "cuMemcpyHtoD");
    }
    buffers[sb.name] = p;
  }
  std::vector<StreamTask> tasks;
  for (const ManifestTask &t : man.tasks)
    if (t.graph == spec.graph)
      tasks.push_back(makeStreamTask(e, mod, t, buffers));
  if (tasks.empty())
    die("the image has no graph '" + spec.graph + "'");
  return tasks;
}

void saveStreamOutputs(StreamsEngine &e, const Spec &spec,
                       const std::map<std::string, CUdeviceptr> &buffers, const std::string &dir) {
  makeDir(dir);
  for (const SpecBuffer &sb : spec.buffers)
    if (sb.output) {
      std::vector<char> data(sb.bytes);
      e.check(e.cu.cuMemcpyDtoH(data.data(), buffers.at(sb.name), sb.bytes), "cuMemcpyDtoH");
      writeBytes(dir + "/" + sb.name + ".bin", data);
    }
}

void poisonStream(StreamsEngine &e, const Spec &spec, const std::map<std::string, CUdeviceptr> &buffers) {
  for (const SpecBuffer &sb : spec.buffers)
    if (sb.output) {
      std::vector<char> ff(sb.bytes, (char)0xFF);
      e.check(e.cu.cuMemcpyHtoD(buffers.at(sb.name), ff.data(), sb.bytes), "cuMemcpyHtoD");
    }
}

/// The streams engine on device 0's primary context, with the image
/// loaded as a plain module (no resident kernel) and its manifest.
suite::CUmodule openStreams(const Args &args, StreamsEngine &e, ImageManifest &man) {
  suite::CudaApi &cu = e.cu;
  if (!cu.load())
    die(cu.error);
  e.check(cu.cuInit(0), "cuInit");
  suite::CUdevice dev = 0;
  e.check(cu.cuDeviceGet(&dev, 0), "cuDeviceGet");
  e.check(cu.cuDevicePrimaryCtxRetain(&e.ctx, dev), "cuDevicePrimaryCtxRetain");
  e.bindThread();
  int least = 0, greatest = 0;
  e.check(cu.cuCtxGetStreamPriorityRange(&least, &greatest), "cuCtxGetStreamPriorityRange");
  e.check(cu.cuStreamCreateWithPriority(&e.hi, suite::kStreamNonBlocking, greatest), "stream");
  e.check(cu.cuStreamCreateWithPriority(&e.lo, suite::kStreamNonBlocking, least), "stream");
  e.hiPriority = greatest;
  e.loPriority = least;
  e.check(cu.cuEventCreate(&e.urgentDone, suite::kEventDisableTiming), "cuEventCreate");
  e.check(cu.cuEventCreate(&e.bgDone[0], suite::kEventDisableTiming), "cuEventCreate");
  e.check(cu.cuEventCreate(&e.bgDone[1], suite::kEventDisableTiming), "cuEventCreate");
  std::vector<char> cubin;
  need(readFile(args.get("image"), cubin), "read image");
  std::vector<char> manText;
  need(readFile(args.get("manifest"), manText), "read manifest");
  need(parseManifest(std::string_view(manText.data(), manText.size()), man), "parse manifest");
  suite::CUmodule mod = nullptr;
  e.check(cu.cuModuleLoadData(&mod, cubin.data()), "cuModuleLoadData");
  return mod;
}

int cmdShareStreams(const Args &args) {
  SharingOptions sharing = sharingOptions(args);
  suite::CudaApi cu;
  StreamsEngine e(cu);
  ImageManifest man;
  suite::CUmodule mod = openStreams(args, e, man);

  Spec us = readSpec(args.get("urgent-spec")), bs = readSpec(args.get("bg-spec"));
  int sets = std::max(1, (int)args.integer("urgent-sets", 4));
  std::string out = args.get("out");
  std::vector<std::map<std::string, CUdeviceptr>> ubufs(sets);
  for (int k = 0; k < sets; ++k)
    e.urgent.push_back(buildStreamGraph(e, mod, man, us, args.get("urgent-data"), k, ubufs[k], nullptr));
  std::map<std::string, CUdeviceptr> bbufs[2];
  e.bg[0] = buildStreamGraph(e, mod, man, bs, args.get("bg-data"), 0, bbufs[0], nullptr);
  e.bg[1] = buildStreamGraph(e, mod, man, bs, args.get("bg-data"), 0, bbufs[1], &bbufs[0]);

  poisonStream(e, us, ubufs[0]);
  e.urgentCall(0);
  saveStreamOutputs(e, us, ubufs[0], out + "/urgent");
  poisonStream(e, bs, bbufs[1]);
  e.bgStart(1);
  e.bgWait(1);
  saveStreamOutputs(e, bs, bbufs[1], out + "/background");

  ShareResult r = runSharing(e, sets, sharing);
  e.check(cu.cuCtxSynchronize(), "cuCtxSynchronize");
  std::string extra = ", \"stream_priorities\": {\"urgent\": " + std::to_string(e.hiPriority) +
                      ", \"background\": " + std::to_string(e.loPriority) + "}";
  emitJson(args, shareJson("streams", r, extra));
  return 0;
}

//===----------------------------------------------------------------------===//
// profile: per-task synchronous latency of one graph
//===----------------------------------------------------------------------===//

/// The tasks of `graph` in manifest order, for the profile commands (none
/// when the manifest has no such graph: endProfile says so); dies on a task
/// with dynamic sizes, which a profile cannot size buffers for.
std::vector<std::reference_wrapper<const ManifestTask>>
profiledTasks(const ImageManifest &man, const std::string &graph) {
  std::vector<std::reference_wrapper<const ManifestTask>> tasks;
  for (const ManifestTask &t : man.tasks) {
    if (t.graph != graph)
      continue;
    if (!t.dynamic.empty())
      die("graph '" + graph + "', task " + t.kind +
          ": dynamic sizes; profiles need static shapes");
    tasks.push_back(t);
  }
  return tasks;
}

/// Where a worker's time between two tiles goes (--trace-tiles): p50 over
/// the traced tiles of thread 0's SM cycles per step (HopTraceRecord) of
/// the records that ended after `sinceNs`, one line per way the tiles came
/// (from a queue, the next of a range, a kept successor: the steps differ),
/// and as JSON; advances `sinceNs`. Records whose stamps are not in order
/// (a worker's first tile after a launch starts at 0) are left out.
std::pair<std::string, std::string> traceSteps(Runtime &rt, uint64_t &sinceNs) {
  std::vector<HopTraceRecord> recs;
  need(rt.readHopTrace(recs), "readHopTrace");
  const char *names[] = {"finish", "stats", "decide", "start", "barrier", "tile", "end"};
  const char *origins[] = {"from a queue", "kept successor", "next in range"};
  const char *keys[] = {"from_queue", "continued", "from_range"};
  std::vector<double> steps[3][7], gap[3];
  uint64_t latest = sinceNs;
  for (const HopTraceRecord &r : recs) {
    if (r.endNs <= sinceNs)
      continue;
    latest = std::max(latest, r.endNs);
    uint64_t at[8] = {r.tileEnd, r.finished, r.finishDone, r.decided,
                      r.started, r.tileStart, r.dispatched, r.nextTileEnd};
    bool ordered = at[0] != 0 && (uint32_t)r.origin < 3;
    for (int k = 1; k < 8; ++k)
      ordered = ordered && at[k] >= at[k - 1];
    if (!ordered)
      continue;
    uint32_t o = (uint32_t)r.origin;
    for (int k = 0; k < 7; ++k)
      steps[o][k].push_back((double)(at[k + 1] - at[k]));
    gap[o].push_back((double)((at[7] - at[0]) - (at[6] - at[5])));
  }
  sinceNs = latest;
  std::ostringstream text, js;
  js << "{";
  int groups = 0;
  for (int o = 0; o < 3; ++o) {
    if (gap[o].empty())
      continue;
    text << (groups ? "\n" : "") << "    between tiles, thread 0's cycles (p50 of "
         << gap[o].size() << " tiles " << origins[o] << "):";
    js << (groups++ ? ", " : "") << "\"" << keys[o] << "\": {\"tiles\": " << gap[o].size();
    for (int k = 0; k < 7; ++k) {
      double v = distOf(steps[o][k]).p50;
      text << " " << names[k] << " " << (uint64_t)v;
      js << ", \"" << names[k] << "\": " << v;
    }
    text << "; outside the tile " << (uint64_t)distOf(gap[o]).p50;
    js << ", \"outside\": " << distOf(gap[o]).p50 << "}";
  }
  js << "}";
  if (!groups) // urgent one-tile runs execute on block 0, not a worker
    return {"    between tiles: no worker tile traced", "null"};
  return {text.str(), js.str()};
}

/// A profile's last row (the sum over the graph's tasks) and its JSON;
/// fails when the manifest had no task of `graph`.
int endProfile(const Args &args, std::ostringstream &js, const std::string &graph, int count,
               const char *label, const char *key, double sum) {
  if (!count)
    die("the manifest has no graph '" + graph + "'");
  std::printf("%-36s %6s %10.2f\n", label, "", sum);
  js << "], \"" << key << "\": " << sum << "}";
  emitJson(args, js.str());
  return 0;
}

/// The runtime's per-SM statistics, summed over the SMs.
struct SmTotals {
  uint64_t tiles = 0, busy = 0, active = 0;
};

SmTotals smTotals(Runtime &rt) {
  Stats s;
  need(rt.stats(s), "stats");
  SmTotals t;
  for (const Stats::SM &sm : s.perSM) {
    t.tiles += sm.tiles;
    t.busy += sm.busyCycles;
    t.active += sm.activeCycles;
  }
  return t;
}

/// The buffer named b.name in `buffers`, allocated zero-filled on first
/// use: the profile commands bind every task of a graph to buffers shared by
/// name, as the manifest's graph shares them.
BufferArg namedBuffer(Runtime &rt, std::map<std::string, Buffer> &buffers,
                      const ManifestBuffer &b) {
  auto it = buffers.find(b.name);
  if (it == buffers.end()) {
    Buffer buf;
    uint64_t bytes = std::max<uint64_t>(viewExtent(b), 16);
    need(rt.alloc(bytes, buf), "alloc " + b.name);
    std::vector<char> zero(bytes, 0);
    need(rt.copyToDevice(buf.ptr, zero.data(), bytes), "zero " + b.name);
    it = buffers.emplace(b.name, buf).first;
  }
  return BufferArg{it->second.ptr, it->second.bytes, {}, {}};
}

int cmdProfile(const Args &args) {
  std::string graph = args.get("graph");
  int reps = std::max(3, (int)args.integer("reps", 200));
  std::unique_ptr<Runtime> rt = openRuntime(args);
  const ImageManifest &man = *rt->manifest();
  std::map<std::string, Buffer> buffers;
  const bool tracing = (uint32_t)args.integer("trace-tiles", 0) != 0; // as openRuntime
  uint64_t traceSince = 0; // --trace-tiles: records of earlier tasks end before
  std::ostringstream js;
  js << "{\"graph\": \"" << graph << "\", \"reps\": " << reps << ", \"tasks\": [";
  std::printf("%-36s %6s %10s %10s %8s %12s\n", "task", "tiles", "p50 us", "p99 us", "busy",
              "cycles/tile");
  double sum = 0;
  int count = 0;
  for (const ManifestTask &t : profiledTasks(man, graph)) {
    TaskSpec ts;
    ts.kind = t.kind;
    for (const ManifestBuffer &b : t.buffers)
      ts.buffers.push_back(namedBuffer(*rt, buffers, b));
    GraphSpec gs;
    gs.tasks.push_back(ts);
    GraphId g = 0;
    need(rt->createGraph(gs, g), "createGraph(" + t.kind + ")");
    std::vector<double> lat;
    Priority prio = priorityOption(args, t.priority);
    for (int i = 0; i < 3; ++i)
      runOnce(*rt, g, prio);
    if (tracing) // the warm-up's tiles are not the timed runs'
      traceSteps(*rt, traceSince);
    SmTotals before = smTotals(*rt);
    for (int i = 0; i < reps; ++i) {
      auto t0 = Clock::now();
      runOnce(*rt, g, prio);
      lat.push_back(usBetween(t0, Clock::now()));
    }
    SmTotals after = smTotals(*rt);
    std::pair<std::string, std::string> steps{"", "null"};
    if (tracing)
      steps = traceSteps(*rt, traceSince);
    need(rt->destroyGraph(g), "destroyGraph");
    Dist d = distOf(lat);
    // The blocks' own clocks over the timed runs: inside tiles / resident,
    // and the cycles of one tile (the rest of a block's time is the
    // runtime's: picking, counting, idling between runs).
    double busy = (double)(after.busy - before.busy), active = (double)(after.active - before.active);
    double tiles = (double)(after.tiles - before.tiles);
    double busyFraction = active > 0 ? busy / active : 0, tileCycles = tiles > 0 ? busy / tiles : 0;
    std::printf("%-36s %6llu %10.2f %10.2f %8.3f %12.0f\n", t.kind.c_str(),
                (unsigned long long)t.numTiles, d.p50, d.p99, busyFraction, tileCycles);
    js << (count++ ? ", " : "") << "{\"kind\": \"" << t.kind << "\", \"tiles\": " << t.numTiles
       << ", \"sync_us\": " << jsonDist(d) << ", \"busy_fraction\": " << busyFraction
       << ", \"cycles_per_tile\": " << tileCycles << ", \"tile_steps\": " << steps.second << "}";
    if (!steps.first.empty())
      std::printf("%s\n", steps.first.c_str());
    sum += d.p50;
  }
  return endProfile(args, js, graph, count, "sum of p50", "sum_p50_us", sum);
}

/// The profile's second view: each task of the graph as a plain kernel
/// launch of its gpuos_launch_<kind> function (one block per tile, no
/// resident kernel), so a task's own time separates from the runtime's.
/// Pipelined: `reps` launches back to back between two events, per launch;
/// median over 5 batches.
int cmdProfileLaunch(const Args &args) {
  std::string graph = args.get("graph");
  int reps = std::max(3, (int)args.integer("reps", 200));
  suite::CudaApi cu;
  StreamsEngine e(cu);
  ImageManifest man;
  suite::CUmodule mod = openStreams(args, e, man);
  suite::CUevent t0 = nullptr, t1 = nullptr;
  e.check(cu.cuEventCreate(&t0, 0), "cuEventCreate");
  e.check(cu.cuEventCreate(&t1, 0), "cuEventCreate");
  std::map<std::string, CUdeviceptr> buffers;
  std::ostringstream js;
  js << "{\"graph\": \"" << graph << "\", \"reps\": " << reps << ", \"tasks\": [";
  std::printf("%-36s %6s %12s\n", "task (plain launch)", "tiles", "us/launch");
  double sum = 0;
  int count = 0;
  for (const ManifestTask &t : profiledTasks(man, graph)) {
    for (const ManifestBuffer &b : t.buffers)
      if (!buffers.count(b.name)) {
        uint64_t bytes = std::max<uint64_t>(viewExtent(b), 16);
        CUdeviceptr p = cuAlloc(e, bytes);
        std::vector<char> zero(bytes, 0);
        e.check(cu.cuMemcpyHtoD(p, zero.data(), bytes), "cuMemcpyHtoD");
        buffers[b.name] = p;
      }
    std::vector<StreamTask> one{makeStreamTask(e, mod, t, buffers)};
    e.launch(one, e.hi); // warm-up
    std::vector<double> batches;
    for (int k = 0; k < 5; ++k) {
      e.check(cu.cuEventRecord(t0, e.hi), "cuEventRecord");
      for (int i = 0; i < reps; ++i)
        e.launch(one, e.hi);
      e.check(cu.cuEventRecord(t1, e.hi), "cuEventRecord");
      e.check(cu.cuEventSynchronize(t1), "cuEventSynchronize");
      float ms = 0;
      e.check(cu.cuEventElapsedTime(&ms, t0, t1), "cuEventElapsedTime");
      batches.push_back(ms * 1000.0 / reps);
    }
    double us = distOf(batches).p50;
    std::printf("%-36s %6llu %12.2f\n", t.kind.c_str(), (unsigned long long)t.numTiles, us);
    js << (count++ ? ", " : "") << "{\"kind\": \"" << t.kind << "\", \"tiles\": " << t.numTiles
       << ", \"launch_us\": " << us << "}";
    sum += us;
  }
  return endProfile(args, js, graph, count, "sum", "sum_us", sum);
}

//===----------------------------------------------------------------------===//
// validate: the host-side checks of createGraphFromManifest, without a GPU
//===----------------------------------------------------------------------===//

/// Binds the spec's buffers (fake, aligned addresses) and intermediates to
/// the manifest's graph as createGraphFromManifest does and runs the
/// runtime's own validation and layout (GraphLayout.h): kinds, buffer
/// counts, alignment, shapes, capacities, dependencies, tile limits. Also
/// checks that the spec's sizes match the manifest's buffers.
int cmdValidate(const Args &args) {
  Spec spec = readSpec(args.get("spec"));
  std::vector<char> text;
  need(readFile(args.get("manifest"), text), "read manifest");
  ImageManifest man;
  need(parseManifest(std::string_view(text.data(), text.size()), man), "manifest");
  std::map<std::string, std::pair<uint64_t, uint64_t>> mem; // name -> (ptr, bytes)
  uint64_t next = 1ull << 40;
  auto place = [&](const std::string &name, uint64_t bytes) {
    auto it = mem.find(name);
    if (it != mem.end())
      return it->second;
    std::pair<uint64_t, uint64_t> p{next, bytes};
    next += (bytes + 4095) / 4096 * 4096 + 4096;
    mem[name] = p;
    return p;
  };
  for (const SpecBuffer &b : spec.buffers)
    place(b.name, b.bytes);
  std::map<int, uint32_t> local;
  std::set<std::string> produced, consumed;
  for (size_t i = 0; i < man.tasks.size(); ++i)
    if (man.tasks[i].graph == spec.graph) {
      local[(int)i] = (uint32_t)local.size();
      for (const ManifestBuffer &b : man.tasks[i].buffers)
        (b.isOutput ? produced : consumed).insert(b.name);
    }
  if (local.empty())
    die("the manifest has no graph '" + spec.graph + "'");
  GraphSpec gs;
  for (const auto &[index, _] : local) {
    const ManifestTask &t = man.tasks[index];
    TaskSpec ts;
    ts.kind = t.kind;
    for (int64_t d : t.dependsOn)
      ts.deps.push_back(local.at((int)d));
    for (const ManifestBuffer &b : t.buffers) {
      uint64_t extent = viewExtent(b);
      bool bound = false;
      for (const SpecBuffer &sb : spec.buffers)
        if (sb.name == b.name) {
          bound = true;
          if (sb.bytes != extent)
            die("buffer '" + b.name + "' of task " + t.kind + ": the spec says " +
                std::to_string(sb.bytes) + " bytes, the manifest " + std::to_string(extent));
          if (sb.output != b.isOutput && !(produced.count(b.name) && sb.output))
            die("buffer '" + b.name + "': input/output role differs from the manifest");
        }
      if (!bound && !(produced.count(b.name) && consumed.count(b.name)))
        die("graph '" + spec.graph + "': buffer '" + b.name + "' of task " + t.kind +
            " is not in the spec and is not an intermediate");
      auto p = place(b.name, extent);
      ts.buffers.push_back(BufferArg{p.first, p.second, {}, {}});
    }
    gs.tasks.push_back(ts);
  }
  for (const SpecBuffer &sb : spec.buffers)
    if (!produced.count(sb.name) && !consumed.count(sb.name))
      die("the spec's buffer '" + sb.name + "' is not in graph '" + spec.graph + "'");
  LayoutLimits limits;
  limits.maxTilesPerGraph = (uint64_t)RuntimeOptions().queueCapacity / 2;
  GraphLayout layout;
  need(buildGraphLayout(man, gs, [&](uint64_t ptr) -> uint64_t {
         for (const auto &[n, p] : mem)
           if (ptr >= p.first && ptr < p.first + p.second)
             return p.first + p.second - ptr;
         return 0;
       }, limits, layout),
       "graph '" + spec.graph + "'");
  std::printf("%s: %u tasks, %llu tiles (%u root tiles), block %u, shared %u B\n", spec.graph.c_str(),
              layout.numTasks(), (unsigned long long)layout.totalTiles, layout.rootTiles,
              layout.maxBlockSize, layout.maxSharedBytes);
  return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: suite-driver bench|share-gpuos|share-streams --key value ...\n"
               "       (see the comment at the top of bench/suite/driver/suite_driver.cpp)\n");
  return 2;
}

//===----------------------------------------------------------------------===//
// timeline: where one run of a whole graph goes, task by task
//===----------------------------------------------------------------------===//

/// One task of a traced run: its tiles' first start and last end (device
/// globaltimer ns) and the task's dependencies (indices in the graph).
struct TaskSpan {
  std::string kind;
  uint64_t tiles = 0, traced = 0;
  double start = 1e300, end = 0;
  double decided = 1e300; // the first tile's worker chose it
  double finished = 0;     // finishing its last tile returned
  std::vector<uint32_t> deps;
};

int cmdTimeline(const Args &in) {
  Args args = in;
  if (!args.kv.count("trace-tiles")) // every tile traced (openRuntime)
    args.kv["trace-tiles"] = "4096";
  std::string graph = args.get("graph");
  int reps = std::max(3, (int)args.integer("reps", 50));
  std::unique_ptr<Runtime> rt = openRuntime(args);
  const ImageManifest &man = *rt->manifest();
  // The whole graph over zero-filled buffers shared by name; depends_on
  // (manifest indices) as indices within the graph.
  std::map<std::string, Buffer> buffers;
  std::map<int64_t, uint32_t> indexOf;
  std::vector<TaskSpan> spans;
  GraphSpec gs;
  Priority prio = Priority::Urgent;
  for (const ManifestTask &t : profiledTasks(man, graph)) {
    int64_t at = &t - man.tasks.data();
    indexOf[at] = (uint32_t)spans.size();
    TaskSpec ts;
    ts.kind = t.kind;
    for (const ManifestBuffer &b : t.buffers)
      ts.buffers.push_back(namedBuffer(*rt, buffers, b));
    for (int64_t d : t.dependsOn)
      ts.deps.push_back(indexOf.at(d)); // validated: earlier in the manifest
    prio = priorityOption(args, t.priority);
    TaskSpan span;
    span.kind = t.kind;
    span.tiles = t.numTiles;
    span.deps = ts.deps;
    spans.push_back(span);
    gs.tasks.push_back(std::move(ts));
  }
  if (spans.empty())
    die("the manifest has no graph '" + graph + "'");
  GraphId g = 0;
  need(rt->createGraph(gs, g), "createGraph(" + graph + ")");
  std::vector<double> lat;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    runOnce(*rt, g, prio);
    lat.push_back(usBetween(t0, Clock::now()));
  }
  // One more run, traced on its own: the window holds only its tiles.
  TraceWindow w;
  need(readTraceWindow(*rt, 0, w), "readHopTrace");
  uint64_t since = w.newest;
  Stats before;
  need(rt->stats(before), "stats");
  // Host stamps on the device's axis: %globaltimer follows the host's
  // CLOCK_REALTIME (system_clock) on this driver, to within the PCIe
  // ping-pong's uncertainty; with a skewed clock the two legs below move
  // in opposite directions, their sum stays right.
  double submitted = (double)realtimeNs();
  Submission sub;
  need(rt->submit(g, prio, sub), "submit");
  need(rt->wait(sub, 30000000), "wait");
  double returned = (double)realtimeNs();
  uint32_t runIndex = Runtime::runSlotOf(sub);
  std::vector<TraceRecord> polls;
  need(rt->readTrace(polls), "readTrace");
  Stats after;
  need(rt->stats(after), "stats");
  need(readTraceWindow(*rt, since, w), "readHopTrace");
  for (const HopTraceRecord &r : w.records) {
    if (r.task >= spans.size())
      continue;
    TaskSpan &t = spans[r.task];
    t.start = std::min(t.start, w.tileStartNs(r));
    t.decided = std::min(t.decided, w.tileDecidedNs(r));
    t.finished = std::max(t.finished, w.tileFinishedNs(r));
    t.end = std::max(t.end, (double)r.endNs);
    ++t.traced;
  }
  double origin = 1e300, last = 0;
  for (const TaskSpan &t : spans)
    if (t.traced) {
      origin = std::min(origin, t.start);
      last = std::max(last, t.end);
    }
  Dist d = distOf(lat);
  std::printf("graph %s: %zu tasks, sync p50 %.2f us (p99 %.2f) over %d runs; one traced run: "
              "%llu gang run(s), first tile start to last tile end %.2f us, SM clock %.3f GHz\n",
              graph.c_str(), spans.size(), d.p50, d.p99, reps,
              (unsigned long long)(after.gangRuns - before.gangRuns),
              last > origin ? (last - origin) / 1000.0 : 0.0, w.ghz);
  double toFirst = origin < 1e300 ? (origin - submitted) / 1000.0 : 0.0;
  double fromLast = last > 0 ? (returned - last) / 1000.0 : 0.0;
  double firstDecided = 1e300, lastFinished = 0;
  for (const TaskSpan &t : spans) {
    firstDecided = std::min(firstDecided, t.decided);
    lastFinished = std::max(lastFinished, t.finished);
  }
  // The poller's record of this run (the newest for its slot): when its
  // ring read returned and when the run was in the queues.
  const TraceRecord *poll = nullptr;
  for (const TraceRecord &p : polls)
    if (p.run == runIndex && (!poll || p.seenNs > poll->seenNs))
      poll = &p;
  double seen = poll ? (double)poll->seenNs : 0;
  auto pollNs = [&](uint64_t cycles) { // a poller stamp of a queued run
    return poll && poll->queued && w.ghz > 0 && cycles
               ? seen + (double)(int64_t)(cycles - poll->seen) / w.ghz
               : 0.0;
  };
  double published = pollNs(poll ? poll->published : 0);
  auto rel = [&](double ns) { return ns > 0 ? (ns - origin) / 1000.0 : 0.0; };
  std::printf("device (us from the first tile start): ring entry seen %.2f, acquired %.2f, "
              "row read %.2f, entries written %.2f, in the queues %.2f, first tile chosen %.2f, "
              "last tile end %.2f, its finish %.2f\n",
              rel(seen), rel(pollNs(poll ? poll->acquired : 0)), rel(pollNs(poll ? poll->rowRead : 0)),
              rel(pollNs(poll ? poll->entriesWritten : 0)), rel(published), rel(firstDecided),
              rel(last), rel(lastFinished));
  std::printf("host: submit -> first tile start + last tile end -> wait returned = %.2f us "
              "(the traced run took %.2f us)\n",
              toFirst + fromLast, (returned - submitted) / 1000.0);
  std::printf("%-5s %-36s %6s %6s %9s %9s %9s %9s\n", "task", "kind", "tiles", "traced",
              "ready", "start", "end", "wait");
  // ready: its last dependency's end; wait: from then to its first tile.
  std::ostringstream js;
  js << "{\"graph\": \"" << graph << "\", \"sync_us\": " << jsonDist(d)
     << ", \"submit_to_first_tile_us\": " << toFirst << ", \"last_tile_to_return_us\": " << fromLast
     << ", \"traced_run_us\": " << (returned - submitted) / 1000.0
     << ", \"ring_seen_us\": " << rel(seen) << ", \"published_us\": " << rel(published)
     << ", \"first_decided_us\": " << rel(firstDecided)
     << ", \"last_finished_us\": " << rel(lastFinished) << ", \"tasks\": [";
  for (size_t k = 0; k < spans.size(); ++k) {
    const TaskSpan &t = spans[k];
    double ready = origin;
    for (uint32_t dep : t.deps)
      ready = std::max(ready, spans[dep].end);
    auto us = [&](double ns) { return t.traced ? (ns - origin) / 1000.0 : 0.0; };
    std::printf("%-5zu %-36s %6llu %6llu %9.2f %9.2f %9.2f %9.2f\n", k, t.kind.c_str(),
                (unsigned long long)t.tiles, (unsigned long long)t.traced, us(ready),
                us(t.start), us(t.end), t.traced ? (t.start - ready) / 1000.0 : 0.0);
    js << (k ? ", " : "") << "{\"kind\": \"" << t.kind << "\", \"tiles\": " << t.tiles
       << ", \"traced\": " << t.traced << ", \"ready_us\": " << us(ready)
       << ", \"start_us\": " << us(t.start) << ", \"end_us\": " << us(t.end) << "}";
  }
  // The critical path: from the task that ended last, back through the
  // dependency that ended last; its waits are the runtime's share.
  std::vector<size_t> path;
  size_t at = 0;
  for (size_t k = 0; k < spans.size(); ++k)
    if (spans[k].end > spans[at].end)
      at = k;
  for (;;) {
    path.push_back(at);
    const TaskSpan &t = spans[at];
    if (t.deps.empty())
      break;
    at = *std::max_element(t.deps.begin(), t.deps.end(), [&](uint32_t a, uint32_t b) {
      return spans[a].end < spans[b].end;
    });
  }
  double waits = 0, runs = 0;
  for (size_t k : path) {
    const TaskSpan &t = spans[k];
    double ready = origin;
    for (uint32_t dep : t.deps)
      ready = std::max(ready, spans[dep].end);
    if (t.traced) {
      waits += (t.start - ready) / 1000.0;
      runs += (t.end - t.start) / 1000.0;
    }
  }
  std::printf("critical path: %zu tasks, waiting %.2f us, running %.2f us\n", path.size(), waits,
              runs);
  js << "], \"critical_path_tasks\": " << path.size() << ", \"critical_wait_us\": " << waits
     << ", \"critical_run_us\": " << runs << "}";
  emitJson(args, js.str());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h")
    return usage();
  if (cmd == "probe") { // starts? (used by run.sh after building)
    std::printf("suite-driver ok\n");
    return 0;
  }
  Args args = parseArgs(argc, argv, 2);
  if (cmd == "bench")
    return cmdBench(args);
  if (cmd == "validate")
    return cmdValidate(args);
  if (cmd == "profile")
    return cmdProfile(args);
  if (cmd == "profile-launch")
    return cmdProfileLaunch(args);
  if (cmd == "timeline")
    return cmdTimeline(args);
  if (cmd == "share-gpuos")
    return cmdShareGpuos(args);
  if (cmd == "share-streams")
    return cmdShareStreams(args);
  return usage();
}
