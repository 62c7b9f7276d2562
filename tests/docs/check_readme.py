#!/usr/bin/env python3
"""The documentation tells the truth: the README's snippet is the program a test builds; the ncu
line of docs/nvtx.md answers in seconds; the build line without CMake (docs/scopes-and-builds.md)
builds and runs a program; the JSON schema (docs/reports.md) names every key the library writes;
docs/environment.md names every variable the code reads, and no other; every relative link
leads to a file and a heading that exist; every C++ and CMake block compiles or is a fragment of
a built file; a measured figure lives in BENCHMARKS.md (or docs/folklore.md) and is cited there.

usage: check_readme.py snippets|ncu|headers|environment|links|version|front_door|troubleshooting
                       |code_blocks|code_blocks_catches|figures|figures_catches|remedies|remedies_catches
                                                 (reads the files beside tests/)
       check_readme.py ncu_run PROGRAM [LIMIT_S]  (GPU machine: runs docs/nvtx.md's ncu line on
                                                  PROGRAM, the demo; fails past LIMIT_S, 60)
       check_readme.py build_line CXX            (compiles examples/steps.cpp with the line of
                                                  docs/scopes-and-builds.md)
       check_readme.py schema PROGRAM            (PROGRAM N json|csv prints a report with every field)
"""
import csv
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(path):
    return open(os.path.join(ROOT, path), encoding="utf-8").read()


# Where each checked text lives: a check reads that file, and fails if its text moved away.
README = read("README.md")
BUILDS = "docs/scopes-and-builds.md"  # the build line without CMake, the layout of the headers
NVTX = "docs/nvtx.md"                 # the ncu line
REPORTS = "docs/reports.md"           # the JSON schemas
ENVIRONMENT = "docs/environment.md"   # every variable read, in one table


def section(path, heading, until=None):
    """The text of `path` from the line starting with `heading` to the next line starting with
    `until` (which must follow), or with `heading`'s own level of heading (or the end)."""
    text = read(path)
    m = re.search(r"^" + re.escape(heading) + r"[^\n]*$", text, re.M)
    assert m, f"{path} has no heading {heading!r}"
    if until is not None:
        e = re.search(r"^" + re.escape(until), text[m.end():], re.M)
        assert e, f"{path} has no heading {until!r} after {heading!r}"
    else:
        e = re.search(r"^" + heading.split(" ")[0] + r" ", text[m.end():], re.M)
    return text[m.start():m.end() + e.start() if e else len(text)]


def block_after(marker, text=README):
    """The fenced block that follows each line starting with `marker`, with the marker line."""
    for m in re.finditer(r"^" + re.escape(marker) + r"[^\n]*\n```[a-z]*\n(.*?)```", text, re.S | re.M):
        yield m.group(0).split("\n", 1)[0], m.group(1)


def snippets():
    found = 0
    for line, body in block_after("<!-- snippet: "):
        path = line.split("<!-- snippet: ", 1)[1].split()[0]
        src = open(os.path.join(ROOT, path), encoding="utf-8").read()
        begin = re.search(r"^( *)// \[readme:[a-z-]+\]\n", src, re.M)
        assert begin, f"{path}: no // [readme:...] marker"
        indent = len(begin.group(1))
        region = src[begin.end():src.index("// [readme:end]", begin.end())]
        lines = [l[indent:] if l.startswith(" " * indent) else l for l in region.rstrip().split("\n")]
        # The README's copy may open with the program's includes.
        want = "\n".join(lines).strip()
        got = "\n".join(l for l in body.rstrip().split("\n") if not l.startswith("#include")).strip()
        assert got == want, f"README's snippet from {path} differs from the program:\n--- README\n{got}\n--- {path}\n{want}"
        found += 1
    assert found >= 1, "no snippet marker in README.md"
    return f"{found} README snippet(s) equal to their programs"


def ncu():
    lines = [l for l in read(NVTX).split("\n") if l.lstrip().startswith("ncu ")]
    assert lines, f"{NVTX} shows no ncu line"
    for l in lines:
        assert "--metrics" in l or "--section" in l or "--launch-count" in l or " -c " in l, (
            f"this ncu line runs every default section (about 10 replays a kernel): {l}")
    return f"{len(lines)} ncu line(s), each limited to what it needs"


def ncu_commands():
    """The ncu commands of docs/nvtx.md, whole: continuation lines joined, comments left out."""
    text = re.sub(r"\\\n\s*", " ", read(NVTX))
    return [l.split("#")[0].strip() for l in text.split("\n") if l.lstrip().startswith("ncu ")]


def ncu_run(program, limit_s="60"):
    """The ncu line of docs/nvtx.md, as it stands, run on the demo (`program` stands for its path): it
    must answer in seconds (within `limit_s`, killed with everything it started past that), exit
    0, and have profiled kernels (a filter that matched none would answer at once)."""
    limit = float(limit_s)
    (command,) = ncu_commands()
    words = shlex.split(command)
    demo = [i for i, w in enumerate(words) if w.endswith("examples/first_inference")]
    assert len(demo) == 1, f"the README's ncu line names no examples/first_inference to run: {command}"
    words[demo[0]] = program
    # timeout(1) signals its whole process group: ncu and the program it launched.
    start = time.monotonic()
    proc = warmup_check.run(["timeout", "-k", "10", f"{limit:g}", *words], timeout=limit + 60)
    took = time.monotonic() - start
    tail = "\n".join((proc.stdout + proc.stderr).rstrip().split("\n")[-6:])
    if proc.returncode in (124, 137) or took > limit:
        warmup_check.fail(f"the README's ncu line took {took:.1f} s, more than {limit:g} s (\"in seconds\"): "
                          f"{' '.join(words)}\n{tail}")
    warmup_check.expect_exit(proc)
    metric = [w for w in words if w.startswith("gpu__")] or ["gpu__time_duration.sum"]
    rows = [l for l in proc.stdout.split("\n") if metric[0] in l]
    assert rows, f"the README's ncu line profiled no kernel (no {metric[0]} in its output):\n{tail}"
    print(tail)
    return f"the README's ncu line answered in {took:.1f} s (limit {limit:g} s), {len(rows)} kernels measured"


def build_line(cxx):
    (_, body), = list(block_after("<!-- build-line", read(BUILDS)))
    command = body.replace("\\\n", " ").split("\n")[0].split("#")[0]
    words = shlex.split(command)
    assert words[0] == "g++", words
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "app")
        subst = {"warmup/include": os.path.join(ROOT, "include"), "app.cpp": os.path.join(ROOT, "examples", "steps.cpp"),
                 "app": exe}
        words = [cxx] + [subst.get(w, w) for w in words[1:]]
        warmup_check.run_ok(words)
        r = warmup_check.run_ok([exe], timeout=120)
        assert '"schema":"warmup.report/3"' in r.stdout, r.stdout
    return f"the g++ line of {BUILDS} built and ran examples/steps.cpp: {' '.join(words[:3])} ..."


