#!/usr/bin/env python3
"""cardscan over a Dask distributed cluster: a crawl or a directory of dumps
split into shards, one task per shard, the summaries joined at the end.

    cardscan_dask.py --urls urls.txt --out OUT [--shard-size 10000] [-- FETCH FLAGS]
    cardscan_dask.py --dumps DIR --out OUT [--shards N] [-- CARDSCAN FLAGS]

With --scheduler tcp://HOST:8786 the tasks run on that cluster's workers;
without it, on a LocalCluster of --workers processes on this machine. Each
task runs, on its worker,

    cardscan fetch --urls SHARD --format cards --fail-on never --summary S
    cardscan --format jsonl --all --fail-on never --summary S \
        --shard I/N --digest-out D DIR

A shard of a URL list travels with its task. A dump shard is cardscan's
own shard contract: every task is given all of DIR and judges slice I of N
of it (by file, or by record when N is more than DIR's files), so the
slices cover every record once whatever this script knows of DIR; --shards
defaults to the number of files cardscan would read in DIR. Each dump task
also writes the digest of its cards' identities, endpoints and contents,
and the join runs cardscan merge over them: OUT/cross-card.jsonl holds the
--cross-card findings one process over DIR would write, across shards.
OUT must be storage every worker and this process see (NFS, a mounted
bucket); cardscan must be installed at --cardscan on every worker and here.

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
and a rename, and removes the attempts left over. Of dumps, it runs
cardscan merge over the shards' digests into OUT/cross-card.jsonl (jsonl
findings), and adds the merge's counts to OUT/summary.json.

Exit status: 0 when every shard was judged and joined (invalid cards are
data, not a failure), 1 when a shard failed, 2 for a usage error, 3 when
a dump could not be read in full: the records and the summary are joined
(they count the input error, as one process's would), but a shard that
could not read an input writes no digest, so there is no cross-card.jsonl
(its findings would miss that input's claims).
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


# cardscan fetch --urls's bound: a longer line is no URL, skipped unread.
MAX_URL_LINE = 64 << 10
BOM = b"\xef\xbb\xbf"
# The white space Go's strings.TrimSpace trims, as fetch trims a line.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def url_lines(f):
    """Yields (line number, raw line) of the binary file f as cardscan fetch
    --urls reads it: a line ends at \n alone (a lone \r is within it), a
    byte order mark opening the file is no part of its first line, and a
    line longer than MAX_URL_LINE (its line end aside) is read to its end
    without being held and yielded as None."""
    number = 0
    while True:
        number += 1
        line = f.readline(MAX_URL_LINE + 3)
        if not line:
            return
        if len(line) > MAX_URL_LINE + 2:
            while not line.endswith(b"\n"):
                line = f.readline(1 << 20)
                if not line:
                    break
            yield number, None
            continue
        if number == 1 and line.startswith(BOM):
            line = line[len(BOM):]
        yield number, line


def url_shards(path, size, skipped=None):
    """The URL list's URLs, blank lines and comments left out, in shards of
    size lines, read as cardscan fetch --urls reads them. A line too long
    to be a URL is reported on stderr as fetch reports it, and its number
    added to skipped."""
    shard = []
    with open(path, "rb") as f:
        for number, line in url_lines(f):
            if line is None:
                print("cardscan_dask: --urls %s:%d: longer than %d bytes: not a URL; skipped"
                      % (path, number, MAX_URL_LINE), file=sys.stderr)
                if skipped is not None:
                    skipped.append(number)
                continue
            url = line.decode("utf-8", "surrogateescape").strip(GO_SPACE)
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
    shard's directory. Safe to run again, and twice at once. A dump shard is
    (DIR, N): slice index of N of DIR."""
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
        root, count = shard
        digest = os.path.join(work, "claims.digest")
        cmd = ([cardscan, "--format", "jsonl", "--all", "--shard", "%d/%d" % (index, count), "--digest-out", digest]
               + common + extra + ["--", root])
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
        # process over the directory counts it as well (and the shard
        # writes no digest, which the join reports).
        raise ShardError("shard %s (%d/%d of %s): cardscan exited %d: %s" % (name, index, shard[1], shard[0], status, stderr))
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


def join(out, dirs, cardscan, dumps):
    """Joins the committed shards' records and summaries and, of dumps,
    merges their digests into the cross-card findings. Returns the shards
    that wrote no digest (they could not read an input)."""
    def records(f):
        for d in dirs:
            with open(os.path.join(d, "records.jsonl"), "rb") as r:
                shutil.copyfileobj(r, f)

    summaries = [os.path.join(d, "summary.json") for d in dirs]
    digests = [os.path.join(d, "claims.digest") for d in dirs]
    undigested = [d for d, p in zip(dirs, digests) if not os.path.exists(p)] if dumps else []
    merge_summary = None
    try:
        if dumps and not undigested:
            fd, merge_summary = tempfile.mkstemp(dir=out, prefix=".cross-card-summary.")
            os.close(fd)
            summaries.append(merge_summary)

            def cross_card(f):
                cmd = [cardscan, "merge", "--format", "jsonl", "--summary", merge_summary] + digests
                done = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, check=False)
                if done.returncode not in (0, 1):  # 1: a finding at error level
                    raise ShardError("merge exited %d: %s" % (done.returncode, done.stderr.decode("utf-8", "replace")))
            atomic_write(os.path.join(out, "cross-card.jsonl"), cross_card)

        def summary(f):
            cmd = [cardscan, "summary", "merge"] + summaries
            done = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, check=False)
            if done.returncode != 0:
                raise ShardError("summary merge exited %d: %s" % (done.returncode, done.stderr.decode("utf-8", "replace")))

        atomic_write(os.path.join(out, "records.jsonl"), records)
        atomic_write(os.path.join(out, "summary.json"), summary)
    finally:
        if merge_summary is not None:
            os.unlink(merge_summary)
    shutil.rmtree(os.path.join(out, "shards", ".attempts"), ignore_errors=True)
    return undigested


