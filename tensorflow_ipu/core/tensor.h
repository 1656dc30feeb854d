// Tensor: a typed, fully shaped value in an aligned, reference-counted host
// buffer. Copies share the buffer (as in TensorFlow); use DeepCopy to detach.
//
//   Tensor t(DT_FLOAT, TensorShape({2}));
//   t.flat<float>()(0) = 3.f;  t.flat<float>()(1) = 8.f;
//   t.DebugString() == "[3. 8.]"      // as numpy prints it
//   auto m = t.Reshaped(TensorShape({1, 2})).value().matrix<float>();
#ifndef TENSORFLOW_IPU_CORE_TENSOR_H_
#define TENSORFLOW_IPU_CORE_TENSOR_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tensorflow_ipu/core/proto/tensor.pb.h"
#include "tensorflow_ipu/core/resource_handle.h"
#include "tensorflow_ipu/core/tensor_shape.h"
#include "tensorflow_ipu/core/types.h"

// Eigen's tensor views, declared but not defined (Eigen's Tensor module and
// Eigen/Core are about a third of the compile time of a file that includes
// this header, and most never use the views). A file that calls flat(),
// vec(), matrix(), scalar(), tensor() or flat_inner_dims() includes
// "unsupported/Eigen/CXX11/Tensor" itself. tensor.cc checks that the
// constants below are Eigen's.
namespace Eigen {
template <typename T>
struct MakePointer;
template <typename PlainObjectType, int Options_, template <class> class MakePointer_>
class TensorMap;
template <typename Scalar_, int NumIndices_, int Options_, typename IndexType>
class Tensor;
}  // namespace Eigen

namespace tensorflow_ipu {

// Owned, 64-byte aligned storage. Alignment lets Eigen use aligned loads.
// A buffer made with StringTag holds `count` constructed std::strings
// (DT_STRING elements), destroyed with it.
class TensorBuffer {
 public:
  static constexpr size_t kAlignment = 64;
  struct StringTag {};
  explicit TensorBuffer(size_t bytes);
  TensorBuffer(StringTag, size_t count);
  // `bytes` of `base` from `offset` (a multiple of kAlignment), without a
  // copy: what Tensor::Slice shares. Keeps `base` alive.
  TensorBuffer(std::shared_ptr<TensorBuffer> base, size_t offset, size_t bytes);
  ~TensorBuffer();
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;
  void* data() const { return data_; }
  size_t size() const { return size_; }
  // The buffer that owns the memory: `base` for a part of another, else
  // this one.
  const TensorBuffer* root() const { return base_ != nullptr ? base_.get() : this; }
  bool is_part() const { return base_ != nullptr; }

 private:
  void* data_;
  size_t size_;
  size_t num_strings_ = 0;
  void* allocation_ = nullptr;  // what malloc gave (data_ is aligned within it)
  bool large_ = false;          // allocation_ is AllocateLargeBuffer's
  std::shared_ptr<TensorBuffer> base_;  // set for a part of another buffer
};

class Tensor {
 public:
  // Eigen::RowMajor, Eigen::Aligned (16 bytes; buffers are aligned to 64)
  // and Eigen::DenseIndex.
  static constexpr int kEigenRowMajor = 1;
  static constexpr int kEigenAligned = 16;
  using EigenIndex = std::ptrdiff_t;
  template <typename T, int N>
  using TensorMapT =
      Eigen::TensorMap<Eigen::Tensor<T, N, kEigenRowMajor, EigenIndex>, kEigenAligned,
                       Eigen::MakePointer>;
  template <typename T, int N>
  using ConstTensorMapT =
      Eigen::TensorMap<Eigen::Tensor<const T, N, kEigenRowMajor, EigenIndex>, kEigenAligned,
                       Eigen::MakePointer>;

  // An empty DT_INVALID tensor (what an unset output looks like).
  Tensor() = default;
  // Allocates an uninitialised buffer. The shape must be fully defined and
  // within TensorShape::kMaxElements; use Create to get an error instead.
  Tensor(DataType dtype, const TensorShape& shape);
  static absl::StatusOr<Tensor> Create(DataType dtype, const TensorShape& shape);

