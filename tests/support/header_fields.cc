// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "support/header_fields.h"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace stackrec_test {
namespace {

// The header without comments and preprocessor lines (a directive may go
// on over lines that end in a backslash).
std::string Declarations(const std::string& text) {
  std::string code;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
      code += ' ';
    } else if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) i = text.size();
    } else {
      code += text[i++];
    }
  }
  std::istringstream lines(code);
  std::string line, out;
  bool continued = false;
  while (std::getline(lines, line)) {
    const size_t first = line.find_first_not_of(" \t");
    const bool directive = continued || (first != std::string::npos && line[first] == '#');
    continued = directive && !line.empty() && line.back() == '\\';
    if (!directive) out += line + '\n';
  }
  return out;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) {
    if (part.find_first_not_of(" \t\n") != std::string::npos) parts.push_back(part);
  }
  return parts;
}

// `const stackrec_label *labels`, or `*labels` when `base` (the first
// declarator of the statement) gives the type.
Declaration ParseDeclarator(std::string text, const Declaration* base) {
  std::string spaced;
  for (char c : text) {
    if (c == '*') {
      spaced += " * ";
    } else {
      spaced += c;
    }
  }
  Declaration d;
  if (base != nullptr) {
    d.type = base->type;
    d.is_const = base->is_const;
  }
  std::vector<std::string> words;
  std::istringstream in(spaced);
  for (std::string w; in >> w;) {
    if (w == "const") {
      d.is_const = true;
    } else if (w == "*") {
      d.pointer = true;
    } else {
      words.push_back(w);
    }
  }
  if (words.empty()) throw std::runtime_error("no name in declaration: " + text);
  d.name = words.back();
  if (base == nullptr) {
    words.pop_back();
    for (const std::string& w : words) d.type += (d.type.empty() ? "" : " ") + w;
  }
  return d;
}

enum class Shape { kString, kArray, kStruct, kOther };

// What declaration i of `list` (a struct's members or a function's
// parameters) is: a string, an array (a const pointer followed by a size_t
// named after it with "_len"), a struct (by value as a member, by const
// pointer as a parameter), or anything else.
Shape ShapeOf(const HeaderDecls& decls, const std::vector<Declaration>& list, size_t i) {
  const Declaration& d = list[i];
  if (!d.pointer && d.type == "stackrec_str") return Shape::kString;
  if (d.pointer && d.is_const && i + 1 < list.size() && list[i + 1].name == d.name + "_len" &&
      list[i + 1].type == "size_t" && !list[i + 1].pointer) {
    return Shape::kArray;
  }
  if (decls.structs.count(d.type) != 0 && (!d.pointer || d.is_const)) return Shape::kStruct;
  return Shape::kOther;
}

void WalkStruct(const HeaderDecls& decls, const std::string& type, const std::string& prefix,
                const LengthField& base, std::vector<LengthField>* out);

// An array `path` of `element`s, reached by `base`'s steps, and what its
// element 0 holds (`into_element` is `base` with the step into it).
void AddArray(const HeaderDecls& decls, const std::string& path, const std::string& element,
              LengthField array, const LengthField& into_element, std::vector<LengthField>* out) {
  array.path = path;
  array.kind = LengthKind::kArray;
  array.element_type = element;
  out->push_back(array);
  if (element == "stackrec_str") {
    LengthField s = into_element;
    s.path = path + "[0]";
    s.kind = LengthKind::kString;
    out->push_back(s);
  } else if (decls.structs.count(element) != 0) {
    WalkStruct(decls, element, path + "[0].", into_element, out);
  }
}

