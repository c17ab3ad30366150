#!/usr/bin/env python3
"""cardscan over a Dask distributed cluster: a crawl or a directory of dumps
split into shards, one task per shard, the summaries joined at the end.

    cardscan_dask.py --urls urls.txt --out OUT [--shard-size 10000] [-- FETCH FLAGS]
    cardscan_dask.py --dumps DIR --out OUT [-- CARDSCAN FLAGS]

With --scheduler tcp://HOST:8786 the tasks run on that cluster's workers;
without it, on a LocalCluster of --workers processes on this machine. Each
task runs, on its worker,

    cardscan fetch --urls SHARD --format cards --fail-on never --summary S
    cardscan --format jsonl --all --fail-on never --summary S SHARD

(a shard of a URL list travels with its task; a dump shard is one file of
DIR, chosen by cardscan's own rules for a directory: .json, .ndjson or
.jsonl, maybe .gz or .zst, regular files). OUT must be storage every worker
and this process see (NFS, a mounted bucket); cardscan must be installed at
--cardscan on every worker and here.

Exactly once: a task writes into a directory of its own attempt,
OUT/shards/.attempts/NNNNN.<random>/, and commits it with one rename(2) to
OUT/shards/NNNNN/. A rename onto an existing directory fails, so the first
attempt to finish wins whole, and a later one (a task the scheduler ran
again because it took its worker for dead) is dropped whole. A worker
killed mid-task leaves only an attempt directory that is never committed;
the scheduler runs the task again elsewhere. A committed shard is never run
again, and a run stopped goes on where it was when run again with the same
input, flags and OUT. When every shard is committed, this process joins the records of
OUT/shards/*/records.jsonl in shard order into OUT/records.jsonl and runs
cardscan summary merge into OUT/summary.json, each through a temporary file
and a rename, and removes the attempts left over.

Exit status: 0 when every shard was judged and joined (invalid cards are
data, not a failure), 1 when a shard failed, 2 for a usage error.
"""

import argparse
import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CARD_SUFFIXES = (".json", ".ndjson", ".jsonl")
COMPRESSED = (".gz", ".zst")


UMASK = os.umask(0)
os.umask(UMASK)


class ShardError(Exception):
    """cardscan failed on a shard in a way a retry may not mend."""


def is_card_file(path):
    """Whether cardscan's directory walk reads the file at path."""
    name = os.path.basename(path).lower()
    for suffix in COMPRESSED:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    if not name.endswith(CARD_SUFFIXES):
        return False
    try:
        return os.path.isfile(path)  # a link to a regular file counts
    except OSError:
        return False