def version():
    """One version, said alike by CMake's project(), config.hpp's macros and find_package in the
    pages; docs/reports.md's table of versions has its row, naming the schema json.hpp writes."""
    cmake = re.search(r"project\(warmup VERSION ([0-9.]+)", read("CMakeLists.txt")).group(1)
    config = read("include/warmup/config.hpp")
    parts = [re.search(rf"#define WARMUP_VERSION_{p} (\d+)", config).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    string = re.search(r'#define WARMUP_VERSION_STRING "([^"]+)"', config).group(1)
    assert cmake == ".".join(parts) == string, f"CMakeLists.txt says {cmake}, config.hpp {parts} and {string!r}"
    schema = re.search(r'json_schema = "([^"]+)"', read("include/warmup/json.hpp")).group(1)
    table = section(REPORTS, "### Versions and compatibility")
    rows = [l for l in table.split("\n") if l.startswith(f"| {string} ")]
    assert rows and f"`{schema}`" in rows[0], f"{REPORTS}'s versions table has no row for {string} naming {schema}"
    minor = ".".join(parts[:2])
    pages = ["README.md"] + [os.path.join("docs", n) for n in sorted(os.listdir(os.path.join(ROOT, "docs"))) if n.endswith(".md")]
    stale = [f"{p}: {m}" for p in pages for m in re.findall(r"find_package\(warmup ([0-9.]+)", read(p)) if m != minor]
    assert not stale, f"find_package(warmup X.Y) must ask for {minor}: {stale}"
    return f"version {string} in CMakeLists.txt, config.hpp and {REPORTS} ({schema}); find_package asks for {minor}"


def front_door():
    """The README's first screen says what the library is, how to install it and add it to a
    project (the two CMake ways apart, a Makefile), ten lines of use and the picture, before the
    quick start; the quick start's two commands stay (and .ci/run runs the test one); the
    folklore's tables live in their chapter; the snippet's whole program is a visible link; the
    scope tables name every constructor scope.hpp has; tools/test's packages are all named."""
    lines = README.split("\n")
    quick = next(i for i, l in enumerate(lines) if l.startswith("## Quick start"))
    first = "\n".join(lines[:quick])
    for what, text in (("the install commands", "cmake --install"), ("find_package", "find_package(warmup"),
                       ("add_subdirectory", "add_subdirectory("), ("the Makefile", "examples/make/Makefile"),
                       ("the use", "```cpp"), ("the picture", "![")):
        assert text in first, f"README.md's first screen (before ## Quick start) lacks {what} ({text!r})"
    assert quick < 90, f"README.md's quick start begins at line {quick + 1}: the first screen is too long"
    for body in re.findall(r"```cmake\n(.*?)```", README, re.S):
        assert not ("find_package(" in body and "add_subdirectory(" in body), (
            f"README.md joins find_package and add_subdirectory in one block, which fails pasted:\n{body}")
    for command in ("tools/demo", "tools/test"):
        assert re.search(rf"^{command} ", README, re.M), f"the quick start lost {command}"
    assert re.search(r"^\s*tools/test\b", read(".ci/run"), re.M), ".ci/run no longer runs tools/test"
    assert "| claim |" not in README, "the folklore's tables belong in docs/folklore.md"
    assert "| claim |" in read("docs/folklore.md"), "docs/folklore.md lost the folklore's tables"
    visible = re.sub(r"<!--.*?-->", "", README, flags=re.S)
    assert "](examples/using_it.cu)" in visible, "README.md has no visible link to examples/using_it.cu"
    # Every public constructor of scope<Op> (a name first) in both tables of constructors.
    scope = read("include/warmup/scope.hpp")
    ctors = set()
    for params in re.findall(r"^  (?:explicit )?scope\((std::string_view name[^)]*)\)", scope, re.M):
        ctors.add("(" + ", ".join(p.split()[-1] for p in params.split(",")) + ")")
    assert len(ctors) >= 5, ctors
    for page in ("README.md", BUILDS):
        missing = [c for c in sorted(ctors) if f"`{c}`" not in read(page)]
        assert not missing, f"{page}'s table of scopes leaves out the constructors {missing}"
    test = read("tools/test")
    packages = set()
    for group in re.findall(r"need\+=\(([^)]*)\)", test):
        packages.update(group.split())
    listed = README.split("<!-- tools/test's packages -->", 1)[1].split("\n\n", 1)[0]
    missing = sorted(p for p in packages if f"`{p}`" not in listed)
    assert not missing, f"README.md's list of what tools/test installs leaves out {missing}"
    return (f"README.md's first screen: install, both CMake ways apart, Makefile, use, picture; "
            f"{len(ctors)} constructors in both tables; tools/test's {len(packages)} packages named")


def troubleshooting():
    """Each message docs/troubleshooting.md quotes (the backticked text after 'Message') is text
    the code prints: found in include/ or cmake/, as written."""
    page = read("docs/troubleshooting.md")
    sources = []
    for top in ("include", "cmake"):
        for folder, _, names in os.walk(os.path.join(ROOT, top)):
            sources += [open(os.path.join(folder, n), encoding="utf-8").read() for n in names]
    code = "\n".join(sources)
    quoted = []
    for block in re.findall(r"^Message[^\n]*(?:\n[^\n]+)*", page, re.M):
        quoted += re.findall(r"`([^`]+)`", block)
    assert len(quoted) >= 6, f"docs/troubleshooting.md quotes only {quoted}"
    missing = [q for q in quoted if q not in code]
    assert not missing, f"docs/troubleshooting.md quotes messages the code does not print: {missing}"
    return f"{len(quoted)} messages quoted in docs/troubleshooting.md, each printed by the code"


# The names the pages' C++ blocks take from the reader's program, declared as that program would.
BLOCK_NAMES = """
#include <cstddef>
#include <iostream>
#include <vector>
static cudaStream_t stream;
static std::size_t bytes;
static float *d_in, *d_out, *d_bias;
static std::vector<float> h_in;
static int n, blocks, threads, argc;
static char** argv;
struct model_t { void forward(cudaStream_t); };
static model_t model;
void forward(cudaStream_t);
void bias_relu(float*, const float*, int);  // kernels: a launch is read as a call (see code_blocks)
void softmax(float*, int);
"""

FENCE = re.compile(r"^```([a-z+]*)\n(.*?)^```", re.S | re.M)
CPP = ("cpp", "c++", "cuda")


def doc_pages():
    """README.md and the chapters, path to text."""
    names = ["README.md"] + sorted(os.path.join("docs", n) for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md"))
    return {p: read(p) for p in names}


def fragment_of(text, start, body):
    """The file a block says it is a fragment of: `<!-- fragment of: PATH -->` or `<!-- snippet:
    PATH ... -->` on the line before its fence, or `// fragment of PATH` (C++) or `# fragment of
    PATH` (CMake) as its first line. None for a block that must compile."""
    before = text[:start].rstrip("\n").rsplit("\n", 1)[-1]
    m = re.match(r"<!-- (?:fragment of:|snippet:) (\S+)", before)
    first = body.split("\n", 1)[0]
    m = m or re.match(r"(?://|#) fragment of:? (\S+)", first)
    return m.group(1) if m else None


def built_files():
    """What the build compiles or configures: every file named (by its name, or a folder by its
    own) in a CMakeLists.txt, a .cmake file or a Makefile of the repository."""
    text = []
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in (".git", "build")]
        for n in names:
            if n in ("CMakeLists.txt", "Makefile") or n.endswith(".cmake"):
                text.append(open(os.path.join(folder, n), encoding="utf-8").read())
    return "\n".join(text)


def code_part(line, lang):
    """A line without its trailing comment and outer blanks, inner blanks made single."""
    line = re.sub(r"\s+#.*$" if lang == "cmake" else r"\s*//.*$", "", line)
    return " ".join(line.split())


def code_blocks(pages=None, compile_cpp=True):
    """Every C++ and CMake block of README.md and docs/*.md is compiled here or is a marked
    fragment of a file the build compiles. A fragment's file exists and is named by the build
    (a CMakeLists.txt, a .cmake file, a Makefile), and each of its C++ code lines, comments left
    out, is a line of that file: it cannot drift. The C++ blocks that are not fragments become
    functions of one translation unit (their #includes on top; a block that opens with a
    definition stays at namespace scope), after BLOCK_NAMES, compiled with g++ -fsyntax-only,
    -DWARMUP_LIGHT; a kernel launch is read as a call (`k<<<...>>>(args)` as `k(args)`): g++
    checks the rest. Every CMake block is parsed by `cmake -P` (inside if(FALSE): parsed, not
    run), each command it calls is one CMake has, each warmup:: target one the project makes;
    a CMake fragment's commands and targets are in its file (the pages' `app` is the reader's)."""
    pages = pages or doc_pages()
    built = built_files()
    includes, units, cmake_blocks, fragments, failures, skipped = [], [], [], 0, [], []
    # warmup/mpi.hpp needs MPI's headers: from mpicxx (tools/test installs it; without it, the
    # blocks that include mpi.hpp are left out and the result says so).
    mpi = []
    if shutil.which("mpicxx"):
        mpi = shlex.split(warmup_check.run_ok(["mpicxx", "--showme:compile"]).stdout)
    defines = set(re.findall(r"add_(?:library|executable)\((warmup::[\w-]+) ALIAS", read("CMakeLists.txt") +
                             read("cmake/warmupConfig.cmake.in")))
    for page, text in pages.items():
        for m in FENCE.finditer(text):
            lang, body = m.group(1), m.group(2)
            if lang not in CPP + ("cmake",):
                continue
            where = f"{page}:{text[:m.start()].count(chr(10)) + 1}"
            path = fragment_of(text, m.start(), body)
            if lang == "cmake":
                cmake_blocks.append((where, body))
            if path:
                fragments += 1
                if not os.path.isfile(os.path.join(ROOT, path)):
                    failures.append(f"{where}: a fragment of {path}, which does not exist")
                    continue
                name = os.path.basename(path) if not path.endswith("CMakeLists.txt") else os.path.basename(os.path.dirname(path))
                if name not in built:
                    failures.append(f"{where}: a fragment of {path}, which no CMakeLists.txt, .cmake file or Makefile builds")
                src = read(path)
                if lang == "cmake":
                    for call in re.findall(r"^\s*(\w+)\(", body, re.M):
                        if not re.search(rf"^\s*{call}\(", src, re.M | re.I):
                            failures.append(f"{where}: {path} does not call {call}(): the fragment drifted")
                    for target in set(re.findall(r"warmup::[\w-]+", body)) - set(re.findall(r"warmup::[\w-]+", src)):
                        failures.append(f"{where}: {path} does not use {target}: the fragment drifted")
                    continue
                have = {code_part(l, lang) for l in src.split("\n")}
                for l in body.split("\n"):
                    c = code_part(l, lang)
                    if c and c not in have:
                        failures.append(f"{where}: this line of the fragment is not in {path}: {l.strip()}")
                continue
            if lang == "cmake":
                continue
            lines = [l for l in body.split("\n")]
            if "#include <warmup/mpi.hpp>" in lines and not mpi:
                skipped.append(where)
                continue
            includes += [l for l in lines if l.startswith("#include")]
            code = "\n".join(l for l in lines if not l.startswith("#include"))
            code = re.sub(r"<<<[^;]*?>>>", "", code)
            n = len(units)
            first = next((l for l in code.split("\n") if l.strip() and not l.strip().startswith("//")), "")
            at_top = re.match(r"^(?:template\s*<.*>\s*)?[A-Za-z_][\w:<>,\s\*&]*\s[\*&]?\w+\([^;]*$", first)
            units.append(f"// {where}\n" + (f"namespace block_{n} {{\n#line 1 \"{where}\"\n{code}\n}}\n" if at_top else
                                              f"void block_{n}() {{\n#line 1 \"{where}\"\n{code}\n}}\n"))
    assert units or fragments, "no C++ block found: the search is broken"
    with tempfile.TemporaryDirectory() as tmp:
        tu = os.path.join(tmp, "blocks.cpp")
        with open(tu, "w", encoding="utf-8") as f:
            f.write("#include <cuda_runtime.h>\n" + "\n".join(dict.fromkeys(includes)) + "\n" + BLOCK_NAMES + "\n".join(units))
        cxx = os.environ.get("CXX", "g++")
        proc = warmup_check.run(["true"]) if not compile_cpp else warmup_check.run([cxx, "-fsyntax-only", "-std=c++17", "-DWARMUP_LIGHT", "-I", os.path.join(ROOT, "include"),
                                 "-isystem", "/usr/local/cuda/include", *mpi, tu], timeout=300)
        if proc.returncode != 0:
            failures.append("these blocks do not compile (g++ -fsyntax-only):\n" + (proc.stdout + proc.stderr)[-3000:])
        script = os.path.join(tmp, "blocks.cmake")
        with open(script, "w", encoding="utf-8") as f:
            f.write("if(FALSE)\n" + "\n".join(b for _, b in cmake_blocks) + "\nendif()\n")
        proc = warmup_check.run(["cmake", "-P", script])
        if proc.returncode != 0:
            failures.append("the CMake blocks do not parse (cmake -P):\n" + proc.stdout + proc.stderr)
        known = set(warmup_check.run_ok(["cmake", "--help-command-list"]).stdout.split())
    for where, body in cmake_blocks:
        for call in re.findall(r"^\s*(\w+)\(", body, re.M):
            if call.lower() not in known:
                failures.append(f"{where}: CMake has no command {call}()")
        for target in set(re.findall(r"warmup::[\w-]+", body)) - defines:
            failures.append(f"{where}: the project makes no target {target}")
    assert not failures, "\n".join(failures)
    return (f"{len(units)} C++ blocks compiled in one file, {len(cmake_blocks)} CMake blocks parsed, "
            f"{fragments} marked fragments found in the files they name" +
            (f"; left out without mpicxx: {', '.join(skipped)}" if skipped else ""))


def code_blocks_catches():
    """code_blocks fails on a broken block, a drifted fragment and a CMake block naming no target."""
    planted = {
        "a call that does not compile": ("```cpp\nwarmup::print(warmup::snapshot(), 42);\n```\n"),
        "a drifted fragment": ("<!-- fragment of: examples/make/warmup_runtime.cpp -->\n```cpp\n#include <warmup/runtim.hpp>\n```\n"),
        "a target the project does not make": ("```cmake\ntarget_link_libraries(app PRIVATE warmup::warmp)\n```\n"),
    }
    for what, block in planted.items():
        pages = doc_pages()
        pages["docs/planted.md"] = block
        try:
            code_blocks(pages, compile_cpp="cpp\nwarmup::print" in block)  # one compile: the time is g++'s
        except AssertionError as e:
            print(f"caught {what}: {str(e).splitlines()[0]}")
            continue
        raise AssertionError(f"code_blocks passed a page with {what}")
    return f"code_blocks caught all {len(planted)} planted faults"


# A measured figure: a number with a unit of time or size, or a ratio (1.49x, 1.3 to 1.4 times).
# (A product, `4 × 4096`, and a count, `64 times`, are not figures: a ratio is `1.49x`, `1.3 times`.)
FIGURE = re.compile(r"(?<![\w.^/])\d+(?:[.,]\d+)?(?:\s?(?:to|-|–)\s?\d+(?:\.\d+)?)?"
                    r"(?:\s?(?:ns|us|µs|ms|s|KB|kB|MB|GB|KiB|MiB|GiB)(?![\w/])|x(?![\w/])|(?<=\.\d) times\b|(?<=\.\d\d) times\b)")
# Where measured figures live; a paragraph that cites one may quote its figures, which must be there.
FIGURE_HOMES = ("BENCHMARKS.md", "docs/folklore.md")
# Figures that are specifications, not measurements: a setting's range or default, a limit the
# code keeps, a threshold it applies. (page, figure, reason); "*" for any page.
SPECIFICATIONS = [
    ("*", "1 MiB", "device memory worth reading (detail/io/table_writer.hpp's device_memory_worth_reading)"),
    ("*", "1 ms", "WARMUP_IDLE_MS's least value and WARMUP_CPU_SAMPLING's `on` interval (settings.hpp)"),
    ("*", "1 s", "WARMUP_IDLE_MS's default and WARMUP_CPU_SAMPLING's greatest interval (settings.hpp)"),
    ("*", "100 us", "WARMUP_CPU_SAMPLING's least interval (settings.hpp)"),
    ("*", "64 GiB", "the MPI gather's bound: counts in 32-byte units within an int (mpi.hpp)"),
    ("docs/environment.md", "1 to 3600000 ms", "WARMUP_IDLE_MS's range"),
    ("docs/ranks-and-runs.md", "1 us", "compare's default --floor"),
    ("docs/ranks-and-runs.md", "50 us", "compare's default --first-floor"),
    ("docs/try.md", "50 us", "try's floor on a difference of medians (tools/warmup-report/try_verdict.hpp)"),
    ("docs/prewarm.md", "30 s", "warmup_until_steady's default max_time"),
    ("docs/testing.md", "45 s", "tools/mutation's bound on a covering test's clean time (run.py)"),
    ("docs/testing.md", "10 s", "tools/mutation's margin over twice a test's clean time before it counts as hung (run.py)"),
    ("docs/ranks-and-runs.md", "308 MiB", "10^4 ranks x 32,256 bytes, the wire format's size"),
    ("docs/behaviour.md", "300 ms", "the no-synchronisation test's busy kernel, an input"),
    ("include/warmup/settings.hpp", "2 ns", "what a scope may cost after disable(): the promise BENCHMARKS.md's target checks"),
    ("include/warmup/detail/io/table_writer.hpp", "2 MiB", "the driver's page of device memory, a fact of the driver"),
    ("include/warmup/detail/runtime/time_base.hpp", "20 us", "the slack the clock pairing allows, a setting"),
    ("include/warmup/detail/runtime/time_base.hpp", "10 us", "the least gap between clock pairs, a setting"),
    ("docs/ranks-and-runs.md", "64 MiB", "the NCCL example's all-reduce size, an input"),
    ("docs/ranks-and-runs.md", "256 KiB", "the NCCL example's small all-reduce size, an input"),
    ("docs/reading-the-report.md", "100 ms", "the host-clock test's scope, an input"),
    ("docs/nvtx-tool.md", "1 MB", "the misbehaving program's range name (tests/nvtx_tool/c_program.c), an input"),
    ("docs/nvtx-tool.md", "10 MB", "device time's table: 2^18 entries of 40 bytes (nvtx_tool/device_calls.hpp's table_size, call_entry)"),
    ("docs/reading-the-report.md", "2 ms", "a synthetic series' values (tests/host/test_statistics.cpp), an input"),
    ("docs/reading-the-report.md", "1.5x", "a synthetic series' second mode, an input"),
    ("docs/reading-the-report.md", "40x", "a synthetic series' injected warm-up, an input"),
    ("docs/reading-the-report.md", "16x", "a synthetic series' injected warm-up, an input"),
    ("docs/reading-the-report.md", "5x", "a synthetic series' injected warm-up under the Pareto tail, an input"),
    ("docs/reports.md", "20 ms", "the example program's first step sleeps that long, an input"),
    ("docs/reports.md", "200 ms", "the exit test's kernel, an input"),
    ("docs/reports.md", "4 KiB", "the longest site name kept (max_name_bytes)"),
    ("*", "128 KiB", "a sampled call's buffer: 4096 samples of 32 bytes (cpu_samples.hpp's sample_buffer::capacity)"),
    ("docs/why-slow.md", "50 ms", "the code sampler's poll for new threads and child processes (python/code_sampler.hpp's poll_period)"),
    ("docs/behaviour.md", "50 ms", "the code sampler's poll for new threads and child processes (python/code_sampler.hpp's poll_period)"),
    ("docs/why-slow.md", "256 KiB", "a sampled first call's two buffers, its own and its other threads' (cpu_samples.hpp)"),
    ("docs/why-slow.md", "4 MiB", "the run's CPU sample store: 65536 samples of 64 bytes (cpu_samples.hpp's sample_store_cap)"),
    ("docs/why-slow.md", "2 MiB", "the run's code sample store: 65536 of 32 bytes (cause_store.hpp's code_cap)"),
    ("docs/why-slow.md", "4 ms", "the code samples' first thinned gap, twice the module's 2 ms period (cause_store.hpp's thin_code), a setting"),
    ("docs/why-slow.md", "8 ms", "the code samples' second thinned gap (cause_store.hpp's thin_code), a setting"),
    ("include/warmup/detail/runtime/cause_store.hpp", "4 ms", "thin_code's first gap, a setting"),
    ("docs/why-slow.md", "1.3 s", "the thinning test's first call (tests/sampling/test_sampler_ownership.cpp), an input"),
    ("docs/behaviour.md", "5 s", "the longest wait for another process's lock on a report's folder (report_destinations.hpp's folder_lock), a setting"),
    ("include/warmup/detail/io/report_destinations.hpp", "5 s", "folder_lock's longest wait, a setting"),
    ("include/warmup/detail/io/path_target.hpp", "10 s", "write_all's longest wait on a full descriptor that does not block, a setting"),
    ("docs/reports.md", "100 MB", "a hostile name's size, an input"),
    ("docs/why-slow.md", "300 ms", "the EINTR test's poll, an input"),
    ("docs/why-slow.md", "40 ms", "the CPU-timer test's busy call, an input"),
    ("docs/why-slow.md", "2 ms", "the code sampler's period (python/code_sampler.hpp), a setting"),
    ("docs/why-slow.md", "5 ms", "Python's default switch interval (sys.getswitchinterval), a fact of Python"),
    ("docs/why-slow.md", "20 ms", "code_view::reach_ns, a setting"),
    ("include/warmup/detail/analysis/code_samples.hpp", "5 ms", "Python's default switch interval, a fact of Python"),
    # Arithmetic on the code's own sizes, not measurements:
    ("docs/ranks-and-runs.md", "3 GiB", "10^5 ranks x 32,256 bytes of wire format, the plan's arithmetic"),
    ("docs/ranks-and-runs.md", "1.5 GiB", "10^5 ranks x 200 sites of per-rank figures, the plan's arithmetic"),
    ("include/warmup/mpi.hpp", "32.25 KiB", "256 + 200 x 160 bytes, the wire format's size"),
    ("include/warmup/detail/record/log_histogram.hpp", "1.5 KiB", "three blocks of 64 8-byte counters"),
    ("include/warmup/detail/runtime/cause_store.hpp", "8 MiB", "2^18 records of 32 bytes"),
    ("include/warmup/detail/analysis/cpu_samples.hpp", "4 s", "4096 samples at 1 ms"),
    ("include/warmup/detail/analysis/cpu_tick_source.hpp", "4 ms", "1/250 s, the kernel's tick at HZ=250"),
    ("include/warmup/detail/record/recurrence.hpp", "0.2 to 1 ms", "2^20 ticks at 1 to 5 GHz"),
    ("include/warmup/detail/runtime/settings-inl.hpp", "172 GB", "what 2^32 - 1 timeline calls would ask a site for"),
    ("include/warmup/detail/io/trace_writer.hpp", "100 s", "an example of a time in a run, for the format's precision"),
    ("include/warmup/detail/runtime/registry.hpp", "4 KiB", "the longest site name kept (max_name_bytes)"),
    ("include/warmup/detail/runtime/registry.hpp", "100 MB", "a hostile name's size, the input that made the limit"),
]


def prose_paragraphs(path, text):
    """(line, text) of each paragraph of prose: in markdown, what is outside fenced blocks, a
    table row being a paragraph of its own, with the heading it is under; in a header, each block
    of comment lines. Quoted or backticked text (an example of output, a spelling) and comment
    lines indented as code are left out: they show a format, not a measurement."""
    out, cur, start, fence, heading = [], [], 0, False, ""

    def close():
        if cur:
            body = re.sub(r'"[^"]*"|`[^`]*`', "", "\n".join(cur))
            out.append((start, heading, body))
            cur.clear()
    for i, line in enumerate(text.split("\n"), 1):
        if path.endswith(".hpp"):
            m = re.search(r"//[/!<]*\s?(.*)$", line)
            if m and re.match(r"\s*\\code", m.group(1)):
                fence = True
            if m and re.match(r"\s*\\endcode", m.group(1)):
                fence = False
                continue
            if m and not fence and not re.match(r"\s{4,}\S|\s{2,}\S.*(;|//)", m.group(1)):
                start = start if cur else i
                cur.append(m.group(1))
            else:
                close()
            continue
        if line.startswith("```"):
            fence = not fence
            close()
        elif fence:
            continue
        elif line.startswith("#"):
            close()
            heading = line
        elif line.startswith("|"):
            close()
            start = i
            cur.append(line)
            close()
        elif line.strip():
            start = start if cur else i
            cur.append(line)
        else:
            close()
    close()
    return out


def home_sections(path):
    """A home's text by section anchor, each with the sections under it, blanks and bold marks
    made plain; "" for what a link without an anchor cites: BENCHMARKS.md's today's figures and
    the figures the code's comments cite, or the whole of docs/folklore.md."""
    text = " ".join(read(path).replace("**", "").split(" "))
    heads = [(m.start(), len(m.group(1)), slug(m.group(2))) for m in re.finditer(r"^(#+) +(.*?) *$", text, re.M)]
    out = {}
    for i, (start, level, anchor) in enumerate(heads):
        end = next((s for s, l, _ in heads[i + 1:] if l <= level), len(text))
        out[anchor] = " ".join(text[start:end].split())
    out[""] = (out.get("todays-figures", "") + " " + out.get("figures-the-codes-comments-cite", "")
               if path == "BENCHMARKS.md" else " ".join(text.split()))
    return out


def figure_pages():
    pages = ["README.md"] + sorted(os.path.join("docs", n) for n in os.listdir(os.path.join(ROOT, "docs"))
                                   if n.endswith(".md") and n != "folklore.md")
    for folder, _, names in os.walk(os.path.join(ROOT, "include")):
        pages += sorted(os.path.relpath(os.path.join(folder, n), ROOT) for n in names if n.endswith(".hpp"))
    return {p: read(p) for p in pages}


def figures(pages=None):
    """A measured figure lives in one place: BENCHMARKS.md, or docs/folklore.md for the folklore.
    In README.md, docs/*.md and the headers' comments a figure (a time, a size, a ratio) is in a
    paragraph that cites one of those, and is a figure of that file; or it is a specification
    (SPECIFICATIONS). An experiment's figures are in BENCHMARKS.md's Experiments; its page keeps
    the method and what the figures say."""
    pages = pages or figure_pages()
    homes = {h: home_sections(h) for h in FIGURE_HOMES}
    spec = {(p, f) for p, f, _ in SPECIFICATIONS}
    bad, checked = [], 0
    for page, text in pages.items():
        for line, heading, para in prose_paragraphs(page, text):
            # The sections the paragraph cites (a link's #anchor; without one, a home's current
            # figures): a figure of the history of runs, cited as today's, is stale.
            cited, where = [], []
            for h in FIGURE_HOMES:
                links = re.findall(re.escape(os.path.basename(h)) + r"(#[\w-]+)?", para)
                if links:
                    cited.append(h)
                    where += [homes[h].get(a[1:], "") if a else homes[h][""] for a in links]
            for m in FIGURE.finditer(para):
                figure = " ".join(m.group(0).split())
                checked += 1
                if ("*", figure) in spec or (page, figure) in spec:
                    continue
                if page.endswith(".hpp"):
                    # A header holds code and the why of it; its figures would go stale beside a
                    # benchmark that moves, so it names the section and quotes nothing.
                    bad.append(f"{page}:{line}: {figure!r}, a measured figure in a header: say what "
                               "BENCHMARKS.md measures and where, without the figure")
                    continue
                if cited:
                    if not any(figure in w for w in where):
                        bad.append(f"{page}:{line}: {figure!r} is not a figure of the sections of {' or '.join(cited)} "
                                   "the paragraph cites")
                    continue
                bad.append(f"{page}:{line}: {figure!r}, a measured figure outside {' and '.join(FIGURE_HOMES)}: "
                           "link to its home instead (or, if it is a setting or a limit, add it to SPECIFICATIONS)")
    for page, text in pages.items():
        if page.endswith(".hpp"):
            for m in re.finditer(r"\b[Ii]ssues? #?\d+", text):
                bad.append(f"{page}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}: a header holds code "
                           "and its reasons, not history; the issue belongs in docs/ or the commit message")
    assert checked, "no figure found: the search is broken"
    assert not bad, f"{len(bad)} figures out of place:\n" + "\n".join(bad)
    return f"{checked} figures in {len(pages)} pages and headers, each cited from its home or a specification"


def figures_catches():
    """figures fails on a stale copy of a benchmark's figure, on a figure with no home, and on a
    header that quotes a figure or an issue."""
    planted = {
        "a stale copy of a cited figure": "A light file compiles in 0.76 s ([BENCHMARKS.md](../BENCHMARKS.md)).\n",
        "a figure with no home": "A host-timed scope costs 1.3 to 1.4 times two reads of the counter.\n",
        "a header quoting a cited figure": "/// A light file compiles in 0.75 s (BENCHMARKS.md).\nint x;\n",
        "a header's history": "/// Kept apart since issue 35.\nint x;\n",
    }
    for what, paragraph in planted.items():
        pages = figure_pages()
        pages["include/warmup/planted.hpp" if paragraph.startswith("///") else "docs/planted.md"] = paragraph
        try:
            figures(pages)
        except AssertionError as e:
            print(f"caught {what}: {str(e).splitlines()[-1]}")
            continue
        raise AssertionError(f"figures passed a page with {what}")
    return f"figures caught all {len(planted)} planted figures"


REMEDIES = "docs/remedies.md"  # the table of remedies in words


def remedy_sources():
    """remedy.hpp's rows as (name, source); remedy_figures.cpp's quotes as name -> figures."""
    table = read("include/warmup/remedy.hpp")
    rows = re.split(r"\{remedy::", table.split("remedy_table[] = {", 1)[1].split("\n};", 1)[0])[1:]
    sources = [(r.split(",", 1)[0], re.findall(r'"((?:docs/folklore\.md|BENCHMARKS\.md): [^"]*)"', r)[-1]) for r in rows]
    quoted = dict(re.findall(r'case remedy::(\w+): return "([^"]*)";', read("tools/warmup-report/remedy_figures.cpp")))
    return sources, quoted


def remedy_row_text(source):
    """The text a remedy's source names: docs/folklore.md's table row whose claim begins with the
    words after the colon, or BENCHMARKS.md's section of that heading."""
    page, words = source.split(": ", 1)
    if page == "BENCHMARKS.md":
        return section("BENCHMARKS.md", "### " + words)
    rows = [l for l in read(page).split("\n") if l.startswith("| ") and words in l.split("|")[1]]
    assert len(rows) == 1, f"{source}: {len(rows)} rows of {page} have that claim (one expected)"
    return rows[0]


def remedies(quoted=None):
    """What warmup-report says a remedy did on our examples is a figure of the row the remedy
    names as its source, every number of it; every remedy has its quote (empty: not measured)
    and its row in docs/remedies.md's table."""
    sources, found = remedy_sources()
    quoted = found if quoted is None else quoted
    documented = section(REMEDIES, "## The remedies")
    bad = []
    for name, source in sources:
        if name not in quoted:
            bad.append(f"{name}: no quote in tools/warmup-report/remedy_figures.cpp")
            continue
        row = remedy_row_text(source)
        for figure in re.findall(r"\d+(?:\.\d+)?", quoted[name]):
            if not re.search(rf"(?<![\d.]){re.escape(figure)}(?![\d]|\.\d)", row):
                bad.append(f"{name}: {figure} (in {quoted[name]!r}) is not a figure of {source}")
        if f"| `{name}` |" not in documented:
            bad.append(f"{name}: no row of {REMEDIES}'s table")
    assert sources, "no remedy found in remedy.hpp: the search is broken"
    assert not bad, "the remedies' figures or rows are out of step:\n" + "\n".join(bad)
    return f"{len(sources)} remedies, each quoting figures of its source row and in {REMEDIES}"


def remedies_catches():
    """remedies fails on a quoted figure its row does not hold (a stale copy)."""
    _, quoted = remedy_sources()
    stale = dict(quoted, prewarm_pool=quoted["prewarm_pool"].replace("7.6", "7.9"))
    try:
        remedies(stale)
    except AssertionError as e:
        assert "7.9" in str(e), e
        return "remedies caught a stale figure: " + str(e).splitlines()[-1]
    raise AssertionError("remedies passed a stale figure")


def key_paths(value, prefix=""):
    """Every key of a JSON value, as dotted paths, lists looked into."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield prefix + k
            yield from key_paths(v, prefix + k + ".")
    elif isinstance(value, list):
        for v in value:
            yield from key_paths(v, prefix)


def schema(program):
    """Every key the library writes is in the report's schema (docs/reports.md, warmup.report/3
    alone: the merged and compare schemas after it do not count), and the CSV's columns are the
    JSON site fields' dotted paths (lists left out), in order."""
    doc = json.loads(warmup_check.run_ok([program, "4", "json"]).stdout)
    block = section(REPORTS, "## JSON schema `warmup.report/3`", "### Merged reports")
    documented = set(re.findall(r'"([a-z0-9_]+)"', block))
    missing = sorted({p.rsplit(".", 1)[-1] for p in key_paths(doc)} - documented)
    assert not missing, f"{REPORTS}'s JSON schema omits {missing}"
    assert doc["schema"] in block, doc["schema"]

    def leaves(value, prefix=""):
        for k, v in value.items():
            if isinstance(v, dict):
                yield from leaves(v, prefix + k + ".")
            elif not isinstance(v, list):
                yield prefix + k
    site = next(s for s in doc["sites"] if s["device"] and s["bytes"] and s["host"]["steady"])
    header = next(csv.reader(io.StringIO(warmup_check.run_ok([program, "4", "csv"]).stdout)))
    assert header == list(leaves(site)), f"CSV header {header}\nJSON site fields {list(leaves(site))}"
    return f"{len(documented)} keys in {REPORTS}'s schema cover the report's; {len(header)} CSV columns are its site fields"


