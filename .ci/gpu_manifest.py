#!/usr/bin/env python3
"""Turns the CTest tests labelled gpu of a build into the GPU machine's steps, and copies the
programs they run into the bundle. Run by .ci/gpu-bundle, from the repository root.

usage: gpu_manifest.py BUILD_DIR BUNDLE_DIR

BUNDLE_DIR/steps.sh gets one line a test, which .ci/gpu-run sources from the repository root of
the GPU machine (the same checkout as here, not the same absolute paths):

    step [--may-skip] NAME [env VAR=VALUE...] COMMAND...

NAME is the test's name, or its step's older name in STEP_NAMES; --may-skip comes from the label
multi_gpu; env carries the ENVIRONMENT property. In COMMAND, a program of the build is copied to the same
place under BUNDLE_DIR and named there, a file of the source tree is named from the repository
root, and the Python interpreter is `python3`. Steps run from the repository root, not from the
test's build folder (every check uses absolute paths and temporary folders). Tests that are
DISABLED or labelled not_bundled are left out. Anything else that the step cannot carry (another
absolute path, a property such as WILL_FAIL) stops the bundle with a message: a test must not
silently run differently there, or not at all.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

# Properties a step need not carry: LABELS, ENVIRONMENT and DISABLED are read here; every test
# skips with 77, which gpu-run judges by its own rule; a time limit and the working folder do not
# change what a test finds.
IGNORED = {"LABELS", "SKIP_RETURN_CODE", "TIMEOUT", "WORKING_DIRECTORY", "ENVIRONMENT", "DISABLED"}

# The names these tests' steps had in gpu-run's log before its list came from CTest: people grep
# the log for them (`=== multi_gpu: exit`). Any other test's step is named as the test.
STEP_NAMES = {"host": "host_tests", "nvtx": "nvtx_tests", "json_steps_example": "steps", "gpu": "gpu_tests",
              "example_first_inference": "first_inference", "example_using_it": "using_it",
              "gpu_sticky_error": "sticky_error", "gpu_exit_pending": "exit_pending", "gpu_multi_gpu": "multi_gpu",
              "gpu_fork_child": "fork_child"}


def stop(message):
    sys.exit(f"gpu_manifest: {message}")


def cache_value(build, key):
    with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    stop(f"{build}/CMakeCache.txt has no {key}")


def gpu_tests(build):
    listed = subprocess.run(["ctest", "--test-dir", build, "-L", "^gpu$", "--show-only=json-v1"],
                            capture_output=True, text=True, check=True).stdout
    return json.loads(listed)["tests"]


class Bundle:
    """Where the build's and the source tree's paths go on the GPU machine."""

    def __init__(self, build, bundle):
        self.build = cache_value(build, "CMAKE_CACHEFILE_DIR")
        self.source = cache_value(build, "CMAKE_HOME_DIRECTORY")
        self.tools = {cache_value(build, "CMAKE_COMMAND"): "cmake"}
        self.bundle = bundle
        self.copied = set()

    def word(self, test, word):
        """The command word as the GPU machine's repository root sees it."""
        if word == self.build:  # a check that finds its programs in the build (their copies in the bundle)
            return self.bundle
        for tree in (self.build, self.source):  # the build folder may lie inside the source tree
            if os.path.isabs(word) and os.path.commonpath([word, tree]) == tree:
                return self.program(test, word) if tree == self.build else os.path.relpath(word, tree)
        if word in self.tools:
            return self.tools[word]
        if os.path.isabs(word) and re.fullmatch(r"python3(\.\d+)?", os.path.basename(word)):
            return "python3"
        if os.path.isabs(word) or self.build in word or self.source in word:
            stop(f"test {test}: '{word}' names a path the GPU machine does not have")
        return word

    def program(self, test, path):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            stop(f"test {test}: {path} is in the build folder but is not a program to carry")
        there = os.path.join(self.bundle, os.path.relpath(path, self.build))
        if there not in self.copied:
            os.makedirs(os.path.dirname(there), exist_ok=True)
            shutil.copy2(path, there)
            self.copied.add(there)
        return there


def step(bundle, test):
    """(step name, steps.sh lines) of one test, or None where the test is left out."""
    name = test["name"]
    properties = {p["name"]: p["value"] for p in test.get("properties", [])}
    labels = properties.get("LABELS", [])
    if properties.get("DISABLED") or "not_bundled" in labels:
        return None
    unknown = sorted(set(properties) - IGNORED)
    if unknown:
        stop(f"test {name}: gpu-run does not carry the properties {', '.join(unknown)}")
    step_name = STEP_NAMES.get(name, name)
    words = ["step"] + (["--may-skip"] if "multi_gpu" in labels else []) + [step_name]
    environment = properties.get("ENVIRONMENT", [])
    if environment:
        words += ["env"] + [bundle.word(name, assignment) for assignment in environment]
    words += [bundle.word(name, w) for w in test["command"]]
    return step_name, f"# ctest: {name}\n" + " ".join(shlex.quote(w) for w in words)


def main():
    if len(sys.argv) != 3:
        stop("usage: gpu_manifest.py BUILD_DIR BUNDLE_DIR")
    build, bundle_dir = sys.argv[1:]
    bundle = Bundle(build, bundle_dir)
    tests = gpu_tests(build)
    renamed_gone = sorted(set(STEP_NAMES) - {t["name"] for t in tests})
    if renamed_gone:
        stop(f"STEP_NAMES names {', '.join(renamed_gone)}, no test labelled gpu in {build} (renamed?)")
    steps = [s for s in (step(bundle, t) for t in tests) if s]
    names = [name for name, _ in steps]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        stop(f"two tests would log as the same step: {', '.join(twice)}")
    header = (f"# The CTest tests labelled gpu of {bundle.build} (ctest -L '^gpu$'), made by .ci/gpu-bundle.\n"
              "# .ci/gpu-run sources this from the repository root; make it again, do not edit it.\n")
    with open(os.path.join(bundle_dir, "steps.sh"), "w", encoding="utf-8") as f:
        f.write(header + "\n".join(lines for _, lines in steps) + "\n")
    print(f"gpu_manifest: {len(steps)} steps, {len(bundle.copied)} programs")


if __name__ == "__main__":
    main()
