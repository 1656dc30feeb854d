#!/usr/bin/env python3
"""Checks that the C++ code keeps to its layers and declares what it includes.

Three rules, read from the build graph (`bazel query`), the BUILD files
and the `#include` lines of every C++ target's sources and headers:

1. Declared includes. A file of target //a:b may include a project header
   only if //a:b itself or one of its *direct* deps declares that header
   (in `hdrs`; a header in `srcs` is private to its own target). Builds are
   unsandboxed, so an undeclared include compiles today and breaks the day
   the header's owner stops being pulled in transitively.
2. Layer rules. Each directory may include only the layers below it
   (LAYER_RULES, mirrored for people in docs/architecture.md, "Layering").
3. Private by default. A package's targets are private unless a target says
   who may use it (`visibility`), so every public target is public on
   purpose. third_party/, the wrappers of system libraries, is exempt.

Violations listed in tools/layering_known_violations.txt are reported but do
not fail the check (they are the debt of code being restructured); a new
violation fails, and so does a listed one that is gone, so the list only
shrinks.

Usage, from the workspace root:
  python3 tools/check_layering.py              # check the tree
  python3 tools/check_layering.py --self-test  # prove the checks can fail
Standard library only, so it runs on a machine that has just been
bootstrapped.
"""

import argparse
import contextlib
import io
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

# Top-level directories whose headers belong to the project. Includes of
# anything else (absl/, Eigen/, gtest/, google/protobuf/, ...) are system
# headers, wrapped by //third_party targets, and are not checked.
PROJECT_ROOTS = (
    "tensorflow_ipu/",
    "poplar_sim/",
    "tools/",
    "tests/",
    "examples/",
    "third_party/",
)