def headers():
    """Every public header is named in profile.hpp's list and in the layout (docs/scopes-and-builds.md)."""
    include = os.path.join(ROOT, "include", "warmup")
    names = sorted(n for n in os.listdir(include) if n.endswith(".hpp") and n != "profile.hpp")
    umbrella = open(os.path.join(include, "profile.hpp"), encoding="utf-8").read()
    layout = section(BUILDS, "## Layout")
    for where, text in (("profile.hpp", umbrella.split("#pragma once")[0]), (f"{BUILDS}'s Layout", layout)):
        missing = [n for n in names if n not in text]
        assert not missing, f"{where} does not name {missing}"
    # Headers of an optional target (cublas.hpp: warmup::cublas, mpi.hpp: warmup::mpi) are named,
    # never included: the umbrella must compile with warmup::warmup alone. Nor are the headers
    # that read reports instead of measuring: every instrumented file would compile them.
    # runtime.hpp includes the umbrella: it compiles the runtime for files built light.
    optional = {"cublas.hpp", "mpi.hpp", "read.hpp", "remedy.hpp", "merge.hpp", "merge_formats.hpp", "compare.hpp", "compare_formats.hpp",
                "runtime.hpp"}
    missing = [n for n in names if f'#include "warmup/{n}"' not in umbrella and n not in optional]
    assert not missing, f"profile.hpp does not include {missing}"
    included = [n for n in optional if f'#include "warmup/{n}"' in umbrella]
    assert not included, f"profile.hpp includes the optional {included}"
    # The ground of detail/ (the files beside its layers) in both maps of the headers, and every
    # folder of examples/ in the Layout; design.md points at examples/make/ for a light build.
    ground = sorted(n for n in os.listdir(os.path.join(include, "detail")) if n.endswith(".hpp"))
    design = section("docs/design.md", "## Layers")
    for where, text in ((f"{BUILDS}'s Layout", layout), ("docs/design.md's Layers", design)):
        missing = [n for n in ground if n not in text]
        assert not missing, f"{where} does not name detail/{missing}"
    folders = sorted(n for n in os.listdir(os.path.join(ROOT, "examples")) if os.path.isdir(os.path.join(ROOT, "examples", n)))
    missing = [n for n in folders if f"{n}/" not in layout]
    assert not missing, f"{BUILDS}'s Layout does not name examples/{missing}"
    assert "examples/make/" in design, "docs/design.md's Layers does not point at examples/make/"
    return (f"{len(names)} public headers, each named in profile.hpp and {BUILDS}'s Layout; detail/'s "
            f"{len(ground)} own headers in both maps; examples/' {len(folders)} folders in the Layout")


