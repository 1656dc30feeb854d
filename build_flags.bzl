"""Compiler flags shared by packages of every layer."""

# -O3 for the files whose hot loops need it (GCC 12's -O2 leaves many
# elementwise and reduction loops scalar, and Eigen's GEMM kernels expect
# -O3). Sanitizer builds (--config=asan, tsan, fuzz) keep their own -O1: a
# target's copts come after --copt on the command line, so a plain -O3 here
# would override it, and -O3 with AddressSanitizer compiles the kernels
# about 1.6x slower for no benefit to finding bugs.
HOT_LOOP_COPTS = select({
    "//:sanitizer_build": [],
    "//conditions:default": ["-O3"],
})
