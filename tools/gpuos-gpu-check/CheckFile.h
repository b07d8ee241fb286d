//===- CheckFile.h - check.txt and output comparison ------------*- C++ -*-===//
//
// The GPU check's file format (written by gpuos-check-gen, see there) and
// the comparison of a device output with the interpreter's values. Plain
// C++17 without LLVM: the launcher that includes it runs on the GPU
// machine; gpuos-sim-check uses it too.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TOOLS_GPU_CHECK_CHECKFILE_H
#define GPUOS_TOOLS_GPU_CHECK_CHECKFILE_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpuos::check {

inline bool readFile(const std::string &path, std::vector<char> &data) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

struct Buffer {
  bool input = false;
  std::string name; // graph sections only: the graph input or output name
  std::string dtype, file;
  int elemBytes = 0;
  long long span = 0;
  std::vector<long long> shape, strides;
  double atol = 0, rtol = 0;
  std::vector<char> data; // input bytes or expected values (8 bytes each)
};

struct Task {
  std::string kind, launcher;
  unsigned tiles = 0, blockSize = 0, sharedBytes = 0;
  std::vector<Buffer> buffers;
};

/// A whole graph of the image: its inputs and outputs by name, evaluated
/// by the interpreter from the graph's inputs (tasks chained).
struct Graph {
  std::string name;
  std::vector<Buffer> buffers;
};

/// Bytes per element of a check.txt dtype, 0 if unknown.
inline int dtypeBytes(const std::string &dtype) {
  if (dtype == "f64" || dtype == "i64")
    return 8;
  if (dtype == "f32" || dtype == "i32")
    return 4;
  if (dtype == "f16" || dtype == "bf16")
    return 2;
  if (dtype == "i8" || dtype == "i1")
    return 1;
  return 0;
}

/// Why `buffer` (a parsed line, its file read) cannot be used, or "": the
/// checkers index device memory and the files by these numbers, so a
/// damaged check.txt must not reach them (it read and wrote out of bounds).
inline std::string bufferError(const Buffer &buffer) {
  int bytes = dtypeBytes(buffer.dtype);
  if (bytes == 0)
    return "unknown dtype '" + buffer.dtype + "'";
  if (buffer.elemBytes != bytes)
    return buffer.dtype + " elements are " + std::to_string(bytes) + " bytes, not " +
           std::to_string(buffer.elemBytes);
  // Under 2^40 bytes of device memory: sizes below cannot overflow.
  const long long limit = (1LL << 40) / 8;
  if (buffer.span < 0 || buffer.span > limit)
    return "span " + std::to_string(buffer.span) + " out of range";
  long long count = 1, last = 0;
  for (size_t axis = 0; axis < buffer.shape.size(); ++axis) {
    long long size = buffer.shape[axis], stride = buffer.strides[axis];
    if (size < 0 || size > limit || stride < 0 || stride > limit)
      return "dimension " + std::to_string(axis) + " (size " + std::to_string(size) +
             ", stride " + std::to_string(stride) + ") out of range";
    if (size > 0 && count > limit / size)
      return "more than 2^37 elements";
    count *= size;
    // last + (size - 1) * stride, saturated past the largest span.
    if (size > 1 && stride > (limit - last) / (size - 1))
      last = limit;
    else if (size > 0)
      last += (size - 1) * stride;
  }
  if (count > 0 && last >= buffer.span)
    return "the view reaches element " + std::to_string(last) + ", past its span " +
           std::to_string(buffer.span);
  size_t want = buffer.input ? size_t(buffer.span) * bytes : size_t(count) * 8;
  if (buffer.data.size() != want)
    return buffer.file + " holds " + std::to_string(buffer.data.size()) + " bytes, not " +
           std::to_string(want);
  if (!buffer.input && !(buffer.atol >= 0 && buffer.rtol >= 0))
    return "negative or NaN tolerance";
  return "";
}