def variables_read():
    """Every environment variable the headers and tools read, with where: std::getenv and the
    readers the headers pass it to (`get`, `on_off`, the launchers' table of rank variables,
    settings.hpp's list of known WARMUP_* names); in the tools, a shell expansion or Python's
    os.environ / os.getenv. Comments are left out: a name mentioned is not a name read."""
    found = {}

    def files(top):
        for folder, _, names in os.walk(os.path.join(ROOT, top)):
            for n in sorted(names):
                yield os.path.join(folder, n)

    cpp_reads = [r'\bgetenv\(\s*"([A-Z][A-Z0-9_]*)"', r'\b(?:get|on_off)\(\s*"(WARMUP_[A-Z0-9_]+)"',
                 r'\{\s*setting::\w+,\s*"(WARMUP_[A-Z0-9_]+)"',  # settings.hpp's setting_table
                 r'#define\s+WARMUP_DETAIL_\w+_VARIABLE\s+"([A-Z][A-Z0-9_]*)"']  # names the runtime passes to getenv
    for path in files("include"):
        if not path.endswith((".hpp", ".h", ".cpp")):
            continue
        text = re.sub(r"//[^\n]*", "", open(path, encoding="utf-8").read())
        for pattern in cpp_reads:
            for name in re.findall(pattern, text):
                found.setdefault(name, os.path.relpath(path, ROOT))
        # The launchers' rank variables: rows of {"launcher", "RANK", "LOCAL_RANK", "SIZE"}.
        for row in re.findall(r'\{\s*"[^"]+",\s*"([A-Z_]+)",\s*"([A-Z_]+)",\s*"([A-Z_]+)"\s*\}', text):
            for name in row:
                found.setdefault(name, os.path.relpath(path, ROOT))
    for path in files("tools"):
        try:
            text = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        if path.endswith((".cpp", ".hpp")):
            text = re.sub(r"//[^\n]*", "", text)
            names = re.findall(r'\bgetenv\(\s*"([A-Z][A-Z0-9_]*)"', text)
        else:
            text = re.sub(r"(?m)^\s*#[^\n]*", "", text)
            names = re.findall(r"\$\{?(WARMUP_[A-Z0-9_]+)", text)
            names += re.findall(r'os\.(?:environ\.get\(|environ\[|getenv\()\s*"([A-Z][A-Z0-9_]*)"', text)
        for name in names:
            found.setdefault(name, os.path.relpath(path, ROOT))
    return found


