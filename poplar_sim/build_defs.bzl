"""Build helpers for poplar_sim."""

# Engine options for every test: vertex fields are bounds-checked
# (docs/poplar_sim.md, "Checked vertex fields").
TEST_ENGINE_OPTIONS = {"POPLAR_ENGINE_OPTIONS": "{\"debug.checkVertexFields\":\"true\"}"}

def poplar_sim_test(name, deps = [], srcs = None, **kwargs):
    """A small cc_test `name` built from `name`.cc plus gtest_main.

    Runs with TEST_ENGINE_OPTIONS in its environment.
    """
    kwargs.setdefault("size", "small")
    kwargs.setdefault("env", TEST_ENGINE_OPTIONS)
    native.cc_test(
        name = name,
        srcs = srcs if srcs != None else [name + ".cc"],
        linkstatic = 1,
        deps = deps + ["//third_party/gtest:gtest_main"],
        **kwargs
    )