/// Reads check.txt; `graphs` (if given) receives the graph sections. A
/// line the checkers cannot trust is an error naming the file and line.
inline bool parseCheck(const std::string &path, std::string &image, std::vector<Task> &tasks,
                       std::vector<Graph> *graphs = nullptr) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "gpu-check: cannot read %s\n", path.c_str());
    return false;
  }
  std::string dir = path.substr(0, path.find_last_of('/') + 1);
  std::string line;
  std::vector<Graph> ignored;
  if (!graphs)
    graphs = &ignored;
  bool inGraph = false; // the current section: a graph (else a task)
  int lineNo = 0;
  auto bad = [&](const std::string &why) {
    std::fprintf(stderr, "gpu-check: %s:%d: %s: %s\n", path.c_str(), lineNo, why.c_str(),
                 line.c_str());
    return false;
  };
  while (std::getline(in, line)) {
    ++lineNo;
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "image") {
      words >> image;
      if (!image.empty() && image[0] != '/')
        image = dir + image;
    } else if (key == "task") {
      Task task;
      words >> task.kind >> task.launcher >> task.tiles >> task.blockSize >>
          task.sharedBytes;
      if (!words)
        return bad("bad task line");
      tasks.push_back(task);
      inGraph = false;
    } else if (key == "graph") {
      Graph graph;
      words >> graph.name;
      graphs->push_back(graph);
      inGraph = true;
    } else if (key == "input" || key == "output") {
      if (inGraph ? graphs->empty() : tasks.empty())
        return bad("buffer outside a section");
      Buffer buffer;
      buffer.input = key == "input";
      if (inGraph)
        words >> buffer.name;
      int rank = -1;
      words >> buffer.dtype >> buffer.elemBytes >> buffer.span >> rank;
      if (!words || rank < 0 || rank > 16)
        return bad("bad buffer line");
      buffer.shape.resize(rank);
      buffer.strides.resize(rank);
      for (auto &d : buffer.shape)
        words >> d;
      for (auto &s : buffer.strides)
        words >> s;
      words >> buffer.file;
      if (!buffer.input)
        words >> buffer.atol >> buffer.rtol;
      if (!words)
        return bad("bad buffer line");
      if (!readFile(dir + buffer.file, buffer.data))
        return bad("cannot read " + dir + buffer.file);
      std::string why = bufferError(buffer);
      if (!why.empty())
        return bad(why);
      (inGraph ? graphs->back().buffers : tasks.back().buffers).push_back(buffer);
    }
  }
  return true;
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000 | (man << 13);
  } else if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else { // subnormal: renormalize
      int shift = 0;
      while (!(man & 0x400)) {
        man <<= 1;
        ++shift;
      }
      bits = sign | uint32_t(127 - 15 - shift + 1) << 23 | ((man & 0x3FF) << 13);
    }
  } else {
    bits = sign | (exp + 127 - 15) << 23 | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Element at byte address `p` as a double (floats) or int64 (integers).
inline double floatAt(const char *p, const std::string &dtype) {
  if (dtype == "f32") {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (dtype == "f64") {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  if (dtype == "f16")
    return halfToFloat(h);
  uint32_t bits = uint32_t(h) << 16; // bf16
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline long long intAt(const char *p, int bytes) {
  switch (bytes) {
  case 1: return int8_t(*p);
  case 4: { int32_t v; std::memcpy(&v, p, 4); return v; }
  default: { int64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

inline bool isFloat(const std::string &dtype) { return dtype[0] == 'f' || dtype[0] == 'b'; }

struct Outcome {
  bool ok = true;
  double maxAbs = 0, maxRel = 0;
  long long mismatches = 0, poisonTouched = 0, elements = 0;
  std::string first;
};

inline void compare(const Buffer &buffer, const std::vector<char> &device, long long offset,
             Outcome &outcome) {
  long long count = 1;
  for (long long d : buffer.shape)
    count *= d;
  std::vector<char> covered(buffer.span, 0);
  std::vector<long long> index(buffer.shape.size(), 0);
  for (long long flat = 0; flat < count; ++flat) {
    long long rest = flat, element = 0;
    for (int axis = int(buffer.shape.size()) - 1; axis >= 0; --axis) {
      element += (rest % buffer.shape[axis]) * buffer.strides[axis];
      rest /= buffer.shape[axis];
    }
    covered[element] = 1;
    const char *p = device.data() + offset + element * buffer.elemBytes;
    const char *e = buffer.data.data() + flat * 8;
    bool match;
    double a, x;
    if (isFloat(buffer.dtype)) {
      a = floatAt(p, buffer.dtype);
      std::memcpy(&x, e, 8);
      if (std::isnan(x) || std::isnan(a))
        match = std::isnan(x) && std::isnan(a);
      else if (std::isinf(x) || std::isinf(a))
        match = a == x;
      else {
        double diff = std::fabs(a - x);
        outcome.maxAbs = std::max(outcome.maxAbs, diff);
        if (x != 0)
          outcome.maxRel = std::max(outcome.maxRel, diff / std::fabs(x));
        match = diff <= buffer.atol + buffer.rtol * std::fabs(x);
      }
    } else {
      long long got = buffer.dtype == "i1" ? (long long)(*p != 0) : intAt(p, buffer.elemBytes);
      long long want;
      std::memcpy(&want, e, 8);
      a = double(got);
      x = double(want);
      match = got == want;
      if (buffer.dtype == "i1" && (unsigned char)*p > 1)
        match = false; // i1 is stored as 0 or 1
    }
    ++outcome.elements;
    if (!match) {
      if (outcome.mismatches++ == 0) {
        char text[160];
        std::snprintf(text, sizeof text, "%s[%lld]: got %.9g, want %.9g",
                      buffer.file.c_str(), flat, a, x);
        outcome.first = text;
      }
      outcome.ok = false;
    }
  }
  for (long long element = 0; element < buffer.span; ++element)
    if (!covered[element])
      for (int byte = 0; byte < buffer.elemBytes; ++byte)
        if ((unsigned char)device[offset + element * buffer.elemBytes + byte] != 0xFF) {
          ++outcome.poisonTouched;
          outcome.ok = false;
          break;
        }
}

} // namespace gpuos::check

#endif // GPUOS_TOOLS_GPU_CHECK_CHECKFILE_H