def dump_shards(root):
    """The files of root cardscan would read, in lexical order of path."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in filenames:
            path = os.path.join(dirpath, name)
            if is_card_file(path):
                found.append(path)
    return sorted(found)


def url_shards(path, size):
    """The URL list's lines, blank lines and comments left out, in shards
    of size lines."""
    shard = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            url = line.strip()
            if not url or url.startswith("#"):
                continue
            shard.append(url)
            if len(shard) == size:
                yield shard
                shard = []
    if shard:
        yield shard


def count_lines(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def run_shard(index, kind, shard, out, cardscan, extra, kill_marker=None):
    """Judges one shard on a worker and commits its directory; returns the
    shard's directory. Safe to run again, and twice at once."""
    name = "%05d" % index
    final = os.path.join(out, "shards", name)
    if os.path.isdir(final):
        return final
    attempts = os.path.join(out, "shards", ".attempts")
    os.makedirs(attempts, exist_ok=True)
    work = os.path.join(attempts, "%s.%s" % (name, secrets.token_hex(8)))
    os.mkdir(work)
    records = os.path.join(work, "records.jsonl")
    summary = os.path.join(work, "summary.json")
    common = ["--fail-on", "never", "--summary", summary]
    if kind == "urls":
        listed = os.path.join(work, "urls.txt")
        with open(listed, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("".join(u + "\n" for u in shard))
        cmd = [cardscan, "fetch", "--urls", listed, "--format", "cards"] + common + extra
    else:
        cmd = [cardscan, "--format", "jsonl", "--all"] + common + extra + ["--", shard]
    with open(records, "wb") as rec, open(os.path.join(work, "stderr.txt"), "wb") as err:
        proc = subprocess.Popen(cmd, stdout=rec, stderr=err, stdin=subprocess.DEVNULL)
        if kill_marker is not None:
            kill_once(kill_marker, proc, records)
        status = proc.wait()
    with open(os.path.join(work, "stderr.txt"), "rb") as f:
        stderr = f.read().decode("utf-8", "replace").strip()
    if not os.path.exists(summary):
        raise ShardError("shard %s: cardscan exited %d without a summary: %s" % (name, status, stderr))
    with open(summary, encoding="utf-8") as f:
        sums = json.load(f)
    if kind == "urls":
        # Every URL yields one line of --format cards, its card and verdict
        # or the failure to get one; status 3 also means every URL failed, which
        # is data.
        lines = count_lines(records)
        if status not in (0, 1, 3) or sums["inputs"] != len(shard) or lines != len(shard):
            raise ShardError("shard %s: cardscan exited %d with %d records for %d URLs (summary: %d): %s"
                             % (name, status, lines, len(shard), sums["inputs"], stderr))
    elif status not in (0, 1) and not (status == 3 and sums["input_errors"] > 0):
        # 3 with input errors is a dump cardscan could not read in full: one
        # process over the directory counts it as well.
        raise ShardError("shard %s (%s): cardscan exited %d: %s" % (name, shard, status, stderr))
    if kind == "urls":
        os.remove(listed)
    try:
        os.rename(work, final)
    except OSError:
        if not os.path.isdir(final):
            raise
        # Another attempt committed first: its result stands whole.
        shutil.rmtree(work, ignore_errors=True)
    return final


def kill_once(marker, proc, records):
    """Fault injection for the recipe's test: the first task to create
    marker kills its own worker process once cardscan has written part of
    the shard's records (or ended), as a lost machine or an OOM kill would,
    before the attempt is committed."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return
    os.write(fd, b"%d\n" % os.getpid())
    os.close(fd)
    while proc.poll() is None and os.path.getsize(records) == 0:
        time.sleep(0.005)
    os.kill(os.getpid(), signal.SIGKILL)


def atomic_write(path, fill):
    """Writes path through a temporary file in its directory and a rename,
    so that a reader never sees it half written."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "wb") as f:
            fill(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~UMASK)
        os.rename(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def join(out, dirs, cardscan):
    """Joins the committed shards' records and summaries."""
    def records(f):
        for d in dirs:
            with open(os.path.join(d, "records.jsonl"), "rb") as r:
                shutil.copyfileobj(r, f)

    def summary(f):
        cmd = [cardscan, "summary", "merge"] + [os.path.join(d, "summary.json") for d in dirs]
        done = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, check=False)
        if done.returncode != 0:
            raise ShardError("summary merge exited %d: %s" % (done.returncode, done.stderr.decode("utf-8", "replace")))

    atomic_write(os.path.join(out, "records.jsonl"), records)
    atomic_write(os.path.join(out, "summary.json"), summary)
    shutil.rmtree(os.path.join(out, "shards", ".attempts"), ignore_errors=True)


def main(argv):
    p = argparse.ArgumentParser(
        description="Runs cardscan over a Dask cluster, one task per shard, and joins the summaries.",
        epilog="Flags after -- go to cardscan (fetch), e.g. -- -j 16 --per-host 2 --allow-private.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--urls", metavar="FILE", help="a URL list, one per line, fetched with cardscan fetch")
    src.add_argument("--dumps", metavar="DIR", help="a directory of dumps, one task per file")
    p.add_argument("--out", metavar="DIR", required=True,
                   help="where shards, records.jsonl and summary.json go (storage every worker sees)")
    p.add_argument("--shard-size", type=int, default=10000, metavar="N", help="URLs per task (default 10000)")
    p.add_argument("--scheduler", metavar="ADDR", help="a running cluster's scheduler, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--workers", type=int, default=2, metavar="N",
                   help="without --scheduler: worker processes of a local cluster (default 2)")
    p.add_argument("--cardscan", default="cardscan", metavar="PATH",
                   help="the cardscan binary, at the same path on every worker (default: cardscan on PATH)")
    p.add_argument("--retries", type=int, default=2, metavar="N", help="runs more of a shard that failed (default 2)")
    p.add_argument("--test-kill-once", metavar="MARKER", help=argparse.SUPPRESS)
    p.add_argument("extra", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.shard_size < 1 or args.workers < 1 or args.retries < 0:
        p.error("--shard-size and --workers must be at least 1, --retries at least 0")
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError as e:
        p.error("%s: install Dask's distributed (pip install distributed, or Debian's python3-distributed)" % e)

    out = os.path.abspath(args.out)
    if args.dumps:
        root = os.path.abspath(args.dumps)
        if not os.path.isdir(root):
            p.error("--dumps %s: not a directory" % args.dumps)
        if os.path.commonpath([root, out]) == root:
            p.error("--out %s is inside --dumps %s, which cardscan would read" % (args.out, args.dumps))
        shards = [("dumps", path) for path in dump_shards(root)]
    else:
        try:
            shards = [("urls", s) for s in url_shards(args.urls, args.shard_size)]
        except OSError as e:
            p.error("--urls %s: %s" % (args.urls, e.strerror))
    if not shards:
        p.error("nothing to do: no URL or no dump file")
    cardscan = args.cardscan
    if os.sep in cardscan:
        cardscan = os.path.abspath(cardscan)
    os.makedirs(os.path.join(out, "shards"), exist_ok=True)
    # Committed shards are kept, so that a run stopped goes on when run
    # again; they must be shards of the same plan.
    plan = hashlib.sha256(json.dumps([shards, args.extra]).encode("utf-8", "surrogateescape")).hexdigest() + "\n"
    plan_path = os.path.join(out, "shards", "plan.sha256")
    if os.path.exists(plan_path):
        with open(plan_path, encoding="utf-8") as f:
            if f.read() != plan:
                p.error("--out %s holds the shards of another input or other flags; give a new directory" % args.out)
    else:
        atomic_write(plan_path, lambda f: f.write(plan.encode()))


    cluster = None
    with dask.config.set({"temporary-directory": os.path.join(out, ".dask")}):
        if args.scheduler:
            client = Client(args.scheduler)
        else:
            cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
            client = Client(cluster)
        try:
            futures = [client.submit(run_shard, i, kind, shard, out, cardscan, args.extra, args.test_kill_once,
                                     key="cardscan-shard-%05d" % i, pure=False, retries=args.retries)
                       for i, (kind, shard) in enumerate(shards)]
            try:
                dirs = client.gather(futures)
            except Exception as e:  # ShardError, or KilledWorker after repeated deaths
                print("cardscan_dask: %s" % e, file=sys.stderr)
                return 1
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    try:
        join(out, dirs, cardscan)
    except (OSError, ShardError) as e:
        print("cardscan_dask: joining: %s" % e, file=sys.stderr)
        return 1
    shutil.rmtree(os.path.join(out, ".dask"), ignore_errors=True)
    print("cardscan_dask: %d shards joined into %s" % (len(dirs), out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
