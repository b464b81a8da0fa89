#!/usr/bin/env python3
"""Time against size for nemos, herd7 and GenMC on the scaling families, and their charts.

Each family is generated at growing sizes, as a litmus test (what herd7 and nemos read) and,
where GenMC can answer the same question, as a C program with `main` (what GenMC and nemos
read). Every point is one whole process under `timeout`, one after the other in one run;
once a tool reaches the limit at some size, its larger sizes are not run (recorded as
`skipped`). The answers are compared: a point where two tools disagree is reported and
flagged in the CSV.

    scripts/scaling.py [--limit 30] [--families w2r2,...] [--csv docs/scaling.csv]
                       [--nemos target/release/nemos] [--herd /tmp/herd/herd7]
                       [--genmc /tmp/genmc/genmc] [--draw-only]

then draws one SVG per family into docs/charts/ with the project's own drawer
(`cargo run --release --example draw-charts -- docs/scaling.csv docs/charts`).
herd7 7.58 and GenMC 0.11 are built by ../shared/tools/build-herd.sh and build-genmc.sh;
a tool that is absent is left out of the run (and said so).
"""
import argparse, csv, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL = os.path.join(ROOT, "..", "shared", "corpus", "lkmm", "model", "kernel")
GENMC_CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "genmc")
RELAXED = "memory_order_relaxed"


# ---------------------------------------------------------------- the families' programs


def w2r2_litmus(n):
    """Thread i writes x and y, reads y then x; `0:s=0` makes the condition a proof of
    absence (thread 0 wrote x before reading it), so every tool must cover every execution."""
    text = f"C W2R2-{n}\n{{ x = 0; y = 0; }}\n\n"
    for i in range(n):
        text += (f"P{i}(int *x, int *y) {{\n  int r;\n  int s;\n  *x = {i + 1};\n  *y = {i + 1};\n"
                 f"  r = *y;\n  s = *x;\n}}\n\n")
    atoms = [f"{i}:r={i + 1}" for i in range(n)] + ["0:s=0"]
    return text + "exists (" + " /\\ ".join(atoms) + ")\n"


def w2r2_c(n):
    cond = " && ".join([f"r[{i}] == {i + 1}" for i in range(n)] + ["s[0] == 0"])
    return f"""#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
#define N {n}
atomic_int x, y;
int r[N], s[N];
void *thread(void *arg)
{{
	int i = (int)(long)arg;
	atomic_store_explicit(&x, i + 1, {RELAXED});
	atomic_store_explicit(&y, i + 1, {RELAXED});
	r[i] = atomic_load_explicit(&y, {RELAXED});
	s[i] = atomic_load_explicit(&x, {RELAXED});
	return NULL;
}}
int main()
{{
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, thread, (void *)(long)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	assert(!({cond}));
	return 0;
}}
"""


def locked_counter_litmus(n, racy=False, increments=1):
    """n threads each take a spin lock around `increments` increments of c; with `racy`,
    thread 0 also reads c once outside the lock at its end."""
    text = f"C locked-counter-{n}x{increments}{'-racy' if racy else ''}\n{{ c = 0; }}\n\n"
    for t in range(n):
        body = "".join("  spin_lock(l);\n  a = READ_ONCE(*c);\n  WRITE_ONCE(*c, a + 1);\n"
                       "  spin_unlock(l);\n" for _ in range(increments))
        tail = "  s = *c;\n" if racy and t == 0 else ""
        decl = "  int a;\n" + ("  int s;\n" if racy and t == 0 else "")
        text += f"P{t}(int *c, spinlock_t *l) {{\n{decl}{body}{tail}}}\n\n"
    return text + f"forall (c={n * increments})\n"


def locked_counter_c(n, racy=False, increments=1):
    tail = "\tif (i == 0)\n\t\ts = c;\n" if racy else ""
    return f"""#include <pthread.h>
#include <assert.h>
#define N {n}
pthread_mutex_t l;
int c, s;
void *thread(void *arg)
{{
	int i = (int)(long)arg;
	for (int k = 0; k < {increments}; k++) {{
		pthread_mutex_lock(&l);
		c = c + 1;
		pthread_mutex_unlock(&l);
	}}
{tail}	return NULL;
}}
int main()
{{
	pthread_t t[N];
	pthread_mutex_init(&l, NULL);
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, thread, (void *)(long)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	assert(c == N * {increments});
	return 0;
}}
"""


def unlocked_counter_litmus(n, increments=2):
    """n threads each increment c `increments` times with a relaxed load and a relaxed store
    (not a read-modify-write): the question is the set of final values of c."""
    text = f"C unlocked-counter-{n}x{increments}\n{{ c = 0; }}\n\n"
    for t in range(n):
        body = "".join(f"  a = atomic_load_explicit(c, {RELAXED});\n"
                       f"  atomic_store_explicit(c, a + 1, {RELAXED});\n" for _ in range(increments))
        text += f"P{t}(atomic_int *c) {{\n  int a;\n{body}}}\n\n"
    return text + "exists (c=0)\n"