# The layer rules: which include paths a file under a directory may use.
# Each entry is (directory prefix, allowed include prefixes, denied include
# prefixes). For a file, the rule with the longest matching directory prefix
# applies (so runtime/ipu/ has its own rule, apart from runtime/). For an
# include, the longest matching prefix among allowed and denied decides (so
# runtime/ may include runtime/ but not runtime/ipu/); an include matching
# neither is denied. third_party/ (the wrappers of system libraries) is
# allowed everywhere. Keep docs/architecture.md, "Layering", in step.
CORE = "tensorflow_ipu/core/"
LAYER_RULES = [
    # The simulator knows nothing of TensorFlow: usable on its own.
    ("poplar_sim/", ["poplar_sim/"], []),
    # Types, Tensor, Graph, op and kernel registries, RunMetadata.
    (CORE, [CORE], []),
    # The client API builds graphs; ClientSession runs them through the
    # Session interface only.
    ("tensorflow_ipu/cc/",
     ["tensorflow_ipu/cc/", CORE, "tensorflow_ipu/runtime/session.h"], []),
    ("tensorflow_ipu/io/", ["tensorflow_ipu/io/", CORE], []),
    ("tensorflow_ipu/data/", ["tensorflow_ipu/data/", CORE], []),
    # Lowers clusters of the graph into simulator programs.
    ("tensorflow_ipu/compiler/",
     ["tensorflow_ipu/compiler/", CORE, "poplar_sim/"], []),
    # The attached simulated IPU devices: the simulator plus core's status
    # and logging helpers, nothing of graphs.
    ("tensorflow_ipu/device/",
     ["tensorflow_ipu/device/", "poplar_sim/",
      CORE + "status_macros.h", CORE + "logging.h"], []),
    # Sessions, executor, placement, partitioning: a CPU-only program links
    # this without the simulator, so no IPU path and no poplar_sim; from the
    # compiler only the cluster IR the partitioner produces.
    ("tensorflow_ipu/runtime/",
     ["tensorflow_ipu/runtime/", CORE, "tensorflow_ipu/data/",
      "tensorflow_ipu/compiler/cluster_ir.h"],
     ["tensorflow_ipu/runtime/ipu/"]),
    # The runtime's IPU path: everything the runtime may use, plus the
    # compiler, the devices, the simulator and io/ (the durable writes of
    # application executables).
    ("tensorflow_ipu/runtime/ipu/",
     ["tensorflow_ipu/runtime/", "tensorflow_ipu/compiler/",
      "tensorflow_ipu/device/", CORE, "tensorflow_ipu/data/",
      "tensorflow_ipu/io/", "poplar_sim/"],
     []),
    # The user-facing IPU API sits on everything below it.
    ("tensorflow_ipu/ipu/",
     ["tensorflow_ipu/ipu/", "tensorflow_ipu/runtime/",
      "tensorflow_ipu/compiler/", "tensorflow_ipu/device/",
      "tensorflow_ipu/cc/", "tensorflow_ipu/io/", "tensorflow_ipu/data/",
      CORE, "poplar_sim/"],
     []),
    # Optimizers, global_step and the Saver (which writes io/ checkpoints).
    ("tensorflow_ipu/train/",
     ["tensorflow_ipu/train/", "tensorflow_ipu/cc/", CORE,
      "tensorflow_ipu/io/", "tensorflow_ipu/runtime/session.h",
      "tensorflow_ipu/ipu/"],
     []),
    # Pipelining builds a loop of the IPU API trained by train/'s optimizers.
    ("tensorflow_ipu/pipelining/",
     ["tensorflow_ipu/pipelining/", "tensorflow_ipu/ipu/", "tensorflow_ipu/train/",
      "tensorflow_ipu/cc/", CORE, "tensorflow_ipu/data/"],
     []),
    # TensorFlow's SavedModel format: its protos and TensorBundle files (io/'s
    # checksums and durable files), loaded into and saved from a Session.
    ("tensorflow_ipu/saved_model/",
     ["tensorflow_ipu/saved_model/", CORE, "tensorflow_ipu/io/",
      "tensorflow_ipu/runtime/session.h"],
     []),
    # Multi-process runs: the PopDist contract, Open MPI between instances,
    # and the session glue; on the IPU API and everything below it.
    ("tensorflow_ipu/distributed/",
     ["tensorflow_ipu/distributed/", "tensorflow_ipu/ipu/", "tensorflow_ipu/train/",
      "tensorflow_ipu/runtime/", "tensorflow_ipu/device/", "tensorflow_ipu/cc/",
      "tensorflow_ipu/io/", "tensorflow_ipu/data/", CORE, "poplar_sim/"],
     []),
    # The Keras-like API (layers, Model, fit/evaluate/predict and their
    # printed output) on pipelining, the optimizers and the IPU API.
    ("tensorflow_ipu/keras/",
     ["tensorflow_ipu/keras/", "tensorflow_ipu/pipelining/",
      "tensorflow_ipu/train/", "tensorflow_ipu/ipu/", "tensorflow_ipu/cc/",
      CORE, "tensorflow_ipu/data/", "tensorflow_ipu/io/",
      "tensorflow_ipu/runtime/session.h"],
     []),
    # Programs and tests on top may use any layer.
    ("examples/", [""], []),
    ("tests/", [""], []),
    ("tools/", [""], []),
]
ALLOWED_EVERYWHERE = ["third_party/"]

HEADER_EXTENSIONS = (".h", ".hh", ".hpp", ".inc")
CC_KINDS = ("cc_library", "cc_binary", "cc_test")
QUERY = ('kind("(cc_library|cc_binary|cc_test|cc_proto_library|proto_library)'
         ' rule", //...)')
