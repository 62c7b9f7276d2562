#!/usr/bin/env python3
"""The documentation tells the truth: the README's snippet is the program a test builds; the ncu
line of docs/nvtx.md answers in seconds; the build line without CMake (docs/scopes-and-builds.md)
builds and runs a program; the JSON schema (docs/reports.md) names every key the library writes;
docs/environment.md names every variable the code reads, and no other; every relative link
leads to a file and a heading that exist.

usage: check_readme.py snippets|ncu|headers|environment|links   (reads the files beside tests/)
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
    optional = {"cublas.hpp", "mpi.hpp", "read.hpp", "merge.hpp", "merge_formats.hpp", "compare.hpp", "runtime.hpp"}
    missing = [n for n in names if f'#include "warmup/{n}"' not in umbrella and n not in optional]
    assert not missing, f"profile.hpp does not include {missing}"
    included = [n for n in optional if f'#include "warmup/{n}"' in umbrella]
    assert not included, f"profile.hpp includes the optional {included}"
    return f"{len(names)} public headers, each named in profile.hpp and {BUILDS}'s Layout"


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
                 r'\{\s*"(WARMUP_[A-Z0-9_]+)"\s*,']
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


def environment():
    """docs/environment.md's table names every variable the code reads, and only those."""
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
    warmup = sorted(n for n in documented if n.startswith("WARMUP_"))
    return f"{len(documented)} variables in {ENVIRONMENT}, each read by the code ({', '.join(warmup)}, ...), none missing"


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


if __name__ == "__main__":
    what = sys.argv[1]
    print(globals()[what](*sys.argv[2:]))
