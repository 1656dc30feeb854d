"""The Bazel rule shape shared by all CPU kernel libraries."""

load("//:build_flags.bzl", "HOT_LOOP_COPTS")

# What every kernel file includes: the kernel API, device names, status
# macros, Abseil and Eigen.
KERNEL_DEPS = [
    "//tensorflow_ipu/core:device_name",
    "//tensorflow_ipu/core:op_kernel",
    "//tensorflow_ipu/core:parallel_shards",
    "//tensorflow_ipu/core:status_macros",
    "//third_party/absl",
    "//third_party/eigen",
]

def cpu_kernel(name, srcs = None, deps = [], **kwargs):
    """A kernel library `name` from `name`.cc that registers itself.

    alwayslink: nothing references a kernel registration by symbol, so
    without it the linker would drop the kernel.

    -O3: Eigen's GEMM kernels expect it, and GCC 12's -O2 leaves the
    kernels' own loops (ReLU gradients, reductions, softmax) scalar.
    """
    native.cc_library(
        name = name,
        srcs = srcs if srcs != None else [name + ".cc"],
        copts = HOT_LOOP_COPTS + kwargs.pop("copts", []),
        deps = KERNEL_DEPS + [d for d in deps if d not in KERNEL_DEPS],
        alwayslink = 1,
        **kwargs
    )