def setting_rows():
    """settings.hpp's setting_table, one dict per row (the fields the docs state)."""
    text = re.sub(r"//[^\n]*", "", read(os.path.join("include", "warmup", "settings.hpp")))
    rows = []
    field = {"id": r"setting::(\w+)", "text": r'"([^"]*)"', "kind": r"value_kind::(\w+)", "n": r"([-\d']+)",
             "reader": r"read_by::(\w+)"}
    shape = ["id", "text", "kind", "n", "n", "n", "text", "n", "text", "reader", "text"]
    for m in re.finditer(r"\{" + r",\s*".join(field[f] for f in shape), text):
        num = lambda t: int(t.replace("'", ""))  # noqa: E731
        rows.append(dict(id=m[1], variable=m[2], kind=m[3], lo=num(m[4]), hi=num(m[5]), on=num(m[6]), words=m[7],
                         fallback=num(m[8]), what=m[9], reader=m[10], function=m[11]))
    ids = re.search(r"enum class setting : std::uint8_t \{([^}]*)\}", text)
    assert ids and [r["id"] for r in rows] == re.findall(r"\w+", ids[1]), \
        "settings.hpp: setting_table's rows were not all read (a row of another shape?)"
    return rows


def setting_documented(row, line):
    """What docs/environment.md's line of a setting must say, from its row: the range, the
    default, the choices, the function (or none) and, for the NVTX tool's, who reads it."""
    cells = [c.strip() for c in line.split("|")[1:-1]]
    values, from_code = cells[1], cells[3]
    wrong = []
    if row["kind"] in ("number", "on_off_or_number") and f"{row['lo']} to {row['hi']}" not in values:
        wrong.append(f"its range {row['lo']} to {row['hi']}")
    if row["kind"] == "choice":
        words = row["words"].split(",")
        wrong += [f"the choice `{w}`" for w in words if f"`{w}`" not in values]
        if f"(`{words[row['fallback']]}`" not in values:
            wrong.append(f"its default (`{words[row['fallback']]}`)")
    if row["kind"] == "number" and f"({row['fallback']})" not in values:
        wrong.append(f"its default ({row['fallback']})")
    if row["kind"] in ("on_off", "on_off_or_number") and row["fallback"] in (0, 1) and \
            ("(off)" if row["fallback"] == 0 else "(on)") not in values:
        wrong.append("its default, " + ("(off)" if row["fallback"] == 0 else "(on)"))
    if row["function"] and f"`{row['function']}(" not in from_code:
        wrong.append(f"its function `{row['function']}()` under \"from code\"")
    if not row["function"] and not from_code.startswith("none"):
        wrong.append("\"none\" under \"from code\" (it has no function)")
    if row["reader"] == "nvtx_tool" and "NVTX tool" not in line:
        wrong.append("that the NVTX tool reads it")
    return wrong


