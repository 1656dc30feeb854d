"""tfipu_fuzz_target: one fuzz target, as a libFuzzer binary and as a test.

For a target `foo` with source `foo.cc` (defining LLVMFuzzerTestOneInput)
and a seed corpus in `corpus/foo/`, it makes:
  :foo_lib              the target's code (alwayslink);
  :foo                  the libFuzzer binary: build it with clang and
                        --config=fuzz (tools/fuzz/run_fuzzers.sh does);
                        tagged manual, so `bazel test //...` skips it;
  :foo_regression_test  the target run once on every corpus file by
                        fuzz_regression_main.cc: any compiler, no libFuzzer.
"""

def tfipu_fuzz_target(name, deps = []):
    native.cc_library(
        name = name + "_lib",
        testonly = 1,
        srcs = [name + ".cc"],
        deps = deps,
        alwayslink = 1,
    )
    native.cc_binary(
        name = name,
        testonly = 1,
        deps = [":" + name + "_lib"],
        linkopts = select({
            ":fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        tags = ["manual"],
    )
    native.cc_test(
        name = name + "_regression_test",
        deps = [
            ":" + name + "_lib",
            ":fuzz_regression_main",
        ],
        data = native.glob(["corpus/" + name + "/**"]),
        args = ["tools/fuzz/corpus/" + name],
    )
