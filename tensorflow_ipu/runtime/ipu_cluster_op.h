// The "_IpuCluster" op: one IPU cluster of a partitioned run.
//
//   _IpuCluster(args: Targs) -> results: Tresults
//     attrs: cluster (its name in the session's IpuClusterLibrary),
//            Targs, Tresults (list(type)), result_shapes (list(shape))
//
// It takes the values the cluster reads from the host (or from other
// clusters) as one typed list and returns the values read outside it as
// another, each result its own output, so nothing is packed or copied on
// the way. The runtime defines the op; the IPU path registers its kernel.
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_CLUSTER_OP_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_CLUSTER_OP_H_

namespace tensorflow_ipu {

inline constexpr char kIpuClusterOp[] = "_IpuCluster";
inline constexpr char kIpuClusterNameAttr[] = "cluster";
inline constexpr char kIpuClusterArgTypesAttr[] = "Targs";
inline constexpr char kIpuClusterResultTypesAttr[] = "Tresults";
inline constexpr char kIpuClusterResultShapesAttr[] = "result_shapes";

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_CLUSTER_OP_H_
