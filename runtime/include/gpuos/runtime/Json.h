//===- Json.h - a small JSON reader for manifests ---------------*- C++ -*-===//
//
// Enough JSON (RFC 8259) to read docs/abi.md manifests without a
// dependency: objects keep their key order, numbers keep whether they were
// integers. Errors carry line and column.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_JSON_H
#define GPUOS_RUNTIME_JSON_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuos::runtime::json {

class Value {
public:
  enum class Kind { Null, Bool, Integer, Number, String, Array, Object };

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isInteger() const { return kind_ == Kind::Integer; }
  bool isNumber() const {
    return kind_ == Kind::Integer || kind_ == Kind::Number;
  }
  bool isString() const { return kind_ == Kind::String; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }

  bool asBool() const { return bool_; }
  int64_t asInteger() const { return integer_; }
  double asNumber() const {
    return kind_ == Kind::Integer ? (double)integer_ : number_;
  }
  const std::string &asString() const { return string_; }
  const std::vector<Value> &items() const { return items_; }
  const std::vector<std::pair<std::string, Value>> &members() const {
    return members_;
  }
  /// The member named `key`, or null when absent (or not an object).
  const Value *find(std::string_view key) const;

  static Value makeNull() { return Value(); }
  static Value makeBool(bool b);
  static Value makeInteger(int64_t i);
  static Value makeNumber(double d);
  static Value makeString(std::string s);
  static Value makeArray(std::vector<Value> items);
  static Value makeObject(std::vector<std::pair<std::string, Value>> members);

private:
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  int64_t integer_ = 0;
  double number_ = 0;
  std::string string_;
  std::vector<Value> items_;
  std::vector<std::pair<std::string, Value>> members_;
};

/// Parses one JSON document. On failure returns false and sets `error` to
/// "line L, column C: what".
bool parse(std::string_view text, Value &out, std::string &error);

} // namespace gpuos::runtime::json

#endif // GPUOS_RUNTIME_JSON_H
