//===- Json.cpp - a small JSON reader -------------------------------------===//

#include "gpuos/runtime/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <unordered_set>

namespace gpuos::runtime::json {

const Value *Value::find(std::string_view key) const {
  for (const auto &[name, value] : members_)
    if (name == key)
      return &value;
  return nullptr;
}

Value Value::makeBool(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.bool_ = b;
  return v;
}
Value Value::makeInteger(int64_t i) {
  Value v;
  v.kind_ = Kind::Integer;
  v.integer_ = i;
  return v;
}
Value Value::makeNumber(double d) {
  Value v;
  v.kind_ = Kind::Number;
  v.number_ = d;
  return v;
}
Value Value::makeString(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  v.string_ = std::move(s);
  return v;
}
Value Value::makeArray(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::Array;
  v.items_ = std::move(items);
  return v;
}
Value Value::makeObject(std::vector<std::pair<std::string, Value>> members) {
  Value v;
  v.kind_ = Kind::Object;
  v.members_ = std::move(members);
  return v;
}

namespace {

constexpr int kMaxDepth = 256;

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  bool document(Value &out, std::string &error) {
    skipSpace();
    bool ok = value(out, 0);
    if (ok) {
      skipSpace();
      if (pos_ != text_.size())
        ok = fail("trailing characters after the document");
    }
    if (!ok)
      error = where() + ": " + error_;
    return ok;
  }

private:
  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;

  bool fail(std::string what) {
    if (error_.empty())
      error_ = std::move(what);
    return false;
  }

  std::string where() const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return fail("invalid literal");
    pos_ += word.size();
    return true;
  }

  bool value(Value &out, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than 256");
    if (pos_ >= text_.size())
      return fail("unexpected end of input");
    char c = text_[pos_];
    switch (c) {
    case 'n':
      out = Value::makeNull();
      return literal("null");
    case 't':
      out = Value::makeBool(true);
      return literal("true");
    case 'f':
      out = Value::makeBool(false);
      return literal("false");
    case '"': {
      std::string s;
      if (!string(s))
        return false;
      out = Value::makeString(std::move(s));
      return true;
    }
    case '[':
      return array(out, depth);
    case '{':
      return object(out, depth);
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return number(out);
      return fail(std::string("unexpected character '") + c + "'");
    }
  }

  bool array(Value &out, int depth) {
    ++pos_; // [
    std::vector<Value> items;
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      out = Value::makeArray(std::move(items));
      return true;
    }
    for (;;) {
      skipSpace();
      Value item;
      if (!value(item, depth + 1))
        return false;
      items.push_back(std::move(item));
      skipSpace();
      if (pos_ >= text_.size())
        return fail("unterminated array");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == ']') {
        ++pos_;
        out = Value::makeArray(std::move(items));
        return true;
      }
      return fail("expected ',' or ']' in an array");
    }
  }

  bool object(Value &out, int depth) {
    ++pos_; // {
    std::vector<std::pair<std::string, Value>> members;
    std::unordered_set<std::string> keys;
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      out = Value::makeObject(std::move(members));
      return true;
    }
    for (;;) {
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"')
        return fail("expected a string key in an object");
      std::string key;
      if (!string(key))
        return false;
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':')
        return fail("expected ':' after an object key");
      ++pos_;
      skipSpace();
      Value member;
      if (!value(member, depth + 1))
        return false;
      if (!keys.insert(key).second) // a set: linear time in the members
        return fail("duplicate key \"" + key + "\"");
      members.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (pos_ >= text_.size())
        return fail("unterminated object");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == '}') {
        ++pos_;
        out = Value::makeObject(std::move(members));
        return true;
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  static void appendUtf8(std::string &s, uint32_t cp) {
    if (cp < 0x80) {
      s.push_back((char)cp);
    } else if (cp < 0x800) {
      s.push_back((char)(0xC0 | (cp >> 6)));
      s.push_back((char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s.push_back((char)(0xE0 | (cp >> 12)));
      s.push_back((char)(0x80 | ((cp >> 6) & 0x3F)));
      s.push_back((char)(0x80 | (cp & 0x3F)));
    } else {
      s.push_back((char)(0xF0 | (cp >> 18)));
      s.push_back((char)(0x80 | ((cp >> 12) & 0x3F)));
      s.push_back((char)(0x80 | ((cp >> 6) & 0x3F)));
      s.push_back((char)(0x80 | (cp & 0x3F)));
    }
  }

  bool hex4(uint32_t &out) {
    if (pos_ + 4 > text_.size())
      return fail("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= (uint32_t)(c - '0');
      else if (c >= 'a' && c <= 'f')
        out |= (uint32_t)(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        out |= (uint32_t)(c - 'A' + 10);
      else
        return fail("invalid \\u escape");
    }
    return true;
  }

  bool string(std::string &out) {
    ++pos_; // "
    for (;;) {
      if (pos_ >= text_.size())
        return fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"')
        return true;
      if ((unsigned char)c < 0x20)
        return fail("control character in a string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size())
        return fail("unterminated string");
      char e = text_[pos_++];
      switch (e) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        uint32_t cp;
        if (!hex4(cp))
          return false;
        if (cp >= 0xD800 && cp < 0xDC00) {
          uint32_t low;
          if (text_.substr(pos_, 2) != "\\u")
            return fail("unpaired surrogate in \\u escape");
          pos_ += 2;
          if (!hex4(low) || low < 0xDC00 || low >= 0xE000)
            return fail("unpaired surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          return fail("unpaired surrogate in \\u escape");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        return fail(std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  bool number(Value &out) {
    size_t start = pos_;
    bool integral = true;
    if (text_[pos_] == '-')
      ++pos_;
    auto digits = [&] {
      size_t begin = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
        ++pos_;
      return pos_ - begin;
    };
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      return fail("invalid number");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integral = false;
      ++pos_;
      if (digits() == 0)
        return fail("invalid number");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
        ++pos_;
      if (digits() == 0)
        return fail("invalid number");
    }
    std::string token(text_.substr(start, pos_ - start));
    errno = 0;
    if (integral) {
      long long v = std::strtoll(token.c_str(), nullptr, 10);
      if (errno != ERANGE) {
        out = Value::makeInteger(v);
        return true;
      }
      errno = 0;
    }
    double d = std::strtod(token.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(d))
      return fail("number out of range");
    out = Value::makeNumber(d);
    return true;
  }
};

} // namespace

bool parse(std::string_view text, Value &out, std::string &error) {
  Parser parser(text);
  return parser.document(out, error);
}

} // namespace gpuos::runtime::json
