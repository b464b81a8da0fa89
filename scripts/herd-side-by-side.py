#!/usr/bin/env python3
"""nemos and herd7 side by side on the LKMM corpus, with the kernel's own model files.

For each tier (core, rmw, lock, ptr, rcu, srcu, plain) it draws tests at random with a fixed
seed from ../shared/corpus/lkmm/LKMM-expected.csv and adds the tests herd7 is known not to
finish (missing from the CSV), then runs each test once under nemos and once under herd7,
one after the other in the same run, each a whole process with a 60 s limit:

    nemos check --format json --timeout 60 --conf MODEL/linux-kernel.cfg TEST
    herd7 -I HERDLIB -I MODEL -conf linux-kernel.cfg -t 60 TEST   (under `timeout 60`)

and prints a Markdown table: per tier, the tests, how many of nemos's verdicts agree with the
CSV, nemos's and herd7's median and worst wall time, and how many herd7 did not finish.

usage: scripts/herd-side-by-side.py [--per-tier 30] [--missing 3] [--seed 37]
           [--nemos target/release/nemos] [--herd /tmp/herd/herd7] [--json out.json]
herd7 7.58 is built by ../shared/tools/build-herd.sh (into /tmp/herd).
"""
import argparse, csv, json, os, random, re, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "lkmm")
MODEL = os.path.join(CORPUS, "model", "kernel")
TIERS = ["core", "rmw", "lock", "ptr", "rcu", "srcu", "plain"]


def tier(text):
    """The tier of a test, by what its threads call and access (first match wins)."""
    body = text.split("{", 1)[1] if "{" in text else text
    if "srcu" in body:
        return "srcu"
    if "rcu_" in body:
        return "rcu"
    if "spin_" in body:
        return "lock"
    if re.search(r"\b(xchg|cmpxchg|atomic_\w+)\s*\(", body):
        return "rmw"
    init = text.split("{", 1)[1].split("}", 1)[0] if "{" in text else ""
    # Pointers held in memory: an init entry or a parameter that holds an address.
    if re.search(r"=\s*&?[A-Za-z_]\w*\s*;", init) or re.search(r"\w+\s*\*\s*\*", body):
        return "ptr"
    # Plain accesses: a dereference outside the kernel's marked macros.
    threads = re.sub(r"(READ_ONCE|WRITE_ONCE|smp_\w+)\s*\([^;]*\)", "", body)
    threads = re.sub(r"P\d+\s*\([^)]*\)", "", threads)
    threads = re.sub(r"\b(int|intptr_t|long|unsigned|char|atomic_t|spinlock_t)\s*\*+", "", threads)
    if re.search(r"(^|[^\w)])\*\s*[A-Za-z_]\w*", threads.split("exists")[0]):
        return "plain"
    return "core"


def expected():
    rows = {}
    with open(os.path.join(CORPUS, "LKMM-expected.csv")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("//"):
                path, verdict = line.rsplit(",", 1)
                rows[path] = verdict == "1"
    return rows


def run_nemos(nemos, test):
    start = time.monotonic()
    p = subprocess.run([nemos, "check", "--format", "json", "--timeout", "60", "--conf",
                        os.path.join(MODEL, "linux-kernel.cfg"), test],
                       capture_output=True, text=True, timeout=120)
    wall = time.monotonic() - start
    try:
        r = json.loads(p.stdout)
    except ValueError:
        return wall, None, p.stderr.strip()[:200]
    if r.get("error") or r.get("limit"):
        return wall, None, str(r.get("error") or r.get("limit"))[:200]
    obs = r.get("observation")
    forall = r.get("condition", "").startswith("forall")
    reach = obs == "Always" if forall else obs in ("Always", "Sometimes")
    return wall, reach, None


def run_herd(herd, lib, test):
    start = time.monotonic()
    try:
        p = subprocess.run(["timeout", "60", herd, "-I", lib, "-I", MODEL, "-conf",
                            "linux-kernel.cfg", test], capture_output=True, text=True,
                           timeout=90)
    except subprocess.TimeoutExpired:
        return time.monotonic() - start, None
    wall = time.monotonic() - start
    m = re.search(r"^Observation \S+ (Always|Sometimes|Never)", p.stdout, re.M)
    if not m:
        return wall, None
    quant = re.search(r"^(exists|forall|~exists)", open(test).read(), re.M)
    obs = m.group(1)
    if quant and quant.group(1) == "forall":
        return wall, obs == "Always"
    return wall, obs != "Never"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-tier", type=int, default=30)
    ap.add_argument("--missing", type=int, default=3)
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--nemos", default=os.path.join(ROOT, "target", "release", "nemos"))
    ap.add_argument("--herd", default="/tmp/herd/herd7")
    ap.add_argument("--herd-lib", default="/tmp/herd/libdir")
    ap.add_argument("--json")
    ap.add_argument("--tiers", default=",".join(TIERS))
    args = ap.parse_args()
    rows = expected()
    tests_dir = os.path.join(CORPUS, "tests")
    by_tier = {t: [] for t in TIERS}
    missing = {t: [] for t in TIERS}
    for dirpath, _, files in os.walk(tests_dir):
        for name in files:
            if not name.endswith(".litmus"):
                continue
            path = os.path.join(dirpath, name)
            key = os.path.relpath(path, tests_dir)
            text = open(path, encoding="latin-1").read()
            (by_tier if key in rows else missing)[tier(text)].append(key)
    rng = random.Random(args.seed)
    results = []
    print("| tier | tests | nemos agrees with the CSV | nemos median | nemos worst | herd7 median | herd7 worst | herd7 unfinished in 60 s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for t in args.tiers.split(","):
        pool = sorted(by_tier[t])
        chosen = rng.sample(pool, min(args.per_tier, len(pool)))
        extra = sorted(missing[t])
        chosen += rng.sample(extra, min(args.missing, len(extra)))
        nt, ht, agree, unfinished, decided = [], [], 0, 0, 0
        for key in chosen:
            path = os.path.join(tests_dir, key)
            nw, nv, err = run_nemos(args.nemos, path)
            hw, hv = run_herd(args.herd, args.herd_lib, path)
            want = rows.get(key)
            nt.append(nw)
            ht.append(hw)
            if hv is None:
                unfinished += 1
            if want is not None:
                decided += 1
                agree += int(nv == want)
            results.append({"tier": t, "test": key, "nemos_s": nw, "nemos": nv, "error": err,
                            "herd_s": hw, "herd": hv, "csv": want})
            print(f"  {t} {key}: nemos {nv} {nw:.2f}s herd {hv} {hw:.2f}s csv {want}"
                  + (f" ({err})" if err else ""), file=sys.stderr)
        print(f"| {t} | {len(chosen)} ({len(chosen) - decided} missing from the CSV) | "
              f"{agree}/{decided} | {statistics.median(nt):.2f} s | {max(nt):.2f} s | "
              f"{statistics.median(ht):.2f} s | {max(ht):.2f} s | {unfinished} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
