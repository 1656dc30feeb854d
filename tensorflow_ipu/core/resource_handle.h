// ResourceHandle: what a DT_RESOURCE tensor carries, naming the variable a
// resource op works on, as TensorFlow's ResourceHandle does.
//
//   Tensor h = Tensor::ResourceHandleScalar({"vs/w", DT_FLOAT, TensorShape({2})});
//   h.resource_handle()->name == "vs/w";
#ifndef TENSORFLOW_IPU_CORE_RESOURCE_HANDLE_H_
#define TENSORFLOW_IPU_CORE_RESOURCE_HANDLE_H_

#include <string>

#include "tensorflow_ipu/core/tensor_shape.h"
#include "tensorflow_ipu/core/types.h"

namespace tensorflow_ipu {

struct ResourceHandle {
  // The variable's shared name, unique in a session's ResourceManager.
  std::string name;
  // The dtype and shape the handle was created with (VarHandleOp's attrs);
  // assignments must keep them.
  DataType dtype = DT_INVALID;
  TensorShape shape;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_RESOURCE_HANDLE_H_
