#!/usr/bin/env python3
"""tools/mutate's generator and switches, on a fixture header (fixture.hpp beside this file):
the operators expected where they belong and none where they do not (comments, strings,
preprocessor lines, static_assert, constexpr functions); keys that survive an unrelated edit;
the equivalents list read and matched; and every mutant switched into one program, each one
changing what the program computes only when it is the active one.

usage: check_mutate.py CXX
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "mutation"))
import generate  # noqa: E402
import run as runner  # noqa: E402
import schema  # noqa: E402

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAILED: " + what)


def at(cands, text):
    """Candidates on the line whose text contains `text`."""
    return [c for c in cands if text in c["line_text"]]


def ops(cands):
    return sorted({c["operator"] for c in cands})


MAIN = r"""
#include <cstdio>
#include "fixture.hpp"
int main() {
  std::vector<int> v{1, 5, 7, 9};
  fixture::pair_of_sizes p;
  p.low = 3;
  p.high = 10;
  std::printf("%d %d %zu %s %zu %d\n", fixture::clamp_low(1, 2), fixture::clamp_low(5, 2),
              fixture::count_above(v, 5), fixture::label(true).c_str(), fixture::width(p),
              fixture::call_first(1, 2));
#if defined(WARMUPTEST_MUTATION_SWITCH)
  // A test case as the Catch2 runner marks one (tests/support/mutation_listener.cpp).
  warmup_mutation::case_begins("a case, named [oddly]");
  std::printf("%d\n", fixture::clamp_low(1, 2));
  warmup_mutation::case_ends(1500000000);
#endif
}
"""


def main():
    cxx = sys.argv[1] if len(sys.argv) > 1 else "c++"
    text = open(os.path.join(HERE, "fixture.hpp")).read()
    toks = generate.lex(text)
    fields = generate.field_neighbours([toks])
    cands, _ = generate.candidates_in("fixture.hpp", text, fields)

    check(ops(at(cands, "if (x < low)")) == ["condition_false", "condition_true", "lt_to_ge", "lt_to_le",
                                             "negate_condition", "return_default"],
          f"if (x < low): boundary, negation and forced conditions; got {ops(at(cands, 'if (x < low)'))}")
    check(ops(at(cands, "return x;")) == ["return_default"], "return x: its value removed")
    hinted = [c["mutated"] for c in at(cands, "__builtin_expect(rare, 0)") if c["operator"] == "int_plus_one"]
    check(sorted(hinted) == ["__builtin_expect ( rare , 0 ) ? rare + 2 : 4", "__builtin_expect ( rare , 0 ) ? rare + 3 : 3"],
          f"__builtin_expect's expected value left alone, the rest of its line mutated; got {hinted}")
    check({"lt_to_le", "lt_to_ge"} <= set(ops(at(cands, "i < v.size()"))), "a for loop's condition")
    check("add_assign_to_sub_assign" in ops(at(cands, "n += 1")) and "int_plus_one" in ops(at(cands, "n += 1"))
          and "remove_statement" in ops(at(cands, "n += 1")), "n += 1: operator, constant, statement removed")
    check("sub_to_add" in ops(at(cands, "p.high - p.low")), "p.high - p.low: - to +")
    swapped = [c["mutated"] for c in at(cands, "p.high - p.low") if c["operator"] == "field_neighbour"]
    check(sorted(swapped) == ["p . high - p . high", "p . low - p . low"],
          f"a field swapped for its neighbour of the same type; got {swapped}")
    check([c["mutated"] for c in at(cands, "return first_of(a, b)") if c["operator"] == "swap_arguments"]
          == ["first_of ( b , a )"], "first_of(a, b): arguments swapped")
    check(not at(cands, "FIXTURE_LIMIT"), "nothing in a preprocessor line")
    check(not at(cands, "static_assert"), "nothing in a static_assert")
    check(not at(cands, "constexpr int twice"), "nothing in a constexpr function")
    check(not [c for c in at(cands, "a < b") if c["operator"].startswith("lt_")], "nothing inside a string")
    check(not [c for c in cands if "never mutated" in c["mutated"]], "nothing inside a comment")
    check(not [c for c in at(cands, "(void)x;") if c["operator"] == "remove_statement"],
          "(void)x; is not removed (it does nothing)")

    # Keys: stable when lines are added above; distinct within the header.
    moved, _ = generate.candidates_in("fixture.hpp", "// one more line\n\n" + text, fields)
    check(sorted(c["key"] for c in moved) == sorted(c["key"] for c in cands), "keys survive an unrelated edit")
    check(len({c["key"] for c in cands}) == len(cands), "keys are distinct")

    # The project's equivalents list: every entry names a mutant the headers still have.
    keys = {c["key"] for c in runner.all_candidates()}
    stale = [e for k, e in runner.read_equivalents().items() if k not in keys]
    check(not stale, "tools/mutation/equivalent.txt names mutants the headers no longer have: "
          + "; ".join(f"{e['header']} {e['operator']}: {e['line']}" for e in stale))

    with tempfile.TemporaryDirectory() as tmp:
        # The equivalents list: an entry matches its candidate's key; an entry without a reason is refused.
        c0 = at(cands, "if (x < low)")[0]
        listed = os.path.join(tmp, "equivalent.txt")
        with open(listed, "w") as f:
            f.write(f"# a comment\n- header: fixture.hpp\n  operator: {c0['operator']}\n  occurrence: 1\n"
                    f"  line: {c0['line_text']}\n  why: planted by the self-test\n")
        check(c0["key"] in runner.read_equivalents(listed), "an equivalents entry matches its candidate")
        with open(listed, "a") as f:
            f.write("- header: fixture.hpp\n  operator: lt_to_le\n  line: if (x < low) return low;\n  why:\n")
        try:
            runner.read_equivalents(listed)
            check(False, "an entry without a reason is refused")
        except SystemExit:
            pass

        # Every candidate switched into one program: off, it computes what the fixture does; each
        # one on changes that only through its own region.
        for i, c in enumerate(cands):
            c["id"] = i
        kept, dropped = runner.resolve_overlaps(cands)
        check(not dropped, "the fixture's regions do not nest")
        new, _ = schema.apply(text, kept)
        check(new.count("\n") == text.count("\n"), "switches keep the header's lines where they were")
        with open(os.path.join(tmp, "fixture.hpp"), "w") as f:
            f.write(new)
        with open(os.path.join(tmp, "main.cpp"), "w") as f:
            f.write(MAIN)
        active = os.path.join(tmp, "active")
        switch = os.path.join(tmp, "switch.hpp")
        schema.write_switch(switch, active)
        exe = os.path.join(tmp, "fixture")
        r = subprocess.run([cxx, "-std=c++17", "-include", switch, "-I", tmp, os.path.join(tmp, "main.cpp"), "-o", exe],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(r.returncode == 0, "the fixture with every switch compiles:\n" + r.stdout[-3000:])
        if r.returncode != 0:
            return report()

        def output(mid, how="env"):
            """The program's output with mutant `mid` active, named in WARMUPTEST_MUTANT or in the file."""
            env = dict(os.environ, WARMUPTEST_MUTANT=str(mid))
            if how == "file":
                del env["WARMUPTEST_MUTANT"]
                with open(active, "w") as f:
                    f.write(str(mid))
            return subprocess.run([exe], stdout=subprocess.PIPE, text=True, timeout=20, env=env).stdout

        clean = output(-1)
        check(clean == "2 5 2 a < b 7 12\n2\n", f"no mutant active: the fixture's own results; got {clean!r}")

        # Reach: what a run went through, in the process and in the case it marked.
        reach = os.path.join(tmp, "reach")
        os.makedirs(reach)
        subprocess.run([exe], stdout=subprocess.DEVNULL, timeout=20,
                       env=dict(os.environ, WARMUPTEST_MUTANT="-1", WARMUPTEST_REACH=reach))
        ids, cases, seconds = schema.read_reach(reach)
        def in_function(name):
            start = text.index(name)
            end = text.index("\n}", start) if "{\n" in text[start:text.index("\n", start) + 1] else text.index("\n", start)
            return {c["id"] for c in kept if start <= c["region"].start < end}
        clamp, never = in_function("inline int clamp_low("), in_function("inline int never_called(")
        check(clamp and never, "the fixture's two functions have mutants")
        check(clamp <= ids and (in_function("inline std::size_t width(") <= ids), "a run reaches what it calls")
        check(not (never & ids), "a run does not reach a function it never calls")
        check(set(cases) == {"a case, named [oddly]"}, f"the case marked is read back by its name; got {set(cases)}")
        in_case = cases.get("a case, named [oddly]", set())
        condition = {c["id"] for c in at(kept, "if (x < low)")}
        check(condition and condition <= in_case and in_case <= clamp,
              "a case reaches again what it calls (though the process reached it before), and nothing else")
        check(abs(seconds.get("a case, named [oddly]", 0) - 1.5) < 1e-9, "a case's time is read back")
        check(runner.catch_spec("a case, named [oddly]") == "a case\\, named \\[oddly\\]",
              "a case's name as Catch2's test spec: its commas and brackets escaped")
        check(runner.catch_spec("~*x*") == "\\~*x\\*", "a leading ~ and a trailing * taken as they are")
        changed = {c["operator"] for c in kept if output(c["id"]) != clean}
        first = next(c for c in kept if c["operator"] == "lt_to_ge")
        check(output(first["id"], how="file") == output(first["id"]) != clean, "the active mutant read from the file")
        check(output(-1, how="file") == clean, "the file naming no mutant")
        for op in ("lt_to_ge", "negate_condition", "condition_true", "return_default", "field_neighbour",
                   "swap_arguments", "sub_to_add", "int_plus_one", "remove_statement"):
            check(op in changed, f"switching on a {op} mutant changes the result")
        # The switch is the textual mutant: the same output as the file edited by hand.
        c = next(c for c in kept if c["operator"] == "lt_to_ge")
        edited = text.replace("if (x < low) return low;", "if (x >= low) return low;")
        with open(os.path.join(tmp, "fixture.hpp"), "w") as f:
            f.write(edited)
        r = subprocess.run([cxx, "-std=c++17", "-include", switch, "-I", tmp, os.path.join(tmp, "main.cpp"), "-o", exe],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        by_hand = output(-1)
        with open(os.path.join(tmp, "fixture.hpp"), "w") as f:
            f.write(new)
        subprocess.run([cxx, "-std=c++17", "-include", switch, "-I", tmp, os.path.join(tmp, "main.cpp"), "-o", exe])
        check(output(c["id"]) == by_hand, "a switched mutant computes what the edited header does")

        # The GPU machine's judge (judge_steps.py) over a bundle's steps: a step that reaches a
        # mutant and tells it apart kills it; a mutant no step reaches survives unreached.
        bundle = os.path.join(tmp, "bundle")
        os.makedirs(bundle)
        with open(os.path.join(bundle, "steps.sh"), "w") as f:
            f.write("# a comment\n")
            expected = os.path.join(tmp, "expected.txt")
            with open(expected, "w") as e:
                e.write(clean)
            same = f"{shlex.quote(exe)} | cmp -s - {shlex.quote(expected)}"
            f.write("step --may-skip same env FIXTURE=1 sh -c " + shlex.quote(same) + "\n")
            f.write("step skips sh -c 'exit 77'\n")
        never_id = min(never)
        with open(os.path.join(bundle, "mutants.json"), "w") as f:
            json.dump([dict(runner.record(m, None), id=m["id"]) for m in (first, next(m for m in kept if m["id"] == never_id))], f)
        results = os.path.join(tmp, "gpu.jsonl")
        judge = os.path.join(runner.HERE, "judge_steps.py")
        r = subprocess.run([sys.executable, judge, bundle, results, "--work", os.path.join(tmp, "judge")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        got = {json.loads(l)["key"]: json.loads(l) for l in open(results)} if os.path.exists(results) else {}
        check(r.returncode == 0 and len(got) == 2, "judge_steps judges every mutant of the bundle:\n" + r.stdout[-2000:])
        if len(got) == 2:
            check(got[first["key"]]["status"] == "killed" and got[first["key"]]["by"] == "gpu: same",
                  "judge_steps: a reaching step that fails kills, and is named")
            unreached = next(v for k, v in got.items() if k != first["key"])
            check(unreached["status"] == "survived" and unreached.get("reached") is False,
                  "judge_steps: a mutant no step reaches survives, unreached")
        check("skips (skipped)" in r.stdout, "judge_steps: a step that skips on the clean build is left out, and named")

    check_python()

    # nvcc's front end names a header's line as file(line): an error there blames its mutant.
    build = runner.Build(os.path.join(tempfile.gettempdir(), "unused"), 1)
    region = types.SimpleNamespace(first_line=10, last_line=12)
    header = os.path.join(build.src, runner.INCLUDE, "scope.hpp")
    check(build.blame(f"{header}(11): error: no instance of overloaded function\n",
                      [{"id": 4, "header": "scope.hpp", "region": region}]) == {4},
          "an nvcc error in a mutant's region blames it")
    tool = os.path.join(build.src, "nvtx_tool", "push_pop.cpp")
    check(build.blame(f"{tool}:12:5: error: no match for 'operator<'\n",
                      [{"id": 5, "header": "nvtx_tool/push_pop.cpp", "region": region}]) == {5},
          "an error in the NVTX tool's own C++ blames the mutant there")
    check_kept_times()
    return report()


def check_kept_times():
    """After a failed build, the headers are written again without the mutants that broke it,
    keeping their times (ninja then rebuilds only what failed); a first write dates them now."""
    with tempfile.TemporaryDirectory() as tmp:
        build = runner.Build(tmp, 1)
        path = runner.source_path(build.src, "scope.hpp")
        os.makedirs(os.path.dirname(path))
        clean = {"scope.hpp": "int f() { return 1; }\n"}
        mutant = {"id": 3, "header": "scope.hpp", "patch": ("return 1;", "return @ON@ ? 2 : 1;")}
        for keep, what in ((True, "kept"), (False, "dated now")):
            with open(path, "w") as f:
                f.write(clean["scope.hpp"])
            os.utime(path, ns=(10**18, 10**18))
            build.write(clean, [mutant], keep_times=keep)
            text = open(path).read()
            check("::warmup_mutation::on(3)" in text and (os.stat(path).st_mtime_ns == 10**18) == keep,
                  f"a header written with keep_times={keep}: switched, its time {what} ({text!r})")


PY_MAIN = r"""
import sys
sys.path.insert(0, sys.argv[1])
import fixture
print(fixture.clamp_low(1, 2), fixture.clamp_low(5, 2), fixture.scaled(3), fixture.label(True),
      fixture.call_with(lambda a, b, scale: (a - b) * scale, 5, 2, scale=3), fixture.count([4, 5]), fixture.LIMIT)
"""


def check_python():
    """pygen.py on tests/mutation/fixture.py: the operators where they belong, none in a
    docstring, an f-string or an annotation; and every mutant switched into the file at once,
    each changing what the program prints only when it is the active one, and recording that it
    was reached."""
    import pygen
    text = open(os.path.join(HERE, "fixture.py")).read()
    cands = pygen.candidates_in("fixture.py", text)
    check(ops(at(cands, "if x < low:")) == ["condition_false", "condition_true", "lt_to_ge", "lt_to_le",
                                            "negate_condition"],
          f"python: if x < low: boundary, negation, forced; got {ops(at(cands, 'if x < low:'))}")
    check(ops(at(cands, "return x * factor + 1")) == ["add_to_sub", "int_one_to_zero", "int_plus_one", "mul_to_div",
                                                      "return_default"],
          f"python: arithmetic, constants, a returned value; got {ops(at(cands, 'return x * factor + 1'))}")
    check([c["mutated"] for c in at(cands, "return fn(a, b, scale=scale)") if c["operator"] == "drop_keyword"]
          == ["fn(a, b)"], "python: a keyword argument dropped")
    check([c["mutated"] for c in at(cands, "return fn(a, b, scale=scale)") if c["operator"] == "swap_arguments"]
          == ["fn(b, a, scale=scale)"], "python: neighbouring arguments swapped")
    check("remove_statement" in ops(at(cands, "n += 1")) and "int_plus_one" in ops(at(cands, "n += 1")),
          "python: n += 1: statement removed, constant changed")
    check(not at(cands, "a < b, x + 1") and not at(cands, "from __future__"), "python: nothing in a docstring")
    check(not [c for c in at(cands, "text = f") if c["operator"] != "remove_statement"], "python: nothing in an f-string")
    check(ops(at(cands, "SHAPE: tuple[int, 8]")) == ["int_plus_one", "remove_statement"] and
          not [c for c in at(cands, "SHAPE") if "9" in c["mutated"]], "python: nothing in an annotation")
    check(len({c["key"] for c in cands}) == len(cands), "python: keys are distinct")
    kept, _ = runner.resolve_overlaps(cands)
    for i, m in enumerate(kept):
        m["id"] = i
    switched, dropped = pygen.apply(text, kept)
    check(not dropped, "python: disjoint regions all switched")
    with tempfile.TemporaryDirectory() as tmp:
        pkg, reach = os.path.join(tmp, "pkg"), os.path.join(tmp, "reach")
        os.makedirs(pkg)
        os.makedirs(reach)
        with open(os.path.join(pkg, "fixture.py"), "w") as f:
            f.write(switched)
        pygen.write_switch_module(os.path.join(pkg, "_warmup_mutation.py"), os.path.join(tmp, "active"))
        main = os.path.join(tmp, "main.py")
        with open(main, "w") as f:
            f.write(PY_MAIN)

        def run(mid, reach_to=None):
            env = dict(os.environ, WARMUPTEST_MUTANT=str(mid))
            env.pop("WARMUPTEST_REACH", None)
            if reach_to:
                env["WARMUPTEST_REACH"] = reach_to
            return subprocess.run([sys.executable, main, HERE if mid is None else pkg], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, env=env).stdout

        clean = run(None)
        check(run(-1, reach) == clean, "python: every switch off: the program as it was")
        reached = {int(l) for f in os.listdir(reach) for l in open(os.path.join(reach, f)) if l.strip()}
        check(len(reached) >= len(kept) * 3 // 4, f"python: the run records the regions it reaches ({len(reached)} of {len(kept)})")
        changed = sum(run(m["id"]) != clean for m in kept)
        check(changed >= len(kept) * 3 // 4, f"python: an active mutant changes what the program prints ({changed} of {len(kept)})")
        before, after = text.split("\n"), switched.split("\n")
        check(len(after) == len(before) + 2 and all(after[i + 2] == ln for i, ln in enumerate(before) if ln.startswith("def ") and "=" not in ln),
              "python: the switched file keeps its lines, but the switch's two")


def report():
    if FAILURES:
        print(f"{len(FAILURES)} checks failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