def unlocked_counter_c(n, increments=2):
    return f"""#include <pthread.h>
#include <stdatomic.h>
#define N {n}
atomic_int c;
void *thread(void *arg)
{{
	for (int k = 0; k < {increments}; k++) {{
		int a = atomic_load_explicit(&c, {RELAXED});
		atomic_store_explicit(&c, a + 1, {RELAXED});
	}}
	return NULL;
}}
int main()
{{
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, thread, NULL);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	return 0;
}}
"""


def rcu_chain_litmus(n):
    """A cycle of n threads alternating a grace period (odd) and a read-side critical
    section (even), each reading the previous thread's flag and setting the next: RCU's
    guarantee forbids the cycle when grace periods are at least as many as readers."""
    text = f"C RCU-chain-{n}\n{{}}\n\n"
    for t in range(n):
        src, dst = f"x{t}", f"x{(t + 1) % n}"
        if t % 2 == 1:
            body = (f"  r0 = READ_ONCE(*{src});\n  synchronize_rcu();\n  WRITE_ONCE(*{dst}, 1);\n")
        else:
            body = (f"  rcu_read_lock();\n  r0 = READ_ONCE(*{src});\n  WRITE_ONCE(*{dst}, 1);\n"
                    "  rcu_read_unlock();\n")
        text += f"P{t}(int *{src}, int *{dst}) {{\n  int r0;\n{body}}}\n\n"
    return text + "exists (" + " /\\ ".join(f"{t}:r0=1" for t in range(n)) + ")\n"


def racy_counter_litmus(increments, threads=4):
    """`threads` threads each increment a plain c `increments` times: every pair of the
    threads' accesses races (rc11's `dr`); the question is whether there is a race."""
    text = f"C racy-counter-{threads}x{increments}\n{{ c = 0; }}\n\n"
    for t in range(threads):
        body = "".join("  a = *c;\n  *c = a + 1;\n" for _ in range(increments))
        text += f"P{t}(int *c) {{\n  int a;\n{body}}}\n\n"
    return text + "exists (c=0)\n"


def racy_counter_c(increments, threads=4):
    return f"""#include <pthread.h>
#define N {threads}
int c;
void *thread(void *arg)
{{
	for (int k = 0; k < {increments}; k++)
		c = c + 1;
	return NULL;
}}
int main()
{{
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, thread, NULL);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	return 0;
}}
"""


# ---------------------------------------------------------------- running the tools


class Run:
    """Where the tools are, and one process per point."""

    def __init__(self, args):
        self.limit = args.limit
        self.nemos = args.nemos
        self.herd = args.herd if os.path.exists(args.herd) else None
        self.genmc = args.genmc if os.path.exists(args.genmc) else None
        self.herdlib = os.path.join(os.path.dirname(args.herd), "libdir")

    def command(self, tool, kind, path):
        """The command line of `tool` for a question of `kind` on the file at `path`."""
        kernel_cfg = os.path.join(KERNEL, "linux-kernel.cfg")
        if tool == "nemos":
            return {
                "check-sc": [self.nemos, "check", path],
                "check-lkmm": [self.nemos, "check", "--conf", kernel_cfg, path],
                "outcomes-rc11": [self.nemos, "outcomes", "--model", "rc11", path],
                "races-rc11": [self.nemos, "races", "--model", "rc11", path],
                "count-sc": [self.nemos, "check", "--count", "--format", "json", path],
                "count-rc11": [self.nemos, "check", "--model", "rc11", "--count", "--format", "json", path],
                "check-rc11": [self.nemos, "check", "--model", "rc11", path],
            }[kind]
        if tool == "herd7":
            base = [self.herd, "-I", self.herdlib]
            return {
                "check-sc": base + ["-model", "sc.cat", path],
                "check-lkmm": base + ["-I", KERNEL, "-conf", "linux-kernel.cfg", path],
                "outcomes-rc11": base + ["-model", "rc11.cat", path],
                "races-rc11": base + ["-model", "rc11.cat", path],
            }[kind]
        model = "-sc" if kind.endswith("sc") else "-rc11"
        return [self.genmc, model, "-disable-estimation", "--", path]

    def time(self, command, cwd=None):
        """Wall time, exit code and output of one whole process, or None at the limit."""
        start = time.perf_counter()
        try:
            done = subprocess.run(["timeout", str(self.limit + 1)] + command, cwd=cwd,
                                  capture_output=True, text=True)
        except OSError as error:
            return None, -1, str(error)
        seconds = time.perf_counter() - start
        if done.returncode == 124 or seconds > self.limit:
            return None, done.returncode, done.stdout + done.stderr
        return seconds, done.returncode, done.stdout + done.stderr


