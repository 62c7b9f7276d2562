#!/usr/bin/env python3
"""Builds small programs with the flags users build with, and runs them. No GPU needed.

usage: check_flags.py TEST --cxx CXX [--nvcc NVCC] --include DIR --cuda-lib DIR [--program PATH]
TEST:
  mixed          files built with and without WARMUP_DISABLE in one program, both link orders,
                 at -O0: the measuring files' sites are exact, the others absent
  light          files built light (WARMUP_LIGHT) with the runtime in one file, beside whole and
                 WARMUP_DISABLE files, both link orders, at -O0 and -O2 (a whole main at -O0
                 only): exact sites, one report
                 at exit; a light program without the runtime fails to link, naming what to add;
                 the same at -O2 with GCC's link-time optimisation (-flto)
  only_scope     a program that includes only <warmup/scope.hpp> writes WARMUP_REPORT at exit
  no_exceptions  -fno-exceptions -fno-rtti, measuring and disabled: builds, runs, writes a report
  global_name    a program's own global `warmup` (a function; with --nvcc, a __global__ kernel)
                 beside the library, with WARMUP_NO_NAMESPACE_ALIAS
  before_main    scopes in another file's static constructor and destructor: WARMUP_ENABLE=0
                 applies, the destructor's call is in the report at exit, no timeline time < 0
  shared_libs    a program, a linked library and a dlopen'ed plugin, all instrumented, default
                 and hidden visibility: one registry, one report at exit holding every call,
                 the plugin unloaded and loaded again, and a plugin-only program
  no_export      copies of the library that no symbol joins: a program that does not export the
                 anchor, plugins built hidden (one with a version script that makes everything
                 local but its entry point), loaded RTLD_LOCAL: one table and one report at exit
                 holding every copy's calls, a plugin unloaded before the exit included; a plugin
                 of another release (another WARMUP_ABI_VERSION) writes its own report beside the
                 program's, tagged with the pid, and each report's notices say what it lacks
  versions       two versions of the library in one program (a copy of the headers one
                 WARMUP_ABI_VERSION on): a program and its linked library of one, a plugin of the
                 other, default and hidden visibility: no code shared, each version's report
                 holding its own calls, each saying what it lacks
  one_file       what one file meets: the WARMUP_* macros the headers leave (only the public ones,
                 KEPT), each public header alone and the umbrella light and disabled; headers
                 included one after another, each an outermost header of its own, compile (the
                 helper macros come back), and so does --program's, built and run; the symbols are
                 in the inline namespace of the headers' WARMUP_ABI_VERSION (both copies); a second
                 copy of the headers in the file is refused with the library's sentence
  strict         -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Werror: every
                 public header (light, and under WARMUP_DISABLE), and a program that instantiates
                 every public template, whole (each header alone is packaging.headers')
                 The CUDA toolkit on -I, as a plain Makefile puts it: the library's files must not
                 bring in toolkit headers that warn (CUPTI's did). That holds more than -isystem
                 (CMake's imported targets), which hides only the toolkit's own warnings, so one
                 pass covers both; but a header that wraps a toolkit library (cublas.hpp) is held
                 to that library's own header: where that header alone fails these flags on -I,
                 the wrapper is checked with the toolkit on -isystem, and the output says so
"""
import argparse
import concurrent.futures
import fcntl
import glob
import hashlib
import shutil
import subprocess
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

HERE = os.path.dirname(os.path.abspath(__file__))
STRICT = ["-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion", "-Wsign-conversion", "-Werror"]
# The tests of how copies of the library share one registry and one report build at -O0: there
# every inline function is emitted out of line, the most symbols two copies could share (and it
# compiles the runtime in a third less time). light builds at -O0 and -O2 both.
SHARING = "-O0"
sh = warmup_check.run_ok  # a build step: a failure ends the test with the compiler's message