def environment():
    """docs/environment.md's table names every variable the code reads, and only those; each
    setting's line says what its row in settings.hpp does (setting_documented)."""
    text, _, tools_text = read(ENVIRONMENT).partition("## Read by the repository's tools")
    rows = [l for l in text.split("\n") if l.startswith("| `")]
    tools_rows = [l for l in tools_text.split("\n") if l.startswith("| `")]
    # The library's table holds what the library reads; the tools' own variables, which the
    # library names as unknown, stand apart (a program run with them set would warn).
    library = {n for n, where in variables_read().items() if where.startswith("include")}
    for row in tools_rows:
        for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", row.split("|")[1]):
            assert name not in library, f"{ENVIRONMENT} lists {name}, which the library reads, among the tools'"
    for row in rows:
        for name in re.findall(r"`(WARMUP_[A-Z0-9_]*)`", row.split("|")[1]):
            assert name in library, (f"{ENVIRONMENT}'s table of the library's variables lists {name}, which the library "
                                     "does not read (and names as unknown): it belongs with the tools'")
    setter = re.search(r"a function that sets the same thing from code[^.]*\.", text, re.S)
    assert setter, f"{ENVIRONMENT} no longer says where each variable's function is"
    elsewhere = re.findall(r"`(\w+)` \(for `WARMUP_\w+`\), which is in `(\w+\.hpp)`", " ".join(text.split()))
    assert elsewhere, setter.group(0)
    for fn, header in elsewhere:
        code = lambda h: re.sub(r"//[^\n]*", "", read(os.path.join("include", "warmup", h)))  # noqa: E731
        assert re.search(rf"\b{fn}\(", code(header)), f"{fn} is not in {header}"
        assert not re.search(rf"\b{fn}\(", code("settings.hpp")), f"{fn} is in settings.hpp after all"
    rows += tools_rows
    assert rows, f"{ENVIRONMENT} has no table of variables"
    documented = {}
    for row in rows:
        first = row.split("|")[1]
        for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", first):
            assert name not in documented, f"{ENVIRONMENT} lists {name} twice"
            documented[name] = row
    read_by_code = variables_read()
    assert any(n.startswith("WARMUP_") for n in read_by_code), "found no WARMUP_* variable read: the search is broken"
    missing = sorted(f"{n} (read in {read_by_code[n]})" for n in read_by_code if n not in documented)
    assert not missing, f"{ENVIRONMENT} does not list {missing}"
    unread = sorted(n for n in documented if n not in read_by_code)
    assert not unread, f"{ENVIRONMENT} lists {unread}, which neither the headers nor the tools read"
    table = setting_rows()
    for row in table:
        assert row["variable"] in documented, f"{ENVIRONMENT} has no line for {row['variable']}"
        wrong = setting_documented(row, documented[row["variable"]])
        assert not wrong, f"{ENVIRONMENT}'s line for {row['variable']} does not state " + ", ".join(wrong)
    warmup = sorted(n for n in documented if n.startswith("WARMUP_"))
    return (f"{len(documented)} variables in {ENVIRONMENT}, each read by the code ({', '.join(warmup)}, ...), none "
            f"missing; the {len(table)} rows of settings.hpp's setting_table each stated as its row says")


