"""mpirun -np 4 of mpi_ranks: the merged report on rank 0 has every rank, and each rank's
counts exactly.

usage: check_mpi_ranks.py MPIEXEC MPI_RANKS OUT_DIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check  # noqa: E402

mpiexec, program, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
for f in ("merged.json", "merged.txt", "merged.out", "merged.out:csv", "merged.trace.json"):
    if os.path.exists(os.path.join(out, f)):
        os.remove(os.path.join(out, f))
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
ranks = 4
p = subprocess.run([mpiexec, "-np", str(ranks), program, out], env=env, capture_output=True, text=True, timeout=240)
print(p.stdout)
print(p.stderr, file=sys.stderr)
check = warmup_check.Checks()


check(p.returncode == 0, f"mpirun -np {ranks}: every rank exits 0 (exit {p.returncode})")
m = json.load(open(os.path.join(out, "merged.json")))
check(m["schema"] == "warmup.merged/1" and [r["rank"] for r in m["ranks"]] == list(range(ranks)),
      "rank 0 wrote the merge, with every rank by its MPI rank")
check(len({r["pid"] for r in m["ranks"]}) == ranks and all(r["source"] == "MPI" for r in m["ranks"]),
      "each rank its own process, gathered over MPI")
sites = {s["name"]: s for s in m["sites"]}
step = sites["step"]
check([f["calls"] for f in step["per_rank"]] == [10 + r for r in range(ranks)], "step: each rank's count exact (10 + rank)")
check(step["calls"] == sum(10 + r for r in range(ranks)) and step["ranks"] == ranks, "step: calls summed over ranks")
firsts = [f["first"] for f in step["per_rank"]]
check(all(firsts[r] >= 2000e3 * (r + 1) for r in range(ranks)), "step: each rank's first call at least its 2 ms x (rank + 1)")
check(step["first"]["max"] == max(firsts) and step["first"]["slowest_rank"] == firsts.index(max(firsts))
      and step["first"]["min"] == min(firsts) and step["first"]["median"] == sorted(firsts)[(ranks - 1) // 2],
      "step: min / lower median / max and the slowest rank agree with the per-rank figures")
only = sites["rank only"]
check([f["rank"] for f in only["per_rank"]] == [1, 3] and only["missing_ranks"] == [0, 2], "rank only: on odd ranks, the others missing")
table = open(os.path.join(out, "merged.txt")).read()
check("warmup merge: 4 ranks" in table and "missing on ranks 0, 2" in table, "the table too")
out_csv = open(os.path.join(out, "merged.out")).read() if os.path.exists(os.path.join(out, "merged.out")) else ""
check(out_csv.split("\n", 1)[0].count(",") > 3 and "step" in out_csv,
      "a destination's format after a colon: merged.out:csv wrote CSV to merged.out")
check(not os.path.exists(os.path.join(out, "merged.out:csv")), "no file named after the whole destination")
check(not os.path.exists(os.path.join(out, "merged.trace.json")) and "a merged report has no trace format" in p.stderr
      and p.stderr.count("warmup merge: 4 ranks") >= 1, "a trace destination is refused, said, and the table goes to stderr")
sys.exit(check.summary())