  // A tensor holding `values` with `shape`. InvalidArgument if the shape is
  // not fully defined, is larger than kMaxElements, or does not hold exactly
  // values.size() elements (naming both counts and the shape);
  // ResourceExhausted if the host has no memory for it. For values that come
  // from outside the program.
  template <typename T>
  static absl::StatusOr<Tensor> FromValues(const std::vector<T>& values,
                                           const TensorShape& shape) {
    absl::StatusOr<Tensor> t = Create(DataTypeToEnum<T>::value, shape);
    if (!t.ok()) return t.status();
    if (static_cast<int64_t>(values.size()) != t->NumElements()) {
      return ValueCountMismatch(values.size(), t->dtype(), shape);
    }
    std::copy(values.begin(), values.end(), t->data<T>());
    return t;
  }
  // FromValues for values known to fit the shape, such as literals in code:
  // FromVector<float>({1, 2}, {1, 2}). A mismatch is a mistake in the
  // program, so, as TensorFlow's test::AsTensor does, it stops the program
  // with FromValues' message instead of writing past the buffer.
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values,
                           const TensorShape& shape) {
    absl::StatusOr<Tensor> t = FromValues(values, shape);
    if (!t.ok()) DieOnBadLiteral("Tensor::FromVector", t.status());
    return *std::move(t);
  }
  // A DT_STRING tensor: Tensor::Strings({"a", "b"}) or, with a shape,
  // Tensor::FromVector<std::string>(...).
  static Tensor Strings(const std::vector<std::string>& values) {
    return Vector(values);
  }
  static Tensor StringScalar(std::string value) {
    return Scalar<std::string>(std::move(value));
  }
  // A rank-1 tensor holding `values`.
  template <typename T>
  static Tensor Vector(const std::vector<T>& values) {
    return FromVector(values,
                      TensorShape({static_cast<int64_t>(values.size())}));
  }
  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape());
    t.data<T>()[0] = value;
    return t;
  }

  // A DT_RESOURCE scalar carrying `handle` (what VarHandleOp outputs).
  static Tensor ResourceHandleScalar(ResourceHandle handle);
  // What an uninitialised reference variable (VariableV2) outputs: dtype and
  // shape but no buffer, and a handle naming the variable, so the executor
  // can refuse to feed it to anything but Assign.
  static Tensor UninitializedRef(DataType dtype, const TensorShape& shape,
                                 ResourceHandle variable);
  bool IsUninitializedRef() const {
    return buffer_ == nullptr && resource_ != nullptr && dtype_ != DT_RESOURCE;
  }
  // The handle of a DT_RESOURCE tensor or of an uninitialised reference
  // variable; nullptr for any other tensor.
  const ResourceHandle* resource_handle() const { return resource_.get(); }

  static absl::StatusOr<Tensor> FromProto(const TensorProto& proto);
  void AsProto(TensorProto* proto) const;

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int i) const { return shape_.dim_size(i); }
  int64_t NumElements() const { return num_elements_; }
  size_t TotalBytes() const {
    return static_cast<size_t>(num_elements_) * DataTypeSize(dtype_);
  }
  bool IsInitialized() const { return dtype_ != DT_INVALID; }
  // True if both tensors view the same memory (one buffer, or parts of one:
  // Slice).
  bool SharesBufferWith(const Tensor& other) const {
    return buffer_ != nullptr && other.buffer_ != nullptr &&
           buffer_->root() == other.buffer_->root();
  }
  // True if no other Tensor views this one's buffer: it may then be
  // written in place without anyone else seeing the change. Never for a
  // slice that shares another tensor's buffer.
  bool RefCountIsOne() const {
    return buffer_ != nullptr && buffer_.use_count() == 1 && !buffer_->is_part();
  }
  // Rows [dim0_start, dim0_limit) of the first dimension. As TensorFlow's
  // Tensor::Slice, the result shares this tensor's buffer, without a copy,
  // when its first element keeps the buffers' 64-byte alignment (rows of a
  // multiple of 64 bytes, or start 0); otherwise, and for strings, it is a
  // copy. Writing into a shared slice writes into this tensor.
  // InvalidArgument for a scalar or unless 0 <= start <= limit <=
  // dim_size(0) (TensorFlow stops the program there).
  absl::StatusOr<Tensor> Slice(int64_t dim0_start, int64_t dim0_limit) const;

  void* raw_data() const { return buffer_ ? buffer_->data() : nullptr; }
  template <typename T>
  T* data() const {
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  absl::Span<const T> values() const {
    return absl::Span<const T>(data<T>(), num_elements_);
  }

  // Eigen views (include "unsupported/Eigen/CXX11/Tensor" to call them).
  // The caller must use the tensor's own element type.
  template <typename T>
  TensorMapT<T, 1> flat() const {
    return TensorMapT<T, 1>(data<T>(), num_elements_);
  }
  template <typename T>
  TensorMapT<T, 1> vec() const {
    return tensor<T, 1>();
  }
  template <typename T>
  TensorMapT<T, 2> matrix() const {
    return tensor<T, 2>();
  }
  template <typename T>
  TensorMapT<T, 0> scalar() const {
    return TensorMapT<T, 0>(data<T>());
  }
  template <typename T, int N>
  TensorMapT<T, N> tensor() const {
    std::array<EigenIndex, N> dims;
    for (int i = 0; i < N; ++i) dims[i] = shape_.dim_size(i);
    return TensorMapT<T, N>(data<T>(), dims);
  }
  // A view with `N` dimensions: leading dimensions are merged into the
  // first one (or 1s are prepended) so that the last N-1 stay as they are.
  template <typename T, int N>
  TensorMapT<T, N> flat_inner_dims() const;

  // The same buffer under another shape with the same element count.
  absl::StatusOr<Tensor> Reshaped(const TensorShape& shape) const;
  // A fresh buffer with the same contents.
  Tensor DeepCopy() const;

  // Elementwise equality of dtype, shape and bytes.
  bool BitwiseEquals(const Tensor& other) const;

  // The values as numpy prints them: "[3. 8.]", "[[1 2]\n [3 4]]", "3.0".
  std::string DebugString() const;
  // "Tensor<type: float shape: [2] values: [3. 8.]>".
  std::string SummaryString() const;

 private:
  static absl::Status ValueCountMismatch(size_t count, DataType dtype,
                                         const TensorShape& shape);
  [[noreturn]] static void DieOnBadLiteral(const char* what,
                                           const absl::Status& status);

  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  int64_t num_elements_ = 0;
  std::shared_ptr<TensorBuffer> buffer_;
  std::shared_ptr<const ResourceHandle> resource_;
};

template <typename T, int N>
Tensor::TensorMapT<T, N> Tensor::flat_inner_dims() const {
  std::array<EigenIndex, N> dims;
  const int rank = shape_.dims();
  int64_t outer = 1;
  for (int i = 0; i <= rank - N; ++i) outer *= shape_.dim_size(i);
  for (int i = 0; i < N; ++i) {
    int src = rank - N + i;
    if (i == 0) {
      dims[0] = rank - N + 1 > 0 ? outer : 1;
    } else {
      dims[i] = src >= 0 ? shape_.dim_size(src) : 1;
    }
  }
  return TensorMapT<T, N>(data<T>(), dims);
}

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_TENSOR_H_