class Build:
    def __init__(self, args, tmp):
        self.a, self.tmp = args, tmp
        # The library by -I, as a plain build or add_subdirectory gives it; the toolkit as CMake's
        # imported targets give it (-isystem), or for strict as a hand-written build does (-I).
        self.toolkit = "-I" if args.test == "strict" else "-isystem"
        self.inc = (["-I" + args.include] + [self.toolkit + d for d in args.system_include] +
                    [a for f in args.force_include for a in ("-include", f)])
        self.libs = ["-L" + args.cuda_lib, "-Wl,-rpath," + args.cuda_lib, "-lcudart", "-ldl", "-lpthread"]
        self.digest = None

    def obj(self, src, out, flags, include=None):
        """`src` compiled with `flags` (against the headers in `include`, else --include's),
        copied to `out`. With --objects, each (compiler, source, flags, headers) is compiled once
        for every test of the build, and kept while none of them changes: a test that needs an
        object another is compiling waits for it."""
        inc = self.inc if include is None else ["-I" + include] + self.inc[1:]
        command = [self.a.cxx, "-std=c++17", "-c", os.path.join(HERE, src)] + inc + flags
        path = os.path.join(self.tmp, out)
        if not self.a.objects:
            sh(command + ["-o", path])
            return path
        key = hashlib.sha256("\0".join(command + [self.headers()]).encode()).hexdigest()[:24]  # headers(): and the compiler
        kept = os.path.join(self.a.objects, key + ".o")
        os.makedirs(self.a.objects, exist_ok=True)
        with open(kept + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not os.path.exists(kept):
                sh(command + ["-o", kept + ".tmp"])
                os.replace(kept + ".tmp", kept)
        shutil.copyfile(kept, path)
        return path

    def headers(self):
        """A digest of every file the objects may include from this checkout (the library's
        headers and the tests' sources) and of the compiler's file, read once."""
        if self.digest is None:
            h = hashlib.sha256()
            for root in (self.a.include, HERE):
                for d, _, files in sorted(os.walk(root)):
                    for f in sorted(files):
                        with open(os.path.join(d, f), "rb") as fh:
                            h.update(f.encode() + b"\0" + fh.read())
            compiler = os.path.realpath(shutil.which(self.a.cxx) or self.a.cxx)
            st = os.stat(compiler)
            h.update(f"{compiler}\0{st.st_mtime_ns}\0{st.st_size}".encode())
            self.digest = h.hexdigest()
        return self.digest

    def other_version(self):
        """A copy of the headers one version on: WARMUP_ABI_VERSION + 1, so its inline namespace
        and its anchor's layout too, as the next release has them. Made once for the tests of a
        build (in --objects, named by the headers' digest, so that its objects are kept too)."""
        base = self.a.objects or self.tmp
        os.makedirs(base, exist_ok=True)
        root = os.path.join(base, "other_version_" + self.headers()[:16])
        with open(root + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not os.path.isdir(root):
                shutil.rmtree(root + ".tmp", ignore_errors=True)
                shutil.copytree(self.a.include, os.path.join(root + ".tmp", "include"))
                config = os.path.join(root + ".tmp", "include", "warmup", "config.hpp")
                with open(config) as f:
                    text, n = re.subn(r"#define WARMUP_ABI_VERSION (\d+)",
                                      lambda m: f"#define WARMUP_ABI_VERSION {int(m.group(1)) + 1}", f.read())
                assert n == 1, "config.hpp defines WARMUP_ABI_VERSION once"
                with open(config, "w") as f:
                    f.write(text)
                os.replace(root + ".tmp", root)
        return os.path.join(root, "include")

    def link(self, objs, out, flags=()):
        exe = os.path.join(self.tmp, out)
        sh([self.a.cxx, *flags] + objs + ["-o", exe] + self.libs)
        return exe


def mixed(b):
    lines = []
    # -O0 only: there every inline function of both configurations is emitted, so a name the
    # two shared would collide at the link (light, whose files lean on the runtime's objects,
    # builds at -O2 too).
    for opt in ("-O0",):
        main = b.obj("mixed_main.cpp", f"main{opt}.o", [opt])
        on = b.obj("mixed_enabled.cpp", f"on{opt}.o", [opt])
        off = b.obj("mixed_disabled.cpp", f"off{opt}.o", [opt, "-DWARMUP_DISABLE"])
        for name, order in (("enabled first", [on, off, main]), ("disabled first", [off, on, main])):
            exe = b.link(order, f"mixed{opt}")
            r = warmup_check.run([exe], timeout=60)
            if r.returncode != 0:
                warmup_check.fail(f"{opt}, {name}: exit {r.returncode}\n{r.stdout}{r.stderr}")
            lines.append(f"{opt}, {name}: {r.stdout.strip()}")
    return "\n".join(lines)


LINK_HINT = "start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file"


def light(b):
    lines = []
    # A whole (not light) main at -O0 only, the object mixed builds: what -O2 changes is which of
    # the light files' and the runtime's inline functions are emitted, and those it builds twice.
    whole_main = b.obj("mixed_main.cpp", "whole_main.o", ["-O0"])
    for opt in ("-O0", "-O2"):
        flags = [opt, "-DWARMUP_LIGHT"]
        light_main = b.obj("mixed_main.cpp", f"light_main{opt}.o", flags)
        on = b.obj("mixed_enabled.cpp", f"light_on{opt}.o", flags)
        off = b.obj("mixed_disabled.cpp", f"light_off{opt}.o", flags + ["-DWARMUP_DISABLE"])
        runtime = b.obj("light_runtime.cpp", f"light_runtime{opt}.o", flags)
        programs = (("light, the runtime last", [on, off, light_main, runtime]),
                    ("light, the runtime first", [runtime, off, on, light_main]),
                    ("light files, a whole main, no runtime file", [on, off, whole_main]),
                    ("a whole main first, light files after", [whole_main, off, on]))
        for name, order in programs:
            exe = b.link(order, f"light{opt}")
            report = os.path.join(b.tmp, "light.json")
            r = warmup_check.run([exe], timeout=60, env={"WARMUP_REPORT": report})
            if r.returncode != 0:
                warmup_check.fail(f"{opt}, {name}: exit {r.returncode}\n{r.stdout}{r.stderr}")
            calls = {s["name"]: s["calls"] for s in warmup_check.load_report(report)["sites"]}
            assert calls == {"mixed.enabled": 10, "mixed.enabled_macro": 10}, (opt, name, calls)
            lines.append(f"{opt}, {name}: {r.stdout.strip()}; report at exit {calls}")
        # No file compiles the runtime: the link fails, and says what to add.
        r = warmup_check.run([b.a.cxx, on, light_main, "-o", os.path.join(b.tmp, "no_runtime")] + b.libs)
        assert r.returncode != 0, f"{opt}: a light program without the runtime linked"
        # The first undefined reference the linker prints names it, not one of the internals.
        said = r.stdout + r.stderr
        first = next((l for l in said.splitlines() if "undefined" in l), "")
        assert LINK_HINT in first, (opt, f"the first undefined reference must name {LINK_HINT}", said)
        lines.append(f"{opt}, no runtime file: the link fails, its first undefined reference {LINK_HINT}")
    lines.append(light_lto(b))
    # A program, a linked library and a dlopen'ed plugin, each built light with its own runtime
    # file, hidden (no symbol joins the copies; default visibility is shared_libs', built whole):
    # one registry and one report at exit.
    for visibility in ("hidden",):
        flags = [SHARING, "-fPIC", f"-fvisibility={visibility}", "-DWARMUP_LIGHT"]
        runtime = b.obj("light_runtime.cpp", f"light_runtime_{visibility}.o", flags)
        _, _, calls = library_and_plugin(b, f"light_{visibility}", flags, flags, [runtime])
        lines.append(f"light, {visibility} visibility, a library and a plugin: one report at exit: {calls}")
    return "\n".join(lines)


def light_lto(b):
    """Link-time optimisation (GCC's -flto) joins every file's top-level assembly into one and
    keeps only what its C++ refers to: light files, each with the runtime's link hint, still link
    to the one runtime file, the report holds every call, and a program without it still fails.
    Objects of their own: GCC's link would optimise any object that holds its IR, fat or not."""
    if "clang" in subprocess.run([b.a.cxx, "--version"], stdout=subprocess.PIPE, text=True).stdout.lower():
        return "link-time optimisation: checked with GCC only (clang's needs its linker plugin)"
    flags = ["-O2", "-flto", "-DWARMUP_LIGHT"]
    on = b.obj("mixed_enabled.cpp", "lto_on.o", flags)
    off = b.obj("mixed_disabled.cpp", "lto_off.o", flags + ["-DWARMUP_DISABLE"])
    main = b.obj("mixed_main.cpp", "lto_main.o", flags)
    runtime = b.obj("light_runtime.cpp", "lto_runtime.o", flags)
    exe = b.link([on, off, main, runtime], "light_lto", ["-O2", "-flto"])
    report = os.path.join(b.tmp, "light_lto.json")
    r = warmup_check.run([exe], timeout=60, env={"WARMUP_REPORT": report})
    if r.returncode != 0:
        warmup_check.fail(f"-flto: exit {r.returncode}\n{r.stdout}{r.stderr}")
    calls = {s["name"]: s["calls"] for s in warmup_check.load_report(report)["sites"]}
    assert calls == {"mixed.enabled": 10, "mixed.enabled_macro": 10}, ("-flto", calls)
    r = warmup_check.run([b.a.cxx, "-O2", "-flto", on, main, "-o", exe + "_no_runtime"] + b.libs)
    assert r.returncode != 0, "-flto: a light program without the runtime linked"
    assert LINK_HINT in r.stdout + r.stderr, ("-flto: the link's errors must name " + LINK_HINT, r.stdout + r.stderr)
    return f"-O2 -flto: light files and the runtime file link; report at exit {calls}; without it the link names {LINK_HINT}"


def only_scope(b):
    exe = b.link([b.obj("only_scope.cpp", "only_scope.o", ["-O0"])], "only_scope")
    r = warmup_check.run([exe], timeout=60, env={"WARMUP_REPORT": "stderr"})
    assert r.returncode == 0, r
    rows = [l for l in r.stderr.splitlines() if l.startswith("only_scope.site")]
    assert rows and rows[0].split()[3] == "3", r.stderr
    return rows[0]


def no_exceptions(b):
    lines = []
    for mode, extra in (("measuring", []), ("disabled", ["-DWARMUP_DISABLE"])):
        flags = ["-O1", "-fno-exceptions", "-fno-rtti", "-Wall", "-Wextra", "-Werror"] + extra
        exe = b.link([b.obj("no_exceptions.cpp", f"noexc_{mode}.o", flags)], f"noexc_{mode}")
        report = os.path.join(b.tmp, f"report_{mode}.json")
        r = warmup_check.run([exe, report], timeout=60)
        assert r.returncode == 0, (mode, r)
        assert os.path.getsize(report) > 0, mode
        lines.append(f"{mode}: {r.stdout.strip()}")
    return "\n".join(lines)


def global_name(b):
    lines = []
    for mode, extra in (("measuring", []), ("disabled", ["-DWARMUP_DISABLE"])):
        exe = b.link([b.obj("global_name.cpp", f"global_{mode}.o", ["-O1", "-Wall", "-Wextra", "-Werror"] + extra)],
                     f"global_{mode}")
        r = warmup_check.run([exe], timeout=60)
        assert r.returncode == 0, (mode, r)
        lines.append(f"g++ {mode}: {r.stdout.strip()}")
    if b.a.nvcc:
        exe = os.path.join(b.tmp, "global_cu")
        sh([b.a.nvcc, "-std=c++17", "-arch=sm_90", os.path.join(HERE, "global_name.cu"), "-o", exe, "-I" + b.a.include])
        r = warmup_check.run([exe], timeout=120)
        assert r.returncode == 0, r
        lines.append(f"nvcc: {r.stdout.strip()}")
    return "\n".join(lines)


def before_main(b):
    exe = b.link([b.obj("early_main.cpp", "early_main.o", ["-O0"]), b.obj("early_work.cpp", "early_work.o", ["-O0"])],
                 "early")
    r = warmup_check.run([exe], timeout=60, env={"WARMUP_ENABLE": "0", "WARMUP_REPORT": "stderr"})
    assert r.returncode == 0 and "(no site was measured)" in r.stderr, r.stderr
    report, trace = os.path.join(b.tmp, "early.json"), os.path.join(b.tmp, "early.trace.json")
    r = warmup_check.run([exe], timeout=60, env={"WARMUP_REPORT": f"{report},{trace}"})
    assert r.returncode == 0, r.stderr
    calls = {s["name"]: s["calls"] for s in warmup_check.load_report(report)["sites"]}
    assert calls == {"early.ctor": 1, "early.main": 1, "early.dtor": 1}, calls
    starts = [e["ts"] for e in warmup_check.load_report(trace)["traceEvents"] if e.get("ph") == "X"]
    assert len(starts) == 3 and min(starts) >= 0, starts
    return f"WARMUP_ENABLE=0 applied before main; report at exit: {calls}; earliest ts {min(starts)} us"


def library_and_plugin(b, tag, flags, main_flags, with_each=()):
    """shared_main linked with lib_a, dlopening lib_b, each built with `flags` (the program with
    `main_flags`) and linked with the objects `with_each`: one table and one report at exit
    holding every call. Returns (lib_b, the run, the report's calls by site)."""
    lib_a, lib_b = os.path.join(b.tmp, f"liba_{tag}.so"), os.path.join(b.tmp, f"libb_{tag}.so")
    sh([b.a.cxx, "-shared", b.obj("lib_a.cpp", f"a_{tag}.o", flags), *with_each, "-o", lib_a] + b.libs)
    sh([b.a.cxx, "-shared", b.obj("lib_b.cpp", f"b_{tag}.o", flags), *with_each, "-o", lib_b] + b.libs)
    exe = os.path.join(b.tmp, f"shared_main_{tag}")
    sh([b.a.cxx, b.obj("shared_main.cpp", f"main_{tag}.o", main_flags), *with_each, lib_a, "-o", exe,
        "-Wl,-rpath," + b.tmp] + b.libs)
    report = os.path.join(b.tmp, f"shared_{tag}.json")
    r = warmup_check.run([exe, lib_b], timeout=60, env={"WARMUP_REPORT": f"stderr,{report}"})
    assert r.returncode == 0, (tag, r.stdout, r.stderr)
    assert r.stderr.count("warmup report") == 1, (tag, "one table at exit", r.stderr)
    calls = {s["name"]: s["calls"] for s in warmup_check.load_report(report)["sites"]}
    assert calls == {"libs.shared": 41, "libs.a": 1, "libs.b": 20}, (tag, calls)
    return lib_b, r, calls


def shared_libs(b):
    lines = []
    for visibility in b.a.visibility or ("default", "hidden"):
        lib_b, r, calls = library_and_plugin(b, visibility, [SHARING, "-fPIC", f"-fvisibility={visibility}"],
                                             [SHARING, f"-fvisibility={visibility}"])
        report = os.path.join(b.tmp, f"shared_{visibility}.json")
        lines.append(f"{visibility}: {r.stdout.strip()}; one report at exit: {calls}")
        host = os.path.join(b.tmp, f"plugin_host_{visibility}")
        sh([b.a.cxx, os.path.join(HERE, "plugin_host.cpp"), "-o", host, "-ldl"])
        r = warmup_check.run([host, lib_b], timeout=60, env={"WARMUP_REPORT": f"stderr,{report}"})
        assert r.returncode == 0, (visibility, r.stderr)
        tail = r.stderr.split("round 1 done", 1)
        assert len(tail) == 2 and "warmup report" in tail[1] and r.stderr.count("warmup report") == 1, (visibility, r.stderr)
        calls = {s["name"]: s["calls"] for s in warmup_check.load_report(report)["sites"]}
        assert calls == {"libs.shared": 20, "libs.b": 20}, (visibility, calls)
        lines.append(f"{visibility}, plugin only, loaded twice: one report after both rounds: {calls}")
        # A program with scopes that only dlopens: it exports the anchor, as the CMake target does.
        solo = os.path.join(b.tmp, f"solo_{visibility}")
        sh([b.a.cxx, b.obj("shared_main.cpp", f"solo_{visibility}.o", [SHARING, "-DNO_LINKED_LIBRARY"]), "-o", solo,
            "-Wl,--export-dynamic-symbol=cuda_warmup_anchor_v1"] + b.libs)
        r = warmup_check.run([solo, lib_b], timeout=60, env={"WARMUP_REPORT": f"stderr,{report}"})
        assert r.returncode == 0 and r.stderr.count("warmup report") == 1, (visibility, r.stdout, r.stderr)
        calls = {s["name"]: s["calls"] for s in warmup_check.load_report(report)["sites"]}
        assert calls == {"libs.shared": 40, "libs.b": 20}, (visibility, calls)
        lines.append(f"{visibility}, program and plugin only: one report: {calls}")
    return "\n".join(lines)


def no_export(b):
    """Copies that find each other through the environment, not a symbol: the program built
    without exporting the anchor (no --export-dynamic-symbol), each plugin hidden, one of them
    with every symbol but its entry point local."""
    lines = []
    flags = [SHARING, "-fPIC", "-fvisibility=hidden"]
    plugin_obj = b.obj("lib_b.cpp", "b_hidden.o", flags)
    hidden, scripted = os.path.join(b.tmp, "libb_hidden.so"), os.path.join(b.tmp, "libb_scripted.so")
    sh([b.a.cxx, "-shared", plugin_obj, "-o", hidden] + b.libs)
    sh([b.a.cxx, "-shared", plugin_obj, "-o", scripted,
        "-Wl,--version-script=" + os.path.join(HERE, "only_b_calls.map")] + b.libs)
    for path in (hidden, scripted):
        r = warmup_check.run(["nm", "-D", "--defined-only", path])
        exported = "cuda_warmup_anchor_v1" in r.stdout
        assert exported == (path == hidden), (path, "the anchor's symbol", r.stdout)
    report = os.path.join(b.tmp, "no_export.json")
    program = b.link([b.obj("shared_main.cpp", "no_export_main.o", [SHARING, "-DNO_LINKED_LIBRARY"])], "no_export_main")
    r = warmup_check.run(["nm", "-D", "--defined-only", program])
    assert "cuda_warmup_anchor_v1" not in r.stdout, ("the program exports the anchor", r.stdout)

    def one_report(command, expected, what):
        r = warmup_check.run(command, timeout=60, env={"WARMUP_REPORT": f"stderr,{report}"})
        assert r.returncode == 0, (what, r.returncode, r.stdout, r.stderr)
        assert r.stderr.count("warmup report") == 1, (what, "one table at exit", r.stderr)
        calls = {s["name"]: s["calls"] for s in warmup_check.load_report(report)["sites"]}
        assert calls == expected, (what, calls)
        lines.append(f"{what}: one table, one report at exit: {calls}")

    for path, what in ((hidden, "hidden"), (scripted, "hidden, version script")):
        one_report([program, path], {"libs.shared": 40, "libs.b": 20},
                   f"a program that does not export the anchor, a plugin built {what}")
    host = os.path.join(b.tmp, "plugin_host")
    sh([b.a.cxx, os.path.join(HERE, "plugin_host.cpp"), "-o", host, "-ldl"])
    # Two plugins, each with a copy of the library, neither in the other's symbol scope: the
    # second is unloaded at each dlclose, its sites kept by the first's registry.
    one_report([host, hidden, scripted], {"libs.shared": 40, "libs.b": 40},
               "a program without warmup, two plugins loaded RTLD_LOCAL, twice")

    # A plugin of another release (another WARMUP_ABI_VERSION: its anchor's layout and its
    # namespace differ) cannot share: it keeps its sites and writes its own report beside the
    # program's, tagged with its pid, never over it; each report says what it is and what it lacks.
    other = os.path.join(b.tmp, "libb_other_release.so")
    sh([b.a.cxx, "-shared", b.obj("lib_b.cpp", "b_other.o", flags, include=b.other_version()), "-o", other] + b.libs)
    os.remove(report)
    lines.append("a plugin of another release: " + kept_apart(b, [program, other], report, {"libs.shared": 20}))
    return "\n".join(lines)


def kept_apart(b, command, report, calls):
    """Runs `command`, a program whose last argument is a plugin of another version of the library
    (the program's main is shared_main): the program's report holds `calls`, and names the plugin
    as a copy whose sites it lacks; the plugin's report, beside it and tagged with the pid, holds
    the plugin's calls and says it is a second copy's. Returns what it saw, in words."""
    plugin = os.path.basename(command[-1])
    r = warmup_check.run(command, timeout=60, env={"WARMUP_REPORT": f"stderr,{report}"})
    # shared_main exits 1: its own snapshot lacks the plugin's calls.
    printed = f"shared {calls.get('libs.shared', 0)}, a {calls.get('libs.a', 0)}, b 0"
    assert r.returncode == 1 and r.stdout.strip() == printed, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.count("warmup report") == 2, ("a table of each", r.stderr)
    main = warmup_check.load_report(report)
    stem = os.path.splitext(report)[0]
    beside = glob.glob(stem + ".*.json")
    assert len(beside) == 1, ("the second copy's report, beside the program's", os.listdir(b.tmp))
    apart = warmup_check.load_report(beside[0])
    assert apart["identity"]["pid"] == main["identity"]["pid"] and beside[0].endswith(f".{main['identity']['pid']}.json"), beside
    got = {s["name"]: s["calls"] for s in main["sites"]}
    apart_calls = {s["name"]: s["calls"] for s in apart["sites"]}
    assert got == calls and apart_calls == {"libs.shared": 20, "libs.b": 20}, (got, apart_calls)
    said = [n for n in main["notices"] if "second copy of warmup" in n]
    assert len(said) == 1 and plugin in said[0] and "not in this report" in said[0], main["notices"]
    said_apart = [n for n in apart["notices"] if "this is the report of a second copy of warmup" in n]
    assert len(said_apart) == 1 and plugin in said_apart[0], apart["notices"]
    return (f"the program's report {got} names it: {said[0]!r}; "
            f"its own beside it ({os.path.basename(beside[0])}): {apart_calls}")


def versions(b):
    """Two versions of the library in one program: shared_main and lib_a built with these
    headers, lib_b (the plugin) with a copy one version on, at default and at hidden visibility.
    The versions share no symbol but the anchor's (their namespaces differ), so neither calls
    the other's code; the plugin finds an anchor of another layout and keeps apart."""
    lines = []
    shared = [SHARING, "-fPIC", "-fvisibility=default"]
    lib_a = os.path.join(b.tmp, "liba_versions.so")
    sh([b.a.cxx, "-shared", b.obj("lib_a.cpp", "a_default.o", shared), "-o", lib_a] + b.libs)
    exe = os.path.join(b.tmp, "versions_main")
    sh([b.a.cxx, b.obj("shared_main.cpp", "main_default.o", [SHARING, "-fvisibility=default"]), lib_a, "-o", exe,
        "-Wl,-rpath," + b.tmp] + b.libs)
    for visibility in ("default", "hidden"):
        plugin = os.path.join(b.tmp, f"libb_next_version_{visibility}.so")
        flags = [SHARING, "-fPIC", f"-fvisibility={visibility}"]
        sh([b.a.cxx, "-shared", b.obj("lib_b.cpp", f"b_next_{visibility}.o", flags, include=b.other_version()),
            "-o", plugin] + b.libs)
        report = os.path.join(b.tmp, f"versions_{visibility}.json")
        said = kept_apart(b, [exe, plugin], report, {"libs.shared": 21, "libs.a": 1})
        lines.append(f"a program and its library of one version, a plugin of the next ({visibility}): {said}")
    return "\n".join(lines)


# The WARMUP_* macros a file that includes warmup keeps, each with the reason: the public ones, and
# those a public macro's expansion names. Every other is a helper, undefined at the end of the
# outermost header (include/warmup/detail/macros_end.hpp).
KEPT = {
    "WARMUP_VERSION_MAJOR": "public: the version, for #if in programs (config.hpp)",
    "WARMUP_VERSION_MINOR": "public: the version (config.hpp)",
    "WARMUP_VERSION_PATCH": "public: the version (config.hpp)",
    "WARMUP_VERSION_STRING": "public: the version as the report writes it (config.hpp, docs/reports.md)",
    "WARMUP_ABI_VERSION": "public: the inline namespace's and the anchor's version (config.hpp, docs/design.md); "
                          "a second copy's config.hpp meets it, and every later header's namespace names it",
    "WARMUP_ENABLED": "public: WARMUP_DISABLE as 0 or 1 for #if (config.hpp); every later header reads it",
    "WARMUP_SCOPE": "public (scope.hpp, docs/scopes-and-builds.md)",
    "WARMUP_FUNC_SCOPE": "public (scope.hpp, docs/scopes-and-builds.md)",
    "WARMUP_DETAIL_SCOPE": "WARMUP_SCOPE expands to it",
    "WARMUP_DETAIL_CONCAT": "WARMUP_SCOPE's expansion names it",
    "WARMUP_DETAIL_CONCAT_": "WARMUP_DETAIL_CONCAT expands to it",
    "WARMUP_DETAIL_FIRST": "WARMUP_DETAIL_SCOPE's expansion names it",
    "WARMUP_DETAIL_FIRST_": "WARMUP_DETAIL_FIRST expands to it",
}
SECOND_COPY = "a second copy of warmup's headers in this file"


def kept_macros(b, text, flags):
    """The library's macros (WARMUP_*, CUDA_WARMUP*, cuda_warmup*) that a file of `text` has
    defined at its end, less those its command line defines."""
    src = os.path.join(b.tmp, f"macros_{hashlib.sha256((text + ' '.join(flags)).encode()).hexdigest()[:12]}.cpp")
    with open(src, "w") as f:
        f.write(text)
    names = set()
    for path in (src, os.devnull):
        r = warmup_check.run([b.a.cxx, "-std=c++17", "-dM", "-E", "-x", "c++", path] + b.inc + flags)
        assert r.returncode == 0, (text, flags, r.stderr)
        found = set(re.findall(r"^#define ((?:WARMUP_|CUDA_WARMUP|cuda_warmup)\w*)", r.stdout, re.M))
        names = found if path == src else names - found
    return names


def one_file(b):
    """Compiles are independent: they run side by side, the longest (whole) first."""
    headers = sorted(os.path.basename(h) for h in glob.glob(os.path.join(b.a.include, "warmup", "*.hpp")))
    mpi = mpi_include_flags()
    if mpi is None:
        headers.remove("mpi.hpp")
    other = b.other_version()

    def write(name, text):
        path = os.path.join(b.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    # Headers one after another, each an outermost header of its own: the helper macros come back.
    # Whole (light and disabled: strict's file of every header, and --program).
    after = write("one_after_another.cpp", "".join(f"#include <warmup/{h}>\n" for h in
                                                   ["profile.hpp"] + [h for h in headers if h != "profile.hpp"]))

    def one_after_another():
        sh([b.a.cxx, "-std=c++17", "-fsyntax-only", after] + b.inc + (mpi or []))
        return f"{len(headers)} public headers one after another, whole: compiles"

    # The version is in the symbol names: a file's code is in the inline namespace of its
    # headers' WARMUP_ABI_VERSION (and of the configuration), whichever copy of the headers.
    names = write("names.cpp", '#include <warmup/scope.hpp>\nvoid names() { WARMUP_SCOPE("x"); }\n')

    def symbols_named(include, mode, suffix):
        with open(os.path.join(include, "warmup", "config.hpp")) as f:
            version = re.search(r"#define WARMUP_ABI_VERSION (\d+)", f.read()).group(1)
        obj = os.path.join(b.tmp, f"names_{len(suffix)}_{hashlib.sha256(include.encode()).hexdigest()[:8]}.o")
        sh([b.a.cxx, "-std=c++17", "-O0", "-c", names, "-o", obj, "-I" + include] + b.inc[1:] + [mode])
        spaces = set(re.findall(r"cuda_warmup::(\w+)::", warmup_check.run(["nm", "-C", obj]).stdout))
        assert spaces == {f"v{version}{suffix}"}, (include, mode, spaces)
        return f"WARMUP_ABI_VERSION {version}, {mode}: every symbol in cuda_warmup::v{version}{suffix}"

    # A second copy of the headers, one version on, reached by its own path in a file that has
    # the first: refused, with the library's sentence. The control includes the first copy's own
    # config.hpp by its path: #pragma once skips it, and the file compiles.
    second = write("second_copy.cpp", '#include <warmup/scope.hpp>\n#include WARMUP_TEST_CONFIG\n'
                                      'int main() { WARMUP_SCOPE("x"); }\n')

    def second_copy(include, refused):
        config = os.path.abspath(os.path.join(include, "warmup", "config.hpp"))
        r = warmup_check.run([b.a.cxx, "-std=c++17", "-fsyntax-only", "-DWARMUP_LIGHT", second] + b.inc +
                             [f'-DWARMUP_TEST_CONFIG="{config}"'])
        said = r.stdout + r.stderr
        assert (r.returncode != 0) == refused and (SECOND_COPY in said) == refused, (config, r.returncode, said[-3000:])
        return (f"a second copy of the headers in one file: refused ({SECOND_COPY!r})" if refused else
                "the first copy's own config.hpp again, by its path: compiles")

    # What each file keeps: each public header alone (whole), the umbrella light and disabled.
    cases = [(f"#include <warmup/{h}>\n", [] if h != "mpi.hpp" else mpi) for h in headers]
    cases += [("#include <warmup/profile.hpp>\n", [mode]) for mode in ("-DWARMUP_LIGHT", "-DWARMUP_DISABLE")]
    cases += [("#include <warmup/runtime.hpp>\n", ["-DWARMUP_LIGHT"])]

    def leaves_none(text, flags):
        names_kept = kept_macros(b, text, flags)
        left = sorted(names_kept - set(KEPT))
        assert not left, (f"{text.strip()} {' '.join(flags)} leaves helper macros in the user's file: {left}; "
                          "undefine them in include/warmup/detail/macros_end.hpp (or, if public, add them to KEPT with the reason)")
        return names_kept

    # The short checks first, the whole file of every header among them: the first failure ends
    # the test (what has not started is cancelled), so that a broken header is told in seconds.
    jobs = [lambda i=i, m=m, x=x: symbols_named(i, m, x) for i in (b.a.include, other)
            for m, x in (("-DWARMUP_LIGHT", ""), ("-DWARMUP_DISABLE", "_off"))]
    jobs += [lambda i=i, r=r: second_copy(i, r) for i, r in ((other, True), (b.a.include, False))]
    jobs += [lambda c=c: leaves_none(*c) for c in cases[:1]] + [one_after_another]
    jobs += [lambda c=c: leaves_none(*c) for c in cases[1:]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = [pool.submit(job) for job in jobs]
        try:
            for f in concurrent.futures.as_completed(futures):
                f.result()
        finally:
            for f in futures:
                f.cancel()
    done = [f.result() for f in futures]
    lines, kept = [l for l in done if isinstance(l, str)], [k for k in done if isinstance(k, set)]
    seen = set().union(*kept)
    assert seen >= set(KEPT), f"KEPT names macros no header defines any more: {sorted(set(KEPT) - seen)}"
    lines.append(f"{len(cases)} files (each public header alone; the umbrella light and disabled): "
                 f"only {len(KEPT)} public macros kept")
    if b.a.program:
        r = warmup_check.run([b.a.program], timeout=60)
        assert r.returncode == 0, (b.a.program, r.stdout, r.stderr)
        lines.append(f"{os.path.basename(b.a.program)}: every public header after the umbrella, built and run")
    return "\n".join(lines)


def mpi_include_flags():
    """MPI's include directories as -isystem flags (mpi.hpp needs <mpi.h>), or None without MPI."""
    mpicxx = shutil.which("mpicxx")
    if not mpicxx:
        return None
    r = subprocess.run([mpicxx, "--showme:incdirs"], capture_output=True, text=True)
    return ["-isystem" + d for d in r.stdout.split()] if r.returncode == 0 else None


# Public headers that exist to wrap a toolkit library, and that library's header: a user who
# includes the one includes the other, and gets its warnings either way.
WRAPPED = {"cublas.hpp": "cublas_v2.h"}


def compiles_alone(b, text, flags):
    src = os.path.join(b.tmp, "alone.cpp")
    with open(src, "w") as f:
        f.write(text)
    return warmup_check.run([b.a.cxx, "-std=c++17", "-fsyntax-only", src] + b.inc + flags).returncode == 0


def strict(b):
    headers = sorted(glob.glob(os.path.join(b.a.include, "warmup", "*.hpp")))
    mpi = mpi_include_flags()
    if mpi is None:
        headers = [h for h in headers if not h.endswith("/mpi.hpp")]
    isystem = ["-I" + b.a.include] + ["-isystem" + d for d in b.a.system_include]
    inc = {h: b.inc for h in headers}
    held = []
    for h in headers:
        wrapped = WRAPPED.get(os.path.basename(h))
        if wrapped and not compiles_alone(b, f"#include <{wrapped}>\n", STRICT):
            inc[h] = isystem
            held.append(f"{os.path.basename(h)} with the toolkit on -isystem (its {wrapped} alone fails these flags on -I)")
    # Warnings are a header's whatever includes it: each mode compiles every public header in one
    # file (one -I or -isystem form a file: where a wrapped header needs -isystem, it has its own).
    # That each header compiles alone is packaging.headers' (light and under WARMUP_DISABLE); the
    # runtime's code is compiled once, by the usage program (measuring builds it whole).
    for mode, extra in (("measuring", ["-DWARMUP_LIGHT"]), ("disabled", ["-DWARMUP_DISABLE"])):
        groups = {}
        for h in headers:
            groups.setdefault(tuple(inc[h]), []).append(h)
        for flags, group in groups.items():
            src = os.path.join(b.tmp, "together.cpp")
            with open(src, "w") as f:
                f.writelines(f'#include "{os.path.relpath(h, b.a.include)}"\n' for h in group)
            sh([b.a.cxx, "-std=c++17", "-fsyntax-only", src] + list(flags) + STRICT + extra + (mpi or []))
        whole = [f for f in extra if f != "-DWARMUP_LIGHT"]  # a program whose one file holds the runtime
        exe = b.link([b.obj("strict_usage.cpp", f"strict_{mode}.o", ["-O2"] + STRICT + whole)], f"strict_{mode}")
        r = warmup_check.run([exe], timeout=60)
        assert r.returncode == 0, (mode, r)
    said = f"{os.path.basename(b.a.cxx)}, toolkit on -I: {len(headers)} public headers and the usage program, measuring and disabled, clean"
    return said + (f"; {', '.join(held)}" if held else "")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("test", choices=["mixed", "light", "only_scope", "no_exceptions", "global_name", "before_main", "shared_libs", "no_export",
                                    "versions", "one_file", "strict"])
    p.add_argument("--cxx", required=True)
    p.add_argument("--nvcc")
    p.add_argument("--include", required=True)
    p.add_argument("--system-include", action="append", default=[])
    p.add_argument("--cuda-lib", required=True)
    p.add_argument("--force-include", action="append", default=[],
                   help="a header every compile includes first (a mutation build's switches)")
    p.add_argument("--visibility", action="append", choices=["default", "hidden"],
                   help="shared_libs: only these visibilities (default: both)")
    p.add_argument("--objects", help="a folder where the tests of one build keep the objects they compile")
    p.add_argument("--program", help="one_file: a program built from a file of every public header, after the umbrella, "
                                     "under WARMUP_DISABLE (packaging's disable/usage.cpp): it must run")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(globals()[a.test](Build(a, tmp)))
