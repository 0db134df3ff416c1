// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The public header read as data: its structs and its functions'
// parameters, and from them every string and array length a call reads,
// directly or inside the structs it is passed. The length sweep derives its
// cases from this list, so a field added to the header is swept without a
// test being written for it.
#ifndef STACKREC_TESTS_SUPPORT_HEADER_FIELDS_H_
#define STACKREC_TESTS_SUPPORT_HEADER_FIELDS_H_

#include <map>
#include <string>
#include <vector>

namespace stackrec_test {

// One declarator: `const stackrec_label *labels` is {"stackrec_label",
// "labels", pointer, const}.
struct Declaration {
  std::string type;
  std::string name;
  bool pointer = false;
  bool is_const = false;
};

struct HeaderDecls {
  std::map<std::string, std::vector<Declaration>> structs;    // members, in order
  std::map<std::string, std::vector<Declaration>> functions;  // parameters, in order
};

// Parses the text of include/stackrec/stackrec.h (comments and preprocessor
// lines are skipped). Only the shapes the header uses are understood.
HeaderDecls ParseHeader(const std::string& text);

// One step from a call's argument to a field: member `member` of struct
// `strct`; when `element` is set, the member is an array and the step goes
// on into its element 0.
struct FieldStep {
  std::string strct;
  std::string member;
  bool element = false;
};

enum class LengthKind { kString, kArray };

// A length a call reads, e.g. "sample.locations[0].function.name" (a
// string) or "opts.comments" (an array: its pointer and its _len).
struct LengthField {
  std::string path;
  LengthKind kind;
  std::string element_type;  // an array's element type
  // Where it is: the parameter, how it is passed, and the steps from it.
  std::string parameter;
  enum class Root { kString, kArray, kStruct } root;
  bool root_element = false;  // the steps start in element 0 of an array parameter
  std::vector<FieldStep> steps;
};

// Every length field a call of `function` reads, in declaration order.
std::vector<LengthField> LengthFields(const HeaderDecls& decls, const std::string& function);

}  // namespace stackrec_test

#endif  // STACKREC_TESTS_SUPPORT_HEADER_FIELDS_H_
