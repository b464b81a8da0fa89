#!/usr/bin/env python3
"""nemos and GenMC 0.11 side by side on GenMC's own suite (../shared/corpus/genmc).

For every row of expected.csv (a variant under a model, rc11 or sc) it runs nemos first,
one process per row, with the row's options mapped as tests/it/genmc_corpus.rs maps them:

    nemos check --format json --timeout T --model M [--unroll N --block-at-bound]
          [--no-liveness unless -check-liveness] [--ignore-races with -disable-race-detection]
          CFLAGS tests/VARIANT

and, when nemos reads the row (does not refuse the file, exit 2), GenMC on it as the CSV's
README says:

    genmc -M -disable-estimation GENMC_ARGS -- CFLAGS tests/VARIANT

both from the corpus folder, one after the other, each a whole process killed after T
seconds (60 unless --timeout). Each row's wall times and verdicts go to a CSV
(docs/genmc-side-by-side.csv unless --csv), and a Markdown table goes to standard output:
per category (the variant's first two folders; `wrong/*` also as one), the rows nemos reads
and decides, how many decided rows agree with GenMC's verdict of this run, and each tool's
total and worst time over the rows nemos reads, how many rows nemos takes more than 3
times GenMC's time on where GenMC needs more than 0.2 s, and GenMC's total over the same
rows as the CSV records it (`genmc_seconds`, measured when the corpus was made).

No execution counts are asked of nemos (`--count` is not given): the verdict only.

usage: scripts/genmc-side-by-side.py [--timeout 60] [--only PREFIX] [--limit N]
           [--nemos target/release/nemos] [--genmc /tmp/genmc/genmc] [--csv FILE]
       scripts/genmc-side-by-side.py --table FILE   (the table of a CSV written before)
GenMC 0.11 is built by ../shared/tools/build-genmc.sh (into /tmp/genmc).
"""
import argparse, csv, json, os, re, signal, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "genmc")

# nemos's names for a library's misuse (JSON `defects`) and GenMC's error for each, as in
# tests/it/genmc_corpus.rs.
LIBRARY_DEFECTS = {
    "an invalid barrier init": "Invalid barrier_init() operation",
    "a wait on an uninitialised barrier": "Attempt to read from uninitialized memory",
    "a wait on a destroyed barrier": "Attempt to access freed memory",
    "an invalid unlock": "Invalid unlock() operation",
    "a lock of a destroyed mutex": "Attempt to read from uninitialized memory",
}
MEMORY = {
    "access-freed": "Attempt to access freed memory",
    "access-non-allocated": "Attempt to access non-allocated memory",
    "read-uninitialized": "Attempt to read from uninitialized memory",
    "double-free": "Double-free error",
    "free-non-allocated": "Attempt to free non-allocated memory",
}
FIELDS = ["variant", "model", "category", "nemos_s", "nemos", "genmc_s", "genmc", "csv",
          "csv_genmc_s", "agree"]


def timed(argv, limit):
    """Run argv from the corpus folder: (wall seconds, exit code or None past the limit,
    stdout, stderr). The whole process group is killed at the limit."""
    start = time.monotonic()
    p = subprocess.Popen(argv, cwd=CORPUS, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, text=True, errors="replace",
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=limit)
        return time.monotonic() - start, p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return time.monotonic() - start, None, out, err


def unroll(row):
    m = re.search(r"-unroll=(\d+)", row["genmc_args"])
    return m.group(1) if m else None


def nemos_verdict(nemos, row, limit):
    """(seconds, verdict): `ok`, an error as GenMC words it (kinds joined by `;`),
    `refused: ...` (exit 2) or `undecided: ...`."""
    args = [nemos, "check", "--format", "json", "--timeout", str(limit), "--model", row["model"]]
    if unroll(row):
        args += ["--unroll", unroll(row), "--block-at-bound"]
    if "-check-liveness" not in row["genmc_args"]:
        args.append("--no-liveness")
    if "-disable-race-detection" in row["genmc_args"]:
        args.append("--ignore-races")
    args += row["cflags"].split() + ["tests/" + row["variant"]]
    wall, code, out, err = timed(args, limit + 5)
    if code is None:
        return wall, "undecided: time limit"
    try:
        r = json.loads(out)
    except ValueError:
        r = None
    if code == 2:
        message = (r or {}).get("error") or err
        first = next((l.strip() for l in message.splitlines() if l.strip()), "")
        return wall, "refused: " + first.lstrip("× ")[:120]
    if r is None:
        return wall, f"undecided: exit {code} without a result"
    if r.get("limit"):
        return wall, "undecided: " + str(r["limit"])
    kinds = [MEMORY.get(k, "unknown memory defect") for k in r.get("memory_defects") or []]
    for nemos_name, genmc_name in LIBRARY_DEFECTS.items():
        if nemos_name in (r.get("defects") or []) and genmc_name not in kinds:
            kinds.append(genmc_name)
    race = "undefined" in (r.get("flags") or []) and "-disable-race-detection" not in row["genmc_args"]
    if r.get("assertion_fails"):
        # Every kind named counts, a race beside the failed assertion too (`cks`: GenMC
        # meets the race first), as tests/it/genmc_corpus.rs counts them.
        return wall, ";".join(["Safety violation"] + kinds + ["Non-atomic race"] * race)
    if r.get("deadlock") is not None and "-check-liveness" in row["genmc_args"]:
        return wall, ";".join(["Liveness violation"] + kinds)
    if r.get("bound_hit"):
        return wall, "undecided: executions cut by the unrolling bound"
    if code not in (0, 1) or r.get("verdict") is None:
        return wall, f"undecided: exit {code}"
    if race:
        kinds.append("Non-atomic race")
    return wall, ";".join(kinds) if kinds else "ok"