void WalkStruct(const HeaderDecls& decls, const std::string& type, const std::string& prefix,
                const LengthField& base, std::vector<LengthField>* out) {
  const std::vector<Declaration>& members = decls.structs.at(type);
  for (size_t i = 0; i < members.size(); ++i) {
    const Declaration& m = members[i];
    LengthField f = base;
    f.steps.push_back(FieldStep{type, m.name, false});
    switch (ShapeOf(decls, members, i)) {
      case Shape::kString:
        f.path = prefix + m.name;
        f.kind = LengthKind::kString;
        out->push_back(f);
        break;
      case Shape::kArray: {
        LengthField element = base;
        element.steps.push_back(FieldStep{type, m.name, true});
        AddArray(decls, prefix + m.name, m.type, f, element, out);
        break;
      }
      case Shape::kStruct:
        WalkStruct(decls, m.type, prefix + m.name + ".", f, out);
        break;
      case Shape::kOther:
        break;
    }
  }
}

}  // namespace

HeaderDecls ParseHeader(const std::string& text) {
  const std::string code = Declarations(text);
  HeaderDecls decls;
  // typedef struct NAME { members } NAME;
  const std::string kStruct = "typedef struct ";
  for (size_t at = code.find(kStruct); at != std::string::npos; at = code.find(kStruct, at + 1)) {
    const size_t name_start = at + kStruct.size();
    size_t name_end = name_start;
    while (name_end < code.size() &&
           (std::isalnum(static_cast<unsigned char>(code[name_end])) || code[name_end] == '_')) {
      ++name_end;
    }
    const size_t open = code.find_first_not_of(" \t\n", name_end);
    if (open == std::string::npos || code[open] != '{') continue;  // an opaque handle
    const size_t close = code.find('}', open);
    if (close == std::string::npos) throw std::runtime_error("unclosed struct in the header");
    std::vector<Declaration>& members =
        decls.structs[code.substr(name_start, name_end - name_start)];
    for (const std::string& statement : Split(code.substr(open + 1, close - open - 1), ';')) {
      const std::vector<std::string> declarators = Split(statement, ',');
      const Declaration first = ParseDeclarator(declarators[0], nullptr);
      members.push_back(first);
      for (size_t i = 1; i < declarators.size(); ++i) {
        members.push_back(ParseDeclarator(declarators[i], &first));
      }
    }
  }
  // STACKREC_API <return type> NAME(params);
  const std::string kApi = "STACKREC_API";
  for (size_t at = code.find(kApi); at != std::string::npos; at = code.find(kApi, at + 1)) {
    const size_t open = code.find('(', at);
    const size_t close = code.find(')', open);
    if (open == std::string::npos || close == std::string::npos) {
      throw std::runtime_error("a STACKREC_API declaration without parameters");
    }
    size_t name_end = open;
    while (name_end > at && code[name_end - 1] == ' ') --name_end;
    size_t name_start = name_end;
    while (name_start > at && (std::isalnum(static_cast<unsigned char>(code[name_start - 1])) ||
                               code[name_start - 1] == '_')) {
      --name_start;
    }
    std::vector<Declaration>& params =
        decls.functions[code.substr(name_start, name_end - name_start)];
    for (const std::string& param : Split(code.substr(open + 1, close - open - 1), ',')) {
      const Declaration d = ParseDeclarator(param, nullptr);
      if (!(d.name == "void" && d.type.empty())) params.push_back(d);
    }
  }
  return decls;
}

std::vector<LengthField> LengthFields(const HeaderDecls& decls, const std::string& function) {
  const std::vector<Declaration>& params = decls.functions.at(function);
  std::vector<LengthField> out;
  for (size_t i = 0; i < params.size(); ++i) {
    const Declaration& p = params[i];
    LengthField f;
    f.parameter = p.name;
    switch (ShapeOf(decls, params, i)) {
      case Shape::kString:
        f.root = LengthField::Root::kString;
        f.path = p.name;
        f.kind = LengthKind::kString;
        out.push_back(f);
        break;
      case Shape::kArray: {
        f.root = LengthField::Root::kArray;
        LengthField element = f;
        element.root_element = true;
        AddArray(decls, p.name, p.type, f, element, &out);
        break;
      }
      case Shape::kStruct:
        f.root = LengthField::Root::kStruct;
        WalkStruct(decls, p.type, p.name + ".", f, &out);
        break;
      case Shape::kOther:
        break;
    }
  }
  return out;
}

}  // namespace stackrec_test