KNOWN_VIOLATIONS_FILE = "tools/layering_known_violations.txt"

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*["<]([^">]+)[">]')
DEFAULT_VISIBILITY_RE = re.compile(
    r"^package\([^)]*default_visibility\s*=\s*\[([^\]]*)\]", re.M | re.S)
PRIVATE = "//visibility:private"


class Target:
    """One rule of the build graph, with paths relative to the workspace."""

    def __init__(self, label, kind, srcs, hdrs, deps):
        self.label = label
        self.kind = kind
        self.srcs = srcs    # source paths (or, for proto_library, .proto)
        self.hdrs = hdrs    # header paths the target exports
        self.deps = deps    # labels


class Violation:
    """One broken rule at one line (an #include, or a BUILD file's
    package()).

    `key` leaves out the line number, so the known-violations list survives
    edits elsewhere in the file."""

    def __init__(self, kind, path, line, header, message):
        self.kind = kind        # "undeclared", "layer" or "visibility"
        self.path = path
        self.line = line
        self.header = header    # for "visibility", the default it sets
        self.message = message

    @property
    def key(self):
        return f"{self.kind} {self.path} -> {self.header}"

    def __str__(self):
        return f"{self.path}:{self.line}: {self.message}"


def label_to_path(label):
    """//a/b:c.h -> a/b/c.h; None for labels outside the main repository."""
    if not label.startswith("//"):
        return None
    package, _, name = label[2:].partition(":")
    return f"{package}/{name}" if package else name


def parse_query_xml(xml_text):
    """Reads `bazel query --output=xml` into {label: Target}."""
    targets = {}
    for rule in ET.fromstring(xml_text).iter("rule"):
        lists = {}
        for attr in rule.findall("list"):
            labels = [e.get("value") for e in attr.findall("label")]
            lists[attr.get("name")] = labels
        srcs = [p for p in map(label_to_path, lists.get("srcs", [])) if p]
        hdrs = [p for p in map(label_to_path, lists.get("hdrs", [])) if p]
        targets[rule.get("name")] = Target(
            rule.get("name"), rule.get("class"), srcs, hdrs,
            lists.get("deps", []))
    return targets


def generated_proto_headers(targets):
    """cc_proto_library exports the .pb.h of its proto_library deps' .proto
    files; the query lists only the .proto sources, so fill them in."""
    for target in targets.values():
        if target.kind != "cc_proto_library":
            continue
        for dep in target.deps:
            proto = targets.get(dep)
            if proto is None or proto.kind != "proto_library":
                continue
            target.hdrs += [p[: -len(".proto")] + ".pb.h"
                            for p in proto.srcs if p.endswith(".proto")]


def header_owners(targets):
    """Maps each project header to the targets declaring it: {path: [label]}
    for exported headers (hdrs) and for private ones (headers in srcs)."""
    exported, private = {}, {}
    for target in targets.values():
        for path in target.hdrs:
            exported.setdefault(path, []).append(target.label)
        for path in target.srcs:
            if path.endswith(HEADER_EXTENSIONS):
                private.setdefault(path, []).append(target.label)
    return exported, private


def is_project_path(path):
    """Whether a workspace-relative path is the project's own file."""
    return path.startswith(PROJECT_ROOTS)


def read_includes(text):
    """Yields (line number, included path) for the project includes."""
    for number, line in enumerate(text.splitlines(), start=1):
        match = INCLUDE_RE.match(line)
        if match and is_project_path(match.group(1)):
            yield number, match.group(1)


def cc_files(target):
    """The files of a C++ target whose includes are checked."""
    return [p for p in target.srcs + target.hdrs if is_project_path(p)]


def exported_headers(targets, label, seen=None):
    """The headers a dependent of `label` may include. A cc_library with
    neither srcs nor hdrs only bundles its deps (tools/bench's
    mlp_bench_common), so it exports what they export, as Bazel's own
    layering check treats it."""
    target = targets.get(label)
    if target is None:
        return set()
    if target.kind != "cc_library" or target.srcs or target.hdrs:
        return set(target.hdrs)
    seen = set() if seen is None else seen
    headers = set()
    for dep in target.deps:
        if dep not in seen:
            seen.add(dep)
            headers |= exported_headers(targets, dep, seen)
    return headers


def check_declared(targets, read_source):
    """Rule 1: every project include is declared by the target or one of its
    direct deps."""
    exported, private = header_owners(targets)
    violations = []
    for target in sorted(targets.values(), key=lambda t: t.label):
        if target.kind not in CC_KINDS:
            continue
        visible = set(target.srcs) | set(target.hdrs)
        for dep in target.deps:
            visible.update(exported_headers(targets, dep))
        for path in cc_files(target):
            text = read_source(path)
            if text is None:  # generated, checked where it is generated
                continue
            for line, header in read_includes(text):
                if header in visible:
                    continue
                violations.append(Violation(
                    "undeclared", path, line, header,
                    undeclared_message(target.label, header, exported,
                                       private)))
    return violations


def undeclared_message(label, header, exported, private):
    """Says which dep to add, or why there is none to add."""
    if header in exported:
        owners = " or ".join(exported[header])
        return (f'"{header}" is not declared by {label} or its direct '
                f"deps: add {owners} to deps of {label}")
    if header in private:
        owners = " or ".join(private[header])
        return (f'"{header}" is a private header (in srcs) of {owners}: '
                f"move it to hdrs there and add that target to deps of "
                f"{label}")
    return (f'"{header}" is declared by no target: add it to the hdrs of '
            f"the library it belongs to, and that library to deps of {label}")


def layer_rule_for(path):
    """The rule of the longest directory prefix matching `path`, or None."""
    best = None
    for rule in LAYER_RULES:
        if path.startswith(rule[0]) and (best is None or
                                         len(rule[0]) > len(best[0])):
            best = rule
    return best


def include_allowed(rule, header):
    """Longest matching prefix among allowed and denied decides."""
    _, allowed, denied = rule
    verdict, length = False, -1
    for prefix in allowed + ALLOWED_EVERYWHERE:
        if header.startswith(prefix) and len(prefix) > length:
            verdict, length = True, len(prefix)
    for prefix in denied:
        if header.startswith(prefix) and len(prefix) > length:
            verdict, length = False, len(prefix)
    return verdict


def describe_rule(rule):
    """The rule in words, for the message of a violation."""
    directory, allowed, denied = rule
    text = f"{directory} may include only {', '.join(allowed)}"
    if denied:
        text += f" (but not {', '.join(denied)})"
    return text


def check_layers(targets, read_source):
    """Rule 2: every project include keeps to the layer rules."""
    paths = sorted({p for t in targets.values() if t.kind in CC_KINDS
                    for p in cc_files(t)})
    violations = []
    for path in paths:
        rule = layer_rule_for(path)
        text = read_source(path)
        if rule is None or text is None:
            continue
        for line, header in read_includes(text):
            if not include_allowed(rule, header):
                violations.append(Violation(
                    "layer", path, line, header,
                    f'"{header}" is against the layer rule: '
                    f"{describe_rule(rule)} (docs/architecture.md, "
                    f"Layering)"))
    return violations


def check_default_visibility(targets, read_source):
    """Rule 3: no package with C++ or proto targets outside third_party/
    makes its targets visible by default. (Without a package() default,
    Bazel's is private already.)"""
    packages = sorted({label[2:].partition(":")[0] for label in targets
                       if label.startswith("//")})
    violations = []
    for package in packages:
        path = f"{package}/BUILD" if package else "BUILD"
        if not is_project_path(path) or path.startswith("third_party/"):
            continue
        text = read_source(path)
        match = DEFAULT_VISIBILITY_RE.search(text or "")
        if match is None:
            continue
        labels = re.findall(r'"([^"]+)"', match.group(1))
        if labels == [PRIVATE]:
            continue
        line = text.count("\n", 0, match.start()) + 1
        shown = ", ".join(f'"{label}"' for label in labels)
        violations.append(Violation(
            "visibility", path, line, ",".join(labels),
            f"default_visibility = [{shown}]: make it "
            f'["{PRIVATE}"] and give each target used from another '
            f"package its own `visibility` (bazel query "
            f"'rdeps(//..., //{package}:<target>, 1)' lists its users)"))
    return violations


def run_checks(xml_text, read_source):
    """All violations of the three rules, given the query output and a
    read_source(path) -> text or None."""
    targets = parse_query_xml(xml_text)
    generated_proto_headers(targets)
    return (check_declared(targets, read_source) +
            check_layers(targets, read_source) +
            check_default_visibility(targets, read_source))


def source_reader(root):
    """read_source over the workspace; None for a file that is not there
    (generated)."""
    def read_source(path):
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                return f.read()
        except FileNotFoundError:
            return None
    return read_source


def bazel_query(root):
    """The C++ and proto rules of the workspace, as query XML."""
    result = subprocess.run(
        ["bazel", "query", QUERY, "--output=xml"], cwd=root,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"check_layering: bazel query failed:\n{result.stderr}")
    return result.stdout


def read_known_violations(root):
    """The keys of tools/layering_known_violations.txt ('#' starts a
    comment)."""
    try:
        with open(os.path.join(root, KNOWN_VIOLATIONS_FILE),
                  encoding="utf-8") as f:
            lines = [line.split("#", 1)[0].strip() for line in f]
    except FileNotFoundError:
        return set()
    return {line for line in lines if line}


def report(violations, known):
    """Prints the violations; returns the number that fail the check."""
    found = {v.key for v in violations}
    new = [v for v in violations if v.key not in known]
    listed = [v for v in violations if v.key in known]
    gone = sorted(known - found)
    for v in listed:
        print(f"known: {v}")
    for v in new:
        print(f"error: {v}")
    for key in gone:
        print(f"error: {KNOWN_VIOLATIONS_FILE} lists '{key}', which no "
              f"longer happens: delete the line")
    print(f"check_layering: {len(new)} new violation(s), {len(listed)} "
          f"known, {len(gone)} stale entr(ies) in {KNOWN_VIOLATIONS_FILE}")
    return len(new) + len(gone)


# A synthetic workspace for --self-test: core:a uses core:b's header without
# depending on it, poplar_sim includes a core header (an arrow upwards) and
# makes its targets public by default. core:b (a generated proto header),
# core:c (a private header), core:d_test (a header through a bundle of deps)
# and core's private default are clean, so a check that flags too much fails
# too.
SELF_TEST_XML = """<?xml version="1.1" encoding="UTF-8"?>
<query version="2">
  <rule class="cc_library" name="//tensorflow_ipu/core:a">
    <list name="srcs"><label value="//tensorflow_ipu/core:a.cc"/></list>
    <list name="hdrs"><label value="//tensorflow_ipu/core:a.h"/></list>
  </rule>
  <rule class="cc_library" name="//tensorflow_ipu/core:b">
    <list name="hdrs"><label value="//tensorflow_ipu/core:b.h"/></list>
    <list name="deps"><label value="//tensorflow_ipu/core:graph_cc_proto"/>
    </list>
  </rule>
  <rule class="cc_library" name="//tensorflow_ipu/core:c">
    <list name="srcs"><label value="//tensorflow_ipu/core:c.cc"/>
      <label value="//tensorflow_ipu/core:c_internal.h"/></list>
    <list name="deps"><label value="//tensorflow_ipu/core:b"/></list>
  </rule>
  <rule class="proto_library" name="//tensorflow_ipu/core:graph_proto">
    <list name="srcs"><label value="//tensorflow_ipu/core:graph.proto"/>
    </list>
  </rule>
  <rule class="cc_proto_library" name="//tensorflow_ipu/core:graph_cc_proto">
    <list name="deps"><label value="//tensorflow_ipu/core:graph_proto"/>
    </list>
  </rule>
  <rule class="cc_library" name="//tensorflow_ipu/core:bundle">
    <list name="deps"><label value="//tensorflow_ipu/core:b"/></list>
  </rule>
  <rule class="cc_test" name="//tensorflow_ipu/core:d_test">
    <list name="srcs"><label value="//tensorflow_ipu/core:d_test.cc"/>
    </list>
    <list name="deps"><label value="//tensorflow_ipu/core:bundle"/></list>
  </rule>
  <rule class="cc_library" name="//poplar_sim:engine">
    <list name="srcs"><label value="//poplar_sim:engine.cc"/></list>
  </rule>
</query>
"""
SELF_TEST_FILES = {
    "tensorflow_ipu/core/a.h": "#pragma once\n",
    "tensorflow_ipu/core/a.cc": ('#include "tensorflow_ipu/core/a.h"\n'
                                 '#include <vector>\n'
                                 '#include "tensorflow_ipu/core/b.h"\n'),
    "tensorflow_ipu/core/b.h":
        '#include "tensorflow_ipu/core/graph.pb.h"\n',
    "tensorflow_ipu/core/c.cc": ('#include "tensorflow_ipu/core/b.h"\n'
                                 '#include "tensorflow_ipu/core/c_internal.h"'
                                 '\n#include "absl/status/status.h"\n'),
    "tensorflow_ipu/core/c_internal.h": "#pragma once\n",
    "tensorflow_ipu/core/d_test.cc": '#include "tensorflow_ipu/core/b.h"\n',
    "tensorflow_ipu/core/BUILD":
        'package(default_visibility = ["//visibility:private"])\n',
    "poplar_sim/BUILD": ('# The simulator.\n'
                         'package(\n'
                         '    default_visibility = ["//visibility:public"],\n'
                         ')\n'),
    "poplar_sim/engine.cc": ('// The simulator.\n'
                             '#include "tensorflow_ipu/core/b.h"\n'),
}


def self_test():
    """Runs the three checks on SELF_TEST_XML and asserts that exactly the
    planted violations come out, each naming its fix."""
    violations = run_checks(SELF_TEST_XML, SELF_TEST_FILES.get)
    got = sorted(str(v) for v in violations)
    expected = sorted([
        'tensorflow_ipu/core/a.cc:3: "tensorflow_ipu/core/b.h" is not '
        "declared by //tensorflow_ipu/core:a or its direct deps: add "
        "//tensorflow_ipu/core:b to deps of //tensorflow_ipu/core:a",
        'poplar_sim/engine.cc:2: "tensorflow_ipu/core/b.h" is not declared '
        "by //poplar_sim:engine or its direct deps: add "
        "//tensorflow_ipu/core:b to deps of //poplar_sim:engine",
        'poplar_sim/engine.cc:2: "tensorflow_ipu/core/b.h" is against the '
        "layer rule: poplar_sim/ may include only poplar_sim/ "
        "(docs/architecture.md, Layering)",
        'poplar_sim/BUILD:2: default_visibility = ["//visibility:public"]: '
        "make it [\"//visibility:private\"] and give each target used from "
        "another package its own `visibility` (bazel query "
        "'rdeps(//..., //poplar_sim:<target>, 1)' lists its users)",
    ])
    if got != expected:
        print("check_layering self-test FAILED\nexpected:")
        print("\n".join(expected))
        print("got:")
        print("\n".join(got))
        return 1
    # The longest prefix decides, for directories and for includes.
    runtime = layer_rule_for("tensorflow_ipu/runtime/placer.cc")
    runtime_ipu = layer_rule_for("tensorflow_ipu/runtime/ipu/run.cc")
    checks = [
        include_allowed(runtime, "tensorflow_ipu/runtime/session.h"),
        not include_allowed(runtime, "tensorflow_ipu/runtime/ipu/run.h"),
        not include_allowed(runtime, "tensorflow_ipu/ipu/ipu_system.h"),
        not include_allowed(runtime, "tensorflow_ipu/compiler/pass.h"),
        include_allowed(runtime, "tensorflow_ipu/compiler/cluster_ir.h"),
        include_allowed(runtime_ipu, "tensorflow_ipu/runtime/ipu/run.h"),
        include_allowed(runtime_ipu, "poplar_sim/engine.h"),
    ]
    if not all(checks):
        print(f"check_layering self-test FAILED: prefix checks {checks}")
        return 1
    # Known violations are reported but pass; stale ones fail.
    known = {v.key for v in violations}
    with contextlib.redirect_stdout(io.StringIO()):
        failures = (report(violations, known), report([], known))
    if failures != (0, len(known)):
        print("check_layering self-test FAILED: known-violations handling")
        return 1
    print("check_layering self-test passed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--self-test", action="store_true",
                        help="check the checks on a synthetic workspace")
    parser.add_argument("--query-xml",
                        help="read this `bazel query --output=xml` file "
                             "instead of running bazel")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if args.query_xml:
        with open(args.query_xml, encoding="utf-8") as f:
            xml_text = f.read()
    else:
        xml_text = bazel_query(root)
    violations = run_checks(xml_text, source_reader(root))
    return 1 if report(violations, read_known_violations(root)) else 0


if __name__ == "__main__":
    sys.exit(main())