def genmc_verdict(genmc, row, limit):
    """(seconds, verdict): `ok`, GenMC's error message, or `undecided: ...`."""
    args = [genmc, "-" + row["model"], "-disable-estimation"] + row["genmc_args"].split()
    args += ["--"] + row["cflags"].split() + ["tests/" + row["variant"]]
    wall, code, out, err = timed(args, limit)
    if code is None:
        return wall, "undecided: time limit"
    text = out + err
    m = re.search(r"^Error: (.*?)!?\s*$", text, re.M)
    if m:
        return wall, m.group(1)
    if "No errors were detected" in text:
        return wall, "ok"
    last = next((l.strip() for l in reversed(text.splitlines()) if l.strip()), "")
    return wall, f"undecided: exit {code}: {last[:100]}"


def agrees(nemos, genmc):
    """Both decided and the same: no error, or GenMC's error among nemos's kinds (GenMC
    stops at the first error its exploration meets; nemos names every kind)."""
    if nemos.startswith(("refused", "undecided")) or genmc.startswith("undecided"):
        return ""
    if genmc == "ok" or nemos == "ok":
        return "yes" if genmc == nemos else "no"
    return "yes" if genmc in nemos.split(";") else "no"


def category(variant):
    return "/".join(variant.split("/")[:2])


def table(results):
    groups = {}
    for r in results:
        groups.setdefault(r["category"], []).append(r)
        if r["category"].startswith("wrong/"):
            groups.setdefault("wrong/* (all)", []).append(r)
    lines = ["| category | rows | nemos reads | nemos decides | agree with GenMC | "
             "nemos total | nemos worst | GenMC total | GenMC worst | GenMC undecided | "
             "nemos > 3x GenMC (GenMC > 0.2 s) | GenMC total in the CSV |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in sorted(groups):
        rows = groups[name]
        read = [r for r in rows if not r["nemos"].startswith("refused")]
        decided = [r for r in read if not r["nemos"].startswith("undecided")]
        agree = sum(1 for r in decided if r["agree"] == "yes")
        judged = sum(1 for r in decided if r["agree"])
        nt = [float(r["nemos_s"]) for r in read]
        gt = [float(r["genmc_s"]) for r in read if r["genmc_s"] != ""]
        recorded = sum(float(r["csv_genmc_s"] or 0) for r in read)
        gu = sum(1 for r in read if r["genmc"].startswith("undecided"))
        slow = sum(1 for r in read if r["genmc_s"] != "" and float(r["genmc_s"]) > 0.2
                   and float(r["nemos_s"]) > 3 * float(r["genmc_s"]))
        fmt = lambda xs, f: f"{f(xs):.2f} s" if xs else "-"
        lines.append(f"| {name} | {len(rows)} | {len(read)} | {len(decided)} | {agree}/{judged} | "
                     f"{fmt(nt, sum)} | {fmt(nt, max)} | {fmt(gt, sum)} | {fmt(gt, max)} | "
                     f"{gu} | {slow} | {recorded:.2f} s |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--only", default="", help="rows whose variant starts with PREFIX")
    ap.add_argument("--limit", type=int, default=0, help="the first N rows only")
    ap.add_argument("--nemos", default=os.path.join(ROOT, "target", "release", "nemos"))
    ap.add_argument("--genmc", default="/tmp/genmc/genmc")
    ap.add_argument("--csv", default=os.path.join(ROOT, "docs", "genmc-side-by-side.csv"))
    ap.add_argument("--table", help="print the table of a CSV written before, run nothing")
    args = ap.parse_args()
    if args.table:
        with open(args.table) as f:
            print(table(list(csv.DictReader(f))))
        return
    with open(os.path.join(CORPUS, "expected.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["variant"].startswith(args.only)]
    if args.limit:
        rows = rows[:args.limit]
    results = []
    with open(args.csv, "w", newline="") as out:
        w = csv.DictWriter(out, fieldnames=FIELDS)
        w.writeheader()
        for i, row in enumerate(rows):
            ns, nv = nemos_verdict(args.nemos, row, args.timeout)
            gs, gv = ("", "")
            if not nv.startswith("refused"):
                gs, gv = genmc_verdict(args.genmc, row, args.timeout)
            want = row["error"] if row["verdict"] == "error" else "ok"
            r = {"variant": row["variant"], "model": row["model"],
                 "category": category(row["variant"]),
                 "nemos_s": f"{ns:.3f}", "nemos": nv,
                 "genmc_s": f"{gs:.3f}" if gs != "" else "", "genmc": gv, "csv": want,
                 "csv_genmc_s": row["genmc_seconds"], "agree": agrees(nv, gv) if gv else ""}
            results.append(r)
            w.writerow(r)
            out.flush()
            print(f"[{i + 1}/{len(rows)}] {row['variant']} {row['model']}: nemos {nv} "
                  f"{ns:.2f}s, genmc {gv} {gs if gs == '' else f'{gs:.2f}'}s",
                  file=sys.stderr, flush=True)
    print(table(results))


if __name__ == "__main__":
    main()