def environment_catches():
    """setting_documented fails on a line that states another range, default, function or reader."""
    rows = {r["variable"]: r for r in setting_rows()}
    lines = {r: l for l in read(ENVIRONMENT).split("\n") if l.startswith("| `WARMUP_")
             for r in re.findall(r"`(WARMUP_[A-Z0-9_]+)`", l.split("|")[1])}
    assert not setting_documented(rows["WARMUP_IDLE_MS"], lines["WARMUP_IDLE_MS"])
    planted = [("WARMUP_IDLE_MS", "3600000", "360000"), ("WARMUP_IDLE_MS", "(1000)", "(100)"),
               ("WARMUP_TIMELINE_CALLS", "`set_timeline_calls()`", "`timeline_calls()`"),
               ("WARMUP_DEVICE_SAMPLING", "(`adaptive`)", "(`every_call`)"), ("WARMUP_ATTRIBUTION", "(off)", "(on)"),
               ("WARMUP_CLOCK", "none: read once", "`set_clock()`"), ("WARMUP_NVTX_NEXT", "NVTX tool", "program")]
    for name, old, new in planted:
        assert old in lines[name], (name, old)
        if not setting_documented(rows[name], lines[name].replace(old, new)):
            raise AssertionError(f"environment passed a planted fault: {name}'s line with {old!r} as {new!r}")
    return f"setting_documented fails on each of {len(planted)} planted faults"


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation but '-' and spaces dropped, spaces
    to '-'. Markdown's code and emphasis marks are punctuation too."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text):
    """The anchors of a markdown file's headings (outside fenced blocks), with GitHub's -1, -2
    for repeats."""
    seen, out, fence = {}, set(), False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^#{1,6} +(.*?) *#*$", line)
        if m:
            a = slug(m.group(1))
            out.add(a if a not in seen else f"{a}-{seen[a]}")
            seen[a] = seen.get(a, 0) + 1
    return out