def answer(tool, kind, code, output):
    """What a tool answered, in words the tools share: `forbidden`/`allowed` for a
    condition, `ok`/`defect` for a C program, `race`/`no race`, `N states`, `N executions`."""
    import json, re
    if tool == "genmc":
        if "No errors were detected" in output:
            found = re.search(r"complete executions explored: (\d+)", output)
            return f"{found.group(1)} executions" if found and "count" in kind else "ok"
        if "Error detected" in output or "Error:" in output:
            return "race" if "race" in output.lower() else "defect"
        return "?"
    if tool == "herd7":
        if kind == "races-rc11":
            return "race" if "Flag *undef*" in output else "no race"
        if kind == "outcomes-rc11":
            found = re.search(r"^States (\d+)", output, re.M)
            return f"{found.group(1)} states" if found else "?"
        found = re.search(r"^Observation \S+ (\w+)", output, re.M)
        return found.group(1).lower() if found else "?"
    if kind.startswith("count"):
        try:
            report = json.loads(output[output.index("{"):])
        except ValueError:
            return "?"
        if report.get("defects"):
            return "defect"
        return f"{report['positive'] + report['negative']} executions"
    if kind == "races-rc11":
        return "race" if code == 1 else "no race"
    if kind == "outcomes-rc11":
        found = re.search(r"(\d+) reachable final state", output)
        return f"{found.group(1)} states" if found else "?"
    found = re.search(r"observation: (\w+)", output)
    if found:
        return found.group(1).lower()
    return {0: "ok", 1: "defect"}.get(code, "?")


# Each family: its sizes, and per line (tool, input) the question asked and the program.
# `same` maps each answer to the verdict all lines must share (None: lines are compared
# only with lines of the same input, as state counts and execution counts are).
FAMILIES = {
    "w2r2": {
        "title": "W2R2: n threads write x, y and read them back (SC, a proof of absence)",
        "axis": "threads",
        "sizes": [2, 3, 4, 5, 6, 7, 8, 10, 12],
        "lines": [("nemos", "litmus", "check-sc", w2r2_litmus),
                  ("herd7", "litmus", "check-sc", w2r2_litmus),
                  ("nemos", "c", "check-sc", w2r2_c),
                  ("genmc", "c", "check-sc", w2r2_c)],
        "same": {"never": "forbidden", "ok": "forbidden", "sometimes": "allowed", "defect": "allowed"},
    },
    "locked-counter": {
        "title": "Locked counter: n threads increment c under one lock; c = n at the end",
        "axis": "threads",
        "sizes": [2, 3, 4, 5, 6, 7, 8, 10, 12],
        "lines": [("nemos", "litmus", "check-lkmm", locked_counter_litmus),
                  ("herd7", "litmus", "check-lkmm", locked_counter_litmus),
                  ("nemos", "c", "check-sc", locked_counter_c),
                  ("genmc", "c", "check-sc", locked_counter_c)],
        "same": {"always": "holds", "ok": "holds", "sometimes": "fails", "defect": "fails"},
    },
    "unlocked-counter": {
        "title": "Unlocked counter: n threads x 2 relaxed load/store increments (RC11, every execution)",
        "axis": "threads",
        "sizes": [2, 3, 4, 5, 6],
        "lines": [("nemos", "litmus", "outcomes-rc11", unlocked_counter_litmus),
                  ("herd7", "litmus", "outcomes-rc11", unlocked_counter_litmus),
                  ("nemos", "c", "count-rc11", unlocked_counter_c),
                  ("genmc", "c", "count-rc11", unlocked_counter_c)],
        "same": None,
    },
    "races": {
        "title": "Races: 4 threads x n plain increments (RC11: is there a data race?)",
        "axis": "increments per thread",
        "sizes": [1, 2, 3, 5, 10, 25, 50],
        "lines": [("nemos", "litmus", "races-rc11", racy_counter_litmus),
                  ("herd7", "litmus", "races-rc11", racy_counter_litmus),
                  ("nemos", "c", "check-rc11", racy_counter_c),
                  ("genmc", "c", "check-rc11", racy_counter_c)],
        "same": {"race": "race", "defect": "race", "no race": "no race", "ok": "no race"},
    },
    "rcu-chain": {
        "title": "RCU chains: a cycle of n threads, grace periods and read-side sections (LKMM)",
        "axis": "threads",
        "sizes": [2, 3, 4, 5, 6, 7, 8, 10, 12],
        "lines": [("nemos", "litmus", "check-lkmm", rcu_chain_litmus),
                  ("herd7", "litmus", "check-lkmm", rcu_chain_litmus)],
        "same": {"never": "forbidden", "sometimes": "allowed"},
    },
    "linuxrwlocks": {
        "title": "GenMC's linuxrwlocks: n reader-writer threads (RC11, -unroll=3)",
        "axis": "threads",
        "sizes": [1, 2, 3, 4],
        "lines": [("nemos", "corpus", "check-rc11", None), ("genmc", "corpus", "check-rc11", None)],
        "same": {"ok": "ok", "defect": "defect"},
    },
}
RWLOCK = "tests/correct/data-structures/linuxrwlocks/variants/linuxrwlocks0.c"