def main(argv):
    p = argparse.ArgumentParser(
        description="Runs cardscan over a Dask cluster, one task per shard, and joins the summaries.",
        epilog="Flags after -- go to each task's cardscan fetch with --urls, to cardscan with --dumps, "
               "e.g. -- -j 16 --per-host 2 --allow-private with --urls, -- --profile a2a/1.0 with --dumps.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--urls", metavar="FILE", help="a URL list, one per line, split into tasks of --shard-size URLs, each fetched with cardscan fetch")
    src.add_argument("--dumps", metavar="DIR", help="a directory of dumps, split into --shards tasks, each judging its slice of DIR with cardscan --shard I/N")
    p.add_argument("--out", metavar="DIR", required=True,
                   help="where shards, records.jsonl and summary.json go (storage every worker sees)")
    p.add_argument("--shard-size", type=int, default=10000, metavar="N", help="URLs per task (default 10000)")
    p.add_argument("--shards", type=int, metavar="N",
                   help="dump tasks, each cardscan --shard I/N of DIR (default: the number of files in DIR)")
    p.add_argument("--scheduler", metavar="ADDR", help="a running cluster's scheduler, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--workers", type=int, default=2, metavar="N",
                   help="without --scheduler: worker processes of a local cluster (default 2)")
    p.add_argument("--cardscan", default="cardscan", metavar="PATH",
                   help="the cardscan binary, at the same path on every worker (default: cardscan on PATH)")
    p.add_argument("--retries", type=int, default=2, metavar="N", help="runs more of a shard that failed (default 2)")
    p.add_argument("--test-kill-once", metavar="MARKER", help=argparse.SUPPRESS)
    p.add_argument("extra", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.shard_size < 1 or args.workers < 1 or args.retries < 0 or (args.shards is not None and args.shards < 1):
        p.error("--shard-size, --shards and --workers must be at least 1, --retries at least 0")
    if args.shards is not None and not args.dumps:
        p.error("--shards slices --dumps; a URL list is split by --shard-size")

    out = os.path.abspath(args.out)
    skipped = []  # lines of --urls too long to be a URL
    if args.dumps:
        root = os.path.abspath(args.dumps)
        if not os.path.isdir(root):
            p.error("--dumps %s: not a directory" % args.dumps)
        if os.path.commonpath([root, out]) == root:
            p.error("--out %s is inside --dumps %s, which cardscan would read" % (args.out, args.dumps))
        files = dump_shards(root)
        count = args.shards or len(files)
        # The files are in the plan so that a run over a changed directory
        # does not join shards of the old one.
        plan_input = [root, count, files]
        shards = [("dumps", (root, count))] * count if files else []
    else:
        try:
            shards = [("urls", s) for s in url_shards(args.urls, args.shard_size, skipped)]
            plan_input = shards
        except OSError as e:
            p.error("--urls %s: %s" % (args.urls, e.strerror))
    if not shards:
        p.error("nothing to do: no URL or no dump file")
    cardscan = args.cardscan
    if os.sep in cardscan:
        cardscan = os.path.abspath(cardscan)
    try:
        os.makedirs(os.path.join(out, "shards"), exist_ok=True)
    except OSError as e:
        # A file where the directory goes, or one that cannot be made.
        p.error("--out %s: %s" % (args.out, e.strerror or e))
    # Dask is imported once the flags and --out are known good, so that a
    # mistake in them is named first, and before the plan is written, so
    # that a run stopped for want of it leaves no plan behind.
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError as e:
        p.error("%s: install Dask's distributed (pip install distributed, or Debian's python3-distributed)" % e)
    # Committed shards are kept, so that a run stopped goes on when run
    # again; they must be shards of the same plan.
    plan = hashlib.sha256(json.dumps([plan_input, args.extra]).encode("utf-8", "surrogateescape")).hexdigest() + "\n"
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
        undigested = join(out, dirs, cardscan, bool(args.dumps))
    except (OSError, ShardError) as e:
        print("cardscan_dask: joining: %s" % e, file=sys.stderr)
        return 1
    shutil.rmtree(os.path.join(out, ".dask"), ignore_errors=True)
    print("cardscan_dask: %d shards joined into %s" % (len(dirs), out), file=sys.stderr)
    if undigested:
        print("cardscan_dask: no cross-card.jsonl: %s could not read an input in full (see stderr.txt there)"
              % ", ".join(undigested), file=sys.stderr)
        return 3
    if skipped:
        # As cardscan fetch: the URLs were fetched, the lines that were
        # none reported above, and the run ends in status 3.
        print("cardscan_dask: %d line(s) of --urls %s skipped as too long to be a URL"
              % (len(skipped), args.urls), file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