def links():
    """Every relative link of README.md, BENCHMARKS.md and docs/*.md leads to a file that exists,
    and its #anchor, if any, to a heading of that file."""
    pages = ["README.md", "BENCHMARKS.md"] + sorted(
        os.path.join("docs", n) for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md"))
    count, bad = 0, []
    for page in pages:
        text = read(page)
        prose = re.sub(r"(?ms)^```.*?^```", "", text)        # code blocks hold no links
        prose = re.sub(r"`[^`\n]*`", "", prose)               # nor does inline code
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):    # http:, https:, mailto:
                continue
            count += 1
            path, _, anchor = target.partition("#")
            file = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(os.path.join(ROOT, file)):
                bad.append(f"{page}: ({target}): no file {file}")
            elif anchor and file.endswith(".md") and anchor not in anchors(read(file)):
                bad.append(f"{page}: ({target}): no heading of {file} has the anchor #{anchor}")
    assert not bad, "broken links:\n" + "\n".join(bad)
    assert count > 0, "no relative link found: the search is broken"
    return f"{count} relative links in {len(pages)} pages, each to a file and heading that exist"


def project_files():
    r = subprocess.run(["git", "-C", ROOT, "ls-files"], stdout=subprocess.PIPE, text=True)
    listed = r.stdout.split() if r.returncode == 0 else []
    if not listed:  # not a git checkout: the files on disk
        listed = [os.path.relpath(os.path.join(d, f), ROOT) for d, _, fs in os.walk(ROOT) if "/build" not in d
                  and "/.git" not in d for f in fs]
    return listed


def design_files(text=None):
    """docs/design.md says what is so: every source file it names (`.hpp`, `.cpp`, `.py`) exists,
    by its path from the root, include/warmup or include/warmup/detail, or by its name alone where
    one file of the project has it; and where it says a function `f()` is defined in a file, that
    file holds its body. A file moved, renamed or emptied of what the page says fails here."""
    text = read(os.path.join("docs", "design.md")) if text is None else text
    files = project_files()
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)

    def resolve(name):
        for base in ("", "include/warmup/", "include/warmup/detail/"):
            if os.path.isfile(os.path.join(ROOT, base + name)):
                return base + name
        found = [f for f in by_name.get(os.path.basename(name), []) if f.endswith(name)]
        return found[0] if len(found) == 1 else None

    names = {n for n in re.findall(r"[\w./-]+\.(?:hpp|cpp|py)\b", text) if not n.startswith((".", "-"))}  # `<name>-inl.hpp`: a pattern
    bad = [f"{n}: no such file" for n in sorted(names) if resolve(n) is None]
    defined = re.findall(r"`(?:[\w:]+::)?(\w+)\(\)`[^|.]*?defined in `([^`]+)`", text)
    for fn, where in defined:
        path = resolve(where)
        if path is None or not re.search(rf"\b{fn}\(\)[^;{{}}]*\{{", read(path)):
            bad.append(f"{fn}() is not defined in {where}")
    assert not bad, "docs/design.md names what is not so:\n" + "\n".join(bad)
    assert names and defined, "no file or definition found in docs/design.md: the search is broken"
    return f"{len(names)} files docs/design.md names, each there; {len(defined)} definitions where it says"


def design_files_catches():
    """design_files fails on a file that moved and on a definition said to be in the wrong file."""
    for planted, says in (("`detail/no_such_layer.hpp` holds it; `sampler_state()`: defined in "
                           "`runtime/cpu_sampler-inl.hpp`", "no such file"),
                          ("`sampler_state()`: declared for the sampler, defined in `cause_store.hpp`",
                           "is not defined in")):
        try:
            design_files(planted)
        except AssertionError as e:
            assert says in str(e), e
            continue
        raise AssertionError(f"design_files passed a planted fault: {planted}")
    return "design_files fails on a moved file and on a misplaced definition"


if __name__ == "__main__":
    what = sys.argv[1]
    print(globals()[what](*sys.argv[2:]))
