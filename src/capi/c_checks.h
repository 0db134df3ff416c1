// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The checks every argument of the C API gets before anything is built from
// it: NULL pointers, string and array lengths against the header's limits,
// enum values, and the sizes of the structs that grow (contract point 7).
// Each failure is a status whose message names the argument.
#ifndef STACKREC_SRC_CAPI_C_CHECKS_H_
#define STACKREC_SRC_CAPI_C_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "stackrec/stackrec.h"

namespace stackrec {

// Longer strings are rejected: no symbol or label is this long, and the
// encoder writes each string with an int-sized length. A power of two, so
// that the hot paths test a length against it with one mask of its bits.
constexpr size_t kMaxStringBytes = STACKREC_MAX_STR_LEN;
static_assert((kMaxStringBytes & (kMaxStringBytes - 1)) == 0, "");

inline Status NullArgument(const char* name) {
  return Error(Code::kInvalidArgument, "%s is NULL", name);
}

// A {ptr, len} pair that passed ToView's checks as a string_view: an empty
// one never keeps the caller's pointer.
inline absl::string_view CheckedView(stackrec_str s) {
  return s.len == 0 ? absl::string_view() : absl::string_view(s.ptr, s.len);
}

// A {ptr, len} pair as a string_view; `field` names it in the error.
inline Status ToView(stackrec_str s, const char* field, absl::string_view* out) {
  if (s.ptr == nullptr && s.len != 0) {
    return Error(Code::kInvalidArgument, "%s.ptr is NULL but its len is %zu", field, s.len);
  }
  if (s.len > kMaxStringBytes) {
    return Error(Code::kInvalidArgument, "%s.len %zu is over the %zu byte limit", field, s.len,
                 kMaxStringBytes);
  }
  *out = CheckedView(s);
  return OkStatus();
}

// The same for an element of an array: "sample.labels[3].key", or
// "opts.comments[3]" when `field` is "".
inline Status ToView(stackrec_str s, const char* array, size_t index, const char* field,
                     absl::string_view* out) {
  const char* dot = *field == '\0' ? "" : ".";
  if (s.ptr == nullptr && s.len != 0) {
    return Error(Code::kInvalidArgument, "%s[%zu]%s%s.ptr is NULL but its len is %zu", array, index,
                 dot, field, s.len);
  }
  if (s.len > kMaxStringBytes) {
    return Error(Code::kInvalidArgument, "%s[%zu]%s%s.len %zu is over the %zu byte limit", array,
                 index, dot, field, s.len, kMaxStringBytes);
  }
  *out = CheckedView(s);
  return OkStatus();
}

// An array argument: at most `max` elements (STACKREC_MAX_STACK_LEN for a
// stack, else STACKREC_MAX_ARRAY_LEN), and NULL only with length 0. The
// limits keep every byte size far from overflowing.
template <typename T>
inline Status CheckArray(const T* ptr, size_t len, const char* name,
                         size_t max = STACKREC_MAX_ARRAY_LEN) {
  if (len > max) {
    return Error(Code::kInvalidArgument, "%s_len %zu is over the limit of %zu", name, len, max);
  }
  if (ptr == nullptr && len != 0) {
    return Error(Code::kInvalidArgument, "%s is NULL but %s_len is %zu", name, name, len);
  }
  return OkStatus();
}

// A C caller may put any int in an enum field; reading it as the C++ enum
// type would be undefined when it is out of range, so read the bits.
template <typename Enum>
inline int EnumBits(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized here");
  int bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// ---- Structs that grow (contract point 7) ----------------------------------

// A host passes each growable struct with the sizeof of the header it was
// built against. No version of a struct will be larger than this, and a
// longer struct's tail is read byte by byte.
constexpr size_t kMaxStructBytes = 4096;

// A size a version of a struct aligned to `align` can have.
inline Status CheckStructSize(size_t size, size_t align, const char* name) {
  if (size == 0 || size % align != 0 || size > kMaxStructBytes) {
    return Error(Code::kInvalidArgument,
                 "%s_size %zu is not the size of a version of the struct (a multiple of %zu, "
                 "at most %zu)",
                 name, size, align, kMaxStructBytes);
  }
  return OkStatus();
}

// The host's `size` bytes at `in` as this library's `known` bytes at
// `copy`: a shorter struct (an older header) is zero-extended, so the
// fields it lacks take their defaults; a longer one (a newer header) must
// be zero past what this library knows.
inline Status ReadResized(const void* in, size_t size, size_t known, size_t align, const char* name,
                          void* copy) {
  STACKREC_RETURN_IF_ERROR(CheckStructSize(size, align, name));
  const unsigned char* bytes = static_cast<const unsigned char*>(in);
  for (size_t i = known; i < size; ++i) {
    if (bytes[i] != 0) {
      return Error(Code::kUnsupported,
                   "%s sets byte %zu of its %zu, but stackrec %d.%d.%d knows the first %zu "
                   "only: the host was built against a newer header than this library's",
                   name, i, size, STACKREC_VERSION_MAJOR, STACKREC_VERSION_MINOR,
                   STACKREC_VERSION_PATCH, known);
    }
  }
  std::memset(copy, 0, known);
  std::memcpy(copy, in, size < known ? size : known);
  return OkStatus();
}

// `*out` is `in` read as this library's T (see ReadResized); `copy` holds
// it when the host's size differs. A NULL `in` stays NULL.
template <typename T>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Status ReadGrowable(const T* in, size_t size, const char* name,
                                                        T* copy, const T** out) {
  *out = in;
  if (ABSL_PREDICT_TRUE(size == sizeof(T)) || in == nullptr) return OkStatus();
  STACKREC_RETURN_IF_ERROR(ReadResized(in, size, sizeof(T), alignof(T), name, copy));
  *out = copy;
  return OkStatus();
}

// Copies `value` into the host's struct of `size` bytes: what the host's
// struct lacks is not written, and what this library does not know is 0.
template <typename T>
inline Status WriteGrowable(const T& value, size_t size, const char* name, T* out) {
  STACKREC_RETURN_IF_ERROR(CheckStructSize(size, alignof(T), name));
  unsigned char* bytes = reinterpret_cast<unsigned char*>(out);
  std::memcpy(bytes, &value, size < sizeof(T) ? size : sizeof(T));
  if (size > sizeof(T)) std::memset(bytes + sizeof(T), 0, size - sizeof(T));
  return OkStatus();
}

}  // namespace stackrec

#endif  // STACKREC_SRC_CAPI_C_CHECKS_H_