def corpus_command(run, tool, size):
    """linuxrwlocks as GenMC's suite runs it, with its -D flags for `size` threads."""
    flags = ["-DCONFIG_RWLOCK_READERS=0", "-DCONFIG_RWLOCK_WRITERS=0", f"-DCONFIG_RWLOCK_RDWR={size}"]
    if tool == "nemos":
        return [run.nemos, "check", "--model", "rc11", "--unroll", "3", "--block-at-bound",
                "--no-liveness"] + flags + [RWLOCK]
    return [run.genmc, "-rc11", "-disable-estimation", "-unroll=3", "--"] + flags + [RWLOCK]


def measure(run, names, out):
    rows, disagreements = [], []
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            family = FAMILIES[name]
            stopped = set()
            for size in family["sizes"]:
                said = []
                for tool, source, kind, program in family["lines"]:
                    line = f"{tool} ({source})"
                    if (tool == "herd7" and not run.herd) or (tool == "genmc" and not run.genmc):
                        continue
                    if source == "corpus" and not os.path.isdir(GENMC_CORPUS):
                        continue
                    if line in stopped:
                        rows.append([name, size, line, "", "skipped", ""])
                        continue
                    if source == "corpus":
                        command, cwd = corpus_command(run, tool, size), GENMC_CORPUS
                    else:
                        path = os.path.join(folder, f"{name}-{size}.{'c' if source == 'c' else 'litmus'}")
                        with open(path, "w") as f:
                            f.write(program(size))
                        command, cwd = run.command(tool, kind, path), None
                    seconds, code, output = run.time(command, cwd)
                    if seconds is None:
                        stopped.add(line)
                        rows.append([name, size, line, f"{run.limit:.3f}", "limit", ""])
                    else:
                        said_now = answer(tool, kind, code, output)
                        rows.append([name, size, line, f"{seconds:.3f}", "done", said_now])
                        said.append((line, source, said_now))
                    print(f"{name:18} {size:4} {line:16} {rows[-1][3]:>8} {rows[-1][4]:8} {rows[-1][5]}",
                          flush=True)
                disagreements += differing(name, size, family["same"], said)
    with open(out, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["family", "size", "line", "seconds", "status", "answer"])
        writer.writerows(rows)
    return disagreements


def differing(name, size, same, said):
    """The points of one size whose answers differ where they must agree."""
    if same is not None:
        groups = {"all": [(line, same.get(value, value)) for line, _, value in said]}
    else:
        groups = {}
        for line, source, value in said:
            groups.setdefault(source, []).append((line, value))
    found = []
    for members in groups.values():
        if len({value for _, value in members}) > 1:
            found.append(f"{name} {size}: " + ", ".join(f"{line} says {value}" for line, value in members))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=float, default=30)
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--csv", default=os.path.join(ROOT, "docs", "scaling.csv"))
    parser.add_argument("--charts", default=os.path.join(ROOT, "docs", "charts"))
    parser.add_argument("--nemos", default=os.path.join(ROOT, "target", "release", "nemos"))
    parser.add_argument("--herd", default="/tmp/herd/herd7")
    parser.add_argument("--genmc", default="/tmp/genmc/genmc")
    parser.add_argument("--draw-only", action="store_true")
    args = parser.parse_args()
    if not args.draw_only:
        names = [n for n in args.families.split(",") if n]
        unknown = [n for n in names if n not in FAMILIES]
        if unknown:
            sys.exit(f"unknown families: {', '.join(unknown)} (known: {', '.join(FAMILIES)})")
        run = Run(args)
        for tool, there in (("herd7", run.herd), ("GenMC", run.genmc)):
            if not there:
                print(f"{tool} not found: its lines are left out", file=sys.stderr)
        disagreements = measure(run, names, args.csv)
        for line in disagreements:
            print("DISAGREE", line, file=sys.stderr)
    titles = [f"{n}={FAMILIES[n]['title']}|{FAMILIES[n]['axis']}" for n in FAMILIES]
    draw = ["cargo", "run", "--quiet", "--release", "--example", "draw-charts", "--",
            args.csv, args.charts] + titles
    sys.exit(subprocess.run(draw, cwd=ROOT).returncode)


if __name__ == "__main__":
    main()
